//! A label judged on its own, in a sentence of its own: "①은 틀렸습니다", "③은 옳은
//! 설명입니다", "C is a correct statement". After a stated answer, a judgement of the answer's
//! own option the other way from what the question asks contradicts it ("정답은 ③입니다. ③은
//! 옳은 설명입니다." where the question asks what is not so).

use super::words::{is_negation_word, lower, strip_beon, OPTION_NOUN_WORDS};
use super::Ctx;
use crate::verify::scan::Kind;
use std::ops::Range;

/// Nouns a judgement of a statement names: "옳은 설명", "틀린 내용".
const STATEMENT_NOUNS: [&str; 4] = ["설명", "내용", "진술", "서술"];

impl Ctx<'_> {
    /// Is the label at `j` the only one in its sentence, whose predicate judges it (a
    /// statement noun's judgement only in a sentence of at most eight words): `Some(true)` called right or true ("③은 옳은 설명입니다", "③은
    /// 법령과 일치합니다", "C is a correct statement"), `Some(false)` called wrong ("①은
    /// 틀렸습니다", "①은 틀린 설명입니다", "①은 옳지 않은 내용입니다", "A is wrong")?
    /// "③이 맞습니다" is left out: it may mean the right answer, not a true statement.
    pub(super) fn judged_alone(&self, j: usize) -> Option<bool> {
        let Range { start, end } = self.sentence_around(j);
        if (start..end).any(|x| x != j && self.is_label_mark(x)) || end <= j + 1 {
            return None;
        }
        let words: Vec<usize> = (j + 1..end)
            .filter(|&x| matches!(self.toks[x].kind, Kind::Hangul | Kind::Latin))
            .collect();
        // The verbs of calling it wrong end a sentence of any length; the judgements of a
        // statement below, a short one.
        let short = words.len() <= 8;
        let last = end - 1;
        match self.toks[last].kind {
            Kind::Hangul => {
                let w = |x: usize| if self.is_hangul(x) { self.word(x) } else { "" };
                let wrong_verb = [
                    "틀렸",
                    "틀립",
                    "틀리다",
                    "틀림",
                    "잘못되었",
                    "잘못됐",
                    "잘못입",
                ]
                .iter()
                .any(|p| w(last).starts_with(p));
                // "C도 맞지 않습니다", "①은 옳지 않다" (trial 57).
                let not_right =
                    w(last).starts_with('않') && last > 0 && matches!(w(last - 1), "맞지" | "옳지");
                if wrong_verb || not_right {
                    return Some(false);
                }
                if !short {
                    return None;
                }
                // "옳은 설명입니다", "틀린 내용이다", "옳지 않은 설명입니다", "옳은 설명이
                // 아닙니다": an adjective before a statement noun, negated or not.
                let noun = words
                    .iter()
                    .position(|&x| STATEMENT_NOUNS.iter().any(|n| w(x).starts_with(n)))?;
                let before: Vec<&str> = words[..noun].iter().map(|&x| w(x)).collect();
                let after = &words[noun..];
                let right = match before.as_slice() {
                    [.., "옳은" | "맞는" | "올바른" | "정확한"] => true,
                    [.., "틀린" | "잘못된" | "그릇된"] => false,
                    [.., "옳지" | "맞지" | "올바르지", a] if a.starts_with('않') => false,
                    _ => return None,
                };
                let negated = after.iter().any(|&x| is_negation_word(w(x)));
                Some(right != negated)
            }
            Kind::Latin => {
                let l = |x: usize| {
                    if x < self.toks.len() && self.is_latin(x) {
                        lower(self.word(x))
                    } else {
                        String::new()
                    }
                };
                let tail: Vec<String> = words.iter().map(|&x| l(x)).collect();
                let tail: Vec<&str> = tail.iter().map(String::as_str).collect();
                // How the sentence ends: "… so it is wrong", "C is a false statement".
                match tail.as_slice() {
                    [.., "is" | "s", "wrong" | "incorrect"] => Some(false),
                    // "C is false.", "C is true." (trial 58): a statement's truth.
                    // Only where the ask was read, whose polarity this is weighed against.
                    [.., "is" | "s", "false" | "untrue"] if short && !self.ask.is_empty() => {
                        Some(false)
                    }
                    [.., "is" | "s", "true"] if short && !self.ask.is_empty() => Some(true),
                    // "C is also wrong", "C is wrong too", "C is not correct either", "C
                    // isn't right" (a judgement; "not the answer" is read below).
                    [.., "is" | "s", "also", "wrong" | "incorrect"]
                    | [.., "is" | "s", "wrong" | "incorrect", "too" | "either"]
                    | [.., "is" | "s", "wrong" | "incorrect", "as", "well"] => Some(false),
                    [.., "is" | "s", "not", "correct" | "right" | "true"]
                    | [.., "is" | "s", "also", "not", "correct" | "right" | "true"]
                    | [.., "is" | "s", "not", "correct" | "right" | "true", "either"]
                    | [.., "isn", "t", "correct" | "right" | "true"]
                    | [.., "isn", "t", "correct" | "right" | "true", "either"]
                        if short =>
                    {
                        Some(false)
                    }
                    [.., "is" | "s", "a" | "an", "false" | "incorrect" | "wrong", "statement"]
                        if short =>
                    {
                        Some(false)
                    }
                    ["is" | "s", "a", "correct" | "true", "statement"] => Some(true),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Is the label at `j`, alone or in a listed subject ("C는", "A, C, D는", "A와 C는", "C
    /// 역시"), called a wrong answer or not the answer by the end of its clause ("오답입니다",
    /// "틀린 답입니다", "정답이 아닙니다", "is not the answer", "is the wrong answer")? A
    /// wrong answer is not the answer whatever the question asks (trial 53: "정답: C\nA, C,
    /// D는 오답입니다" had let C stand; "C도 정답이 아닙니다", "C 역시 오답", "A는 오답이고
    /// C도 오답입니다", "C is not the answer either", stop 35).
    pub(super) fn called_wrong_answer(&self, j: usize) -> bool {
        let Range { start, end } = self.sentence_around(j);
        // The clause ends at a connective after the label: "C도 오답이니, …", "C도 정답이
        // 아니고 …" (trial 57).
        let end = (j + 1..end)
            .find(|&x| {
                let w = if self.is_hangul(x) { self.word(x) } else { "" };
                // Not a quotation: "C 역시 오답이라고 착각하기 쉽지만 정답입니다".
                ["고", "며", "니", "니까", "므로"]
                    .iter()
                    .any(|e| w.ends_with(e))
                    && !["라고", "다고"].iter().any(|q| w.ends_with(q))
            })
            .map_or(end, |x| x + 1);
        if end <= j + 1 || !self.ends_calling_wrong_answer(end) {
            return false;
        }
        // The clause of the label: after the last "…이고", "…며" before it ("A는 오답이고
        // C도 오답입니다").
        // Or after a comma that follows a word ("A도 오답, C도 오답.").
        let start = (start..j)
            .rev()
            .find(|&x| {
                (self.is_hangul(x) && ["고", "며"].iter().any(|e| self.word(x).ends_with(e)))
                    || (x > 0 && self.toks[x].is_punct(',') && self.is_hangul(x - 1))
            })
            .map_or(start, |x| x + 1);
        // The labels of the clause form its subject: joined by commas or 와/과/및 (and, or)
        // and followed by the topic or subject particle, and nothing else before the verb.
        let labels: Vec<usize> = (start..end).filter(|&x| self.is_label_mark(x)).collect();
        let Some(&last_label) = labels.last() else {
            return false;
        };
        // "보기 C도", "option C is": a noun for the option before a label.
        let joined = (start..last_label).all(|x| {
            self.is_label_mark(x)
                || self.toks[x].is_punct(',')
                || (self.is_hangul(x)
                    && (matches!(self.word(x), "와" | "과" | "및" | "그리고")
                        || OPTION_NOUN_WORDS.contains(&self.word(x))))
                || (self.is_latin(x)
                    && matches!(lower(self.word(x)).as_str(), "and" | "option" | "choice"))
        });
        let particle = |w: &str| {
            matches!(
                strip_beon(w),
                "는" | "은"
                    | "도"
                    | "이"
                    | "가"
                    | "모두"
                    | "역시"
                    | "또한"
                    | "또"
                    | "마저"
                    | "조차"
            )
        };
        // "③번 역시", "C번도": 번 glued to the label, alone or with the particle.
        let mut after = last_label + 1;
        if self.is_hangul(after) && self.word(after) == "번" {
            after += 1;
        }
        let subject = (self.is_hangul(after) && particle(self.word(after)))
            || (self.is_latin(after)
                && matches!(
                    lower(self.word(after)).as_str(),
                    "is" | "are" | "s" | "isn" | "aren"
                ));
        joined && subject && (after + 1..end - 1).all(|x| !self.is_label_mark(x))
    }

    /// Does the sentence ending before token `end` end by calling its subject a wrong answer
    /// or not the answer: "오답입니다", "틀린 답이다", "정답이 아닙니다", "(is) not the
    /// (correct) answer", "the wrong answer"?
    fn ends_calling_wrong_answer(&self, end: usize) -> bool {
        let last = end - 1;
        if self.is_hangul(last) {
            let w = self.word(last);
            let prev = if last > 0 && self.is_hangul(last - 1) {
                self.word(last - 1)
            } else {
                ""
            };
            return w.starts_with("오답")
                || (["답입", "답이다", "답임", "답이에", "답이야"]
                    .iter()
                    .any(|p| w.starts_with(p))
                    && matches!(prev, "틀린" | "잘못된" | "그릇된"))
                // "정답이 될 수 없습니다" (trial 57).
                || (w.starts_with('없')
                    && prev == "수"
                    && last >= 3
                    && self.is_hangul(last - 2)
                    && self.word(last - 2).starts_with('될')
                    && self.is_hangul(last - 3)
                    && matches!(self.word(last - 3), "정답이" | "답이" | "정답은" | "정답도"))
                || ([
                    "아닙",
                    "아니다",
                    "아님",
                    "아니에",
                    "아니야",
                    "아냐",
                    "아니예",
                    "아니고",
                    "아니며",
                    "아니니",
                    "아니므로",
                ]
                    .iter()
                    .any(|p| w.starts_with(p))
                        && matches!(prev, "정답이" | "답이" | "정답은" | "답은" | "정답도")
                    // "틀린 답이 아닙니다": not a wrong answer.
                    && !(last >= 2
                        && self.is_hangul(last - 2)
                        && matches!(self.word(last - 2), "틀린" | "잘못된" | "그릇된")));
        }
        let words: Vec<String> = (end.saturating_sub(8)..end)
            .filter(|&x| matches!(self.toks[x].kind, Kind::Hangul | Kind::Latin))
            .map(|x| {
                if self.is_latin(x) {
                    lower(self.word(x))
                } else {
                    String::new()
                }
            })
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let mut tail = words.as_slice();
        if let [rest @ .., "either" | "too"] = tail {
            tail = rest;
        }
        if let [rest @ .., "correct" | "right" | "final", "answer"] = tail {
            tail = rest;
        } else if let [rest @ .., "answer"] = tail {
            tail = rest;
        } else {
            return false;
        }
        matches!(
            tail,
            [.., "not" | "t", "the" | "an" | "a"] | [.., "not" | "t"]
        ) || (matches!(tail, [.., "the" | "a", "wrong" | "incorrect"])
            && !tail.iter().any(|w| matches!(*w, "not" | "t" | "never")))
    }
}
