//! One option singled out against all the others: "⑤는 제시문에 부합하지 않는 유일한
//! 선택지입니다", "③번이 더 적절한 설명입니다. 다른 선택지들은 근거가 부족합니다",
//! "Option B is the only one that fits; the other options do not."
//!
//! Commits only when exactly one option is named in a sentence with the question's polarity
//! (negative for "…않은 것은?", positive otherwise), a cue singles it out (유일, 다른
//! 선택지, 나머지, only, the other options), a sentence about the other options, if any,
//! has the opposite polarity, and every other option named is named in such a sentence
//! (rejected: "①과 ②는 틀렸고, ③이 유일하게 옳다").

use super::words::{answer_keyword, is_hedge, lower};
use super::{Ctx, Resolved};
use crate::verify::cues::Family;
use crate::verify::scan::Kind;
use crate::verify::{Choice, Extraction, Rule};
use std::ops::Range;

/// Hangul stems that make a sentence negative.
const NEGATIVE: [&str; 17] = [
    "않",
    "아니",
    "아닌",
    "아님",
    "아닙",
    "틀",
    "없",
    "잘못",
    "부적절",
    "부족",
    "오류",
    "거짓",
    "그르",
    "못",
    "어긋",
    // "사실과 다르다/다릅니다/다르며" (not 다른, "other").
    "다르",
    "다릅",
];

/// Hangul stems that call an option so.
pub(super) const POSITIVE: [&str; 10] = [
    "옳",
    "맞",
    "적절",
    "부합",
    "일치",
    "타당",
    "올바르",
    "올바릅",
    "정확",
    "사실이",
];

/// Words that deny what comes before them ("옳지 않다", "맞지 않는", "틀리지 않았다").
const NEGATORS: [&str; 4] = ["않", "아니", "아닌", "없"];

/// Stems that call a thing wrong by themselves (not by denying it): denied, they say it is
/// right ("틀리지 않은").
const INHERENTLY_NEGATIVE: [&str; 7] = ["틀", "잘못", "부적절", "오류", "거짓", "그르", "다르"];

/// Words that, before a noun for options, refer to the other options as a group (each
/// covered by a `Singling` cue in cues.rs).
const OTHERS: [&str; 2] = ["다른", "나머지"];

/// Nouns for options.
const OPTION_NOUNS: [&str; 5] = ["선택지", "보기", "옵션", "항목", "답"];

impl Ctx<'_> {
    pub(super) fn singled_out(&self) -> Option<Extraction> {
        let sentences = super::mask::sentences(&self.toks);
        let asked_negative = self.asks_negative();
        // Every label, by the judgement of its clause: the one the question asks for
        // (`named`, at most one choice) and the options rejected ("①은 틀렸고 ②도 틀렸다").
        // A sentence that also speaks of "the others" is judged in two parts, the label's
        // and the others' ("②는 유일하게 옳고, 나머지는 틀렸다").
        let mut named: Option<(usize, Range<usize>, usize)> = None;
        let mut rejected = Vec::new();
        for (n, s) in sentences.iter().enumerate() {
            for part in self.parts(s) {
                // "④는 확실히 답이 아닙니다": not the answer, whatever the ask.
                let asked =
                    self.negative(&part) == asked_negative && !self.says_not_the_answer(&part);
                for j in part.clone() {
                    if self.is_masked(j) || !self.is_label_mark(j) {
                        continue;
                    }
                    let Resolved::In(c) = self.label_at(j)? else {
                        return None;
                    };
                    // A label that starts a copy of the option list restates options; it judges
                    // none ("(1) 사실의 인정은 …\n(2) …").
                    if self.restated_list_at(j) {
                        return None;
                    }
                    if !asked {
                        // A rejection says so: for a question asking what is not so, the other
                        // options must be called so ("①은 옳다"), not merely mentioned.
                        if asked_negative && !self.positive(s) {
                            return None;
                        }
                        // A label in a sentence that singles out or sets apart "the others" is
                        // the one singled out, whatever that sentence's polarity.
                        if s.clone()
                            .any(|x| self.is_only_cue(x) || self.is_others_cue(x))
                        {
                            return None;
                        }
                        // Nor is a label followed by its own option's words a rejection of it.
                        let next = (j + 1..s.end).find(|&x| self.is_label_mark(x));
                        if self.restates_option(j, next.unwrap_or(s.end), c.position()) {
                            return None;
                        }
                        rejected.push(c);
                        continue;
                    }
                    match &named {
                        Some((k, ..)) if self.choice_at(*k) != Some(c) => return None,
                        Some(_) => {}
                        None => named = Some((j, part.clone(), n)),
                    }
                }
            }
        }
        let (label, home, home_sentence) = named?;
        // An answer that also declines ("모르겠습니다", "I cannot tell") singles nothing out;
        // nor, when it names other options too, one with answer statements that decided
        // nothing or text addressed to a grader: such a text is not a plain elimination.
        if self.cues.has(Family::Refusal)
            || (!rejected.is_empty()
                && (!self.statements().0.is_empty() || self.masked.iter().any(|&m| m)))
        {
            return None;
        }
        let choice = self.choice_at(label)?;
        // "The answer is C in the old edition only": an answer under old rules is not singled
        // out by its "only".
        if rejected.contains(&choice)
            || self.under_old_rules(label, label + 1)
            || self.questioned_after(label)
            || self.toks.iter().any(|t| is_hedge(t, self.text))
            || self.doubted_before(self.toks.len())
        {
            return None;
        }
        // The label's own clause must say one thing: not "유일하게 옳은 것은 ②이고 그 외는
        //틀렸다" (both judgements, one of them about something else) nor "틀리지 않은"
        // (a double negative).
        if self.polarity_unclear(&home) {
            return None;
        }
        let only = home.clone().any(|j| self.is_only_cue(j));
        // "Only C remains uncertain", "C is the only option I can rule out": an "only" that
        // judges nothing singles nothing out.
        if only && !self.judges_something(&home) {
            return None;
        }
        // What is said of the other options: whole sentences about them, and the others'
        // part of the label's own sentence.
        let mut others: Vec<Range<usize>> = Vec::new();
        let mut others_named = false;
        for (n, s) in sentences.iter().enumerate() {
            if !s.clone().any(|j| self.is_others_cue(j)) {
                continue;
            }
            others_named = true;
            if n == home_sentence {
                others.extend(self.parts(s).into_iter().filter(|p| *p != home));
            } else {
                others.push(s.clone());
            }
        }
        if !only && !others_named {
            return None;
        }
        // The other options get the opposite judgement, said plainly.
        if others
            .iter()
            .any(|s| self.negative(s) == asked_negative || self.polarity_unclear(s))
        {
            return None;
        }
        Some(Extraction::Answer {
            choice,
            rule: Rule::SingledOut,
            span: self.span(label, label),
        })
    }

    /// Do the tokens `s` reject the options named in `labels` and `s`, as the explanation
    /// after a leading answer does ("- ①: '40.5m'는 해당하지 않습니다"; "1번: …는 맞는
    /// 내용입니다" on a question asking what is not so): one plain judgement opposite to the
    /// question's, no hedge, and none of the labels `chosen` or outside the set?
    pub(super) fn rejects_options(
        &self,
        labels: &Range<usize>,
        s: &Range<usize>,
        chosen: Choice,
    ) -> bool {
        self.judges_not_asked(s)
            && !self.polarity_unclear(s)
            && !s
                .clone()
                .any(|j| is_hedge(&self.toks[j], self.text) || self.doubts(j))
            && labels.clone().chain(s.clone()).all(|j| {
                !self.is_label_mark(j)
                    || matches!(self.label_at(j), Some(Resolved::In(c)) if c != chosen)
            })
    }

    /// Is token `j` a word of doubt, not of rejection ("1. 확실하지 않습니다": unsure, not
    /// "option 1 is not so"; "확실히 틀렸다" is a rejection)?
    fn doubts(&self, j: usize) -> bool {
        match self.toks[j].kind {
            Kind::Hangul => {
                let w = self.word(j);
                [
                    "확실하지",
                    "확실치",
                    "확신",
                    "모르",
                    "헷갈",
                    "불확실",
                    "애매",
                ]
                .iter()
                .any(|d| w.starts_with(d))
            }
            Kind::Latin => matches!(
                lower(self.word(j)).as_str(),
                "sure" | "unsure" | "uncertain"
            ),
            _ => false,
        }
    }

    /// Before token `k`, is choice `c` rejected, named (by label or option text) in a clause
    /// that judges it opposite to the question's ask ("직업선택의 권리는 자유권이라
    /// 틀립니다. 2번.", "A: 인가는 … 해당하지 않습니다. 따라서 A"), or is doubt expressed
    /// ("나머지도 확신이 서지 않습니다. ①.")? A conclusion that lands there is not plain.
    pub(super) fn rejected_before(&self, c: Choice, k: usize) -> bool {
        if self.doubted_before(k) {
            return true;
        }
        // The option text's first character: most words cannot start it.
        let first = self
            .squashed_option(c)
            .filter(|o| o.chars().count() >= 2)
            .and_then(|o| o.chars().next());
        (0..k).any(|j| {
            let names = (self.is_label_mark(j) && self.choice_at(j) == Some(c))
                || first.is_some_and(|f| {
                    matches!(self.toks[j].kind, Kind::Hangul | Kind::Latin | Kind::Number)
                        && self
                            .word(j)
                            .chars()
                            .next()
                            .is_some_and(|w| w.to_ascii_lowercase() == f)
                        && self.option_text_at(j) == Some(c)
                });
            if !names {
                return false;
            }
            // The sentence, or the clause when the sentence speaks of other options too
            // ("①은 틀렸고 ③은 맞습니다", "…에 부합하며, 나머지는 잘못되었습니다").
            let within = |boundary: &dyn Fn(usize) -> bool| {
                let start = (0..j).rev().find(|&x| boundary(x)).map_or(0, |x| x + 1);
                let end = (j..k).find(|&x| boundary(x)).map_or(k, |x| x + 1);
                start..end
            };
            let sentence = within(&|x| self.toks[x].is_sentence_end());
            let others = sentence.clone().any(|x| {
                (self.is_label_mark(x) && self.choice_at(x).is_some_and(|o| o != c))
                    || self.is_others_cue(x)
            });
            let part = if others {
                within(&|x| self.toks[x].is_sentence_end() || self.ends_clause(x))
            } else {
                sentence
            };
            self.says_not_the_answer(&part) || self.judges_not_asked(&part)
        })
    }

    /// Do the tokens `s` say "not the answer", whatever the ask: "…이므로 오답입니다", "답이
    /// 아닙니다", "정답이 될 수 없습니다"?
    pub(super) fn says_not_the_answer(&self, s: &Range<usize>) -> bool {
        // "…is not the answer", "isn't the right answer": a not at most three words before.
        let latin_not = |x: usize| {
            self.is_latin(x)
                && self.word(x).eq_ignore_ascii_case("answer")
                && (x.saturating_sub(3)..x).any(|y| {
                    self.is_latin(y) && matches!(lower(self.word(y)).as_str(), "not" | "isn")
                })
        };
        s.clone().any(|x| {
            latin_not(x)
                || (self.is_hangul(x)
                    && (self.word(x).starts_with("오답")
                        || answer_keyword(self.word(x)).is_some_and(|(_, suffix)| {
                            suffix.contains("아니")
                                || (self.is_hangul(x + 1)
                                    && ["아니", "아닙", "아님", "될"]
                                        .iter()
                                        .any(|p| self.word(x + 1).starts_with(p)))
                        })))
        })
    }

    /// Do the tokens `s` judge what they name the opposite of what the question asks
    /// (negative for a positive ask: "해당하지 않습니다"; positive for a 'not' ask: "맞는
    /// 내용입니다")?
    pub(super) fn judges_not_asked(&self, s: &Range<usize>) -> bool {
        if self.asks_negative() {
            self.positive(s) && !self.negative(s)
        } else {
            self.negative(s)
        }
    }

    /// Is doubt expressed before token `k`: "확신이 서지 않습니다", "모르겠지만", "아마",
    /// "maybe"? (Not "또는", which joins the words of an option text; "③일 수도" is a hedge,
    /// read where labels are.)
    fn doubted_before(&self, k: usize) -> bool {
        self.cues.has(Family::Doubt)
            && (0..k).any(|j| match self.toks[j].kind {
                Kind::Hangul => {
                    let w = self.word(j);
                    ["확신", "모르", "헷갈", "불확실", "아마"]
                        .iter()
                        .any(|d| w.contains(d))
                }
                Kind::Latin => matches!(
                    lower(self.word(j)).as_str(),
                    "maybe" | "perhaps" | "possibly" | "unsure"
                ),
                _ => false,
            })
    }

    /// Does the question ask for what is not so ("…적절하지 않은 것은?", "Which … is NOT")?
    pub(super) fn asks_negative(&self) -> bool {
        self.asks_negative
    }

    /// A sentence that speaks of "the others" as well, in two parts: the clause without the
    /// cue and the clause from it ("②만 틀렸고 | 나머지는 모두 옳다", "나머지는 옳지만 | ③은
    /// 그렇지 않다"). With the cue first, the others' clause ends at a comma or a clause
    /// ending (-고, -며, -지만, -으나, -는데); with none, the sentence stays whole.
    fn parts(&self, s: &Range<usize>) -> Vec<Range<usize>> {
        let Some(cue) = s.clone().find(|&j| self.is_others_cue(j)) else {
            return vec![s.clone()];
        };
        if s.clone()
            .take_while(|&j| j < cue)
            .any(|j| self.is_label_mark(j))
        {
            return vec![s.start..cue, cue..s.end];
        }
        match (cue..s.end).find(|&j| self.ends_clause(j)) {
            Some(b) if b + 1 < s.end => vec![s.start..b + 1, b + 1..s.end],
            _ => vec![s.clone()],
        }
    }

    /// Does token `j` end a clause: a comma or semicolon, or a connective ending ("틀렸고",
    /// "옳으며", "옳지만", "맞으나", "다른데", "while")? Quotatives ("옳다고") do not.
    fn ends_clause(&self, j: usize) -> bool {
        match self.toks[j].kind {
            Kind::Punct(',' | ';') => true,
            Kind::Hangul => {
                let w = self.word(j);
                ["고", "며", "지만", "으나", "는데", "반면"]
                    .iter()
                    .any(|e| w.ends_with(e))
                    && !["다고", "라고", "냐고", "자고"]
                        .iter()
                        .any(|e| w.ends_with(e))
            }
            Kind::Latin => matches!(lower(self.word(j)).as_str(), "while" | "whereas" | "but"),
            _ => false,
        }
    }

    /// Is the Hangul word `j` denied by the next one ("옳지 않다", "부합하지 않는")?
    fn denied(&self, j: usize) -> bool {
        self.is_hangul(j + 1) && NEGATORS.iter().any(|n| self.word(j + 1).starts_with(n))
    }

    /// Does a clause say two things: a judgement and its opposite ("유일하게 옳은 것은 ②이고
    /// 그 외는 틀렸다", "the only true one … the rest are false"), or a double negative
    /// ("틀리지 않은", "not incorrect")? Which judgement a label gets is then not plain.
    fn polarity_unclear(&self, s: &Range<usize>) -> bool {
        let latin_negated = |j: usize| {
            (j.saturating_sub(3)..j).any(|k| {
                self.is_latin(k)
                    && matches!(
                        lower(self.word(k)).as_str(),
                        "not" | "isn" | "aren" | "doesn" | "don" | "never" | "no"
                    )
            })
        };
        let mut bare_positive = false;
        let mut negative = false;
        for j in s.clone() {
            match self.toks[j].kind {
                Kind::Hangul => {
                    let w = self.word(j);
                    if is_negative(w) {
                        negative = true;
                        // "틀리지 않은", "잘못되지 않았다": a wrong thing denied.
                        if INHERENTLY_NEGATIVE.iter().any(|n| w.contains(n)) && self.denied(j) {
                            return true;
                        }
                    } else if POSITIVE.iter().any(|p| w.starts_with(p)) && !self.denied(j) {
                        bare_positive = true;
                    }
                }
                Kind::Latin => {
                    let w = lower(self.word(j));
                    let positive = matches!(
                        w.as_str(),
                        "correct" | "true" | "right" | "appropriate" | "accurate" | "valid"
                    );
                    let wrong = matches!(
                        w.as_str(),
                        "incorrect" | "wrong" | "false" | "inaccurate" | "inappropriate"
                    );
                    if wrong && latin_negated(j) {
                        return true;
                    }
                    if positive && !latin_negated(j) {
                        bare_positive = true;
                    }
                    negative |= wrong
                        || matches!(
                            w.as_str(),
                            "not" | "isn" | "aren" | "doesn" | "don" | "never" | "cannot"
                        );
                }
                _ => {}
            }
        }
        bare_positive && negative
    }

    /// Does the sentence call something so ("옳다", "적절합니다", "is correct")?
    pub(super) fn positive(&self, s: &Range<usize>) -> bool {
        s.clone().any(|j| match self.toks[j].kind {
            Kind::Hangul => {
                let w = self.word(j);
                POSITIVE.iter().any(|p| w.starts_with(p)) && !is_negative(w) && !self.denied(j)
            }
            Kind::Latin => matches!(
                lower(self.word(j)).as_str(),
                "correct" | "true" | "right" | "appropriate" | "accurate" | "valid"
            ),
            _ => false,
        })
    }

    pub(super) fn negative(&self, s: &Range<usize>) -> bool {
        s.clone().any(|j| match self.toks[j].kind {
            Kind::Hangul => is_negative(self.word(j)),
            Kind::Latin => matches!(
                lower(self.word(j)).as_str(),
                "not"
                    | "incorrect"
                    | "wrong"
                    | "false"
                    | "inaccurate"
                    | "cannot"
                    | "isn"
                    | "doesn"
                    | "don"
                    | "aren"
                    | "inappropriate"
                    | "neither"
                    | "none"
            ),
            _ => false,
        })
    }

    /// Do the tokens `s` call something right or wrong, or the answer ("옳", "틀", "해당",
    /// "correct", "wrong", "answer")?
    fn judges_something(&self, s: &Range<usize>) -> bool {
        s.clone().any(|j| match self.toks[j].kind {
            Kind::Hangul => {
                let w = self.word(j);
                is_negative(w)
                    || POSITIVE.iter().any(|p| w.starts_with(p))
                    || ["해당", "정답", "답"].iter().any(|p| w.starts_with(p))
            }
            Kind::Latin => {
                matches!(
                    lower(self.word(j)).as_str(),
                    "correct"
                        | "true"
                        | "right"
                        | "appropriate"
                        | "accurate"
                        | "valid"
                        | "answer"
                        | "fits"
                        | "matches"
                        | "applies"
                        | "consistent"
                        | "satisfies"
                ) || self.negative(&(j..j + 1))
                    // "C is the only prime" for "Which … is a prime number?": the ask's word.
                    || self.ask.iter().any(|a| a.eq_ignore_ascii_case(self.word(j)))
            }
            _ => false,
        })
    }

    /// "유일한", "유일하게", "only".
    fn is_only_cue(&self, j: usize) -> bool {
        match self.toks[j].kind {
            Kind::Hangul => self.word(j).starts_with("유일"),
            // Not "If only the answer were C", a wish, nor "C only if …", a condition.
            Kind::Latin => {
                lower(self.word(j)) == "only"
                    && !(j > 0
                        && self.is_latin(j - 1)
                        && self.word(j - 1).eq_ignore_ascii_case("if"))
                    && !(self.is_latin(j + 1)
                        && ["if", "when"]
                            .iter()
                            .any(|w| self.word(j + 1).eq_ignore_ascii_case(w)))
            }
            _ => false,
        }
    }

    /// "다른 선택지들은", "나머지 보기는", "the other options", "the others", "all other".
    fn is_others_cue(&self, j: usize) -> bool {
        match self.toks[j].kind {
            Kind::Hangul => {
                let w = self.word(j);
                let noun_next = self.toks.get(j + 1).is_some_and(|n| {
                    n.kind == Kind::Hangul
                        && OPTION_NOUNS
                            .iter()
                            .any(|p| n.text(self.text).starts_with(p))
                });
                // "사실과 다른 선택지", "A와 다른 보기": different from something, not "the
                // other options".
                let compared = j > 0
                    && self.is_hangul(j - 1)
                    && (self.word(j - 1).ends_with('과') || self.word(j - 1).ends_with('와'));
                (OTHERS.contains(&w) && noun_next && !compared)
                    || w.starts_with("나머지")
                    || OPTION_NOUNS
                        .iter()
                        .any(|p| w.starts_with("다른") && w.contains(p))
            }
            Kind::Latin => {
                let w = lower(self.word(j));
                (w == "other" || w == "remaining")
                    && self.toks.get(j + 1).is_some_and(|n| {
                        n.kind == Kind::Latin
                            && matches!(
                                lower(n.text(self.text)).as_str(),
                                "options" | "choices" | "answers" | "ones" | "statements"
                            )
                    })
                    || w == "others"
            }
            _ => false,
        }
    }
}

/// How many of [`NEGATIVE`] the word holds, one after another ("틀리지않은" holds two,
/// "잘못된" one).
pub(super) fn negatives_in(w: &str) -> usize {
    let mut count = 0;
    let mut from = 0;
    while let Some((i, n)) = w[from..].char_indices().find_map(|(i, c)| {
        NEGATIVE_FIRST
            .contains(&c)
            .then(|| NEGATIVE.iter().find(|n| w[from + i..].starts_with(*n)))
            .flatten()
            .map(|n| (i, n))
    }) {
        count += 1;
        from += i + n.len();
    }
    count
}

pub(super) fn is_negative(w: &str) -> bool {
    // A match starts at a syllable: one test of each syllable against the words' first
    // syllables, not 17 substring searches per word (2% of verifying long prose).
    w.char_indices()
        .any(|(i, c)| NEGATIVE_FIRST.contains(&c) && NEGATIVE.iter().any(|n| w[i..].starts_with(n)))
}

/// The first syllable of each of [`NEGATIVE`].
const NEGATIVE_FIRST: [char; 12] = [
    '않', '아', '틀', '없', '잘', '부', '오', '거', '그', '못', '어', '다',
];

#[cfg(test)]
mod tests {
    /// The syllable filter of `is_negative` holds every word's first syllable, so it finds
    /// what `contains` found.
    #[test]
    fn every_negative_word_starts_with_a_filtered_syllable() {
        for n in super::NEGATIVE {
            let first = n.chars().next().unwrap();
            assert!(super::NEGATIVE_FIRST.contains(&first), "{n}");
            assert!(super::is_negative(&format!("정답이{n}다")), "{n}");
        }
        assert!(!super::is_negative("적절한"));
    }
}
