//! A lone lowercase letter after an answer marker ("ANSWER: b", "정답은 c입니다"): read as
//! that letter only when nothing else in the answer could say otherwise.

use super::Ctx;
use crate::verify::scan::{Kind, Mark};
use crate::verify::{Choice, Extraction, NoAnswerReason, Notation};

/// English words of one or two letters: not variables.
const SHORT_WORDS: [&str; 24] = [
    "of", "is", "in", "on", "at", "to", "by", "an", "as", "or", "if", "it", "be", "we", "do", "no",
    "so", "up", "us", "my", "me", "he", "go", "am",
];

impl Ctx<'_> {
    /// A lone lowercase letter at `j` on a lettered set ("b", "(d)"), read as that letter
    /// only when nothing else in the answer could say otherwise: lower case is no mark, so
    /// no later rule weighs it as it weighs a capital (trial 50: "정답은 b입니다. 아니면
    /// D." and "정답은 a이다. 즉 C." had committed the small letter).
    pub(super) fn lowercase_letter_at(&self, j: usize, negated: bool) -> Option<Mark> {
        let t = self.tok(j)?;
        let w = t.text(self.text);
        if t.kind != Kind::Latin || self.set.notation() != Notation::Letter || w.len() != 1 {
            return None;
        }
        let c = w.chars().next()?;
        if !c.is_ascii_lowercase() {
            return None;
        }
        // "정답은 b입니다": the copula glued to it ends the claim too (as after a capital);
        // a particle that may go on ("b와 c", "b가 아니라 c") does not.
        const COPULA: [&str; 5] = ["입니다", "이다", "이에요", "예요", "임"];
        let ends = self.tok(j + 1).is_none_or(|n| {
            n.kind == Kind::Break
                || matches!(n.kind, Kind::Punct(p) if p != '\'' && p != '-')
                || (n.kind == Kind::Hangul
                    && n.start == t.end
                    && COPULA.contains(&n.text(self.text)))
        });
        // An option whose text is that letter ("c", the speed of light) may be what it names.
        let an_option = || {
            self.set.options().iter().any(|o| {
                let mut rest = o.trim().chars();
                rest.next().is_some_and(|f| f.eq_ignore_ascii_case(&c))
                    && rest.next().is_none_or(|n| !n.is_ascii_alphanumeric())
            })
        };
        if !ends {
            return None;
        }
        let mark = Mark::Letter(c as u8 - b'a' + 1);
        // "The answer is not b": denied, it states nothing, and distrusts nothing.
        if negated {
            return Some(mark);
        }
        // "y = ax + b … 정답은 a입니다", "a=5, b=3일 때": a letter the stem uses as a
        // variable (trial 51), alone or in a short run of letters that is no English word;
        // not an option's own label ("(c) 감", "c) 7").
        let in_stem = || {
            self.set.question().is_some_and(|q| {
                let b = q.as_bytes();
                memchr::memchr_iter(c as u8, b).any(|i| {
                    let start = (0..i)
                        .rev()
                        .find(|&x| !b[x].is_ascii_alphabetic())
                        .map_or(0, |x| x + 1);
                    let end = (i..b.len())
                        .find(|&x| !b[x].is_ascii_alphabetic())
                        .unwrap_or(b.len());
                    let word = &q[start..end];
                    let before = start.checked_sub(1).map(|x| b[x]);
                    let after = b.get(end).copied();
                    let label = end - start == 1
                        && matches!(after, Some(b')' | b'.'))
                        && matches!(before, None | Some(b'(' | b'\n' | b' '));
                    end - start <= 2
                        && !label
                        && !SHORT_WORDS.contains(&word.to_ascii_lowercase().as_str())
                })
            })
        };
        if an_option() || in_stem() || self.another_small_letter(j, c) || self.another_mark(j, c) {
            let bit = 1 << (c as u32 - 'a' as u32);
            (self.lowercase_distrusted).set(self.lowercase_distrusted.get() | bit);
            return None;
        }
        Some(mark)
    }

    /// Does the answer name another choice than the letter `c` at token `j` with a label of
    /// another choice or outside the set ("즉 C", "아니면 D", "3번")?
    fn another_mark(&self, j: usize, c: char) -> bool {
        let own = Choice::from_index(c as usize - 'a' as usize);
        (0..self.toks.len()).filter(|&k| k != j).any(|k| {
            if !self.is_label_mark(k) {
                return false;
            }
            // A number on a lettered set is a number ("7 is prime", "1. Apples …", "4 =
            // 2×2") unless a particle glued to it may make it a label ("3번", "2가 맞네요",
            // "7은").
            let glued = self.word(k).contains('번')
                || (self.is_hangul(k + 1) && self.toks[k + 1].start == self.toks[k].end);
            let number = matches!(self.mark_at(k), Some(Mark::Num(_))) && !glued;
            !number && self.choice_at(k) != own
        })
    }

    /// Does the answer name another of the set's letters in lower case ("다시 보니
    /// c입니다", "Actually a fits better"), which no other rule reads? An "a" between an
    /// English word that takes an article and another word is the article ("is a classic
    /// case", "of a subsidy").
    fn another_small_letter(&self, j: usize, c: char) -> bool {
        const BEFORE_ARTICLE: [&str; 20] = [
            "is", "was", "be", "been", "of", "in", "on", "at", "as", "for", "with", "to", "by",
            "from", "such", "what", "not", "into", "about", "like",
        ];
        // Words that cannot follow the article: "a since …", "a because …".
        const NOT_NOUNS: [&str; 14] = [
            "since", "because", "as", "and", "or", "but", "so", "which", "that", "is", "was", "if",
            "instead", "here",
        ];
        let latin = |k: usize| self.tok(k).filter(|t| t.kind == Kind::Latin);
        (0..self.toks.len()).filter(|&k| k != j).any(|k| {
            if self.is_label_mark(k) {
                return false;
            }
            let w = self.word(k);
            let Some(x) = w
                .chars()
                .next()
                .filter(|x| w.len() == 1 && x.is_ascii_lowercase())
            else {
                return false;
            };
            if self.toks[k].kind != Kind::Latin
                || x == c
                || (x as usize - 'a' as usize) >= self.set.len()
            {
                return false;
            }
            let lower_at = |x: usize| latin(x).map(|t| t.text(self.text).to_ascii_lowercase());
            // Not "the answer is a since …", "option is a, …": a label there (trial 51).
            let named = k
                .checked_sub(2)
                .and_then(lower_at)
                .is_some_and(|w| matches!(w.as_str(), "answer" | "option" | "choice"));
            let article = x == 'a'
                && !named
                && k.checked_sub(1)
                    .and_then(lower_at)
                    .is_some_and(|p| BEFORE_ARTICLE.contains(&p.as_str()))
                && lower_at(k + 1).is_some_and(|n| !NOT_NOUNS.contains(&n.as_str()));
            !article
        })
    }
}

/// What an answer says when small letters after its markers were distrusted (`letters`, one
/// bit per choice): `e`, what the other rules decided without them, stands when it is their
/// choice ("ANSWER: c … B는 오답, D도 오답. 따라서 답은 C"); anything else decides nothing
/// (trial 51: "ANSWER: d … The answer is B" had let B decide alone). Reading the answer again
/// with the letter in capitals was tried and withdrawn (trial 53): it carried over the
/// capital forms' own misses ("정답: C (아니 D)", "정답: C\nA, C, D는 오답입니다") and read
/// list items ("답:\nd. …", "Answer: i. …") as answers.
pub(super) fn weigh_distrusted(letters: u32, e: Extraction) -> Extraction {
    match e {
        _ if letters == 0 => e,
        Extraction::Answer { choice, .. } if letters == 1 << choice.index() => e,
        _ => Extraction::NoAnswer {
            reason: NoAnswerReason::NotFound,
        },
    }
}
