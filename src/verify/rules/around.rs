//! What stands right around a statement's label: a closing quotation after it ("정답은
//! ③입니다, 라고", "\"정답은 ③입니다\"는"), its predicate after an ellipsis ("③... 이
//! 아니겠죠"), a question the response poses itself before it ("옳은 것은? 답: ③"), a
//! correction or a request not to count it after it ("다시 보니 틀렸네요", "treat as no
//! answer").

use super::denial::is_denial;
use super::words::{is_correction, is_negation_word, lower};
use super::{Ctx, Statement};
use crate::verify::scan::Kind;
use crate::verify::{Choice, Rule};
use memchr::memmem::Finder;
use std::sync::OnceLock;

impl Ctx<'_> {
    /// Is the token before `first` (past line breaks and a colon) a question mark or a
    /// Korean word ("옳은 것은? 답: ③", "옳은 것:\n정답은 ③")?
    pub(super) fn after_question_mark(&self, first: usize) -> bool {
        (0..first)
            .rev()
            .find(|&x| !(self.toks[x].kind == Kind::Break || self.toks[x].is_punct(':')))
            .is_some_and(|x| self.toks[x].is_punct('?') || self.is_hangul(x))
    }

    /// Is the Latin word at `k` a quoted JSON key, alone or the end of one
    /// (`"choice": …`, `"selected_option": …`, `"final_choice": …`)?
    pub(super) fn json_key_at(&self, k: usize) -> bool {
        let quote = |x: usize| self.tok(x).is_some_and(|t| t.is_punct('"'));
        let opens = (k > 0 && quote(k - 1)) || (k > 1 && self.is_latin(k - 1) && quote(k - 2));
        opens && quote(k + 1) && self.tok(k + 2).is_some_and(|t| t.is_punct(':'))
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

    /// The dots of an ellipsis from token `j`, counted as written ("…" is three; it is read
    /// as a symbol, Kind::Other, and three dots as punctuation), and the token after them.
    pub(super) fn dots_from(&self, j: usize) -> (usize, usize) {
        let mut n = j;
        let mut dots = 0;
        while let Some(t) = self.tok(n) {
            dots += match t.kind {
                Kind::Punct('.') => 1,
                Kind::Other if t.text(self.text) == "…" => 3,
                _ => break,
            };
            n += 1;
        }
        (n, dots)
    }

    /// Is the ellipsis at `j` followed by the statement's own predicate, denied ("③... 이
    /// 아니겠죠", "③… 은 아닙니다")?
    pub(super) fn split_by_ellipsis(&self, j: usize) -> bool {
        let (n, seen) = self.dots_from(j);
        let mut n = n;
        if seen < 2 {
            return false;
        }
        if self.is_hangul(n) && ["이", "가", "은", "는"].contains(&self.word(n)) {
            n += 1;
        }
        self.is_hangul(n) && is_negation_word(self.word(n))
    }

    /// A sentence of a correction that calls something wrong or gives no answer, with no
    /// label: "다시 생각해보니 틀렸네요", "(정정) 답 없음", "Correction: no answer". Not "다시
    /// 검토해도 …" (even on a second look) nor a sentence about the other options.
    pub(super) fn corrected_to_wrong(&self, words: &[usize]) -> bool {
        let correction = words.iter().enumerate().any(|(i, &x)| {
            let next = words.get(i + 1).map_or("", |&y| self.word(y));
            is_correction(&self.toks[x], next, self.text)
                && !self.word(x).ends_with('도')
                && !matches!(lower(self.word(x)).as_str(), "but" | "however")
                && !matches!(self.word(x), "하지만" | "그러나")
        });
        correction
            && words.iter().all(|&x| self.toks[x].mark().is_none())
            && !words.iter().any(|&x| {
                self.is_hangul(x)
                    && ["다른", "나머지"]
                        .iter()
                        .any(|o| self.word(x).starts_with(o))
            })
            && words.iter().any(|&x| match self.toks[x].kind {
                Kind::Hangul => {
                    let w = self.word(x);
                    is_denial(w) && !w.contains("틀림없")
                }
                Kind::Latin => {
                    matches!(lower(self.word(x)).as_str(), "wrong" | "incorrect" | "none")
                }
                _ => false,
            })
    }

    /// "Final: B", "Conclusion: C": an English conclusion heading at `k`, its colon next.
    pub(super) fn is_english_heading(&self, k: usize) -> bool {
        ["final", "conclusion"]
            .iter()
            .any(|h| self.word(k).eq_ignore_ascii_case(h))
            && self.tok(k + 1).is_some_and(|n| n.is_punct(':'))
    }

    /// The final statement a heading at `k` makes, read to its right.
    pub(super) fn heading_statement(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<Statement> {
        let (said, last) = self.right_of_keyword(k, negations)?;
        Some(Statement::strong(said, Rule::Statement, k, last, true))
    }

    /// After token `j`, does the text ask that its answer not count: "treat as no answer",
    /// "treat this as no answer", "do not grade", "무응답으로 처리"?
    pub(super) fn asks_not_to_count(&self, j: usize) -> bool {
        let Some(t) = self.tok(j + 1) else {
            return false;
        };
        self.marks()
            .not_count
            .iter()
            .any(|&at| at >= t.start as usize)
    }

    /// Does the text hold a '{' (JSON)?
    pub(super) fn has_brace(&self) -> bool {
        self.marks().brace
    }

    fn marks(&self) -> &Marks {
        self.marks.get_or_init(|| Marks::of(self.text))
    }
}

/// Rare marks of a whole answer, found once: where it asks not to be counted, and whether it
/// holds JSON.
pub(super) struct Marks {
    not_count: Vec<usize>,
    brace: bool,
}

impl Marks {
    fn of(text: &str) -> Marks {
        // Lower case, or capitalised at a sentence's start; the phrase must end its clause
        // or name the answer: "do not grade this", not "do not grade smoothly".
        const PHRASES: [&str; 9] = [
            "as no answer",
            "do not grade",
            "Do not grade",
            "don't grade",
            "Don't grade",
            "not be graded",
            "DO NOT GRADE",
            "무응답으로 처리",
            "답 없음으로 처리",
        ];
        let bytes = text.as_bytes();
        let ends = |after: &[u8]| {
            after
                .first()
                .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b' ')
                || [&b" this"[..], b" it", b" my", b" the answer"]
                    .iter()
                    .any(|n| after.len() >= n.len() && after[..n.len()].eq_ignore_ascii_case(n))
        };
        // Every phrase holds "grade", "GRADE", "no answer" or "으로 처리": most texts hold
        // none of them. The finders are built once.
        static FINDERS: OnceLock<(Vec<Finder<'static>>, Vec<Finder<'static>>)> = OnceLock::new();
        let (gates, phrases) = FINDERS.get_or_init(|| {
            (
                ["grade", "GRADE", "no answer", "으로 처리"]
                    .iter()
                    .map(|w| Finder::new(w.as_bytes()))
                    .collect(),
                PHRASES.iter().map(|p| Finder::new(p.as_bytes())).collect(),
            )
        });
        let not_count = if gates.iter().any(|f| f.find(bytes).is_some()) {
            phrases
                .iter()
                .flat_map(|f| {
                    let n = f.needle().len();
                    f.find_iter(bytes)
                        .filter(|&i| ends(&bytes[i + n..]))
                        .collect::<Vec<_>>()
                })
                .collect()
        } else {
            Vec::new()
        };
        Marks {
            not_count,
            brace: memchr::memchr(b'{', bytes).is_some(),
        }
    }
}

/// Does the text hold "Final:" or "Conclusion:" (an English heading, its colon right after)?
pub(super) fn has_english_heading(bytes: &[u8]) -> bool {
    [
        finder!("inal:"),
        finder!("INAL:"),
        finder!("onclusion:"),
        finder!("ONCLUSION:"),
    ]
    .iter()
    .any(|h| h.find(bytes).is_some())
}
