//! A lone lowercase letter after an answer marker ("ANSWER: b", "정답은 c입니다"): read as
//! that letter only when nothing else in the answer could say otherwise.

use super::{read, Ctx};
use crate::verify::scan::{tokenize_with_cues, Kind, Mark};
use crate::verify::{Choice, ChoiceSet, Extraction, NoAnswerReason, Notation};

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
        let bit = 1 << (c as u32 - 'a' as u32);
        let distrust = |only_marks: bool| {
            let mut d = self.lowercase_distrusted.borrow_mut();
            d.letters |= bit;
            if only_marks {
                d.marked.push(t.start as usize);
            } else {
                d.hard = true;
            }
            None
        };
        if an_option() || in_stem() || self.another_small_letter(j, c) {
            return distrust(false);
        }
        if self.another_mark(j, c) {
            return distrust(true);
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

/// The lowercase letters after a marker that were not trusted (see `lowercase_letter_at`).
#[derive(Default)]
pub(super) struct Distrusted {
    /// Their choices, one bit each.
    letters: u32,
    /// Was one distrusted for what no rule reads as a capital either: another small letter,
    /// an option whose text is the letter, the stem's variable?
    hard: bool,
    /// Where those distrusted only for another label begin.
    marked: Vec<usize>,
}

/// What an answer says when small letters after its markers were distrusted: `e`, what the
/// other rules decided without them, stands when it is their choice ("ANSWER: c … B는 오답,
/// D도 오답. 따라서 답은 C"); when only other labels distrusted them, the answer is read
/// again with them in capitals, so that every rule weighs them as it weighs a capital
/// ("ANSWER: c\n\nB는 배이므로 오답입니다" is C as "ANSWER: C …" is, "ANSWER: d … The
/// answer is B" conflicting as its capital twin is), and that reading stands when it is
/// their choice. Anything else decides nothing (trial 51: "ANSWER: d … The answer is B" had
/// let B decide alone).
pub(super) fn weigh_distrusted(
    text: &str,
    set: &ChoiceSet,
    d: Distrusted,
    e: Extraction,
) -> Extraction {
    if d.letters == 0 {
        return e;
    }
    let theirs = |e: &Extraction| matches!(e, Extraction::Answer { choice, .. } if d.letters == 1 << choice.index());
    if theirs(&e) {
        return e;
    }
    if !d.hard && d.letters.is_power_of_two() {
        let mut twin = text.as_bytes().to_vec();
        for &at in &d.marked {
            twin[at] = twin[at].to_ascii_uppercase();
        }
        // Only ASCII bytes changed, to ASCII: still UTF-8, spans unchanged.
        if let Ok(twin) = String::from_utf8(twin) {
            let (toks, cues) = tokenize_with_cues(&twin);
            let e = read(&twin, set, toks, cues);
            if theirs(&e) {
                return e;
            }
        }
    }
    Extraction::NoAnswer {
        reason: NoAnswerReason::NotFound,
    }
}
