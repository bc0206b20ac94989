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
            let answer = self.token_from(span.start);
            (at + 1..answer).any(|j| {
                is_explicit_correction(self, j)
                    || (self.is_hangul(j)
                        && ["초안", "가안", "임시"]
                            .iter()
                            .any(|d| self.word(j).starts_with(d)))
                    || (self.is_latin(j) && self.word(j).eq_ignore_ascii_case("draft"))
            })
        };
        let (c, at) = self.verdict_pick(true).or_else(|| self.odd_verdict())?;
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

    /// The one option a list judging every option in order sets apart, and its verdict's
    /// token: one judged otherwise than all the others ("① 맞음 ② 맞음 ③ 틀림 ④ 맞음",
    /// "A - wrong, B - wrong, C - right, D - wrong", "| ① | O |" rows, a line of reasons
    /// per option ending "옳음." or "틀림."). Whatever the marks mean, a statement true or
    /// the answer, the one set apart is the answer the list came to (audit 47: answers
    /// stating another had stood). An option's verdict is the last word of its label's
    /// line (up to the next label), or with none there, of its last line before the next
    /// label or a blank line.
    fn odd_verdict(&self) -> Option<(Choice, usize)> {
        let n = self.set.len();
        if self.set.notation() == Notation::Ox {
            return None;
        }
        // Labels set off from the word before them ("제391조의2" holds no label), all written
        // alike, naming every option in order: the list's own, not a numbered clause among
        // circled options or a mention of one option in passing.
        let set_off = |j: usize| {
            let before = &self.text[..self.toks[j].start as usize];
            match before.as_bytes().last() {
                None => true,
                Some(b) if b.is_ascii() => !b.is_ascii_alphanumeric(),
                Some(_) => before
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric()),
            }
        };
        let kind = |j: usize| self.mark_at(j).map(|m| std::mem::discriminant(&m));
        let mut run: Vec<usize> = Vec::new();
        let mut found = None;
        for j in 0..self.toks.len() {
            if !matches!(self.toks[j].kind, Kind::Mark(_)) || !set_off(j) || !self.is_label_mark(j)
            {
                continue;
            }
            let Some(c) = self.choice_at(j) else {
                continue;
            };
            if run.first().is_some_and(|&f| kind(f) != kind(j)) && c.index() != 0 {
                continue;
            }
            if c.index() == run.len() && (run.is_empty() || kind(run[0]) == kind(j)) {
                run.push(j);
            } else {
                run.clear();
                if c.index() == 0 {
                    run.push(j);
                }
            }
            if run.len() < n {
                continue;
            }
            // The last option's part ends at the next label, or the end.
            let after = (j + 1..self.toks.len())
                .find(|&x| self.is_label_mark(x))
                .unwrap_or(self.toks.len());
            let ends: Vec<usize> = (1..=n)
                .map(|k| run.get(k).copied().unwrap_or(after))
                .collect();
            let list: Option<Vec<(bool, usize)>> =
                (0..n).map(|k| self.verdict_of(run[k], ends[k])).collect();
            let Some(list) = list else {
                run.clear();
                continue;
            };
            if self.options_hold_verdicts() {
                return None;
            }
            // One judged right is the answer whatever is asked. One judged wrong among the
            // right is so only on an ask for what is not: on "가장 적절한 것은?" several may
            // be right and one best (trial 61).
            let yes = list.iter().filter(|(v, _)| *v).count();
            let odd = match yes {
                1 => list.iter().position(|(v, _)| *v),
                _ if yes + 1 == n && self.asks_negative() => list.iter().position(|(v, _)| !*v),
                _ => None,
            };
            // The last list stands: a second pass supersedes a first ("First pass: … Second
            // pass (careful): …"; trial 63).
            found = odd.and_then(|odd| Some((self.choice_at(run[odd])?, list[odd].1)));
            run.clear();
        }
        found
    }

    /// The verdict of the option labelled at `j`, whose part of a list ends at token `end`
    /// (see [`Ctx::odd_verdict`]), and its token.
    fn verdict_of(&self, j: usize, end: usize) -> Option<(bool, usize)> {
        let line_end = (j + 1..end)
            .find(|&x| self.toks[x].kind == Kind::Break)
            .unwrap_or(end);
        // The last token before `to` that is not punctuation, after the label.
        let last_word = |to: usize| {
            (j + 1..to)
                .rev()
                .find(|&x| !matches!(self.toks[x].kind, Kind::Punct(_) | Kind::Break))
        };
        let on_line = last_word(line_end).and_then(|x| Some((self.verdict_at(x, end)?, x)));
        // "④ 맞음 → 답 ④", "④(X) 정답: ②": the first word after the label, standing alone.
        let first = || {
            let x = (j + 1..line_end)
                .find(|&x| !matches!(self.toks[x].kind, Kind::Punct(_) | Kind::Break))?;
            let alone = self
                .tok(x + 1)
                .is_none_or(|t| matches!(t.kind, Kind::Punct(_) | Kind::Break | Kind::Other));
            alone.then(|| Some((self.verdict_at(x, end)?, x))).flatten()
        };
        // "A. True — …, at altitude it would be wrong": two verdicts that disagree.
        if let (Some((a, _)), Some((b, _))) = (on_line, first()) {
            if a != b {
                return None;
            }
        }
        on_line.or_else(first).or_else(|| {
            if line_end >= end {
                return None;
            }
            let blank = (line_end..end - 1).find(|&x| {
                self.toks[x].kind == Kind::Break && self.toks[x + 1].kind == Kind::Break
            });
            let x = last_word(blank.unwrap_or(end))?;
            Some((self.verdict_at(x, end)?, x))
        })
    }

    /// A verdict at token `x` in an option's part of a list ending at token `end`: a tick or
    /// cross, ○ or ×, the letters O and X in brackets or standing last in their line or
    /// before the next label, or a verdict word ("옳지 않음" read at its 않음).
    fn verdict_at(&self, x: usize, end: usize) -> Option<bool> {
        let t = self.toks[x];
        match t.kind {
            Kind::Other => YES
                .contains(&t.text(self.text).trim_end_matches('\u{FE0F}'))
                .then_some(true),
            Kind::Mark(Mark::Ox(v)) if !self.is_label_mark(x) => {
                let last = (x + 1..end)
                    .take_while(|&y| self.toks[y].kind != Kind::Break)
                    .all(|y| matches!(self.toks[y].kind, Kind::Punct(_)));
                // "③(O)": in brackets.
                let bracketed = x > 0
                    && self.toks[x - 1].is_punct('(')
                    && self.tok(x + 1).is_some_and(|n| n.is_punct(')'));
                (!t.text(self.text).is_ascii() || bracketed || last).then_some(v)
            }
            // "옳지 않음" is a wrong one, "틀리지 않음", "잘못되지 않음" a right one (trial 62).
            Kind::Hangul if self.word(x).starts_with('않') && x > 0 => {
                let denied = self.word(x - 1);
                if !self.is_hangul(x - 1) {
                    None
                } else if denied.starts_with("옳지") || denied.starts_with("맞지") {
                    Some(false)
                } else if denied.starts_with('틀') || denied.starts_with("잘못") {
                    Some(true)
                } else {
                    None
                }
            }
            // "③ 틀리지 않다": the verdict is the denial's.
            Kind::Hangul
                if (self.word(x).starts_with('틀') || self.word(x).starts_with("잘못"))
                    && self.next_word(x).starts_with('않') =>
            {
                Some(true)
            }
            Kind::Hangul if self.word(x).starts_with("틀림없") => None,
            Kind::Latin if self.word(x).eq_ignore_ascii_case("right") => Some(true),
            _ => self.verdict_word(x),
        }
    }

    /// Does an option's own text hold a verdict ("① O, X, O", "② 옳음 - 틀림")? A list
    /// restating such options is no list of verdicts.
    fn options_hold_verdicts(&self) -> bool {
        // A stem about the values True and False ("evaluates to True in Python 3").
        let values = self
            .set
            .question()
            .is_some_and(|q| q.contains(" True") || q.contains(" False"));
        values
            || self.set.options().iter().any(|o| {
                o.contains(['○', '×', '✓', '✗', 'O', 'X'])
                    || [
                        "옳", "틀", "맞", "true", "false", "True", "False", "right", "wrong",
                    ]
                    .iter()
                    .any(|w| o.contains(w))
            })
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
                // "not correct", "isn't wrong", "can't be wrong", "never wrong" (trial 62).
                let not = (j.saturating_sub(3)..j).any(|k| {
                    self.is_latin(k)
                        && ["not", "t", "never", "cannot"]
                            .iter()
                            .any(|n| self.word(k).eq_ignore_ascii_case(n))
                });
                Some(v != not)
            }
            _ => None,
        }
    }
}
