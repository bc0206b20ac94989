//! A pick made when forced, as the whole answer: "굳이 고르라면 ②", "모르겠지만 찍는다면 ③",
//! "하나를 골라야 한다면 ②를 고르겠습니다", "If forced to pick, C." (audit 45). The writer doubts,
//! then commits to one choice all the same, which is the answer a grader reads. With anything
//! before or after it (a doubt, an option called wrong, another answer) it states nothing:
//! trials 58 to 60 found each wider reading committing wrong answers.

use super::words::{lower, strip_beon};
use super::{said_of, Ctx, Statement};
use crate::verify::scan::Kind;
use crate::verify::{Choice, Rule};
use std::ops::Range;

/// Words that may stand before a forced pick's verb: "굳이", "하나를", "그래도", "정답을".
const FILLERS: [&str; 14] = [
    "굳이",
    "하나",
    "하나를",
    "하나만",
    "그래도",
    "꼭",
    "억지로",
    "그냥",
    "답을",
    "정답을",
    "무조건",
    "그나마",
    "굳이굳이",
    "한",
];

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
    /// between allowed) that picks the answer, not another thing ("틀린 것을 고르라면",
    /// "오답을 하나 고르라면" pick something else; trial 58), naming one choice, ending its
    /// clause, and taken back nowhere after ("…, B. Nah.", "A. But A is Paris, so no.").
    /// Returns the statement, from the clause's first word.
    pub(super) fn forced_pick(&self, k: usize) -> Option<Statement> {
        let mut x = k.checked_sub(1)?;
        if self.toks[x].is_punct(',') {
            x = x.checked_sub(1)?;
        }
        let first = self.korean_forced(x).or_else(|| self.english_forced(x))?;
        // The whole answer is the pick: its clause opens the text (only doubt words before
        // the verb, see `korean_forced`), so nothing before it can call the option wrong, say
        // there is no answer or state another (trial 60: "②는 틀렸습니다. 굳이 고르라면 ②",
        // "Answer: D; if forced to pick, C").
        let opens = |from: usize| {
            self.toks[..from]
                .iter()
                .all(|t| matches!(t.kind, Kind::Punct(_) | Kind::Break))
        };
        let clause = (0..x)
            .rev()
            .find(|&y| self.toks[y].is_punct(';'))
            .map_or(0, |y| y + 1);
        if !opens(self.sentence_around(x).start.max(clause))
            || (self.is_latin(first) && !opens(first))
        {
            return None;
        }
        let r = self.label_at(k)?;
        // The label ends its clause with nothing joined to it: "②.", "②입니다", "②를
        // 고르겠습니다", "C;"; not "② 또는 ③", "C or D", "②는 틀렸다", "②를 고르는 학생".
        let mut last = k;
        let ends = match self.tok(k + 1) {
            None => true,
            Some(t) => match t.kind {
                Kind::Break => true,
                Kind::Punct(p) => matches!(p, '.' | '!' | ',' | ';' | ')'),
                Kind::Hangul if t.start == self.toks[k].end => {
                    let w = strip_beon(self.word(k + 1));
                    if matches!(w, "을" | "를") && self.is_hangul(k + 2) {
                        last = k + 2;
                        let v = self.word(k + 2);
                        ["고르", "고릅", "골", "찍", "선택", "택"]
                            .iter()
                            .any(|p| v.starts_with(p))
                            && !["는", "은", "던"].iter().any(|e| v.ends_with(e))
                            && self.tok(k + 3).is_none_or(|t| {
                                t.is_sentence_end() || t.is_punct(',') || t.kind == Kind::Break
                            })
                    } else {
                        last = k + 1;
                        [
                            "",
                            "입니다",
                            "이다",
                            "이요",
                            "요",
                            "이에요",
                            "예요",
                            "을",
                            "를",
                        ]
                        .contains(&w)
                    }
                }
                _ => false,
            },
        };
        // The pick ends the answer: whatever follows may doubt it in words without end ("…
        // 장난이에요", "정답 확률 5%", "Don't trust it"; trial 59), and it is the only forced
        // pick ("굳이 고르라면 ②\n굳이 고르라면 ③").
        let last_words = self.toks[last + 1..]
            .iter()
            .all(|t| matches!(t.kind, Kind::Punct(_) | Kind::Break));
        let only = (0..self.toks.len())
            .filter(|&y| y != x)
            .all(|y| self.korean_forced(y).is_none() && self.english_forced(y).is_none());
        (ends && last_words && only && self.is_label_mark(k))
            .then(|| Statement::strong(said_of(&[r]), Rule::Statement, first, k, false))
    }

    /// Another option picked when forced after an answer of `choice` at `span` ("정답:
    /// A\n\n굳이 고르라면 B.", "답: D; 굳이 고르라면 B"): a conflict. A pick after other text
    /// states nothing of its own (see `forced_pick`), but it still says the writer would
    /// choose another.
    pub(super) fn forced_pick_against(
        &self,
        choice: Choice,
        span: &Range<usize>,
    ) -> Option<Choice> {
        // After the answer only: a pick before it may be conceded to it ("굳이 고르라면 ②를
        // 고르겠지만, 정답은 ④입니다").
        let from = self.token_from(span.end).max(1);
        (from..self.toks.len()).find_map(|k| {
            // A label after a word of choosing ("…고르라면", "…한다면", "pick"), first.
            if !matches!(self.toks[k].kind, Kind::Mark(_)) {
                return None;
            }
            let before = self.toks[k - 1];
            let chosen = match before.kind {
                Kind::Hangul => before.text(self.text).ends_with(['면', '고']),
                Kind::Latin | Kind::Punct(',') => true,
                _ => false,
            };
            if !chosen {
                return None;
            }
            let o = self
                .choice_at(k)
                .filter(|&o| o != choice && self.is_label_mark(k))?;
            let x = if self.toks[k - 1].is_punct(',') {
                k.checked_sub(2)?
            } else {
                k - 1
            };
            (self
                .korean_forced(x)
                .or_else(|| self.english_forced(x))
                .is_some())
            .then_some(o)
        })
    }

    /// A Korean forced-pick clause ending at token `x`: "굳이 고르라면", "찍는다면", "하나를
    /// 골라야 한다면", "모르겠지만 찍는다면". Returns its verb's token. Before the verb only
    /// words of picking the answer may stand: not "틀린 것을", "오답을", "옳은 것을".
    fn korean_forced(&self, x: usize) -> Option<usize> {
        if !self.is_hangul(x) {
            return None;
        }
        let w = self.word(x);
        let verb = if KOREAN.iter().any(|e| w.ends_with(e)) {
            x
        } else if w == "한다면"
            && x > 0
            && self.is_hangul(x - 1)
            && ["골라야", "찍어야", "선택해야", "택해야"]
                .iter()
                .any(|e| self.word(x - 1).ends_with(e))
        {
            x - 1
        } else {
            return None;
        };
        // The clause: from its sentence's start, or a semicolon ("답: D; 굳이 고르라면 B").
        let start = self.sentence_around(x).start;
        let start = (start..verb)
            .rev()
            .find(|&y| self.toks[y].is_punct(';'))
            .map_or(start, |y| y + 1);
        let picks_the_answer = (start..verb).all(|y| {
            self.toks[y].is_punct(',')
                || (self.is_hangul(y) && {
                    let w = self.word(y);
                    // A concession only of doubt ("모르겠지만", "확실하지 않지만"), not of the
                    // pick being wrong ("오답이지만 굳이 고르라면 ②"; trial 59).
                    FILLERS.contains(&w)
                        || ["모르", "확실", "확신", "어렵", "애매", "헷갈"]
                            .iter()
                            .any(|d| w.starts_with(d))
                        || matches!(w, "서지" | "않지만" | "없지만" | "않는데" | "없는데")
                })
        });
        // The statement starts at the verb: the words before it ("하나를") are not its own.
        picks_the_answer.then_some(verb)
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
        let at = (modal.saturating_sub(3)..modal).find(|&y| w(y).as_deref() == Some("if"))?;
        // "If …" opens its sentence or follows a semicolon ("It's either B or C; if forced to
        // pick, C"), not "Wrong, but if forced to pick, C" (trial 59).
        if at > 0 && !(self.toks[at - 1].is_sentence_end() || self.toks[at - 1].is_punct(';')) {
            return None;
        }
        // Nothing but the words of the idiom between "if" and the verb.
        (at..x)
            .all(|y| {
                w(y).is_some_and(|v| {
                    matches!(
                        v.as_str(),
                        "if" | "i"
                            | "forced"
                            | "had"
                            | "have"
                            | "must"
                            | "need"
                            | "to"
                            | "were"
                            | "was"
                            | "am"
                            | "m"
                            | "really"
                            | "absolutely"
                    )
                })
            })
            .then_some(at)
    }
}
