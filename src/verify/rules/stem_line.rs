//! A lone label written as an option's opener ("A.", "(A)", "1)") after a line opening a
//! question's stem ("Question: …", "문제 2. …") that is not this question: the first option
//! of a question a base model went on to write, not an answer (audit 47). This question
//! quoted, or a bare label ("C"), is left to the other rules (trial 62: "Question: <this
//! question>\nC" answers it).

use super::conclude::is_explicit_correction;
use super::written_out::restates_words;
use super::Ctx;
use crate::verify::scan::Kind;
use crate::verify::Choice;
use std::ops::Range;

impl Ctx<'_> {
    /// Does the label at `k` open its line, after a line that opens a question's stem (see
    /// [`Ctx::after_invented_stem`])?
    pub(super) fn opens_line_after_invented_stem(&self, k: usize) -> bool {
        let Some(b) = (0..k)
            .rev()
            .find(|&x| !matches!(self.toks[x].kind, Kind::Punct(_)))
        else {
            return false;
        };
        self.toks[b].kind == Kind::Break && self.after_invented_stem(b)
    }

    /// Does the line before the break at `last_break` open a question's stem ("Question:
    /// According to Mill, …", "Q: …", "문제: …", "다음 문제: …")? A lone label after it is
    /// the first option of a question a base model went on to write (audit 47: " \nQuestion:
    /// …\nA. " had read as A).
    pub(super) fn after_invented_stem(&self, last_break: usize) -> bool {
        let mut b = last_break;
        while b > 0 && self.toks[b - 1].kind == Kind::Break {
            b -= 1;
        }
        let start = self.toks[..b]
            .iter()
            .rposition(|t| t.kind == Kind::Break)
            .map_or(0, |x| x + 1);
        let Some(first) = (start..b).find(|&x| !matches!(self.toks[x].kind, Kind::Punct(_))) else {
            return false;
        };
        // The stem's word, then a colon, a full stop or its number: "Question:", "Q.",
        // "문제 2.", "다음 문제:" (not "문제를 다시 보면").
        let (word, after) = match self.word(first) {
            "다음" if self.next_word(first) == "문제" => ("문제", first + 2),
            w => (w, first + 1),
        };
        let headed = self
            .tok(after)
            .is_some_and(|t| t.is_punct(':') || t.is_punct('.') || matches!(t.kind, Kind::Mark(_)));
        let stem = headed
            && (word.eq_ignore_ascii_case("question")
                || word == "Q"
                || word == "문제"
                || word == "질문");
        // The label's line: a label and the stop or bracket of an option's opener, only.
        let line_end = (last_break + 1..self.toks.len())
            .find(|&x| self.toks[x].kind == Kind::Break)
            .unwrap_or(self.toks.len());
        let line = last_break + 1..line_end;
        let opener = line.clone().filter(|&x| self.is_label_mark(x)).count() == 1
            && line.clone().all(|x| {
                self.is_label_mark(x) || matches!(self.toks[x].kind, Kind::Punct('.' | ')' | '('))
            })
            && line
                .clone()
                .any(|x| matches!(self.toks[x].kind, Kind::Punct('.' | ')')));
        let quoted = || {
            let text = &self.text[self.toks[start].start as usize..self.toks[b - 1].end as usize];
            self.set.question().is_some_and(|q| restates_words(text, q))
        };
        stem && opener && !quoted()
    }

    /// A first line that is a lone label ("①", "**②**") and an answer stated later of
    /// another, with no label and no correction between: two answers (audit 47: " ①\n\n정답:
    /// ③" had read as ③). Returns the first line's.
    pub(super) fn leading_label_against(
        &self,
        choice: Choice,
        span: &Range<usize>,
    ) -> Option<Choice> {
        // A lone label's line is a few tokens long: most texts are ruled out at once.
        let first_break = self
            .toks
            .iter()
            .take(8)
            .position(|t| t.kind == Kind::Break)?;
        let mut labels = (0..first_break).filter(|&j| self.is_label_mark(j));
        let (Some(j), None) = (labels.next(), labels.next()) else {
            return None;
        };
        let lone = (0..first_break).all(|x| x == j || matches!(self.toks[x].kind, Kind::Punct(_)));
        let answer = self.token_from(span.start);
        let first = self.choice_at(j)?;
        let between = first_break..answer;
        (lone
            && first != choice
            && answer > first_break
            && !between
                .clone()
                .any(|x| self.is_label_mark(x) || is_explicit_correction(self, x)))
        .then_some(first)
    }
}
