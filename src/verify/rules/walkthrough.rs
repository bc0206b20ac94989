//! A label right after an answer marker that opens a walk through the options is the walk's
//! first topic, not the answer: "정답: ①은 … 맞으므로 틀린 선지이고, ③이 옳습니다", "## 정답\n\n
//! 1)은 … 옳습니다. 2)는 … 틀렸습니다", "정답: 1번부터 차례로 보면, 4번이 …", "Answer:
//! Option 1 describes …; option 4 …". Not "정답: ③은 옳지 않은 설명입니다" on a question
//! asking what is not so: a label judged as the question asks is the answer.

use super::words::{lower, strip_beon};
use super::Ctx;
use crate::verify::scan::Kind;

impl Ctx<'_> {
    /// Does the label at `k` (its phrase ending at `last`), read after an answer marker,
    /// open a walk through the options? Only when another option is named later.
    pub(super) fn opens_walkthrough(&self, k: usize, last: usize) -> bool {
        // "정답: (1) ①은 …": the label written twice, then a remark on it.
        let Some(c) = self.choice_at(k).filter(|_| last == k) else {
            return false;
        };
        // Past the bracket of "1)" or "(1)".
        let mut n = last + 1;
        if self
            .tok(n)
            .is_some_and(|t| t.is_punct(')') && t.start == self.toks[last].end)
        {
            n += 1;
        }
        let Some(t) = self.tok(n) else {
            return false;
        };
        let glued = t.start == self.toks[n - 1].end;
        // The word after the label first: most labels after a marker end their statement, and
        // the search for a later option below reads the rest of the text.
        if !(t.kind == Kind::Latin || (t.kind == Kind::Hangul && glued)) {
            return false;
        }
        let later_other = (last + 1..self.toks.len())
            .any(|x| self.is_label_mark(x) && self.choice_at(x).is_some_and(|o| o != c));
        if !later_other {
            return false;
        }
        match t.kind {
            // "Option 1 describes …", "A says …".
            Kind::Latin => matches!(
                lower(self.word(n)).as_str(),
                "describes" | "says" | "states" | "concerns" | "refers" | "mentions" | "covers"
            ),
            Kind::Hangul if glued => {
                let w = strip_beon(self.word(n));
                // "1번부터 차례로", "2)의 경우", "(1)에서": a walk, whatever it says.
                if w.starts_with("부터")
                    || w.starts_with("에서")
                    || (w == "의" && self.is_hangul(n + 1) && self.word(n + 1).starts_with("경우"))
                {
                    return true;
                }
                // "①은 … 옳고", "A는 틀림", "3)의 소멸시효는 …": a topic judged otherwise than
                // the question asks; not "③의 앞 번호인 ②", a reference point.
                if !matches!(w, "은" | "는" | "의")
                    || (w == "의"
                        && ["앞", "뒤", "다음", "이전", "바로"].contains(&self.next_word(n)))
                {
                    return false;
                }
                let end = (n + 1..self.toks.len())
                    .find(|&x| {
                        let t = self.toks[x];
                        t.is_sentence_end()
                            || matches!(t.kind, Kind::Punct(',' | ';'))
                            || (t.kind == Kind::Hangul
                                && ["고", "며", "지만", "으나", "는데"]
                                    .iter()
                                    .any(|e| self.word(x).ends_with(e)))
                    })
                    .map_or(self.toks.len(), |x| x + 1);
                let clause = n + 1..end;
                // "D는 보일오버, C는 …", "A는 수증기 폭발이고, B가 …": a clause that judges
                // nothing, followed by another about another option.
                let unjudged = !self.negative(&clause) && !self.positive(&clause);
                let goes_on = end < self.toks.len() && !self.toks[end - 1].is_sentence_end();
                if unjudged && (goes_on || w == "의") {
                    return true;
                }
                // "정답: ③은" with nothing said of it.
                if !clause
                    .clone()
                    .any(|x| matches!(self.toks[x].kind, Kind::Hangul | Kind::Latin))
                {
                    return false;
                }
                if unjudged {
                    // "정답: ③번은 취지에 반합니다. ①, ②, ④는 부합합니다": the sentence about
                    // the next option named tells: judged as the question asks, it is the
                    // answer and this one a topic ("①은 헌법 그대로입니다. ③은 틀렸습니다").
                    let Some(x) = (end..self.toks.len())
                        .find(|&x| self.is_label_mark(x) && self.choice_at(x) != Some(c))
                    else {
                        return false;
                    };
                    let start = (end..x)
                        .rev()
                        .find(|&y| self.toks[y].is_sentence_end())
                        .map_or(end, |y| y + 1);
                    let stop = (x..self.toks.len())
                        .find(|&y| self.toks[y].is_sentence_end())
                        .unwrap_or(self.toks.len());
                    let next = start..stop;
                    let judged = self.negative(&next) || self.positive(&next);
                    return judged && self.negative(&next) == self.asks_negative();
                }
                self.negative(&clause) != self.asks_negative()
            }
            _ => false,
        }
    }
}
