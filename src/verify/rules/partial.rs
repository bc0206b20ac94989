//! A label written with the start of another option's text: "정답은 ② 공소기각입니다" when ③
//! reads 공소기각판결 and ② 면소판결, "정답: ④ 2년 이하" when ② reads 2년 이하의 징역, "Answer:
//! B, 의례" when D reads 의례형. The writer named two options, so the answer is
//! `label_text_mismatch`, as with a whole text (see `text_names_other_option`).

use super::option_text::{clip, squash};
use super::{Choice, Ctx};

impl Ctx<'_> {
    /// From token `j`, the text that follows the label of `c` to the end of its sentence,
    /// less a copula ("입니다"): when it is the start of another option's text and not part of
    /// `c`'s, that option.
    pub(super) fn partial_text_of_other(&self, c: Choice, j: usize) -> Option<Choice> {
        let start = self.tok(j)?.start as usize;
        let rest = clip(self.text, start, 200);
        // Most words after a label start no other option's text: one character rules them
        // out before the phrase is squashed.
        let lead = rest.chars().next()?.to_ascii_lowercase();
        if !self
            .set
            .choices()
            .any(|o| o != c && self.squashed_option(o).is_some_and(|t| t.starts_with(lead)))
        {
            return None;
        }
        let end = rest
            .find(['.', '\n', '(', ',', ';', '!', '?', '。'])
            .unwrap_or(rest.len());
        let said = squash(&rest[..end]);
        let said = ["입니다", "이다", "임", "입니다만", "이에요", "예요"]
            .iter()
            .find_map(|e| said.strip_suffix(e))
            .unwrap_or(&said);
        if said.chars().count() < 2 {
            return None;
        }
        if self.squashed_option(c)?.contains(said) {
            return None;
        }
        // The start of several others' texts ("공소기각" of 공소기각판결 and 공소기각결정)
        // names another option than `c` all the same.
        self.set.choices().find(|&o| {
            o != c
                && self
                    .squashed_option(o)
                    .is_some_and(|t| t.len() > said.len() && t.starts_with(said))
        })
    }
}
