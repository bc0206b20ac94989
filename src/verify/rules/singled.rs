//! One option singled out against all the others: "⑤는 제시문에 부합하지 않는 유일한
//! 선택지입니다", "③번이 더 적절한 설명입니다. 다른 선택지들은 근거가 부족합니다",
//! "Option B is the only one that fits; the other options do not."
//!
//! Commits only when exactly one option is named in a sentence with the question's polarity
//! (negative for "…않은 것은?", positive otherwise), a cue singles it out (유일, 다른
//! 선택지, 나머지, only, the other options), a sentence about the other options, if any,
//! has the opposite polarity, and every other option named is named in such a sentence
//! (rejected: "①과 ②는 틀렸고, ③이 유일하게 옳다").

use super::words::{is_hedge, lower};
use super::{Ctx, Resolved};
use crate::verify::cues::Family;
use crate::verify::scan::Kind;
use crate::verify::{Extraction, Rule};
use std::ops::Range;

/// Hangul stems that make a sentence negative.
const NEGATIVE: [&str; 16] = [
    "않",
    "아니",
    "아닌",
    "아님",
    "틀",
    "없",
    "잘못",
    "부적절",
    "부족",
    "오류",
    "거짓",
    "그르",
    "못",
    "부합하지",
    // "사실과 다르다/다릅니다/다르며" (not 다른, "other").
    "다르",
    "다릅",
];

/// Hangul stems that call an option so.
const POSITIVE: [&str; 10] = [
    "옳",
    "맞",
    "적절",
    "부합",
    "일치",
    "타당",
    "올바르",
    "올바릅",
    "정확",
    "사실이",
];

/// Words that, before a noun for options, refer to the other options as a group (each
/// covered by a `Singling` cue in cues.rs).
const OTHERS: [&str; 2] = ["다른", "나머지"];

/// Nouns for options.
const OPTION_NOUNS: [&str; 5] = ["선택지", "보기", "옵션", "항목", "답"];

impl Ctx<'_> {
    pub(super) fn singled_out(&self) -> Option<Extraction> {
        let sentences = super::mask::sentences(&self.toks);
        let asked_negative = self.ask.iter().any(|w| {
            is_negative(w)
                || matches!(
                    lower(w).as_str(),
                    "not" | "false" | "incorrect" | "except" | "least" | "untrue" | "wrong"
                )
        });
        // Every label, by the judgement of its sentence: the one the question asks for
        // (`named`, at most one choice) and the options rejected ("①은 틀렸고 ②도 틀렸다").
        let mut named: Option<(usize, Range<usize>)> = None;
        let mut rejected = Vec::new();
        for s in &sentences {
            let asked = self.negative(s) == asked_negative;
            for j in s.clone() {
                if self.is_masked(j) || !self.is_label_mark(j) {
                    continue;
                }
                let Resolved::In(c) = self.label_at(j)? else {
                    return None;
                };
                // A label that starts a copy of the option list restates options; it judges
                // none ("(1) 사실의 인정은 …\n(2) …").
                if self.restated_list_at(j) {
                    return None;
                }
                if !asked {
                    // A rejection says so: for a question asking what is not so, the other
                    // options must be called so ("①은 옳다"), not merely mentioned.
                    if asked_negative && !self.positive(s) {
                        return None;
                    }
                    // A label in a sentence that singles out or sets apart "the others" is
                    // the one singled out, whatever that sentence's polarity.
                    if s.clone()
                        .any(|x| self.is_only_cue(x) || self.is_others_cue(x))
                    {
                        return None;
                    }
                    // Nor is a label followed by its own option's words a rejection of it.
                    let next = (j + 1..s.end).find(|&x| self.is_label_mark(x));
                    if self.restates_option(j, next.unwrap_or(s.end), c.position()) {
                        return None;
                    }
                    rejected.push(c);
                    continue;
                }
                match &named {
                    Some((k, _)) if self.choice_at(*k) != Some(c) => return None,
                    Some(_) => {}
                    None => named = Some((j, s.clone())),
                }
            }
        }
        let (label, home) = named?;
        // An answer that also declines ("모르겠습니다", "I cannot tell") singles nothing out;
        // nor, when it names other options too, one with answer statements that decided
        // nothing or text addressed to a grader: such a text is not a plain elimination.
        if self.cues.has(Family::Refusal)
            || (!rejected.is_empty()
                && (!self.statements().0.is_empty() || self.masked.iter().any(|&m| m)))
        {
            return None;
        }
        let choice = self.choice_at(label)?;
        if rejected.contains(&choice)
            || self.questioned_after(label)
            || self.toks.iter().any(|t| is_hedge(t, self.text))
        {
            return None;
        }
        let only = home.clone().any(|j| self.is_only_cue(j));
        let others: Vec<&Range<usize>> = sentences
            .iter()
            .filter(|s| (*s).clone().any(|j| self.is_others_cue(j)))
            .collect();
        if !only && others.is_empty() {
            return None;
        }
        // The other options, where discussed on their own, get the opposite judgement.
        if others
            .iter()
            .any(|s| **s != home && self.negative(s) == asked_negative)
        {
            return None;
        }
        Some(Extraction::Answer {
            choice,
            rule: Rule::SingledOut,
            span: self.span(label, label),
        })
    }

    /// Does the sentence call something so ("옳다", "적절합니다", "is correct")?
    fn positive(&self, s: &Range<usize>) -> bool {
        s.clone().any(|j| match self.toks[j].kind {
            Kind::Hangul => {
                let w = self.word(j);
                POSITIVE.iter().any(|p| w.starts_with(p)) && !is_negative(w)
            }
            Kind::Latin => matches!(
                lower(self.word(j)).as_str(),
                "correct" | "true" | "right" | "appropriate" | "accurate" | "valid"
            ),
            _ => false,
        })
    }

    fn negative(&self, s: &Range<usize>) -> bool {
        s.clone().any(|j| match self.toks[j].kind {
            Kind::Hangul => is_negative(self.word(j)),
            Kind::Latin => matches!(
                lower(self.word(j)).as_str(),
                "not"
                    | "incorrect"
                    | "wrong"
                    | "false"
                    | "inaccurate"
                    | "cannot"
                    | "isn"
                    | "doesn"
                    | "don"
                    | "aren"
                    | "inappropriate"
                    | "neither"
                    | "none"
            ),
            _ => false,
        })
    }

    /// "유일한", "유일하게", "only".
    fn is_only_cue(&self, j: usize) -> bool {
        match self.toks[j].kind {
            Kind::Hangul => self.word(j).starts_with("유일"),
            Kind::Latin => lower(self.word(j)) == "only",
            _ => false,
        }
    }

    /// "다른 선택지들은", "나머지 보기는", "the other options", "the others", "all other".
    fn is_others_cue(&self, j: usize) -> bool {
        match self.toks[j].kind {
            Kind::Hangul => {
                let w = self.word(j);
                let noun_next = self.toks.get(j + 1).is_some_and(|n| {
                    n.kind == Kind::Hangul
                        && OPTION_NOUNS
                            .iter()
                            .any(|p| n.text(self.text).starts_with(p))
                });
                (OTHERS.contains(&w) && noun_next)
                    || w.starts_with("나머지")
                    || OPTION_NOUNS
                        .iter()
                        .any(|p| w.starts_with("다른") && w.contains(p))
            }
            Kind::Latin => {
                let w = lower(self.word(j));
                (w == "other" || w == "remaining")
                    && self.toks.get(j + 1).is_some_and(|n| {
                        n.kind == Kind::Latin
                            && matches!(
                                lower(n.text(self.text)).as_str(),
                                "options" | "choices" | "answers" | "ones" | "statements"
                            )
                    })
                    || w == "others"
            }
            _ => false,
        }
    }
}

fn is_negative(w: &str) -> bool {
    NEGATIVE.iter().any(|n| w.contains(n))
}
