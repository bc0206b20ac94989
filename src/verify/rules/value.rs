//! An option's value written without its qualifier: "정답은 30일입니다" for "30일 이내",
//! "답: 5만" for "5만 이상" (audit 43).

use super::option_text::{clip, squash_prefix};
use super::Ctx;
use crate::verify::Choice;

/// Words that qualify a value in an option's text.
const QUALIFIERS: [&str; 8] = [
    "이내", "이하", "이상", "미만", "초과", "정도", "가량", "내외",
];

impl Ctx<'_> {
    /// The one option whose text is a value with a unit and a qualifier ("30일 이내",
    /// "100m2 미만") and whose value alone is written at token `k`, ending the answer there
    /// ("정답은 30일입니다"), when no other option's text starts with that value ("30일
    /// 이상" beside "30일 이내" leaves it open).
    pub(super) fn value_option_at(&self, k: usize) -> Option<Choice> {
        let at = self.tok(k)?.start as usize;
        let rest = squash_prefix(clip(self.text, at, 400), self.longest_option());
        let mut found = None;
        for c in self.set.choices() {
            let opt = self.squashed_option(c)?;
            let Some(value) = QUALIFIERS.iter().find_map(|q| opt.strip_suffix(q)) else {
                continue;
            };
            // A number with a unit: a bare number may be a label.
            let unit = value.contains(|ch: char| ch.is_ascii_digit())
                && value.contains(|ch: char| !ch.is_ascii_digit() && !matches!(ch, '.' | ','));
            if unit && rest.starts_with(value) {
                if found.is_some() {
                    return None;
                }
                found = Some((c, value));
            }
        }
        let (c, value) = found?;
        let shared = (self.set.choices()).filter(|&o| o != c).any(|o| {
            self.squashed_option(o)
                .is_some_and(|t| t.starts_with(value))
        });
        (!shared && self.text_ends_answer(k, value)).then_some(c)
    }
}
