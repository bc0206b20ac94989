//! Echoes of the question's ask: "적절하지 않은 것은 ③" for "…적절하지 않은 것은?", "틀린 것은
//! ③" (a phrase of the same polarity), "The one that is NOT correct is (C)", "The incorrect
//! statement is C"; and "<another predicate> 것은 ①", which describes options instead.

use super::singled::{is_negative, POSITIVE};
use super::words::{answer_keyword, english_asks_untrue, lower, truth_phrase, ASK_NOUNS};
use super::{said_of, Ctx, Resolved, Said, Statement, Strength};
use crate::verify::scan::Kind;

use crate::verify::{Choice, Notation, Rule};

impl Ctx<'_> {
    /// A statement that echoes the question's ask phrase: "적절하지 않은 것은 ③" when the
    /// question asks "…적절하지 않은 것은?". Only the question's own polarity counts, so
    /// "적절한 것은 ①" on that question states nothing.
    pub(super) fn ask_echo_at(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<Statement> {
        if k + 1 >= self.toks.len() {
            return None;
        }
        // "옳은 것은 ④" on "…몇 mm 이내인가?": a question that asks no judgement asks for
        // what is so.
        if let Some(s) = self.neutral_echo_at(k, negations) {
            return Some(s);
        }
        if self.ask.is_empty() {
            return None;
        }
        if self.is_latin(k) {
            if let Some(s) = self.truth_phrase_echo_at(k, negations) {
                return Some(s);
            }
        }
        if k + self.ask.len() >= self.toks.len() {
            return None;
        }
        if self.ask.iter().all(|w| w.is_ascii()) {
            return self.english_ask_echo_at(k, negations);
        }
        if self.toks[k].kind != Kind::Hangul {
            return None;
        }
        let says = |phrase: &[&str]| {
            k + phrase.len() < self.toks.len()
                && phrase
                    .iter()
                    .enumerate()
                    .all(|(i, w)| self.toks[k + i].kind == Kind::Hangul && self.word(k + i) == *w)
        };
        // The ask itself, or a phrase of its polarity ("틀린 것은 ③" for "…옳지 않은 것은?").
        let n = if says(&self.ask) {
            self.ask.len()
        } else {
            self.synonyms.iter().find(|p| says(p))?.len()
        };
        // "ㄱ에 해당하는 것은 ③": what a lettered item (ㄱ, ㄴ, …) matches, not the answer.
        if k > 0
            && self.is_hangul(k - 1)
            && self
                .word(k - 1)
                .chars()
                .next()
                .is_some_and(|c| ('ㄱ'..='ㅎ').contains(&c))
        {
            return None;
        }
        // "정답이 아닌 것: 3번" names what is not the answer.
        if k > 0 && self.is_hangul(k - 1) && answer_keyword(self.word(k - 1)).is_some() {
            return None;
        }
        let noun = k + n;
        let w = self.word(noun);
        let named = self.toks[noun].kind == Kind::Hangul
            && ASK_NOUNS.iter().any(|p| {
                w.strip_prefix(p)
                    .is_some_and(|s| matches!(s, "" | "은" | "는" | "이" | "으로는"))
            });
        if !named {
            return None;
        }
        let (said, last) = self.right_of_keyword(noun, negations)?;
        // An echo ends its line: "— 옳은 설명\n③ …" closes one option's analysis and opens
        // the next.
        if self.break_between(noun, last) {
            return None;
        }
        Some(Statement {
            said,
            strength: Strength::Strong,
            rule: Rule::AskEcho,
            first: k,
            last,
            is_final: self.final_before(k),
            judges: false,
            view: false,
        })
    }

    /// "옳은 것은 ④", "맞는 것은 ④", "정확한 것은 ④" when the question asks no judgement
    /// ("…몇 mm 이내인가?", "…무엇이라 하는가?"): a positive modifier, a noun for options,
    /// then the label. Not "옳지 않은 것은 ④" nor "틀린 것은 ④".
    fn neutral_echo_at(&self, k: usize, negations: &mut Vec<(Choice, usize)>) -> Option<Statement> {
        if self.set.options().is_empty() || !self.is_hangul(k) || !self.is_hangul(k + 1) {
            return None;
        }
        let w = self.word(k);
        // "이에 해당하는 것은 2번", "문제에 해당하는 것은": the question's own, whatever it asks.
        let points_back = w == "해당하는"
            && k > 0
            && self.is_hangul(k - 1)
            && ["이에", "그에", "이것에", "여기에", "질문에", "문제에"].contains(&self.word(k - 1));
        // Only a question that asks no judgement at all: "…거리가 먼 것은?" and "…성격이 다른
        // 것은?" ask for an odd one out, not for what is so.
        let neutral = self.set.asks_nothing();
        let modifier =
            neutral && ["옳은", "맞는", "올바른", "정확한", "적절한", "알맞은"].contains(&w);
        if !(modifier || points_back)
            || (k > 0 && self.is_hangul(k - 1) && is_negative(self.word(k - 1)))
        {
            return None;
        }
        let noun = self.word(k + 1);
        let named = ASK_NOUNS.iter().any(|p| {
            noun.strip_prefix(p)
                .is_some_and(|s| matches!(s, "은" | "는" | "으로는"))
        });
        if !named || is_negative(noun) {
            return None;
        }
        // "옳은 것은 ①이고 옳지 않은 것은 ④": with no ask to weigh them, both halves stand,
        // and the text picks no one option.
        let opposite_too = modifier
            && finder!("것").find_iter(self.text.as_bytes()).any(|at| {
                let q = self.toks.partition_point(|t| (t.end as usize) <= at);
                q > 0
                    && self.is_hangul(q)
                    && self.toks[q].start as usize == at
                    && self.is_hangul(q - 1)
                    && is_negative(self.word(q - 1))
            });
        if opposite_too {
            return None;
        }
        self.echo_from(k, k + 1, negations)
    }

    /// "The one that is NOT correct is (C)", "Not true: B" for a question asking "Which of the
    /// following is NOT correct?". A negation right before the echo ("… is not correct is")
    /// turns it into the opposite phrase, which states nothing.
    fn english_ask_echo_at(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<Statement> {
        let n = self.ask.len();
        let echoed = (0..n).all(|i| {
            self.toks[k + i].kind == Kind::Latin
                && self.word(k + i).eq_ignore_ascii_case(self.ask[i])
        });
        let negated_before = k > 0
            && self.is_latin(k - 1)
            && matches!(
                lower(self.word(k - 1)).as_str(),
                "not" | "no" | "never" | "isn" | "t" | "least"
            );
        if !echoed || negated_before {
            return None;
        }
        self.echo_from(k, k + n - 1, negations)
    }

    /// Does the question ask which is true (`Some(true)`: "…옳은 것은?", "Which … is
    /// correct?") or which is not (`Some(false)`: "…옳지 않은 것은?", "…is NOT true?")?
    pub(super) fn truth_polarity(&self) -> Option<bool> {
        if self.ask.iter().all(|w| w.is_ascii()) {
            if english_asks_untrue(&self.ask) {
                return Some(false);
            }
            let positive = matches!(&self.ask[..], [w] if ["true", "correct", "accurate", "right", "valid"]
                .iter()
                .any(|t| w.eq_ignore_ascii_case(t)));
            return positive.then_some(true);
        }
        (!self.synonyms.is_empty()).then_some(!self.asks_negative())
    }

    /// As [`Ctx::truth_polarity`], and `Some(true)` for a question that asks no judgement
    /// ("…무엇이라 하는가?", "손실되는 열량은?"): it asks for what is so. Without the question
    /// ("letter:4") nothing is known.
    pub(super) fn asked_polarity(&self) -> Option<bool> {
        self.truth_polarity()
            .or_else(|| (!self.set.options().is_empty() && !self.asks_negative()).then_some(true))
    }

    /// "The incorrect statement is (C)" for "…is NOT true?", "So the correct statement is ①"
    /// for "…옳은 것은?": an English phrase of the ask's truth polarity, then the label.
    fn truth_phrase_echo_at(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<Statement> {
        if !self.is_latin(k + 1) {
            return None;
        }
        // "The statement that is NOT correct is option 4", "the one which is true is ③":
        // the noun, then a relative clause of its truth.
        if let Some((polarity, end)) = self.relative_truth_at(k) {
            if self.truth_polarity() != Some(polarity) {
                return None;
            }
            return self.echo_from(k, end, negations);
        }
        let polarity = truth_phrase(self.word(k), self.word(k + 1))?;
        if self.truth_polarity() != Some(polarity) {
            return None;
        }
        // "not the correct statement", "the least correct one".
        if k > 0
            && self.is_latin(k - 1)
            && ["not", "no", "never", "least"]
                .iter()
                .any(|w| self.word(k - 1).eq_ignore_ascii_case(w))
        {
            return None;
        }
        self.echo_from(k, k + 1, negations)
    }

    /// "statement that is not correct", "one which is true": the polarity of a noun for an
    /// answer at `k` with a relative clause of its truth, and the clause's last token.
    fn relative_truth_at(&self, k: usize) -> Option<(bool, usize)> {
        let word = |j: usize| self.is_latin(j).then(|| lower(self.word(j)));
        if !matches!(word(k + 1)?.as_str(), "that" | "which") || word(k + 2)? != "is" {
            return None;
        }
        let not = word(k + 3).is_some_and(|w| w == "not");
        let adjective = k + 3 + usize::from(not);
        // truth_phrase reads "<adjective> <noun>"; the noun is the one at `k`.
        let polarity = truth_phrase(self.word(adjective), self.word(k))?;
        self.is_latin(adjective)
            .then_some((polarity != not, adjective))
    }

    /// The echo that starts at token `k` and ends at `end`, with the label read after it on
    /// the same line.
    fn echo_from(
        &self,
        k: usize,
        end: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<Statement> {
        let (said, last) = self.right_of_keyword(end, negations)?;
        if self.break_between(end, last) {
            return None;
        }
        Some(Statement::strong(
            said,
            Rule::AskEcho,
            k,
            last,
            self.final_before(k),
        ))
    }

    /// At token `j`, the ask or a phrase of its polarity describing a noun the answer is
    /// ("옳지 않은 설명인", "틀린 것인" for "…틀린 것은?"): its length in tokens.
    pub(super) fn ask_description_at(&self, j: usize) -> Option<usize> {
        if self.ask.is_empty() || self.ask.iter().all(|w| w.is_ascii()) {
            return None;
        }
        let says = |phrase: &[&str]| {
            phrase
                .iter()
                .enumerate()
                .all(|(i, w)| self.is_hangul(j + i) && self.word(j + i) == *w)
        };
        let n = if says(&self.ask) {
            self.ask.len()
        } else {
            self.synonyms.iter().find(|p| says(p))?.len()
        };
        let noun = self.is_hangul(j + n) && {
            let w = self.word(j + n);
            ASK_NOUNS
                .iter()
                .any(|p| w.strip_prefix(p).is_some_and(|s| s == "인"))
        };
        noun.then_some(n + 1)
    }

    /// Is there a line break between tokens `a` and `b`?
    pub(super) fn break_between(&self, a: usize, b: usize) -> bool {
        (a..b).any(|j| self.toks[j].kind == Kind::Break)
    }

    /// Does the label at `k` complete "<predicate> 것은" with another predicate than the
    /// question's ask ("적절한 것은 ①입니다" when the question asks "적절하지 않은 것은?")?
    /// Such a sentence describes options; it does not answer.
    pub(super) fn answers_another_ask(&self, k: usize) -> bool {
        if k < 2 {
            return false;
        }
        let noun = k - 1;
        let w = self.word(noun);
        let is_noun = self.toks[noun].kind == Kind::Hangul
            && ASK_NOUNS
                .iter()
                .any(|p| w.strip_prefix(p).is_some_and(|s| matches!(s, "은" | "는")));
        // A question with no ask ("…몇 m인가?") asks for what is so: "옳지 않은 것은 4번" and
        // "틀린 것은 4번" describe options there.
        if self.set.asks_nothing() {
            return is_noun
                && self.toks[noun - 1].kind == Kind::Hangul
                && is_negative(self.word(noun - 1));
        }
        let n = self.ask.len();
        // A judgement of options ("적절한 것은", "해당하는 것은"), not "남는 것은" or "문제에서
        // 요구하는 것은", which name the answer.
        let judges = |w: &str| {
            POSITIVE.iter().any(|p| w.starts_with(p))
                || is_negative(w)
                || ["해당", "바르"].iter().any(|p| w.contains(p))
        };
        // The ask's own predicate with another ending ("인정되는", "있은" for "인정되지 않는",
        // "있지 않은") is one.
        let same_stem = |w: &str| {
            self.ask.first().is_some_and(|a| {
                let stem = match a.char_indices().last() {
                    Some((i, _)) if i > 0 => &a[..i],
                    _ => a,
                };
                // "적합하지" → "적합" (적합한, 적합하다).
                let stem = stem
                    .strip_suffix('하')
                    .filter(|s| !s.is_empty())
                    .unwrap_or(stem);
                w.starts_with(stem)
            })
        };
        is_noun
            && self.toks[noun - 1].kind == Kind::Hangul
            && (judges(self.word(noun - 1)) || same_stem(self.word(noun - 1)))
            && !(noun >= n && (0..n).all(|i| self.word(noun - n + i) == self.ask[i]))
    }

    /// Does the label at `k` answer a question the response poses itself, with another
    /// predicate than the question's ("옳은 것은? ③", "옳은 것 → ③", "옳은 것은 무엇인가? →
    /// ③" when the question asks "…옳지 않은 것은?"; "Which statement is true? ③" when it
    /// asks "…is NOT true?")? The answer to the opposite question is not this one's.
    pub(super) fn answers_posed_ask(&self, k: usize) -> bool {
        // Only a question that asks for a judgement has an opposite.
        if self.ask.is_empty() || self.set.notation() == Notation::Ox {
            return false;
        }
        let mut x = k;
        while x > 0
            && (matches!(
                self.toks[x - 1].kind,
                Kind::Punct('?' | '>' | '-' | ':' | '=') | Kind::Break
            ) || (self.is_hangul(x - 1)
                && ["무엇", "뭘까", "뭔가", "어느"]
                    .iter()
                    .any(|q| self.word(x - 1).starts_with(q))))
        {
            x -= 1;
        }
        if x == k || x == 0 {
            return false;
        }
        if self.is_hangul(x - 1) {
            // "<predicate> 것은?" or "<predicate> 것 →": its polarity against the ask's.
            let noun = self.word(x - 1);
            let is_noun = ASK_NOUNS.iter().any(|p| {
                noun.strip_prefix(p)
                    .is_some_and(|s| matches!(s, "" | "은" | "는"))
            });
            if !is_noun || x < 2 || !self.is_hangul(x - 2) {
                return false;
            }
            let predicate = self.word(x - 2);
            // A modifier ("옳은 것은?", "틀린 답:"), not a sentence's end ("…은 틀렸다 답:").
            if predicate.ends_with(['다', '요']) {
                return false;
            }
            let negative = is_negative(predicate);
            return (negative || POSITIVE.iter().any(|p| predicate.starts_with(p)))
                && negative != self.asks_negative();
        }
        // "Which statement is true?", "Correct statement?": the sentence before the mark.
        let Some(polarity) = self.truth_polarity() else {
            return false;
        };
        let start = (0..x - 1)
            .rev()
            .find(|&y| self.toks[y].is_sentence_end())
            .map_or(0, |y| y + 1);
        let words: Vec<String> = (start..x)
            .filter(|&y| self.is_latin(y))
            .map(|y| lower(self.word(y)))
            .collect();
        let not = words.iter().any(|w| w == "not");
        let posed = words
            .windows(2)
            .find_map(|p| truth_phrase(&p[0], &p[1]))
            .or_else(|| {
                let asks = words
                    .first()
                    .is_some_and(|w| matches!(w.as_str(), "which" | "what"));
                let a = words.iter().rev().find(|w| {
                    [
                        "true",
                        "correct",
                        "right",
                        "accurate",
                        "false",
                        "incorrect",
                        "wrong",
                    ]
                    .contains(&w.as_str())
                })?;
                asks.then(|| ["true", "correct", "right", "accurate"].contains(&a.as_str()))
            });
        posed.is_some_and(|p| (p != not) != polarity)
    }

    /// "The result is 20.4, which corresponds to option 4.", "…, i.e. option C.": the
    /// option a result is matched to, in the text's last sentence, with no denial before it
    /// ("This does not correspond to option C" says nothing). A weak statement at `k`
    /// ("option" or "choice").
    pub(super) fn corresponding_option(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<Statement> {
        let latin = |x: usize, w: &str| self.is_latin(x) && self.word(x).eq_ignore_ascii_case(w);
        let linked = k >= 2
            && ((latin(k - 1, "to")
                && ["corresponds", "correspond", "corresponding"]
                    .iter()
                    .any(|w| latin(k - 2, w)))
                || (latin(k - 1, "is") && (latin(k - 2, "which") || latin(k - 2, "that")))
                || latin(k - 1, "matching")
                || latin(k - 1, "matches")
                || (k >= 4
                    && self.toks[k - 1].is_punct('.')
                    && latin(k - 2, "e")
                    && self.toks[k - 3].is_punct('.')
                    && latin(k - 4, "i")));
        // On a question asking what is not so, the sentence may describe a true option
        // ("Salt dissolves, which corresponds to option D"): not read there.
        if !linked || self.asks_negative() {
            return None;
        }
        // The sentence's start (the dots of "i.e." end nothing).
        let start = (0..k.saturating_sub(4))
            .rev()
            .find(|&x| self.toks[x].is_sentence_end())
            .map_or(0, |x| x + 1);
        let denied = (start..k).any(|x| {
            self.is_latin(x)
                && matches!(
                    lower(self.word(x)).as_str(),
                    "not" | "doesn" | "don" | "isn" | "never" | "no" | "t"
                )
        });
        if denied {
            return None;
        }
        let (said, last) = self.right_of_keyword(k, negations)?;
        // The last sentence: nothing but punctuation after the label.
        if (last + 1..self.toks.len())
            .any(|x| !matches!(self.toks[x].kind, Kind::Punct(_) | Kind::Break))
        {
            return None;
        }
        // Not the last step of a walk through the options: no other label anywhere.
        let other = (0..self.toks.len())
            .any(|x| x != last && self.choice_at(x).is_some_and(|o| said != Said::One(o)));
        if other || !matches!(said, Said::One(_)) {
            return None;
        }
        // "The answer is ￦300,000, which is option B" where B reads ￦200,000: the result
        // written last before the link is another option's text (audit 44).
        let result = (start..k)
            .rev()
            .find_map(|x| self.option_text_at(x).or_else(|| self.value_option_at(x)));
        let (said, rule) = match (said, result) {
            (Said::One(c), Some(o)) if o != c => (
                said_of(&[Resolved::In(c), Resolved::In(o)]),
                Rule::LabelTextMismatch,
            ),
            (said, _) => (said, Rule::WeakStatement),
        };
        Some(Statement {
            said,
            strength: Strength::Weak,
            rule,
            first: k,
            last,
            is_final: false,
            judges: false,
            view: false,
        })
    }
}

/// Does an ask phrase ask for what is not so ("적절하지 않은", "NOT correct")?
pub(super) fn asks_negative(ask: &[&str]) -> bool {
    // Two negations cancel: "틀리지 않은 것은?", "부적절하지 않은", "NOT false", "not untrue"
    // ask what is so (trial 57: they had read as asks for what is not).
    let negations: usize = ask
        .iter()
        .map(|w| {
            super::singled::negatives_in(w)
                + usize::from(
                    crate::verify::english_ask::ASK_NEGATIONS.contains(&lower(w).as_str()),
                )
        })
        .sum();
    negations % 2 == 1
}
