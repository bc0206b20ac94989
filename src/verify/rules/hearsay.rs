//! An English answer clause that the words after it give to someone else or call wrong:
//! "Some study guides give (3) as the answer, which is a mistake", "The false statement is B,
//! some might say", "The answer is C, said no one", "The answer is C, is what most students
//! pick, and they are wrong". Not the writer's own "The answer is C, is what I would say".

use super::words::lower;
use super::Ctx;
use crate::verify::scan::Kind;

impl Ctx<'_> {
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

    /// `{"answer": "C", "valid": false}`, `{"answer": "B", "correct": false}`: the object
    /// that holds the answer flags it as not valid (or not correct, not final).
    fn json_flag_false(&self, from: usize) -> bool {
        if !self.has_brace() {
            return false;
        }
        // The object around the answer: from its '{' to its '}' (on one line).
        let Some(open) = (from.saturating_sub(60)..from)
            .rev()
            .take_while(|&x| self.toks[x].kind != Kind::Break)
            .find(|&x| self.toks[x].is_punct('{'))
        else {
            return false;
        };
        let end = (from..self.toks.len().min(from + 60))
            .find(|&x| self.toks[x].is_punct('}') || self.toks[x].kind == Kind::Break)
            .unwrap_or(self.toks.len().min(from + 60));
        // A quoted key, a colon, then false: `"valid": false`, `"correct": "no"`.
        let quote = |x: usize| self.tok(x).is_some_and(|t| t.is_punct('"'));
        (open + 1..end).any(|x| {
            self.is_latin(x)
                && matches!(
                    lower(self.word(x).trim_start_matches("is_")).as_str(),
                    "valid" | "correct" | "final" | "confident" | "answered" | "sure"
                )
                && quote(x - 1)
                && quote(x + 1)
                && self.tok(x + 2).is_some_and(|t| t.is_punct(':'))
                && {
                    let v = x + 3 + usize::from(quote(x + 3));
                    self.is_latin(v) && matches!(lower(self.word(v)).as_str(), "false" | "no")
                }
        })
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
