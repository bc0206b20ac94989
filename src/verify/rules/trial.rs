//! A choice made to be tried, not given: "Let me pick A and check", "Let's go with B for now
//! and verify", "Let me pick A as the answer and check. A fails.", "A를 골라서 확인해
//! 보겠습니다". What follows tests the choice, and may reject it; the pick itself states
//! nothing. ("②를 정답으로 선택해 보겠습니다" is read where 정답으로 is.)

use super::words::lower;
use super::{Ctx, Statement};

/// Korean stems of choosing.
const CHOOSING: [&str; 7] = ["선택", "고르", "골라", "고르고", "택", "정해", "정하"];

/// Korean stems of checking what was chosen.
const CHECKING: [&str; 9] = [
    "확인",
    "검증",
    "검토",
    "대입",
    "따져",
    "살펴",
    "점검",
    "맞는지",
    "맞춰",
];

impl Ctx<'_> {
    /// Is `s` a choice made to be tried: an English choosing verb ("pick", "choose",
    /// "select", "go with") whose sentence goes on "and check", "to verify", "for now"; or a
    /// Korean choosing verb in a joining form ("골라서", "선택하고") before a verb of
    /// checking in its sentence?
    pub(super) fn tried_to_check(&self, s: &Statement) -> bool {
        let (first, last) = (s.first.min(s.last), s.first.max(s.last));
        // The verb heads the statement ("pick A"), or stands just before it ("pick A as the
        // answer").
        let choosing = |x: usize| {
            self.is_latin(x)
                && matches!(
                    lower(self.word(x)).as_str(),
                    "pick" | "choose" | "select" | "with" | "picking" | "choosing" | "selecting"
                )
        };
        if choosing(first) || (first > 0 && choosing(first - 1)) {
            return self.checked_after_latin(last + 1);
        }
        if !self.is_hangul(last) {
            return false;
        }
        let verb = self.word(last);
        let joining = verb.ends_with('서') || verb.ends_with('고');
        if !joining || !CHOOSING.iter().any(|c| verb.starts_with(c)) {
            return false;
        }
        let end = self.sentence_around(last).end;
        (last + 1..end)
            .any(|x| self.is_hangul(x) && CHECKING.iter().any(|c| self.word(x).starts_with(c)))
    }

    /// Do the English words from `from` to the end of the sentence try what came before:
    /// "and check", "and see whether", "to verify", "for now", "tentatively"?
    fn checked_after_latin(&self, from: usize) -> bool {
        let end = self
            .sentence_around(from.min(self.toks.len().saturating_sub(1)))
            .end;
        let words: Vec<String> = (from..end)
            .filter(|&x| self.is_latin(x))
            .map(|x| lower(self.word(x)))
            .collect();
        let checking = |w: &str| {
            matches!(
                w,
                "check" | "verify" | "test" | "see" | "confirm" | "validate" | "try" | "evaluate"
            )
        };
        words.iter().enumerate().any(|(n, w)| {
            let next = words.get(n + 1).map_or("", String::as_str);
            let then = words.get(n + 2).map_or("", String::as_str);
            (matches!(w.as_str(), "and" | "to")
                && (checking(next) || (next == "then" && checking(then))))
                || (w == "for" && next == "now")
                || matches!(
                    w.as_str(),
                    "tentatively" | "provisionally" | "temporarily" | "hypothetically"
                )
        })
    }
}
