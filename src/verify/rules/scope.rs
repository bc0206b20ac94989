//! An answer limited to another scope than the question's: an old law, an old edition, a
//! misprinted key ("The answer is C only under the old law", "정답은 ③ (구법 기준)",
//! "구법에서는 정답은 ③"). It says what the answer was there, not what it is here. Not a
//! scope of the present ("현행법상 정답은 ③", "under the current law"). Likewise a draft
//! ("Initial answer: B", "초안: 정답 ②", "임시 답: C") is not the final answer.

use super::words::lower;
use super::Ctx;
use crate::verify::scan::Kind;

/// English words that place an answer under superseded rules on their own, after a
/// preposition ("under the repealed statute", "according to a misprinted key"; not "because
/// the statute was repealed", which is the option's content).
const OLD_ON_THEIR_OWN: [&str; 6] = [
    "repealed",
    "misprinted",
    "outdated",
    "obsolete",
    "superseded",
    "erratum",
];

/// Prepositions that open a scope.
const SCOPE_PREPOSITIONS: [&str; 6] = ["under", "in", "to", "per", "on", "by"];

/// Endings that make a Korean phrase a scope ("구법에서는", "구법상", "구법 기준", "개정 전
/// 법률에 따르면"); "신법은 구법에 우선한다" is the option's content.
const SCOPE_ENDINGS: [&str; 9] = [
    "에서는",
    "에서",
    "상",
    "기준",
    "기준으로",
    "으로는",
    "로는",
    "에는",
    "따르면",
];

/// English adjectives that do with a noun of rules or texts after them ("the old law").
const OLD: [&str; 6] = ["old", "older", "former", "previous", "prior", "earlier"];

/// Nouns of rules or texts ("law", "edition", "교재").
const RULES_EN: [&str; 10] = [
    "law",
    "laws",
    "edition",
    "statute",
    "version",
    "rules",
    "regulation",
    "act",
    "key",
    "textbook",
];

impl Ctx<'_> {
    /// Is the statement starting at token `first` (its clause going on at `from`) limited to
    /// superseded rules, by the rest of its sentence or the start of its clause? The first
    /// word of scope after the label decides ("③ (현행법 기준; 구법으로는 ②)" is the present);
    /// a scope beside another label is that label's ("정답은 ③ (구법에서는 ②)").
    pub(super) fn under_old_rules(&self, first: usize, from: usize) -> bool {
        let end = (from..self.toks.len())
            .find(|&x| self.toks[x].kind == Kind::Break || self.toks[x].is_punct('.'))
            .unwrap_or(self.toks.len());
        if (from..end).any(|x| self.is_label_mark(x)) {
            return false;
        }
        let after = (from..end).find_map(|x| self.scope_at(x));
        if let Some(old) = after {
            return old;
        }
        // "구법에서는 정답은 ③", "Under the old law, the answer is C": the clause before it.
        let start = (0..first)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end())
            .map_or(0, |x| x + 1);
        !(start..first).any(|x| self.is_label_mark(x))
            && (start..first).find_map(|x| self.scope_at(x)) == Some(true)
    }

    /// Does token `x` open a scope: `Some(true)` for superseded rules ("구법", "개정 전",
    /// "the old law", "pre-2015"), `Some(false)` for the present ("현행", "current")?
    fn scope_at(&self, x: usize) -> Option<bool> {
        let next = |n: usize| self.tok(x + n).map(|t| t.text(self.text)).unwrap_or("");
        match self.toks[x].kind {
            Kind::Hangul => {
                let w = self.word(x);
                if ["현행", "현재", "개정후", "개정된", "최신"]
                    .iter()
                    .any(|p| w.starts_with(p))
                    || (w == "개정" && next(1).starts_with('후'))
                {
                    return Some(false);
                }
                let old = ["구법", "구판", "구규정", "개정전"]
                    .iter()
                    .any(|p| w.starts_with(p))
                    || (w == "개정" && next(1).starts_with('전'))
                    // "이전 판에서는", "과거 기준으로는"; not "과거 판례".
                    || (["이전", "예전", "과거", "옛"].contains(&w)
                        && self.is_hangul(x + 1)
                        && ["법", "법률", "법령", "판", "규정", "기준", "교재", "정답표"]
                            .iter()
                            .any(|p| {
                                next(1).strip_prefix(p).is_some_and(|r| {
                                    matches!(
                                        r,
                                        "" | "에서" | "에서는" | "에는" | "의" | "으로는" | "로는"
                                            | "상" | "에" | "으로" | "로" | "은" | "는"
                                    )
                                })
                            }));
                // The phrase is a scope only with its ending, in it or in the next words.
                let scoped = (x..self.toks.len().min(x + 4))
                    .take_while(|&y| self.is_hangul(y))
                    .any(|y| SCOPE_ENDINGS.iter().any(|e| self.word(y).ends_with(e)));
                (old && scoped).then_some(true)
            }
            // Compared without a lower-cased copy: each Latin word after a statement is asked.
            Kind::Latin => {
                let is = |w: &str, list: &[&str]| list.iter().any(|l| w.eq_ignore_ascii_case(l));
                let w = self.word(x);
                if is(w, &["current", "currently", "amended", "new"]) {
                    return Some(false);
                }
                let noun = |n: usize| self.is_latin(x + n) && is(next(n), &RULES_EN);
                let old = is(w, &OLD_ON_THEIR_OWN)
                    || (is(w, &OLD) && (noun(1) || noun(2)))
                    // "pre-2015"
                    || (w.eq_ignore_ascii_case("pre")
                        && self.tok(x + 1).is_some_and(|t| t.is_punct('-'))
                        && self
                            .tok(x + 2)
                            .is_some_and(|t| matches!(t.kind, Kind::Number)));
                let introduced = (x.saturating_sub(3)..x)
                    .any(|y| self.is_latin(y) && is(self.word(y), &SCOPE_PREPOSITIONS));
                (old && introduced).then_some(true)
            }
            _ => None,
        }
    }

    /// Is the answer keyword at `first` qualified as a draft: "Initial answer: B", "Draft
    /// answer", "처음 답: ③", "초안: 정답 ②", "1차 답안", "임시 답"? A draft is not the
    /// answer, whether or not a revision follows.
    pub(super) fn drafted_before(&self, first: usize) -> bool {
        (first.saturating_sub(3)..first)
            .rev()
            .take_while(|&x| self.toks[x].kind != Kind::Break && !self.toks[x].is_punct('.'))
            .any(|x| match self.toks[x].kind {
                Kind::Hangul => {
                    let w = self.word(x);
                    // Not "임시소방시설은 … 답은 2번", a word of the topic.
                    ["초안", "가답", "임시답"].iter().any(|p| w.starts_with(p))
                        || matches!(w, "임시" | "임시로" | "잠정" | "잠정적" | "잠정적인")
                        || (x + 1 == first && matches!(w, "처음" | "첫"))
                        // "함정 답: ③", "가정: 정답은 ③", "기각된 답: ③": a trap, a
                        // hypothesis or a rejected answer heads the line.
                        || matches!(
                            w,
                            "함정" | "가정" | "가설" | "기각된" | "기각" | "탈락" | "배제된"
                        )
                        // "(수정 전) 정답: ③", "[철회된 답] ③", "삭제된 답안".
                        || (w == "수정" && self.next_word(x) == "전")
                        || ["수정전", "철회", "삭제된", "폐기된", "취소된", "무효"]
                            .iter()
                            .any(|p| w.starts_with(p))
                }
                Kind::Latin => {
                    matches!(
                        lower(self.word(x)).as_str(),
                        "initial"
                            | "draft"
                            | "preliminary"
                            | "tentative"
                            | "provisional"
                            | "rejected"
                            | "discarded"
                            | "eliminated"
                            | "trap"
                            | "hypothesis"
                            | "assumption"
                            | "withdrawn"
                            | "retracted"
                            | "deleted"
                            | "superseded"
                            | "obsolete"
                            | "outdated"
                            | "void"
                    ) || (matches!(lower(self.word(x)).as_str(), "previous" | "old")
                    // "Previous answer: B", `{"previous_answer": "C"}`; not "ignore previous
                    // \boxed{B}".
                    && self.is_latin(first)
                    && self.word(first).eq_ignore_ascii_case("answer"))
                }
                Kind::Number => self.word(x) == "1" && self.next_word(x).starts_with('차'),
                _ => false,
            })
    }
}
