//! The bare-label reader: the whole final text is one label (optionally with its option text
//! or a copula), the first line is one and nothing later names another choice, or the last
//! line is a lone label after prose.

use super::option_text::{kept_longer_than, leading_value, squash};
use super::words::{answer_keyword, is_negation_word, lower, option_noun_particle, strip_beon};
use super::{Ctx, Resolved, Said};
use crate::verify::cues::Family;
use crate::verify::scan::Kind;
use crate::verify::{Choice, Extraction, Rule};
use aho_corasick::AhoCorasick;
use std::ops::Range;
use std::sync::OnceLock;

impl Ctx<'_> {
    /// Is token `j` only a separator or a copula/particle that may follow a bare label?
    pub(super) fn is_bare_tail(&self, j: usize) -> bool {
        let t = &self.toks[j];
        match t.kind {
            Kind::Punct('.' | '!' | '?' | ')' | ']' | '[' | '(' | ':' | '"' | '\'')
            | Kind::Break => true,
            Kind::Hangul => matches!(
                strip_beon(self.word(j)),
                "" | "입니다"
                    | "이다"
                    | "임"
                    | "이요"
                    | "요"
                    | "예요"
                    | "이에요"
                    | "선택지"
                    | "보기"
                    | "항목"
                    | "옵션"
                    | "선택지입니다"
                    | "보기입니다"
                    | "입니다만"
                    | "정답"
                    | "정답입니다"
                    | "이정답"
                    | "가정답"
                    | "이죠"
                    | "이야"
            ),
            _ => false,
        }
    }

    /// The bare label of the token range, if it is one label with an optional tail or
    /// option text. Returns an extraction for the range.
    pub(super) fn bare_in(&self, range: Range<usize>, rule: Rule) -> Option<Extraction> {
        let mut k = range.start;
        while k < range.end && matches!(self.toks[k].kind, Kind::Punct(_) | Kind::Break) {
            k += 1;
        }
        if k >= range.end || self.is_masked(k) {
            return None;
        }
        let label = self.label_at(k)?;
        // "9 × 1023" for the option "9 × 1023": that option's text, not label 9.
        if self.option_text_past_number(k).is_some() {
            return None;
        }
        // O/X words count as bare only when they are the whole text.
        let is_mark = self.is_label_mark(k);
        let mut j = k + 1;
        // Two labels side by side that agree: "③ (3)", "3번(③)".
        let mut agree_until = k;
        while j < range.end {
            if self.is_label_mark(j) {
                if self.label_at(j) == Some(label)
                    && j <= agree_until + 3
                    && self.two_notations(agree_until, j)
                {
                    agree_until = j;
                    j += 1;
                    continue;
                }
                break;
            }
            if self.toks[j].kind == Kind::Break || !self.is_bare_tail(j) {
                break;
            }
            j += 1;
        }
        // "4번입니다. 헌법 제34조 1항.": a label sentence, then another sentence; the
        // statement rules read that.
        let sentence_then_more = j < range.end
            && (k + 1..j).any(|x| {
                self.toks[x].kind == Kind::Hangul
                    && self.toks.get(x + 1).is_some_and(|t| t.is_sentence_end())
            });
        if sentence_then_more && self.toks[j].kind != Kind::Break {
            return None;
        }
        // Whatever follows a line break is not part of a bare answer.
        while j < range.end && self.toks[j].kind == Kind::Break {
            j += 1;
            if j < range.end {
                return None;
            }
        }
        let span = self.span(k, agree_until);
        if let Resolved::In(c) = label {
            if let Some(other) = self.number_is_other_option(c, k) {
                return Some(Extraction::Ambiguous {
                    candidates: vec![c, other],
                    rule: Rule::LabelTextMismatch,
                    span,
                });
            }
        }
        let decided = |rule| match label {
            Resolved::In(c) => Extraction::Answer {
                choice: c,
                rule,
                span: span.clone(),
            },
            Resolved::Outside => Extraction::Invalid {
                text: self.text[span.clone()].to_string(),
                rule,
                span: span.clone(),
            },
        };
        if j >= range.end {
            if !is_mark && range.end - range.start > 3 {
                return None;
            }
            return Some(decided(rule));
        }
        if !is_mark {
            return None;
        }
        // The rest must be option text with no other label.
        // Another label after the first is only allowed inside the label's own option text
        // ("(2) 10 120"), checked below.
        let more_labels = (j..range.end).any(|x| self.is_label_mark(x));
        if more_labels && self.set.options().is_empty() {
            return None;
        }
        let rest_start = self.toks[agree_until].end as usize;
        let rest_end = self.toks[range.end - 1].end as usize;
        let raw = &self.text[rest_start..rest_end];
        // The label's own option text, exactly: nothing in it can change the reading. (A
        // rest longer than that text, less what `rests` trims and a copula of at most 9
        // bytes, cannot be it, and is not squashed for this.)
        if let Resolved::In(c) = label {
            let own_text = self.squashed_option(c);
            if let Some(t) = own_text.filter(|t| {
                !t.is_empty()
                    && !kept_longer_than(raw, t.len() + 9, &['.', ')', ':', '-', ']', '!', '번'])
            }) {
                let (full_rest, raw_rest, rest) = rests(raw);
                if t == full_rest || t == raw_rest || t.trim_end_matches(['.', '!']) == rest {
                    return Some(decided(rule));
                }
            }
        }
        let negated = self
            .negating_words(j..range.end)
            .any(|x| match self.toks[x].kind {
                Kind::Hangul => {
                    let w = self.word(x);
                    is_negation_word(strip_beon(w))
                        || [
                            "아니", "아닌", "아님", "아닙", "없", "틀", "오답", "빼", "제외",
                            "말고",
                        ]
                        .iter()
                        .any(|n| w.contains(n))
                        // "④ …는 허용되지 않습니다" denies ④; on a question asking what
                        // is not so, "D) … — 이것이 옳지 않습니다" calls it what is asked.
                        || (w.contains('않') && !self.asks_negative())
                        || answer_keyword(w).is_some()
                }
                Kind::Latin => matches!(
                    lower(self.word(x)).as_str(),
                    "not" | "wrong" | "incorrect" | "answer"
                ),
                _ => false,
            });
        // A particle glued to the label makes a sentence ("③이 맞다"), not option text.
        // So does a noun for the option with its particle: "③번 선택지가 옳지 않은 것".
        let glued = (self.toks[j].kind == Kind::Hangul
            && (self.toks[j].start == self.toks[j - 1].end
                || self.word(j).starts_with('같')
                || option_noun_particle(self.word(j)).is_some()))
            || (self.toks[j].kind == Kind::Latin
                && matches!(
                    lower(self.word(j)).as_str(),
                    "is" | "was" | "seems" | "looks" | "would" | "should" | "might" | "could"
                ));
        if negated || glued {
            return None;
        }
        let (_, _, rest) = rests(raw);
        let rest = rest.as_str();
        if self.set.options().is_empty() {
            return (rest.chars().count() <= 40).then(|| decided(rule));
        }
        let Resolved::In(c) = label else {
            return Some(decided(rule));
        };
        // 2: the text is the option's text; 1: one contains the other; 0: unrelated.
        let score = |o: Choice| {
            self.squashed_option(o).map_or(0, |t| {
                if t.is_empty() {
                    0
                } else if t == rest {
                    2
                } else if rest.chars().count() >= 2 && (t.contains(rest) || rest.contains(t)) {
                    1
                } else {
                    0
                }
            })
        };
        let own = score(c);
        if more_labels && own < 2 {
            return None;
        }
        let others: Vec<Choice> = self
            .set
            .choices()
            .filter(|&o| o != c && score(o) > 0 && score(o) >= own)
            .collect();
        let best_other = others.iter().map(|&o| score(o)).max().unwrap_or(0);
        if own > 0 && own > best_other {
            return Some(decided(rule));
        }
        let mut candidates = vec![c];
        candidates.extend(others);
        Some(Extraction::Ambiguous {
            candidates,
            rule: Rule::LabelTextMismatch,
            span: self.span(k, range.end - 1),
        })
    }

    /// The tokens of `range` that may negate a bare label or state an answer: every Latin
    /// word, and the Hangul words holding one of the negating stems or 답 (found in one
    /// automaton pass over the range's text instead of ten substring tests per word).
    fn negating_words(&self, range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
        static STEMS: OnceLock<AhoCorasick> = OnceLock::new();
        let ac = STEMS.get_or_init(|| {
            AhoCorasick::new([
                "아니", "아닌", "아님", "아닙", "아냐", "않", "없", "틀", "오답", "빼", "제외",
                "말고", "답",
            ])
            .expect("fixed stems build")
        });
        let toks = &self.toks[range.clone()];
        let from = toks.first().map_or(0, |t| t.start as usize);
        let to = toks.last().map_or(0, |t| t.end as usize);
        let hits: Vec<usize> = ac
            .find_iter(&self.text[from..to])
            .map(|m| m.start() + from)
            .collect();
        let mut next = 0;
        range.filter(move |&x| {
            let t = self.toks[x];
            if t.kind == Kind::Latin {
                return true;
            }
            while hits.get(next).is_some_and(|&h| h < t.start as usize) {
                next += 1;
            }
            hits.get(next).is_some_and(|&h| h < t.end as usize)
        })
    }

    pub(super) fn bare(&self) -> Option<Extraction> {
        if let Some(e) = self.bare_in(0..self.toks.len(), Rule::Bare) {
            return Some(e);
        }
        // After a reasoning block the final text may open with a blank line.
        let start = usize::from(self.toks.first().is_some_and(|t| t.kind == Kind::Break));
        let line_end = start
            + self.toks[start..]
                .iter()
                .position(|t| t.kind == Kind::Break)?;
        self.leading_bare(start, line_end)
            .or_else(|| self.last_line())
    }

    /// The last line alone is a label, after prose: "…설명…\n\n④". No other line may start
    /// with a label, since a restated option list ends with one too.
    pub(super) fn last_line(&self) -> Option<Extraction> {
        let n = self.toks.len();
        let mut end = n;
        while end > 0 && matches!(self.toks[end - 1].kind, Kind::Break | Kind::Punct(_)) {
            end -= 1;
        }
        let last_break = self.toks[..end]
            .iter()
            .rposition(|t| t.kind == Kind::Break)?;
        let other_line_starts_with_label = std::iter::once(0)
            .chain(
                self.toks[..last_break]
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.kind == Kind::Break)
                    .map(|(b, _)| b + 1),
            )
            .any(|start| {
                let mut k = start;
                while k < last_break && matches!(self.toks[k].kind, Kind::Punct(_)) {
                    k += 1;
                }
                k < last_break && self.is_label_mark(k)
            });
        if other_line_starts_with_label {
            return None;
        }
        if self.page_or_footnote_mark(last_break) || self.after_invented_stem(last_break) {
            return None;
        }
        // "옳은 것은?\n③" on a question asking which is not: the answer to another question.
        let first = (last_break + 1..end).find(|&x| self.is_label_mark(x));
        if self.unnamed_rejection_before(last_break)
            || self.retracted.get()
            || first.is_some_and(|k| self.answers_posed_ask(k))
        {
            return None;
        }
        let e = self.bare_in(last_break + 1..end, Rule::LastLine)?;
        // Only a lone label: option text on the last line is how option lists end.
        match &e {
            Extraction::Answer { span, .. } | Extraction::Invalid { span, .. }
                if span.end >= self.toks[end - 1].end as usize =>
            {
                Some(e)
            }
            _ => None,
        }
    }

    /// Is the last line, after the break at token `last_break`, a page number ("- 1 -"), a
    /// footnote whose mark stands earlier in the text ("…합니다.[1]\n\n[1]") or a table row
    /// with an empty cell ("| 1 | |": a question number and no answer)?
    fn page_or_footnote_mark(&self, last_break: usize) -> bool {
        let at = self.toks[last_break].end as usize;
        let line = self.text[at..].trim();
        let inner = |open: char, close: char| {
            line.strip_prefix(open)
                .and_then(|l| l.strip_suffix(close))
                .map(str::trim)
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        };
        inner('-', '-').is_some()
            || inner('[', ']').is_some_and(|_| self.text[..at].contains(line))
            || (line.starts_with('|') && line.contains("| |"))
    }

    /// Does the sentence that ends before token `k` say "not the answer" of something it
    /// does not name ("…이는 함정이며 정답이 아닙니다.\n2", "That is a trap, not the
    /// answer.\nB")? It may mean the label that follows.
    pub(super) fn unnamed_rejection_before(&self, k: usize) -> bool {
        let mut close = k;
        while close > 0 && matches!(self.toks[close - 1].kind, Kind::Punct(_) | Kind::Break) {
            close -= 1;
        }
        let open = self.toks[..close]
            .iter()
            .rposition(|t| t.is_sentence_end())
            .map_or(0, |x| x + 1);
        let s = open..close;
        self.says_not_the_answer(&s) && !s.clone().any(|j| self.is_label_mark(j))
    }

    /// The first line alone is a label, every other choice named later is rejected in a
    /// line of its own (when the first line is the label alone) ("**③**\n\n- ①: '40.5m'는 해당하지 않습니다."), and nothing
    /// denies this one.
    pub(super) fn leading_bare(&self, start: usize, line_end: usize) -> Option<Extraction> {
        let e = self.bare_in(start..line_end, Rule::LeadingBare)?;
        let chosen = e.choice();
        // Only a label alone ("**③**") may be followed by rejections of the others: a first
        // line with option text starts a restated list ("① 재정 관리 – 해당\n② …").
        // Not "3." over "문제: …", a question's number.
        let lone = (start..line_end).all(|j| {
            self.is_label_mark(j)
                || (self.is_bare_tail(j) && !self.toks[j].is_punct('.'))
                || self.toks[j].is_punct('*')
        }) && !self.toks[start..line_end]
            .iter()
            .any(|t| t.text(self.text).ends_with('.'));
        // Judged line by line: "40.5m" and a quoted "…이다." hold full stops.
        let lines: Vec<Range<usize>> = self
            .toks
            .split(|t| t.kind == Kind::Break)
            .scan(0, |at, line| {
                let r = *at..*at + line.len();
                *at += line.len() + 1;
                Some(r)
            })
            .skip(1 + start)
            .collect();
        let later_conflict = lines.iter().any(|line| {
            if !line.clone().any(|j| self.is_label_mark(j)) {
                return false;
            }
            // "- ①: '40.5m'는 해당하지 않습니다": a quoted option text neither names nor
            // judges; the labels stand before it and the judgement after it.
            let quotes: Vec<usize> = line
                .clone()
                .filter(|&x| matches!(self.word(x), "'" | "\"" | "‘" | "’" | "“" | "”"))
                .collect();
            let (labels, judged) = match (quotes.first(), quotes.last()) {
                (Some(&q1), Some(&q2)) if q1 < q2 => (line.start..q1, q2 + 1..line.end),
                _ => (line.clone(), line.clone()),
            };
            let names = |same: bool| {
                labels.clone().chain(judged.clone()).any(|j| {
                    self.is_label_mark(j)
                        && matches!(self.label_at(j), Some(Resolved::In(c)) if Some(c) == chosen)
                            == same
                })
            };
            // "**②**\n\n- ②: …는 해당하지 않습니다": the label rejected by its own line.
            if lone && names(true) && self.judges_not_asked(&judged) {
                return true;
            }
            // "B\n\n다시 생각해 보니 A가 맞습니다": another label after a self-correction may be
            // the new answer, even where the question asks what is not so.
            let corrected = || {
                line.clone()
                    .find(|&j| self.is_label_mark(j))
                    .is_some_and(|j| self.correction_between(start, j))
            };
            names(false)
                && (!lone
                    || self.cues.has(Family::Refusal)
                    || corrected()
                    || self
                        .statements()
                        .0
                        .iter()
                        .any(|s| Some(&s.said) != chosen.map(Said::One).as_ref())
                    || !chosen.is_some_and(|c| self.rejects_options(&labels, &judged, c)))
        });
        // "③\n\n③은 정답이 아닙니다": the label denied further on.
        let denied_later = chosen.is_some_and(|c| {
            self.statements()
                .1
                .iter()
                .any(|&(n, at)| n == c && at >= line_end)
        });
        // "③\n모르겠습니다": a refusal or retraction on the next line takes it back.
        let taken_back = self.next_sentence_retracts(line_end - 1);
        let answered_otherwise = chosen.is_some_and(|c| self.quantity_answered_after(line_end, c));
        (!later_conflict && !denied_later && !taken_back && !answered_otherwise).then_some(e)
    }

    /// Does the text after token `from` give as its answer a quantity that is neither a label
    /// nor option `c`'s text ("1\n\n… The answer is 1.11111111", "③\n… 따라서 답은
    /// 0.25이다")? Then the label that opened it is not the writer's answer.
    fn quantity_answered_after(&self, from: usize, c: Choice) -> bool {
        // Each option's value, once: its text's first number, "525,000" of "￦ 525,000".
        let values: Vec<(Choice, Option<f64>)> = self
            .set
            .choices()
            .map(|o| (o, self.set.option_text(o).and_then(leading_value)))
            .collect();
        let own = values.iter().find(|(o, _)| *o == c).and_then(|(_, v)| *v);
        // The one-sentence body's result, read once when a topic asks for it.
        let sole = std::cell::OnceCell::new();
        (from..self.toks.len()).any(|j| {
            if self.toks[j].kind != Kind::Number || self.is_masked(j) {
                return false;
            }
            // The whole quantity, "1.11111111" or "9.8": the tokeniser splits it at the dot.
            // The same value as the option's ("8.10m" for 8.1m) is that option.
            let start = self.toks[j].start as usize;
            let value = leading_value(&self.text[start..]);
            if own.is_some() && value == own {
                return false;
            }
            // Another option's value is another answer, and so is an approximation nearer to
            // another option's value than to this one's ("약 9.8m" for 10m, not 14m; "약 93%"
            // for 92.9% is this one).
            let nearer_another = |value: Option<f64>| {
                values
                    .iter()
                    .filter_map(|&(o, v)| {
                        let v = v?;
                        Some((o, (v - value?).abs() / v.abs().max(f64::MIN_POSITIVE)))
                    })
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .is_some_and(|(o, _)| o != c)
            };
            let mut others = nearer_another(value);
            // The keyword within four tokens before it, with only words or a colon between:
            // "answer is", "정답은", "답은 약", "answer is ~", "정답은 ₩".
            let keyword = (j.saturating_sub(4)..j)
                .rev()
                .find(|&k| match self.toks[k].kind {
                    Kind::Latin => lower(self.word(k)) == "answer",
                    Kind::Hangul => answer_keyword(self.word(k))
                        .is_some_and(|(_, suffix)| matches!(suffix, "" | "은" | "는" | "이")),
                    _ => false,
                });
            // Or, in a body of one sentence with no label in it, a topic or subject right
            // before it whose result is nearer another option's value ("③\n\n안전거리는 약 10m"
            // on 3, 5, 8, 10): the writer's result names another option.
            // Only a body of one sentence after the label's line, read at its last quantity
            // outside brackets: "= 100 × ₩6,000 = ₩600,000" is 600,000; "20분 이상 (고층은
            // 40분)" is 20; a caveat in a sentence of its own is left alone.
            let sole_sentence_result = || {
                let after = self.text.find('\n')? + 1;
                let body = self.text[after..].trim_end();
                let body_start = after + (body.len() - body.trim_start().len());
                let body = body.trim_start();
                // By bytes: a decimal point ("1.20") ends no sentence.
                let ends = body.char_indices().any(|(i, ch)| {
                    ch == '\n'
                        || (matches!(ch, '.' | '!' | '?' | '。')
                            && !body[i + 1..].starts_with(|c: char| c.is_ascii_digit())
                            && !body[i + 1..].trim_start().is_empty())
                });
                let mut depth = 0usize;
                let mut last = None;
                let mut in_number = false;
                for (i, ch) in body.char_indices() {
                    match ch {
                        '(' | '（' | '[' => depth += 1,
                        ')' | '）' | ']' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    let digit = ch.is_ascii_digit();
                    if digit && !in_number && depth == 0 {
                        last = Some(i);
                    }
                    in_number = digit || (in_number && matches!(ch, '.' | ','));
                }
                let labelled = self
                    .toks
                    .iter()
                    .enumerate()
                    .any(|(x, t)| t.start as usize >= body_start && self.is_label_mark(x));
                (!ends && !labelled).then(|| last.and_then(|at| leading_value(&body[at..])))?
            };
            // The word before it, past approximations: a topic or subject ("밀도는 약"), "is"
            // ("The density is about"), or an equals sign ("ρ ≈").
            // Words and signs between a quantity and what names it.
            let approximation = |x: usize| {
                APPROXIMATE
                    .iter()
                    .chain(&HELD)
                    .any(|w| self.word(x).eq_ignore_ascii_case(w))
            };
            let topic = (j.saturating_sub(3)..j).rev().find(|&k| !approximation(k));
            let names_result = |k: usize| match self.toks[k].kind {
                Kind::Hangul => self.word(k).ends_with(['은', '는', '이', '가']),
                Kind::Latin => ["is", "are", "was", "equals"]
                    .iter()
                    .any(|w| self.word(k).eq_ignore_ascii_case(w)),
                _ => matches!(self.word(k), "=" | "≈" | "≒"),
            };
            // A range ("20~30mm") names no one value, unless the option is one.
            let own_range = self
                .set
                .option_text(c)
                .is_some_and(|t| t.contains(['~', '～']));
            let range = || {
                let b = self.text.as_bytes();
                (1..b.len().saturating_sub(1)).any(|i| {
                    matches!(b[i], b'~') && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit()
                }) || self.text.contains("～")
            };
            let answered = keyword.is_some();
            // An adverbial may stand between the topic and the value ("설치 높이는 바닥으로부터
            // 2m 이상"): the topic within four words before it.
            let topic = topic.filter(|&k| names_result(k)).or_else(|| {
                (j.saturating_sub(4)..j)
                    .rev()
                    .find(|&k| self.is_hangul(k) && self.word(k).ends_with(['은', '는']))
            });
            let keyword = keyword.or_else(|| {
                topic.filter(|&k| {
                    names_result(k) && {
                        others = sole
                            .get_or_init(sole_sentence_result)
                            .is_some_and(|v| nearer_another(Some(v)) || (!own_range && range()));
                        others
                    }
                })
            });
            let Some(k) = keyword else {
                return false;
            };
            let approximate = (k + 1..j).any(|x| {
                self.toks[x].is_punct('~')
                    || APPROXIMATE
                        .iter()
                        .any(|w| self.word(x).eq_ignore_ascii_case(w))
            });
            (others || !approximate)
                && (!answered
                    || (k + 1..j).all(|x| match self.toks[x].kind {
                        Kind::Latin | Kind::Other | Kind::Punct(':' | '=' | '~' | '$') => true,
                        Kind::Hangul => {
                            APPROXIMATE[..3].contains(&self.word(x))
                                || HELD[..2].contains(&self.word(x))
                        }
                        _ => false,
                    }))
        })
    }
}

/// Words that make a quantity approximate ("약 10m", "about 10 m"); the Korean ones first.
const APPROXIMATE: [&str; 6] = [
    "약",
    "대략",
    "대략적으로",
    "about",
    "approximately",
    "roughly",
];

/// Words and signs that may stand between a quantity and its topic without changing it ("총
/// 5명", "₩7,200"); the Korean ones first.
const HELD: [&str; 6] = ["총", "모두", "~", "₩", "￦", "$"];

/// The text after a bare label as `bare_in` compares it: squashed whole, without leading
/// separators, and without trailing punctuation and a copula.
fn rests(raw: &str) -> (String, String, String) {
    let full_rest = squash(raw);
    let raw_rest = full_rest
        .trim_start_matches(['.', ')', ':', '-', ']', '번'])
        .to_string();
    let rest = raw_rest.trim_end_matches(['.', '!', ')', ']']);
    let rest = ["입니다", "이다", "임", "이에요", "예요", "요"]
        .iter()
        .find_map(|s| rest.strip_suffix(s))
        .unwrap_or(rest)
        .to_string();
    (full_rest, raw_rest, rest)
}
