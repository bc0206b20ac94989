//! An option's value written without its qualifier ("정답은 30일입니다" for "30일 이내",
//! "답: 5만" for "5만 이상"; audit 43), and a verdict on its own line's option ("C. 감 -
//! 정답"): what an answer says of one option in place.

use super::option_text::{clip, squash, squash_prefix};
use super::words::OPTION_NOUN_WORDS;
use super::{Ctx, Resolved};
use crate::verify::scan::Kind;
use crate::verify::Choice;
use std::ops::Range;

/// Words that qualify a value in an option's text.
const QUALIFIERS: [&str; 8] = [
    "이내", "이하", "이상", "미만", "초과", "정도", "가량", "내외",
];

impl Ctx<'_> {
    /// The option whose whole text an answer of `choice` gives in its JSON, under a key
    /// ending in "text" ("choice_text", "answer_text"), when it is another's (audit 46:
    /// `{"choice": "B", "choice_text": "지역권"}` where 지역권 is A): a mismatch.
    pub(super) fn json_text_against(&self, choice: Choice) -> Option<Choice> {
        let value = memchr::memmem::find_iter(self.text.as_bytes(), b"text\"").find_map(|at| {
            // The answer's own text only: not "context", "question_text", "rejected_text"
            // (trial 59).
            let key = &self.text[self.text[..at].rfind('"')? + 1..at];
            if !matches!(
                key.to_ascii_lowercase().trim_end_matches(['_', '-']),
                "choice" | "answer" | "option" | "selected" | "selected_option" | "final_answer"
            ) {
                return None;
            }
            let rest = self.text[at + 5..].trim_start().strip_prefix(':')?;
            let rest = rest.trim_start().strip_prefix('"')?;
            Some(&rest[..rest.find('"')?])
        });
        let value = value.map(squash).filter(|v| !v.is_empty())?;
        if self.squashed_option(choice) == Some(value.as_str()) {
            return None;
        }
        self.set
            .choices()
            .find(|&o| o != choice && self.squashed_option(o) == Some(value.as_str()))
    }

    /// The first label mark at or after `min` in `from..to`, before the sentence ends.
    pub(super) fn first_label_in_sentence(
        &self,
        from: usize,
        min: usize,
        to: usize,
    ) -> Option<usize> {
        // The dots of "i.e." end no sentence.
        let dot = |x: usize| {
            self.toks[x].is_punct('.') && x > 0 && matches!(self.word(x - 1), "i" | "e" | "I" | "E")
        };
        (from..self.toks.len().min(to))
            .take_while(|&x| !self.toks[x].is_sentence_end() || dot(x))
            .find(|&x| x >= min && self.is_label_mark(x))
    }

    /// Is the label at `x` written after an opening bracket ("(D)", "( D")?
    pub(super) fn opens_bracket(&self, x: usize) -> bool {
        self.toks[x].text(self.text).starts_with(['(', '（', '['])
            || self.toks[x - 1].is_punct('(')
            || self.toks[x - 1].is_punct('[')
    }

    /// A label put beside an option text starting at `j`, in the same sentence within a few
    /// words: in brackets ("기획재정부(③)", "10일 (②번)"), after "즉" ("기획재정부, 즉 ③"), or
    /// linked to it ("￦300,000, which is option B"; see `linked_label_after`).
    pub(super) fn label_beside_text(&self, j: usize) -> Option<Resolved> {
        let m = self.first_label_in_sentence(j + 1, j + 1, j + 10);
        m.filter(|&m| self.opens_bracket(m) || self.is_namely(m - 1) || self.noun_set_off(m))
            .or_else(|| self.linked_label_after(j))
            .and_then(|m| self.label_at(m))
    }

    /// Is the label at `x` set off with a noun for an option or "i.e.", closing its bracket or
    /// clause: "(option C)", "(option: C)", ", choice C", "(선택지 C)", "보기 C번", "(i.e., C)",
    /// "(letter C)" (stop 35: "Answer: $1,200 (option C)" had committed $1,200's option; not
    /// "(option C × 10)", "— option C is a trap", "(선택지 C는 1개 가격)", trial 57)?
    fn noun_set_off(&self, x: usize) -> bool {
        let w = |y: usize| self.word(y).to_ascii_lowercase();
        let mut y = x;
        while y > 0 && (self.toks[y - 1].is_punct(':') || self.toks[y - 1].is_punct(',')) {
            y -= 1;
        }
        let noun = y >= 2
            && (OPTION_NOUN_WORDS.contains(&self.word(y - 1))
                || matches!(w(y - 1).as_str(), "option" | "choice" | "letter"));
        let ie = y >= 5 && w(y - 1) == "." && w(y - 2) == "e" && w(y - 3) == "." && w(y - 4) == "i";
        let before = match (noun, ie) {
            (true, _) => y - 2,
            (false, true) => y - 5,
            _ => return false,
        };
        let mut z = x + 1;
        if self.is_hangul(z) && self.word(z) == "번" {
            z += 1;
        }
        ['(', '[', ',', '-', '—']
            .iter()
            .any(|&p| self.toks[before].is_punct(p))
            && self.tok(z).is_none_or(|t| {
                t.is_sentence_end() || matches!(t.kind, Kind::Punct(')' | ']' | ',' | ';'))
            })
    }

    /// The label after an option's text at `j` that the sentence links to it as the same
    /// option: "…, which is option B", "… corresponds to option B", "…, i.e. option B",
    /// "…이며, 이는 선택지 B에 해당합니다" (audit 44: a result written with another option's
    /// label had committed the label, or the result).
    pub(super) fn linked_label_after(&self, j: usize) -> Option<usize> {
        let w = |x: usize| match self.tok(x) {
            Some(t) if matches!(t.kind, Kind::Latin | Kind::Hangul) => self.word(x).to_lowercase(),
            _ => String::new(),
        };
        // The dots of "i.e." end no sentence.
        let dot = |x: usize| self.toks[x].is_punct('.') && matches!(w(x - 1).as_str(), "i" | "e");
        let m = (j + 1..self.toks.len().min(j + 16))
            .take_while(|&x| !self.toks[x].is_sentence_end() || dot(x))
            .find(|&x| self.is_label_mark(x))?;
        let noun = w(m - 1);
        let english = matches!(noun.as_str(), "option" | "choice")
            && (matches!(w(m - 2).as_str(), "is" | "to" | "matching" | "matches")
                || (m >= 3 && self.toks[m - 2].is_punct('.') && w(m - 3) == "e"));
        let after = self.text[self.toks[m].end as usize..].trim_start_matches('번');
        let korean = matches!(noun.as_str(), "선택지" | "보기") && after.starts_with("에 해당");
        (english || korean).then_some(m)
    }

    /// An amount computed just before the answer that is another option's: "…평가손실
    /// ₩10,000을 차감하여 ₩55,000. 정답 ③" where ④ is ₩55,000 and ③ is not (audit 47: ③
    /// had stood), "Answer: $1,200 → C" where A is $1,200. Returns that option.
    pub(super) fn amount_before_against(
        &self,
        choice: Choice,
        span: &Range<usize>,
    ) -> Option<Choice> {
        if self.set.options().is_empty() {
            return None;
        }
        fn trim(s: &str) -> &str {
            s.trim_end_matches(|c: char| {
                c.is_whitespace()
                    || matches!(c, '.' | ',' | ':' | ';' | '→' | '=' | '>' | '-' | '(' | '*')
            })
        }
        // "…₩55,000입니다. 정답 ③": the copula after the amount.
        let before = trim(&self.text[..span.start]);
        let before = ["입니다", "이다", "임", "이에요", "예요"]
            .iter()
            .find_map(|c| before.strip_suffix(c))
            .unwrap_or(before);
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| {
                c.is_ascii_digit() || matches!(c, ',' | '.' | '원') || AMOUNT_SIGNS.contains(&c)
            })
            .last()?
            .0;
        // On the answer's own line: one on a line before may be a step ("Accumulated
        // depreciation: $4,000.\nAnswer: C"; trial 63).
        if self.text[start..span.start].contains('\n') {
            return None;
        }
        // Not an option's line ("D. 8.3\n정답: C" in a question a base model went on to
        // write): the words before the amount on its line are not a label alone.
        let opener = before[..start].rsplit('\n').next().unwrap_or("").trim();
        if !opener.is_empty()
            && opener.chars().count() <= 4
            && (opener.ends_with(['.', ')', ':'])
                || opener.chars().all(|c| ('①'..='⑳').contains(&c)))
        {
            return None;
        }
        let (amount, marked) = amount_core(&before[start..])?;
        let same = |o: &str| {
            amount_core(o)
                .is_some_and(|(core, m)| core == amount && (marked || m || core.len() >= 3))
        };
        let options = self.set.options();
        let mut matching = self.set.choices().filter(|c| same(&options[c.index()]));
        match (matching.next(), matching.next()) {
            (Some(o), None) if o != choice => Some(o),
            _ => None,
        }
    }

    /// Is token `k` a currency sign opening the answer's last words ("답: ￦585,000", "따라서
    /// 답은 ￦200,000입니다")? Nothing but a copula may follow the amount: what does
    /// ("￦600,000 - ￦15,000 = ￦585,000", "\n-15,000\n=525,000", "(단위: 천원)", "(틀림)",
    /// "(반영 전)", "이는 B에 해당", "— 하지만 이는 정답이 아닙니다") is a calculation, a scale,
    /// a verdict or a label the option's text does not show (trials 53 to 55).
    pub(super) fn is_currency(&self, k: usize) -> bool {
        let Some(t) = self.tok(k) else {
            return false;
        };
        let sign = matches!(t.kind, Kind::Other | Kind::Punct('$'))
            && t.text(self.text).starts_with(AMOUNT_SIGNS)
            && t.text(self.text).chars().count() == 1;
        if !sign {
            return false;
        }
        // Only a copula, a closing mark and the end of the text after the amount (trial 55:
        // "답: ￦600,000 — 하지만 이는 정답이 아닙니다", "… \n\n다시 계산해 보겠습니다").
        let rest = self.text[t.end as usize..]
            .trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, ',' | ' '));
        let rest = [
            "원입니다",
            "원이다",
            "원임",
            "원",
            "입니다",
            "이다",
            "이에요",
            "예요",
            "임",
        ]
        .iter()
        .find_map(|c| rest.strip_prefix(c))
        .unwrap_or(rest);
        // Nor where the text names another option's amount anywhere ("정답은 ￦525,000입니다.
        // 실수의 답: ￦600,000"; trial 56).
        let hay = squash(self.text);
        let named = self
            .set
            .choices()
            .filter_map(|c| self.squashed_option(c))
            .filter(|o| o.contains(AMOUNT_SIGNS) && hay.contains(o))
            .count();
        named <= 1
            && rest
                .trim_matches(|c: char| c.is_whitespace() || ".!*'\"`".contains(c))
                .is_empty()
    }

    /// The one option whose text is a value with a unit and a qualifier ("30일 이내",
    /// "100m2 미만") and whose value alone is written at token `k`, ending the answer there
    /// ("정답은 30일입니다"), when no other option's text starts with that value ("30일
    /// 이상" beside "30일 이내" leaves it open).
    pub(super) fn value_option_at(&self, k: usize) -> Option<Choice> {
        let at = self.tok(k)?.start as usize;
        let rest = squash_prefix(clip(self.text, at, 400), self.longest_option());
        let mut found = None;
        for c in self.set.choices() {
            let opt = self.squashed_option(c)?;
            let Some(value) = QUALIFIERS.iter().find_map(|q| opt.strip_suffix(q)) else {
                continue;
            };
            // A number with a unit: a bare number may be a label.
            let unit = value.contains(|ch: char| ch.is_ascii_digit())
                && value.contains(|ch: char| !ch.is_ascii_digit() && !matches!(ch, '.' | ','));
            if unit && rest.starts_with(value) {
                if found.is_some() {
                    return None;
                }
                found = Some((c, value));
            }
        }
        let (c, value) = found?;
        let shared = (self.set.choices()).filter(|&o| o != c).any(|o| {
            self.squashed_option(o)
                .is_some_and(|t| t.starts_with(value))
        });
        (!shared && self.text_ends_answer(k, value)).then_some(c)
    }

    /// "C. 감 - 정답\nD. 귤 - 오답", "- C. 감: 정답", "| C | 감 | 정답 |", "C. 감이 정답": the
    /// label opening the line of the keyword at `k`, when the keyword is that line's
    /// option's verdict, after a separator or a subject particle (trials 51, 52); a bullet
    /// may open the line.
    pub(super) fn verdict_line_label(&self, k: usize) -> Option<usize> {
        let line_start = (0..k)
            .rev()
            .find(|&x| self.toks[x].kind == Kind::Break)
            .map_or(0, |x| x + 1);
        let first = (line_start..k)
            .find(|&x| !matches!(self.toks[x].kind, Kind::Punct(_) | Kind::Other))?;
        let separated = (first + 1..k).any(|x| match self.toks[x].kind {
            Kind::Punct(p) => [':', '-', '—', '–', '→', '|', '=', '>'].contains(&p),
            Kind::Other => ["➡", "→", "➔", "⇒"].contains(&self.word(x)),
            _ => false,
        }) || (k > first + 1
            && self.is_hangul(k - 1)
            && self.word(k - 1).chars().count() > 1
            && ['이', '가'].iter().any(|&e| self.word(k - 1).ends_with(e)));
        (self.is_label_mark(first) && separated).then_some(first)
    }

    /// What the keyword at `k` calls the answer in place, with the first token of it: its
    /// line's option ("2. 배 - 정답" ending its line), or an option's text as its subject
    /// ("따라서 기획재정부가 정답입니다"; trial 52: beside "정답: ①" that had let ① stand).
    /// `suffix` is what follows the keyword in its word.
    pub(super) fn in_place_claim(&self, k: usize, suffix: &str) -> Option<(Resolved, usize)> {
        let copula = ["입니", "이다", "임", "이에요", "이야", "이죠"];
        let verdict = || self.verdict_line_claim(k).filter(|_| suffix.is_empty());
        verdict().or_else(|| {
            (suffix.is_empty() || copula.iter().any(|c| suffix.starts_with(c)))
                .then(|| self.option_text_before(k))
                .flatten()
        })
    }

    /// "따라서 기획재정부가 정답입니다", "금융 위원회가 답": the option whose whole text is the
    /// words right before the keyword, less the subject particle, in that sentence.
    fn option_text_before(&self, k: usize) -> Option<(Resolved, usize)> {
        let prev = k.checked_sub(1).filter(|&p| self.is_hangul(p))?;
        let w = self.word(prev);
        let stem = w.strip_suffix('가').or_else(|| w.strip_suffix('이'))?;
        let start = (0..prev)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end() || self.toks[x].kind == Kind::Break)
            .map_or(0, |x| x + 1);
        // Not beside a label ("④ 국방부가 정답", "3번 상속세는 폐지되었다가 정답"): a label and
        // a text together are read by the rules that weigh both.
        if (start..prev).any(|x| self.is_label_mark(x)) {
            return None;
        }
        let from = self.toks[start].start as usize;
        let end = self.toks[prev].start as usize + stem.len();
        let words: Vec<&str> = self.text.get(from..end)?.split_whitespace().collect();
        let mut found = None;
        for n in 1..=words.len().min(4) {
            let tail = squash(&words[words.len() - n..].concat());
            let mut hits = (self.set.choices()).filter(|&c| {
                self.squashed_option(c)
                    .is_some_and(|o| o.chars().count() >= 2 && o == tail)
            });
            if let (Some(c), None) = (hits.next(), hits.next()) {
                found = Some(c);
            }
        }
        found.map(|c| (Resolved::In(c), prev))
    }

    /// "2. 배 - 정답" ending its line: that option called the answer, with its label's token.
    fn verdict_line_claim(&self, k: usize) -> Option<(Resolved, usize)> {
        let m = self.verdict_line_label(k)?;
        let ends = self
            .tok(k + 1)
            .is_none_or(|n| n.kind == Kind::Break || n.is_sentence_end() || n.is_punct('|'));
        ends.then(|| self.label_at(m).map(|r| (r, m))).flatten()
    }

    /// Does `rest`, after an option's text, name another option's text next, joined by a
    /// comma, a slash or "와/과/및/또는/or" ("기획재정부, 행정안전부", `["기획재정부",
    /// "행정안전부"]`)?
    pub(super) fn another_option_follows(&self, rest: &str) -> bool {
        let Some(after) = [",", "/", "와 ", "과 ", "및 ", "또는 ", "이나 ", "or "]
            .iter()
            .find_map(|j| rest.strip_prefix(j))
        else {
            return false;
        };
        let next = squash_prefix(
            after.trim_start_matches([' ', '"', '\'']),
            self.longest_option(),
        );
        (self.set.choices())
            .filter_map(|c| self.squashed_option(c))
            .any(|o| o.chars().count() >= 2 && next.starts_with(o))
    }
}

/// Currency signs an amount may open with.
const AMOUNT_SIGNS: [char; 6] = ['￦', '₩', '$', '€', '£', '¥'];

/// The digits of an amount ("₩55,000" → "55000", "1,200원" → "1200") and whether a currency
/// sign or 원 marks it; None for text that is not only an amount.
fn amount_core(s: &str) -> Option<(String, bool)> {
    let s = s.trim();
    let unsigned = s.trim_start_matches(AMOUNT_SIGNS);
    let bare = unsigned.strip_suffix('원').unwrap_or(unsigned).trim();
    let marked = unsigned.len() != s.len() || bare.len() != unsigned.len();
    let core: String = bare.chars().filter(|&c| c != ',').collect();
    let digits = core.bytes().filter(u8::is_ascii_digit).count();
    (digits > 0 && core.bytes().all(|b| b.is_ascii_digit() || b == b'.')).then_some((core, marked))
}
