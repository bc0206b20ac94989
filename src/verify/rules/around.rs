//! What stands right around a statement's label: a closing quotation after it ("정답은
//! ③입니다, 라고", "\"정답은 ③입니다\"는"), its predicate after an ellipsis ("③... 이
//! 아니겠죠"), a question the response poses itself before it ("옳은 것은? 답: ③").

use super::words::is_negation_word;
use super::Ctx;
use crate::verify::scan::Kind;

impl Ctx<'_> {
    /// Is the token before `first` (past line breaks and a colon) a question mark or a
    /// Korean word ("옳은 것은? 답: ③", "옳은 것:\n정답은 ③")?
    pub(super) fn after_question_mark(&self, first: usize) -> bool {
        (0..first)
            .rev()
            .find(|&x| !(self.toks[x].kind == Kind::Break || self.toks[x].is_punct(':')))
            .is_some_and(|x| self.toks[x].is_punct('?') || self.is_hangul(x))
    }

    /// Does a clause ending at `j` close a quotation: "정답은 ③ 입니다 라고", "…입니다, 라고",
    /// "…입니다 — 라는", "\"정답은 ③입니다\"는"?
    pub(super) fn quote_follows(&self, j: usize) -> bool {
        let mut q = j + 1;
        let mut closing = false;
        if let Some(t) = self.tok(q) {
            if [',', '—', '–', '-'].iter().any(|&c| t.is_punct(c)) {
                q += 1;
            } else if ['"', '”', '\'', '’'].iter().any(|&c| t.is_punct(c)) {
                closing = true;
                q += 1;
            }
        }
        self.is_hangul(q) && {
            let w = self.word(q);
            ["라고", "라는", "라며"].iter().any(|e| w.starts_with(e))
                || (closing && ["는", "은", "이", "가"].contains(&w))
        }
    }

    /// Is the ellipsis at `j` followed by the statement's own predicate, denied ("③... 이
    /// 아니겠죠", "③… 은 아닙니다")?
    pub(super) fn split_by_ellipsis(&self, j: usize) -> bool {
        let mut n = j;
        while self
            .tok(n)
            .is_some_and(|t| t.is_punct('.') || t.is_punct('…'))
        {
            n += 1;
        }
        if n < j + 2 && !self.toks[j].is_punct('…') {
            return false;
        }
        if self.is_hangul(n) && ["이", "가", "은", "는"].contains(&self.word(n)) {
            n += 1;
        }
        self.is_hangul(n) && is_negation_word(self.word(n))
    }
}
