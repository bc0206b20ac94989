//! O/X words: on an O/X item, 옳다/맞다/true read as ○ and 틀리다/옳지 않다/false as ×, with
//! negation and concessive connectives; conflicting words with no conclusion abstain.

use super::conclude::is_explicit_correction;
use super::mask::sentences;
use super::words::{is_conditional_negation, is_correction, is_negation_word, lower};
use super::Ctx;
use crate::verify::scan::{Kind, Mark, Tok};
use crate::verify::{Choice, Extraction, Rule};
use std::ops::Range;

/// O/X polarity of a word on an O/X item: Some(true) = ○, Some(false) = ×.
pub(super) fn ox_polarity(toks: &[Tok], k: usize, text: &str) -> Option<bool> {
    let t = &toks[k];
    let next_is_neg = toks.get(k + 1).is_some_and(|n| {
        n.kind == Kind::Hangul && {
            let w = n.text(text);
            w.starts_with('않') || w.starts_with('못')
        }
    });
    match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            // Every word below starts with one of these syllables: most words of an answer
            // are ruled out by their first.
            if !w.starts_with([
                '옳', '맞', '그', '적', '올', '틀', '없', '거', '잘', '부', '오', '비', '아', '참',
                '타',
            ]) {
                return None;
            }
            // "옳은지 의문입니다", "맞는지 확인이 필요합니다", "틀린지": whether, not a verdict.
            if ["은지", "는지", "을지", "인지", "린지", "른지", "일지"]
                .iter()
                .any(|e| w.ends_with(e))
            {
                return None;
            }
            for p in ["옳지", "맞지", "그렇지", "적절하지", "올바르지"] {
                if let Some(rest) = w.strip_prefix(p) {
                    if next_is_neg || rest.starts_with('않') || rest.starts_with('못') {
                        return Some(false);
                    }
                    return Some(true);
                }
            }
            if w.starts_with("틀림없") {
                return None;
            }
            // "잘못이 없습니다", "문제는 없습니다", "확신은 없습니다": a fault or a doubt denied
            // is neither judgement (the first two lean ○, the last doubts whatever came before).
            let fault_or_doubt = |w: &str| {
                [
                    "잘못", "오류", "문제", "이상", "하자", "모순", "확신", "자신", "의심",
                ]
                .iter()
                .any(|p| w.starts_with(p))
            };
            let next_denies = toks
                .get(k + 1)
                .is_some_and(|n| n.kind == Kind::Hangul && n.text(text).starts_with('없'));
            if next_denies && fault_or_doubt(w) {
                return None;
            }
            // "판단할 수 없다", "알 수 없습니다": cannot tell, not false.
            if w.starts_with('없') {
                let before = if k > 0 && toks[k - 1].kind == Kind::Hangul {
                    toks[k - 1].text(text)
                } else {
                    ""
                };
                return (before != "수" && !fault_or_doubt(before)).then_some(false);
            }
            if w.starts_with("틀리지") || w.starts_with("틀리진") {
                return Some(next_is_neg);
            }
            if [
                "틀",
                "그르",
                "그른",
                "거짓",
                "잘못",
                "부적절",
                "오류",
                "비적절",
            ]
            .iter()
            .any(|p| w.starts_with(p))
                || is_negation_word(w)
            {
                return Some(false);
            }
            if ["옳", "맞", "그렇", "참", "적절", "올바", "타당"]
                .iter()
                .any(|p| w.starts_with(p))
            {
                return Some(true);
            }
            None
        }
        Kind::Latin => {
            let p = match lower(t.text(text)).as_str() {
                "true" | "correct" | "yes" => true,
                "false" | "incorrect" | "wrong" | "no" => false,
                _ => return None,
            };
            // "I doubt whether this is true", "Whether it is true depends …": not a verdict.
            let asked = (k.saturating_sub(6)..k)
                .rev()
                .take_while(|&x| !toks[x].is_sentence_end())
                .any(|x| {
                    toks[x].kind == Kind::Latin
                        && matches!(
                            lower(toks[x].text(text)).as_str(),
                            "whether" | "if" | "doubt" | "wonder"
                        )
                });
            if asked {
                return None;
            }
            // "The statement is not false": the judgement denied.
            let is = |x: usize, words: &[&str]| {
                toks[x].kind == Kind::Latin && words.contains(&lower(toks[x].text(text)).as_str())
            };
            // "isn't" is three tokens: isn, ', t.
            let negated = (k.saturating_sub(2)..k).any(|x| is(x, &["not", "isn", "never"]))
                || (k >= 3 && is(k - 1, &["t"]) && is(k - 3, &["isn", "wasn", "aren"]));
            Some(p != negated)
        }
        _ => None,
    }
}

impl Ctx<'_> {
    /// In sentence `s` with O/X words `words`, a judgement quoted ("옳다고", "설명이라고",
    /// "O라고") and then doubted or denied ("보기 어렵다", "할 수 없다"): the opposite of the
    /// quoted judgement (None when it cannot be told, or for a mark named and denied: "X는
    /// 아닙니다"), and the token that decided.
    fn judgement_denied(
        &self,
        s: &Range<usize>,
        words: &[(usize, bool)],
    ) -> Option<(Option<bool>, usize)> {
        let denial = |j: usize| {
            self.is_hangul(j) && {
                let w = self.word(j);
                ["어렵", "어려", "힘들", "힘듭", "없", "않", "못"]
                    .iter()
                    .any(|d| w.starts_with(d))
                    || is_negation_word(w)
            }
        };
        // "O라고 하기도, X라고 하기도 어렵습니다": both judgements quoted.
        let quotes: Vec<bool> = s
            .clone()
            .filter_map(|j| match self.toks[j].kind {
                Kind::Mark(Mark::Ox(o))
                    if self.is_hangul(j + 1) && self.word(j + 1).ends_with("라고") =>
                {
                    Some(o)
                }
                _ => None,
            })
            .collect();
        if quotes.contains(&true) && quotes.contains(&false) {
            return Some((None, s.start));
        }
        // "X라고 답한 사람은 틀렸습니다": a judgement of people who quoted a mark (not "O라고
        // 하는 사람도 있지만 X입니다", which then gives its own).
        let of_people = s.clone().any(|j| {
            self.is_hangul(j)
                && ["사람", "분들", "응시자", "학생", "사용자"]
                    .iter()
                    .any(|p| self.word(j).starts_with(p))
        });
        let unquoted_mark = s.clone().any(|j| {
            matches!(self.toks[j].kind, Kind::Mark(Mark::Ox(_)))
                && !(self.is_hangul(j + 1) && self.word(j + 1).ends_with("라고"))
        });
        if !quotes.is_empty() && of_people && !unquoted_mark {
            return Some((None, s.start));
        }
        // "오답이 아닙니다": the answer's wrongness denied; "맞다고 하기엔 근거가 부족합니다",
        // "처음엔 O라고 생각했다": doubted or given up, not a judgement either way.
        let doubted = s.clone().any(|j| {
            self.is_hangul(j) && {
                let w = self.word(j);
                (w.starts_with("오답") && (j + 1..s.end).any(&denial))
                    || w.starts_with("부족")
                    // "처음엔 O라고 생각했다" with no second thought after it.
                    || (w.starts_with("처음")
                        && !(j..s.end).any(|x| is_explicit_correction(self, x)))
            }
        });
        if doubted {
            return Some((None, s.start));
        }
        s.clone().find_map(|j| {
            let quoted = match self.toks[j].kind {
                Kind::Hangul => {
                    let w = self.word(j);
                    (w.ends_with("다고") || w.ends_with("라고"))
                        .then(|| words.iter().rev().find(|&&(x, _)| x <= j).map(|&(_, p)| p))
                }
                Kind::Mark(Mark::Ox(o)) if self.is_hangul(j + 1) => {
                    let p = self.word(j + 1);
                    if p.starts_with("라고") || p.starts_with("이라고") {
                        Some(Some(o))
                    } else if matches!(p, "는" | "은" | "가" | "이")
                        && self.is_hangul(j + 2)
                        && self.word(j + 2).starts_with("오답")
                    {
                        // "O는 오답입니다": the mark called the wrong answer.
                        return Some((Some(!o), j));
                    } else if matches!(p, "는" | "은" | "가" | "이" | "도")
                        && denial(j + 2)
                        // "O가 아니라 X": a contrast, read below.
                        && !self.word(j + 2).starts_with("아니라")
                    {
                        return Some((None, j));
                    } else {
                        None
                    }
                }
                _ => None,
            }?;
            let denied = (j + 1..s.end).find(|&x| denial(x))?;
            Some((quoted.map(|p| !p), denied))
        })
    }

    /// The sentence's O/X words end in a bare denial ("아닙니다", "없습니다") right after one
    /// judgement that describes a noun ("틀린", "옳은", "옳지 않은", "잘못된"): the opposite of
    /// that judgement.
    fn described_then_denied(&self, words: &[(usize, bool)]) -> Option<bool> {
        let [.., (judged, p), (denial, _)] = words else {
            return None;
        };
        let w = self.word(*denial);
        if !(is_negation_word(w) || w.starts_with('없')) {
            return None;
        }
        // "옳지 않은": the judgement ends in the word after it.
        let end = if self.is_hangul(judged + 1) && self.word(judged + 1).starts_with(['않', '못'])
        {
            judged + 1
        } else {
            *judged
        };
        // An adnominal ending: the last syllable closes in ㄴ (틀린, 옳은, 않은, 된, 맞는).
        let adnominal = self.is_hangul(end)
            && self
                .word(end)
                .chars()
                .next_back()
                .and_then(|c| (c as u32).checked_sub(0xAC00))
                .is_some_and(|i| i < 11172 && i % 28 == 4);
        (adnominal && end < *denial).then_some(!p)
    }

    pub(super) fn ox_words(&self) -> Option<Extraction> {
        // "정답: O라고 하기": a statement cut off or taken back is not read again here.
        if self.retracted.get() {
            return None;
        }
        // Final polarity of each sentence that has O/X words.
        let mut finals: Vec<(bool, usize, Range<usize>)> = Vec::new();
        for s in sentences(&self.toks) {
            // "이 진술이 옳은가요?", "Is this true?": asked, not judged.
            if s.clone().any(|j| self.is_masked(j))
                || self.tok(s.end).is_some_and(|t| t.is_punct('?'))
            {
                continue;
            }
            // "정답 아님: X": a heading that denies what follows it reads neither way.
            let denied_heading = s.clone().any(|j| {
                self.is_hangul(j)
                    && is_negation_word(self.word(j))
                    && self.tok(j + 1).is_some_and(|t| t.is_punct(':'))
            });
            if denied_heading {
                return Some(Extraction::Ambiguous {
                    candidates: self.set.choices().collect(),
                    rule: Rule::OxWordConflict,
                    span: self.span(s.start, s.end - 1),
                });
            }
            // "정답은 O입니다. 아니, 잠깐만요.": the answer taken back, not ×.
            if s.start > 1 && self.next_sentence_retracts(s.start - 2) {
                return Some(Extraction::Ambiguous {
                    candidates: self.set.choices().collect(),
                    rule: Rule::OxWordConflict,
                    span: self.span(s.start, s.end - 1),
                });
            }
            let words: Vec<(usize, bool)> = s
                .clone()
                .filter_map(|j| match self.toks[j].kind {
                    // "Not O.": the mark denied.
                    Kind::Mark(Mark::Ox(o)) => {
                        let not = j > 0
                            && self.is_latin(j - 1)
                            && self.word(j - 1).eq_ignore_ascii_case("not");
                        Some((j, o != not))
                    }
                    _ => ox_polarity(&self.toks, j, self.text).map(|p| (j, p)),
                })
                .filter(|&(j, _)| {
                    // "틀리지 않" was read from 틀리지; skip the 않 that follows it.
                    !self.word(j).starts_with('않')
                })
                .collect();
            let Some(&(last_j, last_p)) = words.last() else {
                continue;
            };
            // "옳다고 보기 어렵다" (×), "틀린 설명이라고 할 수 없다" (○), "O라고 하기 어렵다" (×): a
            // judgement quoted and then doubted or denied is its opposite; "X는 아닙니다" (a
            // mark named and denied) reads both ways.
            // "틀린 설명은 아닙니다" (○), "옳은 설명이 아닙니다" (×), "틀린 곳이 없습니다" (○): a
            // judgement describing a noun, then the noun denied.
            if let Some(p) = self.described_then_denied(&words) {
                finals.push((p, last_j, s));
                continue;
            }
            match self.judgement_denied(&s, &words) {
                Some((Some(p), j)) => {
                    finals.push((p, j, s));
                    continue;
                }
                Some((None, _)) => {
                    return Some(Extraction::Ambiguous {
                        candidates: self.set.choices().collect(),
                        rule: Rule::OxWordConflict,
                        span: self.span(s.start, s.end - 1),
                    })
                }
                None => {}
            }
            let connective = |j: usize| {
                let w = self.word(j);
                [
                    "지만",
                    "는데",
                    "으나",
                    "나",
                    "므로",
                    "니까",
                    "어서",
                    "아서",
                    "고",
                    "며",
                    "면",
                    "은데",
                    "다고",
                    "라고",
                    "지",
                    "아니라",
                ]
                .iter()
                .any(|e| w.ends_with(e))
            };
            // "처음엔 ×라고 생각했지만 다시 보니 ○": a mark quoted, or contrasted ("○가
            // 아니라 ×"), and any word before an explicit self-correction yields to the last.
            let yields = |j: usize| {
                let mark = matches!(self.toks[j].kind, Kind::Mark(_));
                let after = |x: usize| self.is_hangul(x).then(|| self.word(x));
                connective(j)
                    || (mark
                        && after(j + 1)
                            .is_some_and(|w| ["라고", "다고"].iter().any(|e| w.ends_with(e))))
                    // "○가 아니라 ×", "옳은 설명이 아니라 틀린 설명": contrasted away.
                    || [j + 1, j + 2]
                        .into_iter()
                        .any(|x| after(x).is_some_and(|w| w.starts_with("아니라")))
                    || (j + 1..last_j).any(|x| is_explicit_correction(self, x))
            };
            if words.iter().any(|&(j, p)| p != last_p && !yields(j)) {
                return Some(Extraction::Ambiguous {
                    candidates: self.set.choices().collect(),
                    rule: Rule::OxWordConflict,
                    span: self.span(s.start, s.end - 1),
                });
            }
            finals.push((last_p, last_j, s));
        }
        let &(p, j, ref s) = finals.last()?;
        // "옳다. 아니면 …", "○ 또는 ×", "true or false": an alternative left open after the
        // last judgement, or beside it.
        let open = (s.start..self.toks.len()).any(|x| {
            let t = &self.toks[x];
            match t.kind {
                Kind::Hangul => {
                    let w = self.word(x);
                    matches!(w, "또는" | "혹은" | "이거나" | "거나")
                        || is_conditional_negation(w)
                        // "옳다고 할 수도 있고": either way.
                        || w.starts_with("수도")
                }
                Kind::Latin => lower(self.word(x)) == "or",
                _ => false,
            }
        });
        if open {
            return Some(Extraction::Ambiguous {
                candidates: self.set.choices().collect(),
                rule: Rule::OxWordConflict,
                span: self.span(s.start, s.end - 1),
            });
        }
        let concluded = (s.start..s.end.min(s.start + 2)).any(|x| {
            is_correction(&self.toks[x], self.next_word(x), self.text)
                || (self.toks[x].kind == Kind::Hangul
                    && [
                        "따라서",
                        "그러므로",
                        "결론",
                        "결국",
                        "즉",
                        "하지만",
                        "그러나",
                        "최종",
                    ]
                    .iter()
                    .any(|w| self.word(x).starts_with(w)))
        });
        if !concluded && finals.iter().any(|f| f.0 != p) {
            return Some(Extraction::Ambiguous {
                candidates: self.set.choices().collect(),
                rule: Rule::OxWordConflict,
                span: self.span(finals[0].2.start, s.end - 1),
            });
        }
        let choice = Choice::from_index(usize::from(!p))?;
        Some(Extraction::Answer {
            choice,
            rule: Rule::OxWord,
            span: self.span(j, j),
        })
    }
}
