//! Concluding from statements: the last one wins when a self-correction or a final marker
//! precedes it, conflicting ones are ambiguous, a weak claim decides only when nothing else
//! names another choice, and a label written with another option's text is a mismatch.

use super::denial::is_denial;
use super::words::{is_correction, lower, strip_beon, VIEW_VERBS};
use super::{Ctx, Said, Statement, Strength};
use crate::verify::cues::Family;
use crate::verify::scan::{Kind, Mark};
use crate::verify::{Choice, Extraction, Rule};

impl Ctx<'_> {
    pub(super) fn correction_between(&self, a: usize, b: usize) -> bool {
        (a + 1..b).any(|j| is_correction(&self.toks[j], self.next_word(j), self.text))
    }

    /// Decide from statements whose strength (after promotion) is at least `at_least`.
    pub(super) fn decide_by_statements(&self, at_least: Strength) -> Option<Extraction> {
        let (stmts, negations) = self.statements();
        let mut stmts = stmts.clone();
        // A label inside a strong statement ("정답은 ① 또는 ②입니다") is not a claim of its own.
        let strong: Vec<(usize, usize)> = stmts
            .iter()
            .filter(|s| s.strength == Strength::Strong)
            .map(|s| (s.first.min(s.last), s.first.max(s.last)))
            .collect();
        // Nor is one later in the same sentence, unless a self-correction separates them:
        // "정답은 (2) Al2(SO4)3입니다" states (2) only.
        stmts.retain(|s| {
            s.strength == Strength::Strong
                || !strong.iter().any(|&(a, b)| {
                    (a..=b).contains(&s.first)
                        || (s.first > b
                            && !(b..s.first).any(|x| self.toks[x].is_sentence_end())
                            && !self.correction_between(b, s.first))
                })
        });
        if stmts.is_empty() {
            return None;
        }
        // A weak statement after a self-correction replaces what came before it.
        for n in 1..stmts.len() {
            if stmts[n].strength == Strength::Weak
                && !stmts[n].view
                && self.correction_between(stmts[n - 1].last, stmts[n].first)
                && !self.hedged(stmts[n].first.min(stmts[n].last))
            {
                stmts[n].strength = Strength::Strong;
                stmts[n].rule = Rule::CorrectedStatement;
            }
        }
        let strongest = stmts.iter().map(|s| s.strength).max()?;
        if strongest < at_least {
            return None;
        }
        if strongest == Strength::Strong {
            // A weaker claim after the last statement that names another choice contradicts it.
            let last_strong = stmts.iter().rposition(|s| s.strength == Strength::Strong)?;
            let conclusion = &stmts[last_strong];
            if let Some(late) = stmts[last_strong + 1..].iter().find(|s| {
                s.said != conclusion.said && matches!(s.said, Said::One(_) | Said::Many(_))
            }) {
                return Some(self.conflict(&[conclusion, late], Rule::ConflictingStatements));
            }
        }
        let primary: Vec<&Statement> = stmts.iter().filter(|s| s.strength == strongest).collect();
        let last = *primary.last()?;
        let mut rule = last.rule;
        if let Some(prev) = primary[..primary.len() - 1]
            .iter()
            .rev()
            .find(|s| s.said != last.said)
        {
            let corrected =
                self.correction_between(prev.last, last.first) || (last.is_final && !prev.is_final);
            if !corrected && strongest == Strength::Weak {
                // Weak claims that differ describe options one by one; they state nothing.
                return None;
            }
            // A last statement outside the set ("The answer is (K)" of A–J) is invalid: an
            // earlier in-set label is not a fallback for it.
            if !corrected && last.said != Said::Outside {
                return Some(self.conflict(&primary, Rule::ConflictingStatements));
            }
            if corrected {
                rule = Rule::CorrectedStatement;
            }
        }
        if strongest == Strength::Weak {
            // A weak claim ("③이 맞다") decides only when nothing else in the text names
            // another choice: in an option-by-option analysis it describes an option.
            let c = match last.said {
                Said::One(c) => c,
                _ => return None,
            };
            // Labels before a self-correction that leads to it are what it corrects ("B\n\n
            // 아니, 다시 생각해 보니 C가 맞습니다").
            let corrected_from = (0..last.first.min(last.last))
                .rev()
                .find(|&j| self.is_label_mark(j))
                .filter(|&j| self.correction_between(j, last.first.min(last.last)));
            let others: Vec<usize> = (0..self.toks.len())
                .filter(|&j| {
                    !self.is_masked(j)
                        && self.is_label_mark(j)
                        && self.choice_at(j).is_some_and(|o| o != c)
                        && !negations.iter().any(|&(_, at)| at == j)
                        && corrected_from.is_none_or(|m| j > m)
                })
                .collect();
            // Nor a claim of one denied before it in its own sentence ("정답은 A가 아니라
            // A입니다").
            let first = last.first.min(last.last);
            let sentence = (0..first)
                .rev()
                .find(|&x| self.toks[x].is_sentence_end())
                .map_or(0, |x| x + 1);
            if negations
                .iter()
                .any(|&(n, at)| n == c && (sentence..first).contains(&at))
            {
                return None;
            }
            // Other options judged not the answer leave it, unless the text also declines
            // ("④는 틀렸고 ②입니다 … 잘 모르겠습니다").
            if others.iter().any(|&j| !self.judged_not_the_answer(j))
                || (!others.is_empty() && self.cues.has(Family::Refusal))
                || self.names_other_place(c)
            {
                return None;
            }
        }
        let span = self.span(last.first.min(last.last), last.last.max(last.first));
        Some(match &last.said {
            Said::One(c) => {
                let (a, b) = (last.first.min(last.last), last.first.max(last.last));
                // Also a line that opens with the label and another option's text ("A.
                // 6단위\n\nThe answer is A." when B reads 6단위): which of the two is meant?
                let line_starts = self.line_starts_with(*c);
                if let Some(other) = (a..=b)
                    .filter(|&m| self.is_label_mark(m) && self.choice_at(m) == Some(*c))
                    .chain(line_starts)
                    .find_map(|m| {
                        self.text_names_other_option(*c, m)
                            .or_else(|| self.number_is_other_option(*c, m))
                            .or_else(|| self.text_namely_before_label(*c, m))
                    })
                {
                    return Some(Extraction::Ambiguous {
                        candidates: vec![*c, other],
                        rule: Rule::LabelTextMismatch,
                        span,
                    });
                }
                // "정답은 1번 '헌법개정제안권' (D)", "정답은 2번 공정력, 즉 C": the option
                // named again, in another notation, as another one.
                if let Some(other) = (a..=b)
                    .filter(|&m| self.is_label_mark(m) && self.choice_at(m) == Some(*c))
                    .find_map(|m| {
                        self.other_label_beside(*c, m)
                            .or_else(|| self.other_label_namely_before(*c, m).map(Some))
                    })
                {
                    return Some(Extraction::Ambiguous {
                        candidates: [*c].into_iter().chain(other).collect(),
                        rule: Rule::LabelTextMismatch,
                        span,
                    });
                }
                // "The answer is the second option, D", "I'd go with the second option (D)": a
                // statement with no label of its own (an ordinal, 두 번째 보기, an option's text) and another
                // option's label right after it.
                if !(a..=b).any(|m| {
                    self.is_label_mark(m) && !matches!(self.mark_at(m), Some(Mark::Ordinal(_)))
                }) {
                    if let Some(other) = self.label_right_after(b).filter(|o| o != c) {
                        return Some(Extraction::Ambiguous {
                            candidates: vec![*c, other],
                            rule: Rule::LabelTextMismatch,
                            span,
                        });
                    }
                }
                // "정답은 ②입니다. 하지만 ③도 정답이 될 수 있습니다" (another choice put up as
                // right too), "정답: ③ (정정: ②)", "The answer is C. Wait, actually, maybe D"
                // (another choice after an explicit self-correction that states nothing
                // itself).
                if let Some((other, rule)) = self.reopened_after(last.last, *c) {
                    let mut candidates = vec![*c, other];
                    candidates.sort();
                    candidates.dedup();
                    return Some(Extraction::Ambiguous {
                        candidates,
                        rule,
                        span,
                    });
                }
                if negations.iter().any(|&(n, at)| n == *c && at > last.last) {
                    return Some(Extraction::Ambiguous {
                        candidates: vec![*c],
                        rule: Rule::ConflictingStatements,
                        span,
                    });
                }
                Extraction::Answer {
                    choice: *c,
                    rule,
                    span,
                }
            }
            Said::Many(cands) => Extraction::Ambiguous {
                candidates: cands.clone(),
                rule: Rule::Alternatives,
                span,
            },
            Said::Outside => Extraction::Invalid {
                text: self.text[span.clone()].to_string(),
                rule,
                span,
            },
        })
    }

    /// After token `after`, in one pass: another choice than `c` put up as right too ("③도
    /// 정답이 될 수 있습니다", "④도 맞을 수 있다": `Alternatives`), or an explicit
    /// self-correction ("정정", "다시 생각해 보면", "wait", "actually") and a label of another
    /// choice that is not denied (`ConflictingStatements`).
    fn reopened_after(&self, after: usize, c: Choice) -> Option<(Choice, Rule)> {
        let negations = &self.statements().1;
        let mut corrected = false;
        // After "하지만" / "but" opening a sentence, the choice itself may be called wrong
        // ("정답은 ③입니다. 근거는 …. 하지만 ③은 틀렸습니다."); other labels are not reopened.
        let mut contrasted = false;
        // The last other label and its token; the first one a correction reopens.
        let mut other: Option<(Choice, usize)> = None;
        let mut reopened = None;
        for j in after + 1..self.toks.len() {
            match self.toks[j].kind {
                Kind::Mark(_) => {
                    // "The answer is 1. Actually, wait — 1 doesn't hold up either.": the
                    // choice itself called wrong after a correction.
                    if (corrected || contrasted)
                        && self.choice_at(j) == Some(c)
                        && self.is_label_mark(j)
                        && self.denied_alone(j)
                    {
                        return Some((c, Rule::ConflictingStatements));
                    }
                    // "정답은 ①입니다. ①은 틀렸습니다.": the choice itself judged, in a
                    // sentence of its own, the other way from what the question asks for
                    // ("③은 옳은 설명입니다" where it asks what is not so).
                    if self.choice_at(j) == Some(c)
                        && self.is_label_mark(j)
                        && (self.judged_alone(j) == Some(self.asks_negative())
                            || self.called_wrong_answer(j))
                    {
                        return Some((c, Rule::ConflictingStatements));
                    }
                    let Some(o) = self.choice_at(j).filter(|&o| o != c) else {
                        continue;
                    };
                    if !self.is_label_mark(j) || self.is_masked(j) {
                        continue;
                    }
                    if self.judged_not_the_answer(j) {
                        continue;
                    }
                    // Not when the same sentence comes back to the choice: "(참고: 2번도 일부
                    // 맞는 설명이지만 4번이 가장 정확합니다.)".
                    let reaffirmed = || {
                        let mut conceded = false;
                        (j + 1..self.toks.len())
                            .take_while(|&x| !self.toks[x].is_sentence_end())
                            .any(|x| {
                                conceded |= (self.is_hangul(x)
                                    && ["지만", "으나", "는데"]
                                        .iter()
                                        .any(|e| self.word(x).ends_with(e)))
                                    || (self.is_latin(x)
                                        && self.word(x).eq_ignore_ascii_case("but"));
                                conceded && self.is_label_mark(x) && self.choice_at(x) == Some(c)
                            })
                    };
                    // "①이 맞는 것 같기도 합니다" takes itself back as a statement (a hedge
                    // of one of two), and so reads as denied below; it puts ① up all the same.
                    if self.seen_as_possible(j) && !reaffirmed() {
                        return Some((o, Rule::Alternatives));
                    }
                    if negations.iter().any(|&(_, at)| at == j) {
                        continue;
                    }
                    if self.also_right(j) && !reaffirmed() {
                        return Some((o, Rule::Alternatives));
                    }
                    // "정답: ③ … 하지만 저는 ①이 맞다고 생각합니다": another view of the
                    // answer, held now.
                    if self.held_as_view(j) && !reaffirmed() {
                        return Some((o, Rule::ConflictingStatements));
                    }
                    // A label after the correction ("(정정: ②)"); not one the explanation
                    // rejected before it ("①은 틀린 설명이다. 다시 보면 ③만 옳다").
                    if corrected {
                        reopened = reopened.or(Some(o));
                    }
                    other = Some((o, j));
                }
                // "아니, 3번도 틀렸네요", "No, 1 is wrong too": a sentence opened by "no".
                Kind::Hangul | Kind::Latin if self.opens_with_no(j) => corrected = true,
                Kind::Hangul | Kind::Latin
                    if (j == 0 || self.toks[j - 1].is_sentence_end())
                        && (["하지만", "그러나", "그런데"].contains(&self.word(j))
                            || ["but", "however"]
                                .iter()
                                .any(|w| self.word(j).eq_ignore_ascii_case(w))) =>
                {
                    contrasted = true
                }
                Kind::Hangul | Kind::Latin if is_explicit_correction(self, j) => {
                    corrected = true;
                    // "Answer: C → D (corrected)": the correction right after the label.
                    if let Some((o, _)) = other.filter(|&(_, at)| j <= at + 3) {
                        reopened = reopened.or(Some(o));
                    }
                }
                _ => {}
            }
        }
        reopened.map(|o| (o, Rule::ConflictingStatements))
    }

    /// Is the label at `j` quoted as a view the writer holds now: "①이라고 봅니다", "①이
    /// 맞다고 생각합니다", "①이 정답이라고 판단합니다" (not "생각했는데", "생각하지 않습니다",
    /// nor "①이 틀렸다고 봅니다")?
    fn held_as_view(&self, j: usize) -> bool {
        let end = self.toks.len().min(j + 5);
        (j + 1..end)
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .any(|x| {
                self.is_hangul(x)
                    && ["라고", "다고"].iter().any(|q| self.word(x).ends_with(q))
                    // "①이 틀렸다고 봅니다": a view of the option, not of the answer.
                    && !["틀", "아니", "않", "잘못", "오답", "없"]
                        .iter()
                        .any(|d| self.word(x).contains(d))
                    && self.is_hangul(x + 1)
                    && VIEW_VERBS.iter().any(|v| self.word(x + 1).starts_with(v))
            })
    }

    /// Is the label at `j` put up as right too: "③도 정답이 될 수 있습니다", "④번도 맞을 수
    /// 있다", "③도 가능합니다", "③일 수도 있습니다", "③일 가능성도 있다" (not "③도 정답이
    /// 아닙니다", "③일 수도 있지만 아닙니다")?
    fn also_right(&self, j: usize) -> bool {
        let window = j + 2..self.toks.len().min(j + 5);
        let has = |stems: &[&str]| {
            window
                .clone()
                .any(|x| self.is_hangul(x) && stems.iter().any(|p| self.word(x).starts_with(p)))
        };
        let next = if self.is_hangul(j + 1) {
            self.word(j + 1)
        } else {
            ""
        };
        // On a question asking what is not so, "③도 옳습니다" and "③도 적절합니다" call the
        // option's statement true, which makes it no answer there.
        let right: &[&str] = if self.asks_negative() {
            &["정답", "답", "맞", "가능"]
        } else {
            &["정답", "답", "맞", "옳", "가능", "적절"]
        };
        let also = matches!(next, "도" | "번도") && has(right);
        // There, "③도 옳지 않습니다" and "③도 틀린 설명입니다" put up another answer ("①은
        // 틀렸고 ②도 틀렸습니다" may rule options out, and is left as it was).
        let false_statement = has(&["옳지", "적절하지", "부적절", "해당하지", "일치하지"])
            || window.clone().any(|x| {
                self.is_hangul(x)
                    && matches!(self.word(x), "틀린" | "잘못된")
                    && self.is_hangul(x + 1)
                    && ["설명", "내용", "진술", "서술", "지문"]
                        .iter()
                        .any(|n| self.word(x + 1).starts_with(n))
            });
        if self.asks_negative() && matches!(next, "도" | "번도") && false_statement {
            return true;
        }
        let possibly = strip_beon(next).starts_with('일') && has(&["수도", "가능"]);
        // Not when the sentence goes on to deny it: "①도 일부 맞는 내용이 있으나 …
        // 충족하지는 못합니다".
        // On a question asking what is not so, "A도 옳은 설명입니다" rejects A.
        (also || possibly)
            && !self.judged_not_the_answer(j)
            && !(j + 2..self.toks.len())
                .take_while(|&x| !self.toks[x].is_sentence_end())
                .any(|x| self.is_hangul(x) && is_denial(self.word(x)))
    }

    /// Is the label at `j` (followed by `next`) put up as a possible answer in other words:
    /// "⑤로 볼 여지도 있습니다", "⑤로 볼 수도 있습니다", "⑤라고 보는 것도 가능합니다", "①이
    /// 맞는 것 같기도 합니다", "③, ④ 둘 다 정답이 될 수 있습니다", "Though ⑤ could also be
    /// argued"?
    fn seen_as_possible(&self, j: usize) -> bool {
        let sentence_end = self.sentence_around(j).end;
        let end = sentence_end.min(j + 7);
        let words: Vec<&str> = (j + 1..end).map(|x| self.word(x)).collect();
        let has = |stems: &[&str]| words.iter().any(|w| stems.iter().any(|p| w.starts_with(p)));
        if self.is_hangul(j + 1) {
            // Not "①이 옳지 않은 것 같기도", "⑤로 볼 수도 있지만 틀렸습니다"; a clause after a
            // comma is another ("…같기도 하고, 확신이 서지 않습니다" doubts, not denies).
            let clause_end = (j + 1..sentence_end)
                .find(|&x| self.toks[x].is_punct(','))
                .unwrap_or(sentence_end);
            if (j + 1..clause_end).any(|x| self.is_hangul(x) && is_denial(self.word(x))) {
                return false;
            }
            let next = self.word(j + 1);
            let seen = ["로", "으로", "라고", "이라고"].contains(&strip_beon(next))
                && has(&["볼", "보는", "보아도", "봐도", "간주"])
                && has(&["여지", "수도", "것도", "가능"]);
            let right: &[&str] = if self.asks_negative() {
                &["정답", "답"]
            } else {
                &["정답", "답", "맞", "옳", "적절"]
            };
            let seems_too = has(&["같기도"]) && has(right);
            let both = (has(&["모두"]) || words.windows(2).any(|w| w == ["둘", "다"]))
                && has(&["정답", "답"]);
            return seen || seems_too || both;
        }
        let latin: Vec<String> = (j + 1..end)
            .filter(|&x| self.is_latin(x))
            .map(|x| lower(self.word(x)))
            .collect();
        let is = |list: &[&str]| latin.iter().any(|w| list.contains(&w.as_str()));
        let start = self.sentence_around(j).start;
        let before: Vec<String> = (start..j)
            .filter(|&x| self.is_latin(x))
            .map(|x| lower(self.word(x)))
            .collect();
        let was = |list: &[&str]| before.iter().any(|w| list.contains(&w.as_str()));
        // Not "A might also seem right at first, but it is wrong", "D is also a possible
        // distractor", "It's not that D is also plausible" (trial 57).
        let denied = (j + 1..sentence_end).any(|x| {
            self.is_latin(x)
                && matches!(
                    lower(self.word(x)).as_str(),
                    "but"
                        | "however"
                        | "not"
                        | "wrong"
                        | "incorrect"
                        | "false"
                        | "seem"
                        | "seems"
                        | "distractor"
                        | "distractors"
                        | "trap"
                        | "traps"
                        | "tempting"
                        | "looking"
                        | "sounding"
                        | "unlikely"
                )
        }) || was(&["not", "never", "t", "no"])
            // "Is D also plausible? No.": a question.
            || self.tok(sentence_end).is_some_and(|t| t.is_punct('?'));
        // "D is also plausible", "D is correct as well", "B and A are both plausible", "D is
        // equally valid", "D also fits" (audit 45, trial 57); on a question asking what is not
        // so, "correct" calls the statement true.
        let mut positive = vec![
            "plausible",
            "acceptable",
            "possible",
            "possibility",
            "defensible",
            "viable",
            "reasonable",
            "likely",
            "fits",
            "works",
            "argued",
            "answer",
            "answers",
        ];
        // Only on a question about truth ("Which is NOT true?") does "correct" call a
        // statement true; on "Which animal never lays eggs?" it still calls D an answer.
        if self.truth_polarity() != Some(false) {
            positive.extend(["correct", "right", "valid", "true"]);
        }
        let too = is(&["also", "too", "both", "well", "equally"])
            || was(&["both", "either"])
            || (is(&["could", "might", "may", "can"]) && is(&["also", "too"]));
        // "So is D.", "D as well.", "D too.": the label alone with a word of addition.
        let so_is = matches!(before.as_slice(), [s, v] if s == "so" && matches!(v.as_str(), "is" | "does"))
            && latin.is_empty();
        let as_well = matches!(latin.as_slice(), [a, w] if a == "as" && w == "well")
            || matches!(latin.as_slice(), [t] if t == "too");
        !denied && ((too && is(&positive)) || so_is || (as_well && before.is_empty()))
    }

    pub(super) fn conflict(&self, stmts: &[&Statement], rule: Rule) -> Extraction {
        let mut candidates: Vec<Choice> = Vec::new();
        for s in stmts {
            match &s.said {
                Said::One(c) => candidates.push(*c),
                Said::Many(m) => candidates.extend(m),
                Said::Outside => {}
            }
        }
        candidates.sort();
        candidates.dedup();
        let first = stmts.first().map_or(0, |s| s.first.min(s.last));
        let last = stmts.last().map_or(0, |s| s.last.max(s.first));
        Extraction::Ambiguous {
            candidates,
            rule,
            span: self.span(first, last),
        }
    }
}

impl Ctx<'_> {
    /// Does the sentence of token `j` hedge ("①이 더 적절해 보임", "①인 것 같습니다", "①일
    /// 듯")? A correction so worded does not take the answer back: it doubts it (audits 46
    /// and 47: "답: ④\n(재검토 결과 ①이 더 적절해 보임)" had read as ①).
    fn hedged(&self, j: usize) -> bool {
        const HEDGES: [&str; 10] = [
            "보임", "보입", "보여", "보인", "같습", "같아", "같다", "같음", "듯", "듯합",
        ];
        self.sentence_around(j)
            .any(|x| self.is_hangul(x) && HEDGES.iter().any(|h| self.word(x).starts_with(h)))
    }
}

/// Words that take a statement back in so many words (narrower than `is_correction`, which
/// also counts "하지만" and "사실": an explanation after the answer uses those freely).
pub(super) fn is_explicit_correction(ctx: &Ctx<'_>, j: usize) -> bool {
    match ctx.toks[j].kind {
        Kind::Hangul => {
            let w = ctx.word(j);
            // Every word below starts with one of these syllables: most words are ruled out
            // by their first.
            if !w.starts_with(['정', '수', '번', '착', '재', '고', '다', '잠', '오']) {
                return false;
            }
            // "아, 잠깐만요.", "잠깐!": the interjection, not "잠깐 정리하면".
            if w.starts_with("잠깐만")
                || (w == "잠깐"
                    && ctx
                        .tok(j + 1)
                        .is_none_or(|t| matches!(t.kind, Kind::Punct(_))))
            {
                return true;
            }
            [
                "정정",
                "수정",
                "번복",
                "착각",
                "재검토",
                "재계산",
                "재확인",
                "고쳐",
            ]
            .iter()
            .any(|p| w.starts_with(p))
                // "(오타: D)", "오타 정정": the writer's own typo, not one in the question.
                || (w == "오타"
                    && (ctx.tok(j + 1).is_some_and(|t| t.is_punct(':'))
                        || (ctx.is_hangul(j + 1)
                            && ["정정", "수정"].iter().any(|p| ctx.word(j + 1).starts_with(p)))))
                || (w == "다시"
                    && ctx.is_hangul(j + 1)
                    && ["생각", "보", "확인", "검토", "계산", "살펴", "풀"]
                        .iter()
                        .any(|p| ctx.word(j + 1).starts_with(p)))
        }
        Kind::Latin => {
            const WORDS: [&str; 10] = [
                "wait",
                "actually",
                "hmm",
                "correction",
                "corrected",
                "edit",
                "oops",
                "reflection",
                "rethinking",
                "reconsidering",
            ];
            let w = ctx.word(j);
            // "On second thought, D."
            let second_thought = w.eq_ignore_ascii_case("second")
                && ctx.is_latin(j + 1)
                && ["thought", "thoughts"]
                    .iter()
                    .any(|t| ctx.word(j + 1).eq_ignore_ascii_case(t));
            second_thought
                || if w.is_ascii() {
                    WORDS.iter().any(|c| w.eq_ignore_ascii_case(c))
                } else {
                    WORDS.contains(&lower(w).as_str())
                }
        }
        _ => false,
    }
}

impl Ctx<'_> {
    /// The choice of a label right after token `b`, past an option noun and a comma, colon,
    /// dash or bracket.
    fn label_right_after(&self, b: usize) -> Option<Choice> {
        let mut j = b + 1;
        // Past the ordinal's noun too: "두 번째 보기, D".
        if self.is_hangul(j) && super::words::OPTION_NOUN_WORDS.contains(&self.word(j)) {
            j += 1;
        }
        while self
            .tok(j)
            .is_some_and(|t| matches!(t.kind, Kind::Punct(',' | '(' | ':' | '-' | '—')))
        {
            j += 1;
        }
        if self.is_label_mark(j) {
            self.choice_at(j)
        } else {
            None
        }
    }

    /// The tokens of label `c` that open a line, when the set has option texts. Found from
    /// the line breaks' bytes, since this runs on every decided answer.
    fn line_starts_with(&self, c: Choice) -> impl Iterator<Item = usize> + '_ {
        let texts = !self.set.options().is_empty();
        let breaks = memchr::memchr_iter(b'\n', self.text.as_bytes())
            .map(|at| self.toks.partition_point(|t| (t.start as usize) <= at));
        std::iter::once(0)
            .chain(breaks)
            .filter(move |&m| texts && self.is_label_mark(m) && self.choice_at(m) == Some(c))
    }
}
