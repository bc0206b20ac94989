//! A list of the options with a verdict mark on each line ("③ 바닥으로부터 0.8m … ✔",
//! "D) 42.89MPa ✅", "② 부산 O", the others ✘ / ❌ / X): the one option marked yes, when every
//! option has a line of its own and every other one is marked no. Marks only on a question
//! asking what is so: on one asking what is not, a tick may mean "this statement is right" as
//! well as "this is the answer". Verdict words ("1) 틀림\n2) 옳음", "4. False", "— correct")
//! say which statement is right, so they decide on either question: the one line judged as
//! the question asks. Only with no answer word anywhere.

use super::conclude::is_explicit_correction;
use super::Ctx;
use crate::verify::cues::Family;
use crate::verify::scan::{Kind, Mark};
use crate::verify::{Choice, Extraction, Notation, Rule};
use std::ops::Range;

/// Marks that say yes beside ○ (the scanner reads ○ ⭕ O as yes and × ✘ ✗ ❌ X as no).
const YES: [&str; 4] = ["✔", "✅", "✓", "☑"];

impl Ctx<'_> {
    /// Does the text stop mid-sentence ("…## 결론\n각 선택지를 종합해 보면, 옳"): its last
    /// line holds no label and does not end as a sentence or a remark does?
    fn cut_off(&self) -> bool {
        let Some(last) = self.toks.iter().rposition(|t| t.kind != Kind::Break) else {
            return false;
        };
        let line_start = (0..last)
            .rev()
            .find(|&j| self.toks[j].kind == Kind::Break)
            .map_or(0, |j| j + 1);
        // "③ 맞음\n④ 틀": the last verdict cut to its stem (audit 41).
        if self.is_hangul(last) && ["틀", "옳", "맞", "잘", "잘못", "오"].contains(&self.word(last))
        {
            return true;
        }
        if (line_start..=last).any(|j| self.is_label_mark(j)) {
            return false;
        }
        match self.toks[last].kind {
            Kind::Punct('.' | '!' | ')' | ']') | Kind::Mark(_) | Kind::Other => false,
            Kind::Hangul => !self.word(last).ends_with(['다', '요', '음', '임', '함']),
            _ => true,
        }
    }

    pub(super) fn verdict_list(&self) -> Option<Extraction> {
        // Not with an answer word anywhere: a statement taken back, or one cut off ("…❌\n\n따라서
        // 정답은 "), says the list is not the answer.
        if self.cues.has(Family::Keyword) {
            return None;
        }
        let (c, at) = self.verdict_pick(false)?;
        let line_start = (0..at)
            .rev()
            .find(|&j| self.toks[j].kind == Kind::Break)
            .map_or(0, |j| j + 1);
        Some(Extraction::Answer {
            choice: c,
            rule: Rule::VerdictList,
            span: self.span(line_start, at),
        })
    }

    /// The option a verdict list marks against an answer of `choice` decided by `rule` at
    /// `span`: "ANSWER: C\n\nA) X\nB) O\nC) X\nD) X", or "1) 틀림\n2) 맞음\n…" on a lettered
    /// set, its lines numbered in the options' order, marks B right (trial 52: the answer had
    /// stood). Returns it, the rule and the span of the conflict (see [`contradicted`]).
    pub(super) fn verdict_list_against(
        &self,
        choice: Choice,
        rule: Rule,
        span: &Range<usize>,
    ) -> Option<(Choice, Rule, Range<usize>)> {
        if rule == Rule::VerdictList {
            return None;
        }
        // A list after the answer judges the options again; one before it is what it
        // concluded from, and marking another option contradicts it (audit 46: "① ✗\n② ✗\n③
        // ✓\n④ ✗\n정답: ②"), unless it is set aside between as a draft or corrected ("…❌\n\n위
        // 표시는 초안입니다. 최종 정답: 4번").
        let set_aside = |at: usize| {
            let answer = self
                .toks
                .partition_point(|t| (t.start as usize) < span.start);
            (at + 1..answer).any(|j| {
                is_explicit_correction(self, j)
                    || (self.is_hangul(j)
                        && ["초안", "가안", "임시"]
                            .iter()
                            .any(|d| self.word(j).starts_with(d)))
                    || (self.is_latin(j) && self.word(j).eq_ignore_ascii_case("draft"))
            })
        };
        let (c, at) = self.verdict_pick(true)?;
        (c != choice && (self.toks[at].start as usize >= span.end || !set_aside(at))).then(|| {
            let end = self.toks[at].end as usize;
            let span = span.start.min(end)..span.end.max(end);
            (c, Rule::ConflictingStatements, span)
        })
    }

    /// The one option a list of verdicts, a line per option, marks as the answer, and the
    /// mark's token. `by_position`: the list stands among other lines (only those opening
    /// with a label are read), and a numbered list on a lettered set names the options in
    /// their order ("1) X" for A).
    fn verdict_pick(&self, by_position: bool) -> Option<(Choice, usize)> {
        // A line per option: most answers have too few lines to be such a list.
        let polarity = self.asked_polarity();
        if self.set.notation() == Notation::Ox
            || memchr::memchr_iter(b'\n', self.text.as_bytes()).count() + 1 < self.set.len()
        {
            return None;
        }
        // A mark at `j`: a tick, or an O/X mark; the letters O and X only ending their line
        // ("① 서울 X"), where they cannot be a word.
        let ends_line = |j: usize| {
            self.toks[j + 1..]
                .iter()
                .take_while(|n| n.kind != Kind::Break)
                .all(|n| matches!(n.kind, Kind::Punct(_)))
        };
        // On a lettered set O and X read as letters: ending a line after its label, marks
        // ("A) X", "B) O"), but only against an answer: alone such a list may judge another
        // property ("짝수 여부\nA) X\nB) O"; trial 54).
        let ox_letter = |j: usize| {
            let after_label = by_position && j > 0 && self.toks[j - 1].kind != Kind::Break;
            match self.toks[j].text(self.text) {
                "O" | "X" if self.set.notation() == Notation::Letter && after_label => {
                    ends_line(j).then(|| self.toks[j].text(self.text) == "O")
                }
                _ => None,
            }
        };
        let verdict = |j: usize| {
            let t = self.toks[j];
            match t.kind {
                Kind::Other => YES
                    .contains(&t.text(self.text).trim_end_matches('\u{FE0F}'))
                    .then_some(true),
                Kind::Mark(Mark::Ox(v)) => {
                    let letter = t.text(self.text).is_ascii();
                    (!letter || ends_line(j)).then_some(v)
                }
                _ => ox_letter(j),
            }
        };
        // Marks only on a question asking what is so (above); words by the ask's polarity.
        let marks_count = !self.asks_negative();
        // Cheap refusal: a yes mark, or a verdict word of the ask's polarity, must be there.
        if !(0..self.toks.len()).any(|j| {
            (marks_count && verdict(j) == Some(true))
                || (polarity.is_some() && self.verdict_word(j) == polarity)
        }) {
            return None;
        }
        let mut seen: Vec<Choice> = Vec::new();
        let mut chosen: Option<(Choice, usize)> = None;
        for line in self
            .toks
            .split(|t| t.kind == Kind::Break)
            .scan(0, |at, line| {
                let r = *at..*at + line.len();
                *at += line.len() + 1;
                Some(r)
            })
        {
            let labels: Vec<usize> = line
                .clone()
                .filter(|&j| self.is_label_mark(j) && ox_letter(j).is_none())
                .collect();
            // Beside an answer, only the lines that open with a label are the list's.
            let opens = |f: &usize| {
                line.clone()
                    .take_while(|j| j < f)
                    .all(|j| matches!(self.toks[j].kind, Kind::Punct(_)))
            };
            if by_position && !labels.first().is_some_and(opens) {
                continue;
            }
            let mut marks: Vec<(usize, bool)> = line
                .clone()
                .filter_map(|j| verdict(j).map(|v| (j, v)))
                .collect();
            if !marks.is_empty() && !marks_count {
                return None;
            }
            // No mark: the line's last verdict word, read as "yes" when it judges as the
            // question asks ("4. False" on a question asking what is not so).
            if marks.is_empty() {
                if let (Some(p), Some(j)) = (
                    polarity,
                    line.clone().rev().find(|&j| self.verdict_word(j).is_some()),
                ) {
                    if labels.first().is_some_and(|&f| j > f) {
                        marks.push((j, self.verdict_word(j) == Some(p)));
                    }
                }
            }
            // A line without a label is a heading or a remark; with one, it must start with it
            // (after list punctuation) and carry exactly one mark.
            let Some(&first) = labels.first() else {
                if marks.is_empty() {
                    continue;
                }
                return None;
            };
            let starts = opens(&first);
            let choice_at = |j: usize| {
                self.choice_at(j)
                    .or_else(|| match (self.mark_at(j)?, self.set.notation()) {
                        (Mark::Num(n), Notation::Letter) if by_position => {
                            self.set.at_position(usize::from(n))
                        }
                        _ => None,
                    })
            };
            let c = choice_at(first)?;
            let same_label = labels.iter().all(|&j| choice_at(j) == Some(c));
            let [(at, yes)] = marks[..] else {
                return None;
            };
            if !starts || !same_label || seen.contains(&c) {
                return None;
            }
            seen.push(c);
            if yes {
                if chosen.is_some() {
                    return None;
                }
                chosen = Some((c, at));
            }
        }
        let (c, at) = chosen?;
        if seen.len() != self.set.len() || self.cut_off() {
            return None;
        }
        Some((c, at))
    }

    /// A word at `j` that judges a statement: `Some(true)` for 옳음, 맞음, 옳다, True, correct,
    /// OK; `Some(false)` for 틀림, 틀리다, 오답, False, incorrect, wrong, and for "옳지 않음",
    /// "not correct".
    fn verdict_word(&self, j: usize) -> Option<bool> {
        let t = self.toks[j];
        match t.kind {
            Kind::Hangul => {
                let w = self.word(j);
                let denied = || self.next_word(j).starts_with('않');
                if w.starts_with('틀') || w.starts_with("오답") || w.starts_with("잘못") {
                    Some(false)
                } else if w.starts_with("옳지") || w.starts_with("맞지") {
                    denied().then_some(false)
                } else if ["옳음", "옳다", "옳습", "맞음", "맞다", "맞습"]
                    .iter()
                    .any(|p| w.starts_with(p))
                {
                    Some(true)
                } else {
                    None
                }
            }
            // Compared without a lower-cased copy: every Latin token of the text is asked.
            Kind::Latin => {
                let w = self.word(j);
                let is = |list: &[&str]| list.iter().any(|v| w.eq_ignore_ascii_case(v));
                let v = if is(&["true", "correct", "ok", "accurate"]) {
                    true
                } else if is(&["false", "incorrect", "wrong", "inaccurate"]) {
                    false
                } else {
                    return None;
                };
                let not =
                    j > 0 && self.is_latin(j - 1) && self.word(j - 1).eq_ignore_ascii_case("not");
                Some(v != not)
            }
            _ => None,
        }
    }
}
