//! Restated option lists: small models write an answer marker and then copy the options
//! ("정답:\n(1) 내국법인의 …\n(2) 특수관계인 …", "답: (1) 가, (2) 나, (3) 다"). Two or more
//! labels in option order, each followed by its option text (or a fragment of it), state no
//! choice, so the marker before them is not a statement.

use super::option_text::{kept_longer_than, squash};
use super::words::{answer_keyword, is_negation_word, lower, strip_beon};
use super::{said_of, Ctx, Resolved, Said};
use crate::verify::scan::Kind;

/// Words that judge an option rather than restate it: "(1)은 틀림", "(2) 맞음".
const JUDGING: [&str; 8] = ["틀", "맞", "옳", "오답", "정답", "적절", "아니", "아님"];

impl Ctx<'_> {
    /// Does the label at `k` open a list, one item per line: it starts its line and the next
    /// line with text starts with the next option's label ("정답\n1) … — 옳음\n2) …")?
    pub(super) fn list_starts_at(&self, k: usize) -> bool {
        let Some(Resolved::In(first)) = self.label_at(k) else {
            return false;
        };
        let starts_line = |j: usize| {
            let mut i = j;
            while i > 0 && matches!(self.toks[i - 1].kind, Kind::Punct(_)) {
                i -= 1;
            }
            i == 0 || self.toks[i - 1].kind == Kind::Break
        };
        if !starts_line(k) {
            return false;
        }
        let Some(line_end) = (k + 1..self.toks.len()).find(|&j| self.toks[j].kind == Kind::Break)
        else {
            return false;
        };
        let next = (line_end..self.toks.len())
            .find(|&j| !matches!(self.toks[j].kind, Kind::Break | Kind::Punct(_)));
        next.is_some_and(|j| {
            self.is_label_mark(j)
                && matches!(self.label_at(j), Some(Resolved::In(c)) if c.position() == first.position() + 1)
        })
    }

    /// Under a heading, labels on bulleted lines of their own, one after another ("정답\n-
    /// ③\n- ②", "Possible answers:\n* C\n* B (maybe)"), are offered together: what they say
    /// and the last label. `None` when the label at `k` has no bullet or the next line holds
    /// no other label in the same bullet (one answer, or a list of reasons after it).
    pub(super) fn bulleted_labels_at(&self, k: usize) -> Option<(Said, usize)> {
        // The bullet written between the line's start and the label ("- ", "* ", "• ",
        // "- **", "- (").
        let bullet = |j: usize| -> Option<char> {
            let line = (0..j)
                .rev()
                .find(|&x| self.toks[x].kind == Kind::Break)
                .map_or(0, |x| self.toks[x].end as usize);
            let b = self.text[line..self.toks[j].start as usize].trim_start();
            let mark = b.chars().next()?;
            let rest = &b[mark.len_utf8()..];
            // "**③**" is bold, not a bullet.
            (matches!(mark, '-' | '*' | '+' | '•' | '·' | '∙' | '◦' | '▪')
                && (mark != '*' || rest.starts_with(' '))
                && rest.chars().all(|c| matches!(c, ' ' | '*' | '(' | '[')))
            .then_some(mark)
        };
        let mark = bullet(k)?;
        let mut labels = vec![self.label_at(k)?];
        let mut last = k;
        let mut at = k;
        while let Some(br) = (at + 1..self.toks.len()).find(|&x| self.toks[x].kind == Kind::Break) {
            let Some(next) = (br + 1..self.toks.len())
                .find(|&x| !matches!(self.toks[x].kind, Kind::Punct(_)) || self.is_label_mark(x))
            else {
                break;
            };
            if bullet(next) != Some(mark)
                || !self.is_label_mark(next)
                // "- ②는 옳은 설명": a reason about another option, not an answer offered.
                || self.negated_after(next).is_some()
                || self.rejected_list_at(next)
                || matches!(self.toks.get(next + 1), Some(t) if t.kind == Kind::Hangul
                    && t.start == self.toks[next].end)
            {
                break;
            }
            let Some(r) = self.label_at(next) else { break };
            labels.push(r);
            last = next;
            at = next;
        }
        match said_of(&labels) {
            Said::Many(m) => Some((Said::Many(m), last)),
            _ => None,
        }
    }

    /// Does a restated option list start at the label at token `k`?
    pub(super) fn restated_list_at(&self, k: usize) -> bool {
        let Some(Resolved::In(first)) = self.label_at(k) else {
            return false;
        };
        let mut at = k;
        let mut position = first.position();
        let mut count = 0;
        loop {
            // The text after this label runs to the next option's label or the end of its
            // line; other marks inside are its text ("(1) 10 60").
            let is_next = |j: usize| {
                self.is_label_mark(j)
                    && matches!(self.label_at(j), Some(Resolved::In(c)) if c.position() == position + 1)
            };
            // A label inside the text ("재적의원 3분의 2 이상") may look like the next one: of
            // the places the text could end, take the last that still restates the option.
            let mut end = None;
            let mut j = at + 1;
            while j <= self.toks.len() {
                let stop = j == self.toks.len() || self.toks[j].kind == Kind::Break;
                if (stop || is_next(j)) && self.restates_option(at, j, position) {
                    end = Some(j);
                    // Without option texts nothing tells a label inside the text from the
                    // next one; the nearest reading is the list's.
                    if self.set.options().is_empty() {
                        break;
                    }
                }
                if stop {
                    break;
                }
                j += 1;
            }
            let Some(end) = end else { break };
            count += 1;
            // The next label, on this line or the next, must be the next option.
            let mut next = end;
            while next < self.toks.len() && self.toks[next].kind == Kind::Break {
                next += 1;
            }
            if next >= self.toks.len() || !self.is_label_mark(next) {
                break;
            }
            match self.label_at(next) {
                Some(Resolved::In(c)) if c.position() == position + 1 => {
                    at = next;
                    position += 1;
                }
                _ => break,
            }
        }
        count >= 2
    }

    /// Is the text between the label at `label` and token `end` option `position`'s text
    /// (or a fragment of it), not a judgement of it?
    pub(super) fn restates_option(&self, label: usize, end: usize, position: usize) -> bool {
        let first = label + 1;
        if first >= end {
            return false;
        }
        // A particle glued to the label makes a sentence about it: "(1)은 틀림".
        let t = &self.toks[first];
        if t.kind == Kind::Hangul && t.start == self.toks[label].end {
            return false;
        }
        let raw = &self.text[t.start as usize..self.toks[end - 1].end as usize];
        // Both readings below hold only for a short text: the option's own (with four
        // characters more) or, without option texts, 80 characters. A longer one (the rest
        // of a paragraph after "정답은 ③") is ruled out before it is squashed.
        let option = self
            .set
            .at_position(position)
            .and_then(|c| self.set.option_text(c))
            .map(squash);
        let limit = option.as_ref().map_or(80 * 4, |o| o.len() + 4 * 4);
        if kept_longer_than(raw, limit, &['.', ',', ')', ':', '-', '…']) {
            return false;
        }
        let written = squash(raw);
        let written = written.trim_matches(|c: char| matches!(c, '.' | ',' | ')' | ':' | '-'));
        if written.is_empty() {
            return false;
        }
        if let Some(option) = option {
            // The option's own words, even when they judge ("…수요자는 아니다"): a fragment
            // of it (often cut with "…"), or the option with a particle or copula more, but
            // not with a judgement ("④ 행정안전부는 틀림").
            let written = written.trim_end_matches(['…', '.']);
            if written.is_empty() {
                return false;
            }
            if option.contains(written) {
                return true;
            }
            let extra = written.replacen(option.as_str(), "", 1);
            return extra.len() < written.len()
                && extra.chars().count() <= 4
                && !JUDGING
                    .iter()
                    .chain(["않", "아니"].iter())
                    .any(|p| extra.contains(p));
        }
        // No option texts known: a short text with words of its own that judges nothing.
        let judged = (first..end).any(|j| match self.toks[j].kind {
            Kind::Hangul => {
                let w = strip_beon(self.word(j));
                is_negation_word(w)
                    || answer_keyword(w).is_some()
                    || JUDGING.iter().any(|p| w.starts_with(p))
            }
            Kind::Latin => matches!(
                lower(self.word(j)).as_str(),
                "answer"
                    | "correct"
                    | "incorrect"
                    | "wrong"
                    | "right"
                    | "true"
                    | "false"
                    | "choose"
                    | "select"
                    | "not"
                    | "boxed"
            ),
            Kind::Punct('?' | '!') => true,
            // A sentence that ends and goes on is prose, not one option's text.
            // ("A. Seoul": the dot right after the label is its separator.)
            Kind::Punct('.') => {
                j > first
                    && j + 1 < end
                    && matches!(self.toks[j + 1].kind, Kind::Hangul | Kind::Latin)
            }
            _ => false,
        });
        // A restated option has words of its own, not only markup: "①. \\boxed{②}" is two
        // statements, not a list.
        let worded = (first..end).any(|j| match self.toks[j].kind {
            Kind::Hangul | Kind::Number | Kind::Mark(_) => true,
            Kind::Latin => !matches!(
                lower(self.word(j)).as_str(),
                "boxed" | "answer" | "final" | "is" | "text" | "mathrm" | "mathbf" | "textbf"
            ),
            _ => false,
        });
        !judged && worded && written.chars().count() <= 80
    }
}
