//! The verifier's rules over the tokens of a final text, in order: answer statements (with
//! negation, alternatives, self-correction), a bare label, a leading label line, O/X words,
//! a unique option text; otherwise abstain. Each rule only commits when the text leaves one
//! reading; anything else abstains so that the judge decides.

mod around;
mod bare;
mod claims;
mod conclude;
mod continuation;
mod denial;
mod echo;
mod forced;
mod frame;
mod hearsay;
mod listed;
mod lowercase;
mod mask;
mod option_text;
mod ox;
mod partial;
mod phrase;
mod place;
mod remarks;
mod restate;
mod restated;
mod retract;
mod scope;
mod self_judged;
mod singled;
mod statements;
mod stem_line;
mod trial;
mod turn;
mod unfinished;
mod value;
mod verdicts;
mod walkthrough;
mod words;
mod written_out;

use super::cues::{Cues, Family};
use super::scan::{tokenize_with_cues, Kind, Mark, Tok};
use super::{Choice, ChoiceSet, Extraction, NoAnswerReason, Notation, Rule};
use mask::grader_addressed;
use ox::ox_polarity;
use std::cell::{Cell, OnceCell};
use std::ops::Range;

/// A mark read against the choice set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolved {
    In(Choice),
    /// Written as a choice but not one of this set's ("⑤" of four, "E" of A–D, "C" on ①…).
    Outside,
}

/// What a statement says.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Said {
    One(Choice),
    Outside,
    Many(Vec<Choice>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Weak,
    Strong,
}

#[derive(Clone, Debug)]
struct Statement {
    said: Said,
    strength: Strength,
    rule: Rule,
    /// Token range the statement covers (keyword to label or label to keyword).
    first: usize,
    last: usize,
    /// Marked final: "최종 답", "Final answer", "결론적으로 정답은".
    is_final: bool,
    /// Calls an option right ("③이 맞다", "(B) is correct") rather than choosing it: on a
    /// question asking what is not so it decides only as a self-correction.
    judges: bool,
    /// A view quoted as the writer's ("①이라고 봅니다", "①이 맞다고 생각합니다"): a
    /// contrast before it does not promote it, so it decides only when no other choice is
    /// named.
    view: bool,
}

struct Ctx<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    set: &'a ChoiceSet,
    /// Tokens inside text that addresses a grader ("[SYSTEM: …]", "Ignore previous
    /// instructions …"): such text is data and states nothing. Empty when the text has no
    /// grader cue (read it through `is_masked`).
    masked: Vec<bool>,
    /// Set when an answer marker is followed by a restated option list, so that an answer
    /// with nothing else is `no_answer` with its own reason.
    restated: Cell<bool>,
    /// Set when a statement is taken back by the sentence after it ("정답은 ③입니다. 잘
    /// 모르겠습니다."): a lone label on the last line then decides nothing.
    retracted: Cell<bool>,
    /// The choices of lowercase letters after a marker that are not trusted (another choice
    /// is named, or the letter is an option's text or the stem's variable), one bit each:
    /// the answer then decides only the choice those letters name, if the other rules come
    /// to it alone, rather than letting another mention decide against them (trial 51; see
    /// `lowercase::weigh_distrusted`).
    lowercase_distrusted: Cell<u32>,
    /// Set when a Chinese or Japanese doubt takes a statement back: the answer then decides
    /// nothing, since what is left may be a spare answer ("答案：C（不太确定）\n备用答案：B";
    /// trial 55).
    cjk_doubted: Cell<bool>,
    /// The question's ask phrase, word by word ("적절하지", "않은").
    ask: Vec<&'a str>,
    /// Does the ask ask for what is not so (see `echo::asks_negative`)?
    asks_negative: bool,
    /// Phrases of the ask's polarity that echo it as well ("틀린" for "옳지 않은"; see
    /// `words::truth_synonyms`), each word by word.
    synonyms: &'static [&'static [&'static str]],
    /// Does the text contain the ask phrase's first word (or, with synonyms, a 것), so that
    /// it may echo it?
    echo_possible: bool,
    /// Which cue families the text has (one automaton pass), so absent rules are skipped.
    cues: Cues,
    /// The statements and negated labels, read once and shared by the strong and weak
    /// passes.
    statements: OnceCell<Statements>,
    /// The set's option texts squashed for matching (see `option_text::squash`), each once
    /// per answer when a rule first compares against them, and the longest one's length.
    squashed: OnceCell<(Vec<String>, usize)>,
    /// Rare marks looked for once per answer when a statement needs them (see `around.rs`).
    marks: OnceCell<around::Marks>,
}

impl Statement {
    /// A strong statement of `said` over tokens `first..=last`.
    fn strong(said: Said, rule: Rule, first: usize, last: usize, is_final: bool) -> Statement {
        Statement {
            said,
            strength: Strength::Strong,
            rule,
            first,
            last,
            is_final,
            judges: false,
            view: false,
        }
    }
}

/// Every statement of a text, in order, and the labels it negates (with their tokens).
type Statements = (Vec<Statement>, Vec<(Choice, usize)>);

/// An answer, then this question (or one that may be it) written out again and answered
/// again from byte `at`: two attempts that choose differently are a conflict (a base model
/// repeating its few-shot prompt does this). `None` when they agree, or when the second
/// decides nothing or the first names no label, so the whole text is read as usual.
fn two_attempts(text: &str, at: usize, set: &ChoiceSet, toks: &[Tok]) -> Option<Extraction> {
    // Each attempt read as it stands: the second is this question written out again, not
    // another question to blank out.
    let first = decide_with(&text[..at], set, false);
    let second = decide_with(&text[at..], set, false).choice()?;
    // A first attempt that names labels and settles on none ("③\n\n### 4번") does not agree
    // with the second either; one that names none leaves the second to decide.
    let mut candidates = match first {
        Extraction::Answer { choice, .. } if choice != second => vec![choice, second],
        Extraction::Answer { .. } => return None,
        Extraction::Ambiguous { mut candidates, .. } => {
            candidates.push(second);
            candidates
        }
        // Labels inside lines with no answer among them ("② 아니면 ③인데"), or a line that is
        // only a label ("①을 고르지 마세요.\n①"): no agreement either. Labels opening lines
        // with text are an option list restated before the question.
        _ if labels_inside_lines(toks, 0..at)
            || continuation::has_a_label_line(&text[..at], set) =>
        {
            vec![second]
        }
        _ => return None,
    };
    candidates.sort();
    candidates.dedup();
    Some(Extraction::Ambiguous {
        candidates,
        rule: Rule::ConflictingStatements,
        span: 0..text.trim_end().len(),
    })
}

/// Is a label written inside a line (not opening it, as an option's does) among the tokens
/// over `bytes`? A made-up question cut off before its answer is blanked out only when it
/// has none: "②\n\n5. 사실 확신이 없습니다. ②와 ③ 중 하나입니다" is about this question.
fn labels_inside_lines(toks: &[Tok], bytes: Range<usize>) -> bool {
    // Whether the line so far has a token other than punctuation, in one pass.
    let mut words_before = false;
    for t in toks {
        if t.kind == Kind::Break {
            words_before = false;
            continue;
        }
        if words_before && t.mark().is_some() && bytes.contains(&(t.start as usize)) {
            return true;
        }
        words_before |= !matches!(t.kind, Kind::Punct(_));
    }
    false
}

/// Decide on the final text `text` (spans relative to it).
pub(crate) fn decide(text: &str, set: &ChoiceSet) -> Extraction {
    decide_with(text, set, true)
}

/// `decide`, looking for questions written out in the text (see `continuation.rs`) when
/// `blocks`.
fn decide_with(text: &str, set: &ChoiceSet, blocks: bool) -> Extraction {
    let (toks, cues) = tokenize_with_cues(text);
    // Another question the answer goes on to write (its stem, options and answer) is blanked
    // out, bytes for spaces so that spans stay where they are, and the rest read again: what
    // comes after it (a correction, "최종 정답: ③") is still this question's.
    if blocks && (cues.has(Family::Stem) || continuation::opens_with_a_lone_label(text)) {
        if let Some(e) =
            continuation::block(text, set).and_then(|b| read_around(text, set, &toks, b))
        {
            return e;
        }
    }
    let e = read(text, set, toks, cues);
    // An answer right under an option list that is not this question's, with no stem the
    // cue found ("다음 중 옳은 것\n①. 가\n②. 나\n③. 다\n④. 라\n정답: ④"): that list's answer.
    if blocks {
        // On an answer, its line; on conflicting statements, the last one's line ("정답: ①\n\n
        // 관련 기출\n① …\n정답: ②").
        let at = match &e {
            Extraction::Answer { span, .. } => Some(span.start),
            Extraction::Ambiguous {
                span,
                rule: Rule::ConflictingStatements,
                ..
            } => Some(span.end.saturating_sub(1)),
            _ => None,
        };
        if let Some(at) = at {
            if let Some(block) = listed::listed_block(text, set, at, |before| {
                !matches!(decide_with(before, set, false), Extraction::NoAnswer { .. })
                    || labels_inside_lines(&tokenize_with_cues(before).0, 0..before.len())
            }) {
                let toks = tokenize_with_cues(text).0;
                if let Some(blocked) = read_around(text, set, &toks, block) {
                    return blocked;
                }
            }
        }
    }
    e
}

/// What a text says around a question written out in it (see `continuation.rs`): read with
/// another question blanked out, or as two attempts. `None` when the block changes nothing.
fn read_around(
    text: &str,
    set: &ChoiceSet,
    toks: &[Tok],
    block: continuation::Block,
) -> Option<Extraction> {
    match block {
        continuation::Block::Another {
            start,
            end,
            cut_off,
        } if !(cut_off && labels_inside_lines(toks, start..end)) => {
            let mut blanked = String::with_capacity(text.len());
            blanked.push_str(&text[..start]);
            blanked.extend(std::iter::repeat_n(' ', end - start));
            blanked.push_str(&text[end..]);
            Some(match decide(&blanked, set) {
                Extraction::NoAnswer {
                    reason: NoAnswerReason::Empty | NoAnswerReason::NotFound,
                } => Extraction::NoAnswer {
                    reason: NoAnswerReason::OtherQuestion,
                },
                Extraction::Invalid { span, rule, .. } => Extraction::Invalid {
                    text: text[span.clone()].to_string(),
                    rule,
                    span,
                },
                e => e,
            })
        }
        continuation::Block::Again(at) => two_attempts(text, at, set, toks),
        _ => None,
    }
}

/// The rules, in order, on a final text with its tokens.
fn read(text: &str, set: &ChoiceSet, toks: Vec<Tok>, cues: Cues) -> Extraction {
    if toks
        .iter()
        .all(|t| matches!(t.kind, Kind::Punct(_) | Kind::Break))
    {
        return Extraction::NoAnswer {
            reason: NoAnswerReason::Empty,
        };
    }
    let masked = if cues.has(Family::Grader) {
        grader_addressed(text, &toks)
    } else {
        Vec::new()
    };
    let ask: Vec<&str> = set
        .ask()
        .map_or(Vec::new(), |a| a.split_whitespace().collect());
    // English asks are matched in any case, so only Korean ones can be ruled out cheaply.
    let synonyms = words::truth_synonyms(&ask);
    let asks_negative = echo::asks_negative(&ask);
    let echo_possible = ask.first().is_some_and(|w| {
        w.is_ascii() || memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some()
    }) || ((!synonyms.is_empty() || set.asks_nothing())
        && finder!("것").find(text.as_bytes()).is_some());
    let ctx = Ctx {
        text,
        toks,
        set,
        masked,
        restated: Cell::new(false),
        retracted: Cell::new(false),
        lowercase_distrusted: Cell::new(0),
        cjk_doubted: Cell::new(false),
        ask,
        asks_negative,
        synonyms,
        echo_possible,
        cues,
        statements: OnceCell::new(),
        squashed: OnceCell::new(),
        marks: OnceCell::new(),
    };
    // A decided answer that something else in the text contradicts: a verdict list marking
    // another option, its JSON text another option's, a forced pick of another after it, an
    // amount computed just before it that is another option's, a lone label opening the text.
    let e = contradicted(ctx.rules(cues), |c, rule, span| {
        ctx.verdict_list_against(c, rule, span)
            .or_else(|| {
                let o = ctx.json_text_against(c)?;
                Some((o, Rule::LabelTextMismatch, span.clone()))
            })
            .or_else(|| {
                let o = ctx.forced_pick_against(c, span)?;
                Some((o, Rule::ConflictingStatements, span.clone()))
            })
            .or_else(|| {
                let o = ctx.amount_before_against(c, span)?;
                Some((o, Rule::LabelTextMismatch, span.clone()))
            })
            .or_else(|| {
                let o = ctx.leading_label_against(c, span)?;
                Some((o, Rule::ConflictingStatements, span.clone()))
            })
    });
    match lowercase::weigh_distrusted(ctx.lowercase_distrusted.get(), e) {
        Extraction::Answer { .. } if ctx.cjk_doubted.get() => Extraction::NoAnswer {
            reason: NoAnswerReason::NotFound,
        },
        e => e,
    }
}

impl Ctx<'_> {
    /// The rules, in order, after the context is built.
    fn rules(&self, cues: Cues) -> Extraction {
        let set = self.set;
        if let Some(e) = self.decide_by_statements(Strength::Strong) {
            return e;
        }
        if let Some(e) = self.bare().or_else(|| self.bare_place()) {
            return e;
        }
        if let Some(e) = self.decide_by_statements(Strength::Weak) {
            return e;
        }
        if set.notation() != Notation::Ox && cues.has(Family::Singling) {
            if let Some(e) = self.singled_out() {
                return e;
            }
        }
        if let Some(e) = self.verdict_list() {
            return e;
        }
        // "맞는지 틀린지 모르겠습니다": words of both kinds around a refusal decide nothing.
        if set.notation() == Notation::Ox && !cues.has(Family::Refusal) {
            if let Some(e) = self.ox_words() {
                return e;
            }
        }
        if let Some(e) = self.unique_option_text() {
            return e;
        }
        let reason = if self.restated.get() {
            NoAnswerReason::RestatedOptions
        } else if cues.has(Family::Refusal) {
            NoAnswerReason::Refusal
        } else {
            NoAnswerReason::NotFound
        };
        Extraction::NoAnswer { reason }
    }
}

/// `e` made ambiguous when it is an answer that `check` finds another choice contradicting
/// (the choice, the rule and the span of the conflict); anything else as it is.
fn contradicted(
    e: Extraction,
    check: impl FnOnce(Choice, Rule, &Range<usize>) -> Option<(Choice, Rule, Range<usize>)>,
) -> Extraction {
    let Extraction::Answer {
        choice,
        rule,
        ref span,
    } = e
    else {
        return e;
    };
    match check(choice, rule, span) {
        Some((other, rule, span)) => Extraction::Ambiguous {
            candidates: vec![choice, other],
            rule,
            span,
        },
        None => e,
    }
}

impl Ctx<'_> {
    fn tok(&self, k: usize) -> Option<&Tok> {
        self.toks.get(k)
    }

    /// Is token `k` inside text addressed to a grader?
    fn is_masked(&self, k: usize) -> bool {
        self.masked.get(k).copied().unwrap_or(false)
    }

    fn word(&self, k: usize) -> &str {
        self.toks[k].text(self.text)
    }

    /// The text of the token after `k` when it is a Hangul word, else "".
    fn next_word(&self, k: usize) -> &str {
        if self.is_hangul(k + 1) {
            self.word(k + 1)
        } else {
            ""
        }
    }

    fn is_hangul(&self, k: usize) -> bool {
        self.tok(k).is_some_and(|t| t.kind == Kind::Hangul)
    }

    fn is_latin(&self, k: usize) -> bool {
        self.tok(k).is_some_and(|t| t.kind == Kind::Latin)
    }

    fn resolve(&self, mark: Mark) -> Resolved {
        let set = self.set;
        let position = match (mark, set.notation()) {
            (Mark::Ox(o), Notation::Ox) => Some(if o { 1 } else { 2 }),
            (
                Mark::Circled(n) | Mark::Num(n) | Mark::Ordinal(n),
                Notation::Circled | Notation::Number,
            ) => Some(n as usize),
            (Mark::Letter(n) | Mark::Ordinal(n), Notation::Letter) => Some(n as usize),
            _ => None,
        };
        match position.and_then(|p| set.at_position(p)) {
            Some(c) => Resolved::In(c),
            None => Resolved::Outside,
        }
    }

    /// The mark at token `k` as this set reads it: on lettered sets long enough to have O
    /// and X as labels (MMLU-Pro variants), a written O/X is that letter, not ○/×.
    fn mark_at(&self, k: usize) -> Option<Mark> {
        let t = self.tok(k)?;
        let m = t.mark()?;
        if let Mark::Ox(o) = m {
            if self.set.notation() == Notation::Letter {
                let letter = if o { b'O' } else { b'X' };
                let written = t.text(self.text).trim_matches(['(', ')']);
                if written.as_bytes() == [letter] {
                    return Some(Mark::Letter(letter - b'A' + 1));
                }
            }
        }
        Some(m)
    }

    /// Is token `k` a written label? ○/× marks are option text, not labels, on items whose
    /// options are numbered or circled ("(1) ○×○○" in KMMLU). Letters past J are labels
    /// only on lettered sets: elsewhere a lone "K" or "T" is an abbreviation, not a claim.
    fn is_label_mark(&self, k: usize) -> bool {
        match self.mark_at(k) {
            Some(Mark::Ox(_)) => self.set.notation() == Notation::Ox,
            Some(Mark::Letter(n)) if n > 10 => self.set.notation() == Notation::Letter,
            Some(_) => true,
            None => false,
        }
    }

    /// A label at token `k`: a mark, or on O/X items an O/X word.
    fn label_at(&self, k: usize) -> Option<Resolved> {
        if let Some(m) = self.mark_at(k) {
            if !self.is_label_mark(k) {
                return None;
            }
            // O/X marks on other items and letters on digit items are usually not labels at
            // all ("O2", "A사"); only treat them as out-of-set labels where a label must be.
            return Some(self.resolve(m));
        }
        if self.set.notation() == Notation::Ox {
            if let Some(o) = ox_polarity(&self.toks, k, self.text) {
                return Some(Resolved::In(Choice::from_index(usize::from(!o))?));
            }
        }
        None
    }

    /// A label at `k` that names one of this set's choices.
    fn choice_at(&self, k: usize) -> Option<Choice> {
        match self.label_at(k)? {
            Resolved::In(c) => Some(c),
            Resolved::Outside => None,
        }
    }

    /// The first token that starts at byte `at` or after it (the token count past the end).
    fn token_from(&self, at: usize) -> usize {
        self.toks.partition_point(|t| (t.start as usize) < at)
    }

    fn span(&self, first: usize, last: usize) -> Range<usize> {
        self.toks[first].start as usize..self.toks[last].end as usize
    }

    /// The tokens of the sentence around token `j`, without its end.
    fn sentence_around(&self, j: usize) -> Range<usize> {
        let start = (0..j)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end())
            .map_or(0, |x| x + 1);
        let end = (j..self.toks.len())
            .find(|&x| self.toks[x].is_sentence_end())
            .unwrap_or(self.toks.len());
        start..end
    }
}

fn said_of(labels: &[Resolved]) -> Said {
    let mut choices: Vec<Choice> = Vec::new();
    let mut outside = false;
    for l in labels {
        match l {
            Resolved::In(c) => {
                if !choices.contains(c) {
                    choices.push(*c)
                }
            }
            Resolved::Outside => outside = true,
        }
    }
    match (choices.as_slice(), outside) {
        ([c], false) => Said::One(*c),
        ([], _) => Said::Outside,
        _ => Said::Many(choices),
    }
}
