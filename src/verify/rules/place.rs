//! Options named by their place: "the third option", "option three", "the last choice",
//! "마지막 보기", after an answer word or before a judgement ("The third option is correct",
//! "마지막 보기가 정답입니다").

use super::words::{lower, OPTION_NOUN_WORDS};
use super::{said_of, Ctx, Resolved, Said, Statement, Strength};
use crate::verify::scan::{Kind, Mark};
use crate::verify::{Choice, Extraction, Rule};

impl Ctx<'_> {
    /// An option named by its place, at token `j`: "the third option", "the first one",
    /// "option three", "the last choice", "마지막 보기". Returns what it says and the phrase's
    /// last token; "the first option or the second option" says two.
    pub(super) fn position_phrase_at(&self, j: usize) -> Option<(Said, usize)> {
        let (r, last) = self.position_at(j)?;
        // "… or the second one", "… or maybe (B)": an alternative in the same sentence.
        let end = (last + 1..self.toks.len())
            .find(|&x| self.toks[x].is_sentence_end())
            .unwrap_or(self.toks.len());
        let or = (last + 1..end).find(|&x| {
            self.toks[x].is_punct('/')
                || (self.is_latin(x)
                    && matches!(
                        lower(self.word(x)).as_str(),
                        "or" | "and" | "nor" | "either"
                    ))
        });
        if let Some(or) = or {
            let other = (or + 1..end.min(or + 5)).find_map(|x| {
                self.position_at(x)
                    .map(|(o, _)| o)
                    .or_else(|| self.is_label_mark(x).then(|| self.label_at(x)).flatten())
            });
            if let Some(o) = other {
                return Some((said_of(&[r, o]), last));
            }
        }
        Some((said_of(&[r]), last))
    }

    /// The whole answer an option named by its place: "The second option.", "The last one.",
    /// "마지막 선택지", "Third choice" (audit 45). Only an option in the set decides.
    pub(super) fn bare_place(&self) -> Option<Extraction> {
        let skip = |mut k: usize| {
            while self
                .tok(k)
                .is_some_and(|t| matches!(t.kind, Kind::Punct(_) | Kind::Break))
            {
                k += 1;
            }
            k
        };
        let mut k = skip(0);
        if self.is_latin(k) && self.word(k).eq_ignore_ascii_case("the") {
            k += 1;
        }
        let (Resolved::In(choice), last) = self.position_at(k)? else {
            return None;
        };
        (skip(last + 1) == self.toks.len() && !self.is_masked(k)).then(|| Extraction::Answer {
            choice,
            rule: Rule::Bare,
            span: self.span(k, last),
        })
    }

    /// The option a place names at token `j` (see [`Ctx::position_phrase_at`]).
    pub(super) fn position_at(&self, j: usize) -> Option<(Resolved, usize)> {
        const ORDINALS: [&str; 10] = [
            "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
            "tenth",
        ];
        const NUMBERS: [&str; 10] = [
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        ];
        let last_choice = || self.set.choices().last().map(Resolved::In);
        if self.is_hangul(j) && self.word(j) == "마지막" && self.is_hangul(j + 1) {
            let noun = self.word(j + 1);
            let named = OPTION_NOUN_WORDS.iter().any(|n| {
                noun.strip_prefix(n)
                    .is_some_and(|r| matches!(r, "" | "입니다" | "이다"))
            });
            return named.then(|| last_choice().map(|r| (r, j + 1))).flatten();
        }
        if !self.is_latin(j) {
            return None;
        }
        let word = |x: usize| self.is_latin(x).then(|| lower(self.word(x)));
        let w = word(j)?;
        let noun = |x: usize| {
            word(x)
                .is_some_and(|n| matches!(n.as_str(), "option" | "choice" | "one" | "alternative"))
        };
        // "option three", "choice number two" (the readers have passed the noun).
        if let Some(n) = NUMBERS.iter().position(|n| *n == w) {
            let after_noun = j > 0
                && word(j - 1)
                    .is_some_and(|p| matches!(p.as_str(), "option" | "choice" | "number"));
            return after_noun.then(|| (self.resolve(Mark::Ordinal(n as u8 + 1)), j));
        }
        if !noun(j + 1) {
            return None;
        }
        // "the second option from the end", "the third one from the bottom": counted from
        // the end, which the start's count would misread.
        if word(j + 2).as_deref() == Some("from")
            && (j + 3..j + 5)
                .any(|x| word(x).is_some_and(|n| matches!(n.as_str(), "end" | "last" | "bottom")))
        {
            return None;
        }
        // "the second-to-last option", "next-to-last", "just before the last one", "the
        // second last choice": not the last one.
        let counted_back = (j.saturating_sub(4)..j).any(|x| {
            word(x).is_some_and(|p| {
                matches!(
                    p.as_str(),
                    "second" | "next" | "third" | "before" | "penultimate" | "to"
                )
            })
        });
        if w == "last" {
            return (!counted_back)
                .then(|| last_choice().map(|r| (r, j + 1)))
                .flatten();
        }
        // "Between (B) and (D), the first one …": one of the labels just named, not the
        // first option.
        let named_before = word(j + 1).as_deref() == Some("one")
            && (0..j)
                .rev()
                .take_while(|&x| !self.toks[x].is_sentence_end())
                .any(|x| self.is_label_mark(x));
        if named_before {
            return None;
        }
        let n = ORDINALS.iter().position(|o| *o == w)?;
        Some((self.resolve(Mark::Ordinal(n as u8 + 1)), j + 1))
    }

    /// "The third option is correct", "The last choice is the answer", "the second one is
    /// right": an option named by its place before `is` at `k`, then judged right or called
    /// the answer. As for a label ("(C) is correct"), calling it right is a weaker claim that
    /// judges; calling it the answer is a statement.
    pub(super) fn place_judged_at(&self, k: usize) -> Option<Statement> {
        let word = |x: usize| self.is_latin(x).then(|| lower(self.word(x)));
        // The phrase is two or three words before `is`: "third option", "the last choice".
        let (first, r) = (k.saturating_sub(2)..k).find_map(|j| match self.position_at(j) {
            Some((r, last)) if last + 1 == k => Some((j, r)),
            _ => None,
        })?;
        let first = match word(first.wrapping_sub(1)).as_deref() {
            Some("the") => first - 1,
            _ => first,
        };
        let statement = |strength, rule, last| Statement {
            said: said_of(&[r]),
            strength,
            rule,
            first,
            last,
            is_final: false,
            judges: strength == Strength::Weak,
            view: false,
        };
        match word(k + 1)?.as_str() {
            "correct" | "right" => Some(statement(Strength::Weak, Rule::WeakStatement, k + 1)),
            "the" => {
                let mut j = k + 2;
                if word(j).is_some_and(|w| matches!(w.as_str(), "correct" | "right" | "best")) {
                    j += 1;
                }
                (word(j).as_deref() == Some("answer"))
                    .then(|| statement(Strength::Strong, Rule::Statement, j))
            }
            _ => None,
        }
    }

    /// "마지막 보기가 정답입니다", "맨 마지막 선택지가 답이다": the last option named by its
    /// place right before the answer keyword at `k`. Returns it and the phrase's first token.
    pub(super) fn last_place_before(&self, k: usize) -> Option<(Said, usize)> {
        let noun = k.checked_sub(1)?;
        let at = noun.checked_sub(1)?;
        if !(self.is_hangul(noun) && self.is_hangul(at) && self.word(at) == "마지막") {
            return None;
        }
        let subject = OPTION_NOUN_WORDS.iter().any(|n| {
            self.word(noun)
                .strip_prefix(n)
                .is_some_and(|p| matches!(p, "이" | "가"))
        });
        let first = match at.checked_sub(1) {
            Some(m) if self.is_hangul(m) && self.word(m) == "맨" => m,
            _ => at,
        };
        // "첫 번째 보기와 마지막 보기가 정답": one of two named.
        let joined = first.checked_sub(1).is_some_and(|m| {
            (self.toks[m].is_punct(',')
                && m.checked_sub(1).is_some_and(|n| {
                    self.toks[n].mark().is_some()
                        || (self.is_hangul(n) && OPTION_NOUN_WORDS.contains(&self.word(n)))
                }))
                || (self.is_hangul(m)
                    && (self.word(m).ends_with(['와', '과']) || self.word(m) == "및"))
        });
        if joined {
            return None;
        }
        let last = self.set.choices().last()?;
        subject.then(|| (said_of(&[Resolved::In(last)]), first))
    }

    /// Does the text name an option other than `c` by its place ("C is correct and so is
    /// the fourth option"), not judged out of the answer ("the first option is wrong")? Words of a place start with one of a few letters, which rules
    /// out most words before any comparison.
    pub(super) fn names_other_place(&self, c: Choice) -> bool {
        (0..self.toks.len()).any(|j| {
            (self.is_latin(j) || self.is_hangul(j))
                && !self.is_masked(j)
                && self.word(j).starts_with([
                    'f', 's', 't', 'l', 'o', 'e', 'n', 'F', 'S', 'T', 'L', 'O', 'E', 'N', '마',
                ])
                && matches!(self.position_at(j), Some((Resolved::In(o), last))
                    if o != c && !self.place_ruled_out(j, last))
        })
    }

    /// Is the place from `first` to `last` ruled out: "not the first option", "the first
    /// option is wrong", or judged so as the question asks?
    fn place_ruled_out(&self, first: usize, last: usize) -> bool {
        let is = |x: usize, words: &[&str]| {
            self.is_latin(x) && words.iter().any(|w| self.word(x).eq_ignore_ascii_case(w))
        };
        let the = usize::from(first > 0 && is(first - 1, &["the"]));
        (first > the && is(first - the - 1, &["not"]))
            || (is(last + 1, &["is", "was"])
                && is(last + 2, &["wrong", "incorrect", "not", "false"]))
            || self.judged_not_the_answer(last)
    }
}
