//! Restatements: a label or an option's text put after "즉", "다시 말해", "that is", "i.e."
//! or "in other words" restates the answer before it ("정답은 A=3, 즉 C입니다", "정답은
//! C입니다. 즉 B.", "The answer is C. That is, Rome."), so another choice there is a second
//! one; and an alternative opening the next sentence ("아니면 ③일 수도", "/ ④").

use super::words::{bare_word, is_disjunction, strip_beon, OPTION_NOUN_WORDS};
use super::Ctx;
use crate::verify::scan::Kind;
use crate::verify::Choice;

impl Ctx<'_> {
    /// Is the label at `j` a restatement: after "즉", "다시 말해", "that is," (see
    /// `restates_before`) and ending its clause ("즉 C입니다", "in other words, B."; not "in
    /// other words, B is wrong", a clause about B)?
    pub(super) fn restated_at(&self, j: usize) -> bool {
        self.is_label_mark(j) && self.restates_before(j) && {
            let glued = self.is_hangul(j + 1) && self.toks[j + 1].start == self.toks[j].end;
            let ends = self
                .tok(j + 1)
                .is_none_or(|n| matches!(n.kind, Kind::Punct(_) | Kind::Break));
            (!glued && (ends || self.is_hangul(j + 1)))
                || matches!(
                    strip_beon(self.word(j + 1)),
                    "" | "이" | "가" | "을" | "를" | "입니다" | "이다" | "이에요" | "예요" | "임"
                )
        }
    }

    /// After a restatement opening a sentence at `k` ("즉", "곧", "다시 말해", "요컨대",
    /// "that is", "i.e.", "in other words", "namely", "that means", a comma or colon after),
    /// the token that follows it.
    fn after_restatement_opener(&self, k: usize) -> Option<usize> {
        let w = |x: usize| self.tok(x).map(|_| self.word(x).to_ascii_lowercase());
        let is = |x: usize, s: &str| w(x).as_deref() == Some(s);
        let mut x = if matches!(
            w(k)?.as_str(),
            "즉" | "곧" | "요컨대" | "namely" | "다시말해"
        ) {
            k + 1
        } else if ((is(k, "다시") || is(k, "바꿔")) && (is(k + 1, "말해") || is(k + 1, "말하면")))
            || (is(k, "that") && (is(k + 1, "is") || is(k + 1, "means")))
        {
            k + 2
        } else if is(k, "in") && is(k + 1, "other") && is(k + 2, "words") {
            k + 3
        } else if is(k, "i") && is(k + 1, ".") && is(k + 2, "e") {
            k + 3 + usize::from(is(k + 3, "."))
        } else if is(k, "e") && k >= 2 && is(k - 1, ".") && is(k - 2, "i") {
            // "C, i.e., B": the first dot ended the sentence before `k`.
            k + 1 + usize::from(is(k + 1, "."))
        } else {
            return None;
        };
        while self
            .tok(x)
            .is_some_and(|t| t.is_punct(',') || t.is_punct(':'))
        {
            x += 1;
        }
        self.tok(x)
            .is_some_and(|t| !t.is_sentence_end())
            .then_some(x)
    }

    /// Does the label at `x` end its sentence, a copula glued to it at most ("B.", "B입니다.";
    /// not "B가 틀렸다는 뜻입니다", "D, which many choose, is a trap")?
    fn ends_sentence(&self, x: usize) -> bool {
        let mut y = x + 1;
        if self.is_hangul(y)
            && self.toks[y].start == self.toks[x].end
            && ["입니다", "이다", "이에요", "예요", "임", "번입니다", "번"].contains(&self.word(y))
        {
            y += 1;
        }
        self.tok(y).is_none_or(|t| t.is_sentence_end())
    }

    /// Is the label at `j` put as a restatement: after "즉", "다시 말해", "namely" or "in
    /// other words" (a comma between allowed)?
    fn restates_before(&self, j: usize) -> bool {
        let mut k = j;
        // "in other words option B", "즉 보기 B": the noun for an option before the label.
        let noun = |x: usize| {
            (self.is_latin(x)
                && ["option", "choice"]
                    .iter()
                    .any(|n| self.word(x).eq_ignore_ascii_case(n)))
                || (self.is_hangul(x) && OPTION_NOUN_WORDS.contains(&self.word(x)))
        };
        if k > 0 && noun(k - 1) {
            k -= 1;
        }
        let comma = k > 0 && (self.toks[k - 1].is_punct(',') || self.toks[k - 1].is_punct(':'));
        if comma {
            k -= 1;
        }
        let word = |x: usize| (x < k).then(|| self.word(x).to_ascii_lowercase());
        let at = |back: usize| k.checked_sub(back).and_then(word);
        let w1 = at(1).unwrap_or_default();
        let w2 = at(2).unwrap_or_default();
        k.checked_sub(1).is_some_and(|x| self.is_namely(x))
            || matches!(w1.as_str(), "다시말해" | "다시말하면" | "요컨대" | "namely" | "곧")
            || (matches!(w1.as_str(), "말해" | "말하면") && matches!(w2.as_str(), "다시" | "바꿔"))
            || (w1 == "words" && w2 == "other")
            || (w1 == "means" && w2 == "that")
            // "that is, B", "that is: B", "i.e., B" (trial 57).
            || (w1 == "is" && w2 == "that" && comma)
            || (w1 == "." && w2 == "e" && at(3).as_deref() == Some(".") && at(4).as_deref() == Some("i"))
    }

    /// After the sentence end at `j`, does the next sentence open with a disjunction and a
    /// label ("아니면 ③", "혹은 ③", "Or (C)")? Returns that label's choice.
    pub(super) fn alternative_opening(&self, j: usize) -> Option<Choice> {
        let mut k = j;
        let mut slash = false;
        while let Some(t) = self.tok(k) {
            if !(t.is_sentence_end() || matches!(t.kind, Kind::Punct(_))) {
                break;
            }
            slash |= t.is_punct('/');
            k += 1;
        }
        let opens = slash && self.is_label_mark(k);
        // "정답은 C입니다. 즉 B.", "The answer is C. That is, B.": the next sentence restates
        // it as another (stop 35).
        if k > j && !opens {
            let restated = (k..k + 5)
                .take_while(|&x| self.tok(x).is_some_and(|t| !t.is_sentence_end()))
                .find(|&x| self.is_label_mark(x))
                .filter(|&x| self.restated_at(x) && self.ends_sentence(x));
            if let Some(x) = restated {
                return self.choice_at(x);
            }
            // "정답은 C입니다. 즉 배입니다.", "The answer is C. That is, Rome.": restated by
            // an option's text (trial 57).
            if let Some(x) = self.after_restatement_opener(k) {
                if self.is_label_mark(x) {
                    return self.ends_sentence(x).then(|| self.choice_at(x)).flatten();
                }
                // "②, i.e. \"금융위원회\"": the same sentence's text, read as a mismatch.
                if self.word(k).eq_ignore_ascii_case("e") {
                    return None;
                }
                let one_syllable = |c: Choice| {
                    self.squashed_option(c).is_some_and(|o| {
                        o.chars().count() == 1
                            && bare_word(self.word(x)) == o
                            && self.tok(x + 1).is_none_or(|t| t.is_sentence_end())
                    })
                };
                let text = self
                    .option_text_at(x)
                    .filter(|&c| self.option_text_ends_answer(x, c))
                    .or_else(|| self.set.choices().find(|&c| one_syllable(c)));
                if text.is_some() {
                    return text;
                }
            }
        }
        if k == j || !(opens || self.tok(k).is_some_and(|t| is_disjunction(t, self.text))) {
            return None;
        }
        if opens {
            return self.choice_at(k);
        }
        (k + 1..k + 4)
            .take_while(|&x| self.tok(x).is_some_and(|t| !t.is_sentence_end()))
            .find(|&x| self.is_label_mark(x))
            .and_then(|x| self.choice_at(x))
    }
}
