//! An English answer clause that the words after it give to someone else or call wrong:
//! "Some study guides give (3) as the answer, which is a mistake", "The false statement is B,
//! some might say", "The answer is C, said no one", "The answer is C, is what most students
//! pick, and they are wrong". Not the writer's own "The answer is C, is what I would say",
//! nor the writer's own error owned up to ("I made an error — it's D").

use super::words::lower;
use super::Ctx;
use crate::verify::scan::Kind;

impl Ctx<'_> {
    /// Is token `j` "error" or "mistake" in the writer's owning up to it ("I made an error",
    /// "my mistake", "error on my part"), with a dash or colon after it before the statement
    /// at `first`? ("A common mistake is to say …" is not the writer's.)
    pub(super) fn owns_an_error(&self, j: usize, first: usize) -> bool {
        let latin = |x: usize| {
            if x < self.toks.len() && self.is_latin(x) {
                lower(self.word(x))
            } else {
                String::new()
            }
        };
        if !matches!(latin(j).as_str(), "error" | "mistake") {
            return false;
        }
        let made = (j.saturating_sub(3)..j).any(|x| matches!(latin(x).as_str(), "my" | "made"));
        let on_my_part = latin(j + 1) == "on" && latin(j + 2) == "my" && latin(j + 3) == "part";
        let marked = (j + 1..first).any(|x| {
            let t = self.toks[x];
            t.is_punct(':') || t.is_punct('—') || t.is_punct('–') || t.is_punct('-')
        });
        (made || on_my_part) && marked
    }

    /// Whether the words from `from` (just after a statement's label) take the statement away
    /// from the writer.
    pub(super) fn hearsay_after(&self, from: usize) -> bool {
        if self.json_flag_false(from) || self.label_with_a_purpose(from) {
            return true;
        }
        let mut k = from;
        // A comma, a dash or a closing quote before the remark: "C, said no one", "C — is
        // what …", "\"… is C,\" said no one".
        while self.tok(k).is_some_and(|t| {
            [',', '—', '–', '-', '"', '”', '\'']
                .iter()
                .any(|&c| t.is_punct(c))
        }) {
            k += 1;
        }
        let punct = k > from;
        let w = |n: usize| {
            if self.is_latin(k + n) {
                lower(self.word(k + n))
            } else {
                String::new()
            }
        };
        if punct && self.doubting_or(k) {
            return true;
        }
        if punct {
            // "…, which is a mistake" calls the claim wrong; "…, which is false" describes the
            // option, and confirms it when the question asks for what is not so.
            let called = w(0) == "which"
                && w(1) == "is"
                && (1..4).any(|n| match w(n).as_str() {
                    "mistake" | "error" | "mistaken" => true,
                    "wrong" | "incorrect" | "false" => !self.asks_negative(),
                    _ => false,
                });
            let someone = matches!(w(0).as_str(), "some" | "many" | "others")
                && matches!(
                    w(1).as_str(),
                    "might" | "would" | "may" | "say" | "claim" | "argue" | "think" | "believe"
                );
            // "…, said no one", "…, says nobody".
            let nobody = matches!(w(0).as_str(), "said" | "says")
                && matches!(w(1).as_str(), "no" | "nobody" | "none");
            if called || someone || nobody {
                return true;
            }
        }
        // "…, is what most students pick", "… is what a careless reader would say": the claim
        // as what others choose; "is what I would say" stays the writer's.
        // Not "… is what the question is looking for".
        const PEOPLE: [&str; 12] = [
            "most",
            "many",
            "some",
            "students",
            "people",
            "everyone",
            "everybody",
            "they",
            "others",
            "careless",
            "naive",
            "examinees",
        ];
        matches!(w(0).as_str(), "is" | "was")
            && w(1) == "what"
            && (PEOPLE.contains(&w(2).as_str())
                || (matches!(w(2).as_str(), "a" | "the")
                    && (PEOPLE.contains(&w(3).as_str())
                        || matches!(w(3).as_str(), "student" | "typical" | "textbook" | "key"))))
    }

    /// "The answer is C, or maybe not", "… or is it?", "… or not": the statement doubted by
    /// an "or" with no other choice after it.
    pub(super) fn doubting_or(&self, j: usize) -> bool {
        self.is_latin(j)
            && self.word(j).eq_ignore_ascii_case("or")
            && self.is_latin(j + 1)
            && matches!(
                lower(self.word(j + 1)).as_str(),
                "is" | "maybe"
                    | "not"
                    | "perhaps"
                    | "possibly"
                    | "am"
                    | "was"
                    | "isn"
                    | "something"
            )
    }

    /// "Some say the answer is C", "People say …": others' saying; not "I'd say", "I say".
    pub(super) fn others_say(&self, j: usize) -> bool {
        self.is_latin(j)
            && self.word(j).eq_ignore_ascii_case("say")
            && j > 0
            && self.is_latin(j - 1)
            && matches!(
                lower(self.word(j - 1)).as_str(),
                "some" | "many" | "people" | "others" | "they" | "experts" | "most" | "sources"
            )
    }

    /// `{"answer": "C", "valid": false}`, `{"answer": "B", "status": "draft"}`, and the same
    /// as YAML lines (`answer: C` then `final: false`): the record that holds the answer flags
    /// it as not valid, not final, not verified, or as a draft or withdrawn.
    fn json_flag_false(&self, from: usize) -> bool {
        let Some(record) = self.record_around(from) else {
            return false;
        };
        let quote = |x: usize| self.tok(x).is_some_and(|t| t.is_punct('"'));
        record.clone().any(|x| {
            if !self.is_latin(x) {
                return false;
            }
            // The key, quoted or at a line's start, before a colon ("is_final" reads as "is"
            // and "final": the underscore is decoration).
            let key = lower(self.word(x));
            let before = if x > 0 && self.is_latin(x - 1) && self.word(x - 1) == "is" {
                x - 1
            } else {
                x
            };
            let opens = quote(before.wrapping_sub(1))
                || before == 0
                || self.toks[before - 1].kind == Kind::Break;
            let colon = x + 1 + usize::from(quote(x + 1));
            if !opens || !self.tok(colon).is_some_and(|t| t.is_punct(':')) {
                return false;
            }
            let v = colon + 1 + usize::from(quote(colon + 1));
            if !self.is_latin(v) {
                return false;
            }
            let value = lower(self.word(v));
            match key.as_str() {
                "valid" | "correct" | "final" | "confident" | "answered" | "sure" | "verified"
                | "confirmed" | "approved" => matches!(value.as_str(), "false" | "no"),
                "status" | "state" => matches!(
                    value.as_str(),
                    "draft"
                        | "rejected"
                        | "retracted"
                        | "withdrawn"
                        | "invalid"
                        | "tentative"
                        | "pending"
                        | "superseded"
                        | "deprecated"
                        | "void"
                        | "discarded"
                ),
                _ => false,
            }
        })
    }

    /// The tokens of the record that holds the answer before `from`: its JSON object on one
    /// line (from '{' to '}'), or YAML lines (`answer: C` at a line's start and the `key:
    /// value` lines right after it).
    fn record_around(&self, from: usize) -> Option<std::ops::Range<usize>> {
        if self.has_brace() {
            if let Some(open) = (from.saturating_sub(60)..from)
                .rev()
                .take_while(|&x| self.toks[x].kind != Kind::Break)
                .find(|&x| self.toks[x].is_punct('{'))
            {
                let end = (from..self.toks.len().min(from + 60))
                    .find(|&x| self.toks[x].is_punct('}') || self.toks[x].kind == Kind::Break)
                    .unwrap_or(self.toks.len().min(from + 60));
                return Some(open + 1..end);
            }
        }
        // YAML: "answer: C" opening its line.
        let key = from.checked_sub(3)?;
        let yaml = self.is_latin(key)
            && self.word(key).eq_ignore_ascii_case("answer")
            && (key == 0 || self.toks[key - 1].kind == Kind::Break)
            && self.toks[key + 1].is_punct(':');
        if !yaml {
            return None;
        }
        // The lines after it, while each opens with "key:".
        let mut end = from;
        while self.tok(end).is_some_and(|t| t.kind == Kind::Break)
            && self.is_latin(end + 1)
            && self.tok(end + 2).is_some_and(|t| t.is_punct(':'))
        {
            end = (end + 1..self.toks.len())
                .find(|&x| self.toks[x].kind == Kind::Break)
                .unwrap_or(self.toks.len());
        }
        Some(from..end)
    }

    /// "Select C to see the explanation": a choice made for another purpose. Also "정답: 2번
    /// 문제와 같은 유형", where the label numbers a question.
    fn label_with_a_purpose(&self, from: usize) -> bool {
        let w = |n: usize| {
            if self.is_latin(from + n) {
                lower(self.word(from + n))
            } else {
                String::new()
            }
        };
        (w(0) == "to"
            && matches!(
                w(1).as_str(),
                "see" | "view" | "check" | "reveal" | "read" | "open" | "continue" | "proceed"
            ))
            || {
                // Past the label's own "번".
                // "2번 문제와 같은 유형", "③ 문제의 답": a question's number, the label and the
                // noun with only a space between; not "⑤** 문제를 살펴보겠습니다".
                let k = from + usize::from(self.is_hangul(from) && self.word(from) == "번");
                k > 0
                    && self.is_hangul(k)
                    && self.text[self.toks[k - 1].end as usize..self.toks[k].start as usize]
                        .trim()
                        .is_empty()
                    && ["문제", "문항"].iter().any(|p| {
                        self.word(k).strip_prefix(p).is_some_and(|r| {
                            matches!(r, "와" | "과" | "의" | "에서" | "처럼" | "랑" | "하고")
                        })
                    })
            }
    }
}
