//! A pick made when forced: "굳이 고르라면 ②", "모르겠지만 찍는다면 ③", "하나를 골라야 한다면
//! ②", "If forced to pick, C", "If I had to choose, A; but …" (audit 45). The writer doubts,
//! then commits to one choice all the same, which is the answer a grader reads.

use super::words::lower;
use super::{said_of, Ctx, Statement};
use crate::verify::scan::Kind;
use crate::verify::Rule;

/// Korean conditional endings of choosing: "고르라면", "찍는다면", "선택하자면".
const KOREAN: [&str; 15] = [
    "고르라면",
    "고르자면",
    "고른다면",
    "고르라고",
    "찍는다면",
    "찍자면",
    "찍으라면",
    "찍으라고",
    "택하라면",
    "택한다면",
    "택하자면",
    "선택하라면",
    "선택한다면",
    "선택하자면",
    "꼽자면",
];

impl Ctx<'_> {
    /// The label at `k` picked when forced: right after a forced-pick clause (a comma
    /// between allowed), naming one choice and ending its clause. Returns the statement,
    /// from the clause's first word.
    pub(super) fn forced_pick(&self, k: usize) -> Option<Statement> {
        let mut x = k.checked_sub(1)?;
        if self.toks[x].is_punct(',') {
            x = x.checked_sub(1)?;
        }
        let first = self.korean_forced(x).or_else(|| self.english_forced(x))?;
        let r = self.label_at(k)?;
        // The label ends its clause with nothing joined to it: "②.", "②입니다", "C;", not
        // "② 또는 ③", "C or D", "②는 틀렸다".
        let ends = match self.tok(k + 1) {
            None => true,
            Some(t) => match t.kind {
                Kind::Break => true,
                Kind::Punct(p) => matches!(p, '.' | '!' | ',' | ';' | ')'),
                Kind::Hangul => {
                    let w = self
                        .word(k + 1)
                        .strip_prefix('번')
                        .unwrap_or(self.word(k + 1));
                    t.start == self.toks[k].end
                        && [
                            "",
                            "입니다",
                            "이다",
                            "이요",
                            "요",
                            "을",
                            "를",
                            "이에요",
                            "예요",
                        ]
                        .contains(&w)
                        && !(matches!(w, "을" | "를") && self.is_hangul(k + 2) && {
                            let v = self.word(k + 2);
                            !["고르", "찍", "선택", "택"]
                                .iter()
                                .any(|p| v.starts_with(p))
                        })
                }
                _ => false,
            },
        };
        let alone = (k + 1..self.sentence_around(k).end).all(|y| !self.is_label_mark(y));
        (ends && alone && self.is_label_mark(k))
            .then(|| Statement::strong(said_of(&[r]), Rule::Statement, first, k, false))
    }

    /// A Korean forced-pick clause ending at token `x`: "굳이 고르라면", "찍는다면", "하나를
    /// 골라야 한다면". Returns its first token.
    fn korean_forced(&self, x: usize) -> Option<usize> {
        if !self.is_hangul(x) {
            return None;
        }
        let w = self.word(x);
        if KOREAN.iter().any(|e| w.ends_with(e)) {
            return Some(x);
        }
        (w == "한다면"
            && x > 0
            && self.is_hangul(x - 1)
            && ["골라야", "찍어야", "선택해야", "택해야"]
                .iter()
                .any(|e| self.word(x - 1).ends_with(e)))
        .then(|| x - 1)
    }

    /// An English forced-pick clause ending at token `x`: "if forced to pick", "if I had to
    /// choose", "if I must guess". Returns its "if".
    fn english_forced(&self, x: usize) -> Option<usize> {
        let w = |y: usize| self.is_latin(y).then(|| lower(self.word(y)));
        if !matches!(
            w(x)?.as_str(),
            "pick" | "choose" | "guess" | "select" | "answer"
        ) {
            return None;
        }
        let modal = (x.saturating_sub(3)..x).find(|&y| {
            w(y).is_some_and(|m| matches!(m.as_str(), "forced" | "had" | "must" | "have" | "need"))
        })?;
        (modal.saturating_sub(3)..modal).find(|&y| w(y).as_deref() == Some("if"))
    }
}
