//! "No" turning to another label: "아니, D입니다", "정답: C (아니요, D)", "Answer: C, no,
//! D", "C [nope, D]", a correction of the answer just given.

use super::words::strip_beon;
use super::Ctx;
use crate::verify::scan::Kind;

impl Ctx<'_> {
    /// Does token `j` open its sentence with "no" and a comma ("아니, …", "No, …")?
    pub(super) fn opens_with_no(&self, j: usize) -> bool {
        // Where it stands first (one test for most words): opening its sentence, or after a
        // label and a bracket or comma.
        let opens = j == 0 || self.toks[j - 1].is_sentence_end();
        // "정답: C (아니 D)", "Answer: C, no, D": right after a label, in a bracket or after a
        // comma (trial 53).
        let after_label = !opens
            && j >= 2
            && matches!(self.toks[j - 1].kind, Kind::Punct('(' | '[' | ','))
            && self.is_label_mark(j - 2);
        if !opens && !after_label {
            return false;
        }
        let old_no = self.word(j) == "아니"
            || ["no", "sorry"]
                .iter()
                .any(|n| self.word(j).eq_ignore_ascii_case(n));
        // "아니요", "아뇨", "앗", "nope", "oops", "scratch that" as "아니" and "no", when they
        // turn to a label (stop 35; not "아니요, D 아닙니다", trial 57).
        let new_no = matches!(
            self.word(j),
            "아니요"
                | "아니오"
                | "아뇨"
                | "아냐"
                | "아닙니다"
                | "아니다"
                | "앗"
                | "아차"
                | "아"
        ) || ["nope", "nah", "oops", "scratch"]
            .iter()
            .any(|n| self.word(j).eq_ignore_ascii_case(n));
        // "아니 D.", "사실 D입니다": the word right before another label that it claims
        // (trial 50); not "사실 ④는 귤로 …", an explanation going on (trial 51).
        let label_next = || self.is_label_mark(j + 1) && self.claimed(j + 1);
        // After a label, "no" must turn to another label claimed in its clause ("C, no, D",
        // "C (sorry, I meant D)", "③ (아니, 사실 ④)"; not "C, no, not D", "C (no, B is
        // composite)"; trials 55, 56).
        let turns_to = || {
            (j + 1..self.toks.len())
                .take_while(|&x| !self.toks[x].is_sentence_end() && !self.closes(x))
                .find(|&x| self.is_label_mark(x))
                .is_some_and(|x| {
                    self.claimed(x)
                        && !(self.is_latin(x - 1) && self.word(x - 1).eq_ignore_ascii_case("not"))
                })
        };
        if after_label {
            return (old_no || new_no) && turns_to();
        }
        let no = old_no || (new_no && turns_to());
        (no && (self.tok(j + 1).is_some_and(|t| t.is_punct(',')) || label_next()))
            || (self.word(j) == "사실" && label_next())
    }

    /// Is token `x` a closing bracket, ")" or "]"?
    fn closes(&self, x: usize) -> bool {
        matches!(self.toks[x].kind, Kind::Punct(')' | ']'))
    }

    /// Is the label at `m` claimed as it stands: the sentence ends after it, or the copula
    /// or "가 맞다" / "이 정답" follows ("D.", "D입니다", "D네요", "④가 맞습니다")?
    fn claimed(&self, m: usize) -> bool {
        let Some(n) = self.tok(m + 1) else {
            return true;
        };
        if n.is_sentence_end() || n.is_punct(',') || self.closes(m + 1) {
            return true;
        }
        let w = if n.kind == Kind::Hangul && n.start == self.toks[m].end {
            self.word(m + 1)
        } else {
            return false;
        };
        // "④번.", "④번입니다": 번 and what follows it.
        if w == "번" {
            return self
                .tok(m + 2)
                .is_none_or(|t| t.is_sentence_end() || t.is_punct(',') || self.closes(m + 2));
        }
        let w = w.strip_prefix('번').unwrap_or(w);
        const COPULA: [&str; 11] = [
            "입니", "이다", "이에", "예요", "네요", "네", "였", "이었", "이야", "야", "임",
        ];
        COPULA.iter().any(|c| w.starts_with(c))
            || (matches!(strip_beon(w), "이" | "가")
                && self.is_hangul(m + 2)
                && ["맞", "정답", "답"].iter().any(|p| self.word(m + 2).starts_with(p))
                // "①번이 정답처럼 보이지만": a look, not a claim.
                && !self.word(m + 2).contains("처럼"))
    }
}
