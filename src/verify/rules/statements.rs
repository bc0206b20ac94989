//! The statements reader: every answer statement in the text, in order — keyword then label
//! ("정답은 ③", "Answer: (B)"), label then keyword ("③번이 정답입니다"), choosing verbs
//! ("③을 선택합니다", "I choose C") and weaker claims ("③이 맞습니다", "(B) is correct").
//! Deciding between them is `conclude`'s job.

use super::around::has_english_heading;
use super::words::{
    answer_keyword, is_left_filler_hangul, is_left_filler_latin, is_negation_word,
    is_right_filler_hangul, is_right_filler_latin, lower, strip_beon,
};
use super::words::{cjk_keyword, CJK_FILLERS};
use super::{said_of, Ctx, Resolved, Said, Statement, Statements};
use crate::verify::cues::Family;
use crate::verify::scan::{Kind, Tok};
use crate::verify::{Choice, Notation, Rule};

/// Headings that give the final answer after a colon: "결론: 2번", "최종: ③", "선택: ②".
const CONCLUSION_HEADS: [&str; 3] = ["결론", "최종", "선택"];

/// A finder for each of [`CONCLUSION_HEADS`], built once.
fn conclusion_heads() -> &'static [memchr::memmem::Finder<'static>] {
    static HEADS: std::sync::LazyLock<Vec<memchr::memmem::Finder<'static>>> =
        std::sync::LazyLock::new(|| {
            (CONCLUSION_HEADS.iter())
                .map(memchr::memmem::Finder::new)
                .collect()
        });
    &HEADS
}

impl Ctx<'_> {
    /// The statement read to the right of a keyword at `k`.
    pub(super) fn right_of_keyword(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<(Said, usize)> {
        let mut j = k + 1;
        let mut steps = 0;
        let mut breaks = 0;
        let mut negated = false;
        while let Some(t) = self.tok(j) {
            if steps > 8 {
                return None;
            }
            // "정답 아님: X": on O/X items a word of denial before a colon denies the keyword.
            if self.set.notation() == Notation::Ox
                && self.is_hangul(j)
                && self.tok(j + 1).is_some_and(|n| n.is_punct(':'))
                && is_negation_word(self.word(j))
            {
                return None;
            }
            // "정답은 9 × 1023입니다" for the option "9 × 1023": a number that starts an
            // option's text and goes on with it is that text, not label 9 (trial 44: read as
            // a choice outside the set, and "3 × 1023" as nothing).
            if !negated {
                if let Some((c, last)) = self.option_text_past_number(j) {
                    let beside = self.label_beside_text(j).filter(|&r| r != Resolved::In(c));
                    return Some(match beside {
                        Some(r) => (said_of(&[Resolved::In(c), r]), last),
                        None => (Said::One(c), last),
                    });
                }
            }
            if self.is_label_mark(j)
                || (self.set.notation() == Notation::Ox && self.label_at(j).is_some())
            {
                if self.restated_list_at(j) {
                    self.restated.set(true);
                    return None;
                }
                // "정답\n1) … — 옳음\n2) …": a heading over a list of the options.
                if breaks > 0 && self.list_starts_at(j) {
                    return None;
                }
                if breaks > 0 {
                    if let Some(offered) = self.bulleted_labels_at(j) {
                        return Some(offered);
                    }
                }
                let phrase = self.label_phrase(j, negations)?;
                if matches!(phrase.0, Said::One(_)) && self.opens_walkthrough(j, phrase.1) {
                    return None;
                }
                if negated {
                    if let Said::One(c) = phrase.0 {
                        negations.push((c, j));
                    }
                    // "not A but B", "isn't A; it's B": the next label in the same sentence is
                    // the statement, after a contrast and with no other denial between ("not
                    // A, nor B", "isn't A and it isn't B").
                    let after = phrase.1 + 1;
                    let next = (after..self.toks.len().min(after + 6))
                        .take_while(|&x| !self.toks[x].is_sentence_end())
                        .find(|&x| self.is_label_mark(x))?;
                    let between = |list: &[&str]| {
                        (after..next).any(|x| {
                            self.is_latin(x)
                                && list.iter().any(|w| self.word(x).eq_ignore_ascii_case(w))
                        })
                    };
                    let contrast = (after..next).any(|x| self.toks[x].is_punct(';'))
                        || between(&["but", "rather", "instead", "s", "is"]);
                    if !contrast || between(&["not", "nor", "isn", "neither", "never"]) {
                        return None;
                    }
                    return self.label_phrase(next, negations);
                }
                return Some(phrase);
            }
            let filler = match t.kind {
                Kind::Punct(':' | '=' | '-' | '>' | '[' | ']' | '(' | '{' | '"' | '\'' | '|') => {
                    true
                }
                // "그렇다면 옳지 않은 것은? 바로 (1)입니다", "정답은? ③": asked and answered.
                Kind::Punct('?') => steps == 0,
                // "정답\n③" is a heading and its answer; "3번이 정답\n1) …" has its label on
                // the left, and "… ← 정답\n4번 …" points back: the next line is not read.
                Kind::Break => {
                    breaks += 1;
                    breaks == 1 && steps <= 2 && !self.points_left(k)
                }
                Kind::Hangul => is_right_filler_hangul(self.word(j)),
                Kind::Other => CJK_FILLERS.contains(&self.word(j)),
                Kind::Latin => {
                    let w = self.word(j);
                    // "The answer isn't D; it's C": isn, ', t.
                    let contracted = ["isn", "wasn"].iter().any(|n| w.eq_ignore_ascii_case(n))
                        && self
                            .tok(j + 1)
                            .is_some_and(|t| matches!(t.kind, Kind::Punct(_) | Kind::Other))
                        && self.is_latin(j + 2)
                        && self.word(j + 2).eq_ignore_ascii_case("t");
                    if contracted {
                        negated = true;
                        j += 2;
                        true
                    } else if lower(w) == "not" {
                        negated = true;
                        true
                    } else {
                        is_right_filler_latin(w)
                    }
                }
                _ => false,
            };
            // "정답은 옳지 않은 설명인 4번": the ask's own description of the answer.
            if !filler && t.kind == Kind::Hangul {
                if let Some(n) = self.ask_description_at(j) {
                    steps += n;
                    j += n;
                    continue;
                }
            }
            if !filler {
                // "ANSWER: b", "정답: c", "Answer: (d)": after a marker a lone lowercase letter
                // is that letter, not the article "a" of a sentence that goes on.
                // Not "The answer is not b": lower case is no mark a denial is read of.
                if let Some(letter) = self.lowercase_letter_at(j, negated) {
                    return (!negated).then(|| (said_of(&[self.resolve(letter)]), j));
                }
                // "The answer is the third option", "정답은 마지막 보기".
                if !negated {
                    if let Some(phrase) = self.position_phrase_at(j) {
                        return Some(phrase);
                    }
                }
                // "정답은 금융위원회", "정답은 10일(②)입니다", "답: 1,000m2", "답: ￦585,000".
                if (matches!(t.kind, Kind::Hangul | Kind::Latin | Kind::Number)
                    || self.is_currency(j))
                    && !negated
                {
                    // "정답은 30일입니다" for "30일 이내": the value without its qualifier.
                    let c = (self.option_text_at(j))
                        .filter(|&c| self.option_text_ends_answer(j, c))
                        .or_else(|| self.value_option_at(j))?;
                    // "정답은 기획재정부(③)입니다": a label put beside the text must agree.
                    let beside = self.label_beside_text(j).filter(|&r| r != Resolved::In(c));
                    return Some(match beside {
                        Some(r) => (said_of(&[Resolved::In(c), r]), j),
                        None => (Said::One(c), j),
                    });
                }
                return None;
            }
            steps += 1;
            j += 1;
        }
        None
    }

    /// The last token of a Chinese or Japanese answer marker starting at token `k`
    /// ("答案是 B", "正确答案：C", "答え: D"), which read like Korean and English ones.
    fn cjk_keyword_end(&self, k: usize) -> Option<usize> {
        let at = self.toks[k].start as usize;
        let rest = self.text.get(at..)?;
        let keyword = cjk_keyword(&self.text[..at], rest)?;
        let end = (at + keyword.len()) as u32;
        (k..self.toks.len().min(k + 6)).find(|&j| self.toks[j].end == end)
    }

    /// Does the keyword at `k` speak of what is on its left: a label it completes ("3번이
    /// 정답") or an arrow pointing back ("← 정답")?
    fn points_left(&self, k: usize) -> bool {
        // "← 정답", "← 이것이 답", "<- this is the answer": an arrow, or a demonstrative as
        // the keyword's subject, on its line just before it.
        let arrow = (k.saturating_sub(3)..k)
            .rev()
            .take_while(|&x| self.toks[x].kind != Kind::Break)
            .any(|x| {
                let before = self.toks[x].text(self.text);
                let between_is_copula = (x + 1..k).all(|y| {
                    self.is_latin(y) && matches!(lower(self.word(y)).as_str(), "is" | "the")
                });
                ["←", "⬅", "<-", "<="].iter().any(|a| before.ends_with(a))
                    || (x + 1 == k && matches!(before, "이것이" | "이게" | "이것이야말로" | "요게"))
                    || (between_is_copula && matches!(lower(before).as_str(), "this" | "that"))
            });
        // "3번이 정답", "D가 정답": the subject particle joins label and keyword; "답:" points
        // right whatever stands before it.
        let colon = self.tok(k + 1).is_some_and(|t| t.is_punct(':'));
        let completes = self.left_of_keyword(k, false).is_some_and(|m| {
            (m + 1..k).any(|x| self.is_hangul(x) && matches!(strip_beon(self.word(x)), "이" | "가"))
        });
        let verdict_line = !colon && self.verdict_line_label(k).is_some();
        arrow || (completes && !colon) || verdict_line
    }

    /// A label to the left of a keyword at `k`: "③번이 정답입니다", "④를 정답으로".
    pub(super) fn left_of_keyword(&self, k: usize, suffix_negated: bool) -> Option<usize> {
        let mut j = k;
        for _ in 0..4 {
            if j == 0 {
                return None;
            }
            j -= 1;
            let t = &self.toks[j];
            if self.is_label_mark(j) {
                return (!suffix_negated).then_some(j);
            }
            let skip = match t.kind {
                Kind::Hangul => is_left_filler_hangul(self.word(j)),
                Kind::Latin => is_left_filler_latin(self.word(j)),
                Kind::Punct(')' | '"' | ']' | ':' | '-') => true,
                _ => false,
            };
            if !skip {
                return (!suffix_negated)
                    .then(|| self.label_with_own_text_before(j, k))
                    .flatten();
            }
        }
        None
    }

    /// Every statement in the text, in order, plus the negated labels.
    pub(super) fn statements(&self) -> &Statements {
        self.statements.get_or_init(|| self.read_statements())
    }

    fn read_statements(&self) -> Statements {
        let mut out: Vec<Statement> = Vec::new();
        let mut negations = Vec::new();
        // Without a keyword cue only labels can start a statement ("③을 선택합니다").
        let keywords = self.cues.has(Family::Keyword);
        // "결론: 2번", "■ 최종: ③": a conclusion heading is a final answer marker.
        // Every heading is followed by a colon (ASCII or full-width): without one, no search.
        let bytes = self.text.as_bytes();
        let colon = memchr::memchr(b':', bytes).is_some() || finder!("：").find(bytes).is_some();
        // "TL;DR: ③", "**tl;dr:** D": a summary heading over the answer.
        let tldr =
            colon && (finder!(";DR").find(bytes).is_some() || finder!(";dr").find(bytes).is_some());
        let english_head = colon && has_english_heading(bytes);
        let conclusion = colon
            && (tldr || english_head || conclusion_heads().iter().any(|h| h.find(bytes).is_some()));
        let words = keywords || self.echo_possible || conclusion;
        let korean_ask = self
            .ask
            .first()
            .copied()
            .filter(|a| self.echo_possible && !a.is_ascii());
        for k in self.statement_candidates(keywords, korean_ask, conclusion) {
            if self.is_masked(k) {
                continue;
            }
            let t = self.toks[k];
            match t.kind {
                Kind::Other if !keywords => {}
                Kind::Hangul | Kind::Latin if !words => {}
                Kind::Other => {
                    if let Some(end) = self.cjk_keyword_end(k) {
                        let read = self.cjk_not_but(end);
                        if let Some((said, last)) =
                            read.or_else(|| self.right_of_keyword(end, &mut negations))
                        {
                            out.push(Statement::strong(said, Rule::Statement, k, last, false));
                        }
                    }
                }
                Kind::Hangul => {
                    if let Some(s) = self.ask_echo_at(k, &mut negations) {
                        out.push(s);
                        continue;
                    }
                    // "결론: 2번", "최종: ③", "최종 선택: ④", "최종선택: ④".
                    let head = match self.word(k) {
                        "최종" if self.is_hangul(k + 1) && self.word(k + 1) == "선택" => k + 1,
                        w if CONCLUSION_HEADS.contains(&w) || w == "최종선택" => k,
                        _ => usize::MAX,
                    };
                    if head != usize::MAX && self.tok(head + 1).is_some_and(|n| n.is_punct(':')) {
                        if let Some((said, last)) = self.right_of_keyword(head, &mut negations) {
                            out.push(Statement::strong(said, Rule::Statement, k, last, true));
                        }
                        continue;
                    }
                    let mut w = self.word(k);
                    // "①번답: ②": the 번 belongs to the label before, the keyword follows.
                    if k > 0 && self.toks[k - 1].mark().is_some() && self.toks[k - 1].end == t.start
                    {
                        w = strip_beon(w);
                    }
                    if let Some((fin, suffix)) = answer_keyword(w) {
                        if self.wrong_before(k) {
                            continue;
                        }
                        let is_final = fin || self.final_before(k);
                        let right_ok = matches!(
                            suffix,
                            "" | "은"
                                | "는"
                                | "이"
                                | "을"
                                | "변은"
                                | "안은"
                                | "변"
                                | "안"
                                | "으로는"
                                // "정답번호: 1".
                                | "번호"
                                | "번호는"
                        );
                        if right_ok {
                            if let Some((said, last)) = self.right_of_keyword(k, &mut negations) {
                                out.push(Statement::strong(
                                    said,
                                    Rule::Statement,
                                    k,
                                    last,
                                    is_final,
                                ));
                                continue;
                            }
                        }
                        if matches!(suffix, "은" | "는") {
                            continue;
                        }
                        // "3번이 정답일 확률은 40%": a probability, not a statement.
                        let likelihood = suffix.starts_with('일')
                            && self.is_hangul(k + 1)
                            && ["확률", "가능성"]
                                .iter()
                                .any(|p| self.word(k + 1).starts_with(p));
                        let questioning = likelihood
                            || ["인지", "일까", "인가", "일지", "인가요"]
                                .iter()
                                .any(|p| suffix.starts_with(p));
                        if questioning {
                            continue;
                        }
                        let negated = suffix.contains("아니")
                            || suffix.contains("아닌")
                            || suffix.contains("아님")
                            || suffix.contains("아닙")
                            || (k + 1..k + 4).any(|x| {
                                self.is_hangul(x) && {
                                    let w = self.word(x);
                                    is_negation_word(w)
                                        || w.starts_with('없')
                                        || w == "리가"
                                        || w == "리"
                                }
                            });
                        // "②를 정답으로 고려하면 …", "④를 정답으로 가정하고 …": taken as the
                        // answer to see what follows, not chosen; only a choosing or closing
                        // verb chooses ("정답으로 선택합니다", "정답으로 하겠습니다").
                        if matches!(suffix, "으로" | "로") && !self.chosen_as_answer(k + 1) {
                            continue;
                        }
                        if let Some(m) = self.left_of_keyword(k, false) {
                            if negated {
                                // "①②④는 정답이 될 수 없으므로": every label of the group.
                                if let Some(r) = self.label_at(m) {
                                    let first = self.said_with_left_alternatives(m, r).1;
                                    negations.extend((first..=m).filter_map(|x| {
                                        self.is_label_mark(x)
                                            .then(|| self.choice_at(x).map(|c| (c, x)))
                                            .flatten()
                                    }));
                                }
                                continue;
                            }
                            if let Some(r) = self.label_at(m) {
                                let (said, first) = self.said_with_left_alternatives(m, r);
                                out.push(Statement::strong(
                                    said,
                                    Rule::Statement,
                                    first,
                                    k,
                                    is_final || self.final_before(m),
                                ));
                            }
                        } else if let Some((said, first)) =
                            self.last_place_before(k).filter(|_| !negated)
                        {
                            out.push(Statement::strong(said, Rule::Statement, first, k, is_final));
                        } else if let Some((r, m)) =
                            (self.in_place_claim(k, suffix)).filter(|_| !negated)
                        {
                            out.push(Statement::strong(
                                said_of(&[r]),
                                Rule::Statement,
                                m,
                                k,
                                is_final,
                            ));
                        }
                    }
                }
                Kind::Latin => {
                    if let Some(s) = self.ask_echo_at(k, &mut negations) {
                        out.push(s);
                        continue;
                    }
                    let raw = self.word(k);
                    if tldr
                        && raw.eq_ignore_ascii_case("dr")
                        && k >= 2
                        && self.toks[k - 1].is_punct(';')
                        && self.word(k - 2).eq_ignore_ascii_case("tl")
                        && self.tok(k + 1).is_some_and(|n| n.is_punct(':'))
                    {
                        if let Some((said, last)) = self.right_of_keyword(k, &mut negations) {
                            out.push(Statement::strong(said, Rule::Statement, k - 2, last, true));
                        }
                        continue;
                    }
                    if english_head && self.is_english_heading(k) {
                        out.extend(self.heading_statement(k, &mut negations));
                        continue;
                    }
                    // "The third option is correct": a place, then a judgement.
                    if raw.eq_ignore_ascii_case("is") {
                        out.extend(self.place_judged_at(k));
                        continue;
                    }
                    // Only short words can be keywords ("selected", or 8 full-width letters of
                    // 3 bytes): no lower-cased copy of every long word.
                    // Without a keyword cue no word here is one; an ASCII keyword has 4 to 8
                    // letters.
                    if !keywords
                        || raw.len() > 24
                        || (raw.is_ascii() && !(4..=8).contains(&raw.len()))
                    {
                        continue;
                    }
                    let w = lower(raw);
                    if (w == "answer" || w == "answers") && self.wrong_before(k) {
                        continue;
                    }
                    if w == "answer" || w == "answers" || w == "boxed" {
                        let rule = if w == "boxed" {
                            Rule::Boxed
                        } else {
                            Rule::Statement
                        };
                        let is_final = self.final_before(k);
                        if let Some((said, last)) = self.right_of_keyword(k, &mut negations) {
                            out.push(Statement::strong(said, rule, k, last, is_final));
                        } else if w != "boxed" {
                            if let Some(m) = self.left_of_keyword(k, false) {
                                if let Some(r) = self.label_at(m) {
                                    let (said, first) = self.said_with_left_alternatives(m, r);
                                    out.push(Statement::strong(said, rule, first, k, is_final));
                                }
                            }
                        }
                    } else if matches!(w.as_str(), "choice" | "option" | "guess")
                        || (w == "selected" && self.json_key_at(k))
                    {
                        // "The correct choice is ③", "My final option: (C)"; a JSON key
                        // (`"choice": "④"`, `"selected_option": 4`, `"selected": 4`).
                        let chosen = (k > 0
                            && self.is_latin(k - 1)
                            && matches!(
                                lower(self.word(k - 1)).as_str(),
                                "correct" | "right" | "best" | "final" | "my"
                            ))
                            || self.json_key_at(k);
                        if chosen {
                            if let Some((said, last)) = self.right_of_keyword(k, &mut negations) {
                                let is_final = self.final_before(k);
                                out.push(Statement::strong(
                                    said,
                                    Rule::Statement,
                                    k - 1,
                                    last,
                                    is_final,
                                ));
                            }
                        } else {
                            out.extend(self.corresponding_option(k, &mut negations));
                        }
                    } else if matches!(
                        w.as_str(),
                        "choose" | "select" | "pick" | "chose" | "selected"
                    ) || (matches!(w.as_str(), "with" | "toward" | "towards")
                        && k > 0
                        && self.is_latin(k - 1)
                        && matches!(
                            lower(self.word(k - 1)).as_str(),
                            "go" | "going" | "went" | "lean" | "leaning" | "leans"
                        ))
                    {
                        let mut j = k + 1;
                        while self.is_latin(j) && is_right_filler_latin(self.word(j)) {
                            j += 1;
                        }
                        // "I'd choose the second option".
                        if let Some((said, last)) = self.position_phrase_at(j) {
                            out.push(Statement::strong(said, Rule::Statement, k, last, false));
                            continue;
                        }
                        if let Some((said, last)) = self
                            .tok(j)
                            .and_then(Tok::mark)
                            .and_then(|_| self.label_phrase(j, &mut negations))
                        {
                            out.push(Statement::strong(said, Rule::Statement, k, last, false));
                        }
                    }
                }
                Kind::Mark(_) => {
                    if let Some(s) = self.choose_or_weak(k) {
                        out.push(s);
                    }
                }
                _ => {}
            }
        }
        self.drop_taken_back(&mut out, &mut negations);
        out.sort_by_key(|s| (s.first, s.last));
        out.dedup_by(|b, a| a.said == b.said && b.first <= a.last);
        (out, negations)
    }

    /// The tokens that may start a statement, in order: every mark, Latin word and other
    /// character; and, of the Hangul words, those holding a 답 (every Korean answer keyword
    /// has one) when the text has a keyword cue, and those that are the question's Korean
    /// ask word. Both are found by a substring search, so long prose costs no test per word.
    fn statement_candidates(
        &self,
        keywords: bool,
        korean_ask: Option<&str>,
        conclusion: bool,
    ) -> Vec<usize> {
        let toks = &self.toks;
        let mut candidates: Vec<usize> = toks
            .iter()
            .enumerate()
            .filter(|(_, t)| matches!(t.kind, Kind::Mark(_) | Kind::Latin | Kind::Other))
            .map(|(k, _)| k)
            .collect();
        let unsorted = candidates.len();
        let bytes = self.text.as_bytes();
        // The Hangul token holding byte `at`, if there is one.
        let hangul_at = |at: usize| {
            let k = toks.partition_point(|t| t.end as usize <= at);
            toks.get(k)
                .is_some_and(|t| t.kind == Kind::Hangul && t.start as usize <= at)
                .then_some(k)
        };
        if keywords {
            for at in finder!("답").find_iter(bytes) {
                candidates.extend(hangul_at(at));
            }
        }
        if !self.synonyms.is_empty() && self.echo_possible {
            // An echo with another phrase of the ask's polarity ends right before "것은",
            // "것이" or "것": where such a phrase ends there, it starts a candidate.
            for at in finder!("것").find_iter(bytes) {
                let Some(q) = hangul_at(at).filter(|&q| {
                    toks[q].start as usize == at
                        && matches!(
                            &self.word(q)["것".len()..],
                            "" | "은" | "는" | "이" | "으로는"
                        )
                }) else {
                    continue;
                };
                candidates.extend(self.synonyms.iter().filter_map(|p| {
                    let k = q.checked_sub(p.len())?;
                    (self.is_hangul(q - 1) && self.word(q - 1) == p[p.len() - 1]).then_some(k)
                }));
            }
        }
        // "옳은 것은 ④" on a question that asks no judgement: the word before "것은".
        // So is "이에 해당하는 것은 ②" on any question: it points back at the question.
        if (self.set.asks_nothing() && self.echo_possible)
            || finder!("에 해당하는 것").find(bytes).is_some()
        {
            for at in finder!("것").find_iter(bytes) {
                candidates.extend(
                    hangul_at(at)
                        .filter(|&q| q > 0 && toks[q].start as usize == at)
                        .map(|q| q - 1),
                );
            }
        }
        if conclusion {
            for (&head, finder) in CONCLUSION_HEADS.iter().zip(conclusion_heads()) {
                for at in finder.find_iter(bytes) {
                    candidates.extend(hangul_at(at).filter(|&k| {
                        self.word(k) == head || (head == "최종" && self.word(k) == "최종선택")
                    }));
                }
            }
        }
        if let Some(ask) = korean_ask {
            // Overlapping matches: a word equal to the ask starts at one of them.
            let finder = memchr::memmem::Finder::new(ask.as_bytes());
            let mut from = 0;
            while let Some(found) = finder.find(&bytes[from..]) {
                let at = from + found;
                if let Some(k) =
                    hangul_at(at).filter(|&k| toks[k].start as usize == at && self.word(k) == ask)
                {
                    candidates.push(k);
                }
                from = at + 1;
            }
        }
        if candidates.len() > unsorted {
            candidates.sort_unstable();
            candidates.dedup();
        }
        candidates
    }
}
