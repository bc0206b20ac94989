//! A label written with the start of another option's text: "정답은 ② 공소기각입니다" when ③
//! reads 공소기각판결 and ② 면소판결, "정답: ④ 2년 이하" when ② reads 2년 이하의 징역, "Answer:
//! B, 의례" when D reads 의례형. The writer named two options, so the answer is
//! `label_text_mismatch`, as with a whole text (see `text_names_other_option`). So does a
//! plain number that is also another option's value. And the reverse: a number that starts
//! an option's text and goes on with it is that text, not a label.

use super::option_text::{clip, squash, squash_chars};
use super::words::OPTION_NOUN_WORDS;
use super::{Choice, Ctx};
use crate::verify::scan::{Kind, Mark};

impl Ctx<'_> {
    /// The option whose text starts at the number at `j` and goes on past it ("9 × 1023",
    /// "1.2 × 1023"), ending as an answer does, and the text's last token (its `×` is no
    /// verdict on the number). A number that is an option's whole text ("10" for the option
    /// 10) stays a label, as it was.
    pub(super) fn option_text_past_number(&self, j: usize) -> Option<(Choice, usize)> {
        let t =
            (self.tok(j)).filter(|t| matches!(t.kind, Kind::Number | Kind::Mark(Mark::Num(_))))?;
        let c = self.option_text_at(j)?;
        let opt = self.squashed_option(c)?.len();
        let number = squash(t.text(self.text)).len();
        if opt <= number || !self.option_text_ends_answer(j, c) {
            return None;
        }
        let start = t.start as usize;
        let last = (j..self.toks.len()).find(|&x| {
            let written = &self.text[start..self.toks[x].end as usize];
            squash_chars(written).map(char::len_utf8).sum::<usize>() >= opt
        })?;
        Some((c, last))
    }

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

    /// A plain number ("3", not "3번" or "(3)") that is also another option's value: with
    /// options (1) 1 (2) 3 (3) 5, "3" may mean the third option or the option "3".
    pub(super) fn number_is_other_option(&self, c: Choice, m: usize) -> Option<Choice> {
        let t = self.tok(m)?;
        if !matches!(t.kind, Kind::Mark(Mark::Num(_))) || self.set.options().is_empty() {
            return None;
        }
        let written = t.text(self.text);
        if written.starts_with(['(', '（']) || written.chars().any(|ch| !ch.is_numeric()) {
            return None;
        }
        if self.is_hangul(m + 1)
            && self.toks[m + 1].start == t.end
            && self.word(m + 1).starts_with('번')
        {
            return None;
        }
        // "option 2", "선택지 2": the noun makes it a label.
        if m > 0
            && ((self.is_latin(m - 1)
                && ["option", "choice", "number", "no"]
                    .iter()
                    .any(|n| self.word(m - 1).eq_ignore_ascii_case(n)))
                || (self.is_hangul(m - 1) && OPTION_NOUN_WORDS.contains(&self.word(m - 1))))
        {
            return None;
        }
        let value: String = written
            .chars()
            .map(|ch| char::from_digit(ch.to_digit(10).unwrap_or(0), 10).unwrap_or('0'))
            .collect();
        let valued = |o: Choice| {
            self.squashed_option(o).is_some_and(|text| {
                let digits: String = text.chars().take_while(|ch| ch.is_ascii_digit()).collect();
                digits == value && !text[digits.len()..].starts_with(['.', ','])
            })
        };
        if valued(c) {
            return None;
        }
        self.set.choices().find(|&o| o != c && valued(o))
    }
}
