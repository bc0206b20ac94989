//! A lone lowercase letter after an answer marker ("ANSWER: b", "정답은 c입니다"): read as
//! that letter only when nothing else in the answer could say otherwise.

use super::Ctx;
use crate::verify::scan::{Kind, Mark};
use crate::verify::{Choice, Notation};

impl Ctx<'_> {
    /// A lone lowercase letter at `j` on a lettered set ("b", "(d)"), read as that letter
    /// only when nothing else in the answer could say otherwise: lower case is no mark, so
    /// no later rule weighs it as it weighs a capital (trial 50: "정답은 b입니다. 아니면
    /// D." and "정답은 a이다. 즉 C." had committed the small letter).
    pub(super) fn lowercase_letter_at(&self, j: usize) -> Option<Mark> {
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
        (ends && !an_option() && !self.another_label(j, c))
            .then(|| Mark::Letter(c as u8 - b'a' + 1))
    }

    /// Does the answer name another choice than the letter `c` at token `j`: a label of
    /// another choice or outside the set ("즉 C", "아니면 D", "3번"), or another of the set's
    /// letters in lower case ("다시 보니 c입니다", "Actually a fits better")? An "a" between
    /// an English word that takes an article and another word is the article ("is a
    /// classic case", "of a subsidy").
    fn another_label(&self, j: usize, c: char) -> bool {
        const BEFORE_ARTICLE: [&str; 20] = [
            "is", "was", "be", "been", "of", "in", "on", "at", "as", "for", "with", "to", "by",
            "from", "such", "what", "not", "into", "about", "like",
        ];
        let own = Choice::from_index(c as usize - 'a' as usize);
        let latin = |k: usize| self.tok(k).filter(|t| t.kind == Kind::Latin);
        (0..self.toks.len()).filter(|&k| k != j).any(|k| {
            if self.is_label_mark(k) {
                return self.choice_at(k) != own;
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
            let article = x == 'a'
                && k.checked_sub(1).and_then(latin).is_some_and(|p| {
                    BEFORE_ARTICLE.contains(&p.text(self.text).to_ascii_lowercase().as_str())
                })
                && latin(k + 1).is_some();
            !article
        })
    }
}
