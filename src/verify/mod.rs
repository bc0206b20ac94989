//! The Korean multiple-choice verifier: a pure, deterministic function from a model's free-form
//! answer and the question's choice set to an [`Extraction`]. It commits to one choice only
//! when the text states it (an answer statement, a bare label, an ordinal, a unique option
//! text); otherwise it abstains as ambiguous or no-answer, and a judge decides. It never falls
//! back to "the first digit in the text". No I/O happens here.
//!
//! ```
//! use kgrade::verify::{verify, ChoiceSet, Extraction};
//! let set: ChoiceSet = "circled:5".parse().unwrap();
//! match verify("<think>②일까?</think>정답은 ③번입니다.", &set) {
//!     Extraction::Answer { choice, rule, .. } => {
//!         assert_eq!(set.label(choice), "③");
//!         assert_eq!(rule.name(), "statement");
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```

/// A substring finder for a fixed needle, built once per process: `memmem::find` builds
/// its searcher on every call, which cost 2% of verifying long prose (once per answer and
/// needle).
macro_rules! finder {
    ($needle:expr) => {{
        static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new($needle));
        &*FINDER
    }};
}

mod ask;
mod chars;
mod choice;
mod cues;
mod english_ask;
mod final_text;
mod options;
mod ordinal;
mod particles;
mod rules;
mod scan;

pub use choice::{label_in, Choice, ChoiceSet, ChoiceSetError, Notation, MAX_CHOICES};

use std::ops::Range;

/// The rule that decided (or abstained on) an answer. Names are stable: they appear in
/// verdict files and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// An explicit answer statement: "정답은 ③", "Answer: (C)", "③번을 선택합니다".
    Statement,
    /// A later statement that follows a self-correction or is marked final ("다시 보니 ④").
    CorrectedStatement,
    /// `\boxed{…}`.
    Boxed,
    /// A weaker claim: "③이 맞습니다", "②로 보입니다", "(B) is correct".
    WeakStatement,
    /// The question's ask phrase echoed as a statement: "적절하지 않은 것은 ③" for a
    /// question asking "…적절하지 않은 것은?".
    AskEcho,
    /// One option singled out against all the others, and no other option named:
    /// "③번이 유일하게 부합하는 선택지입니다", "②가 적절합니다. 다른 선택지들은 …".
    SingledOut,
    /// The whole final text is one label, optionally with its option text.
    Bare,
    /// The first line is one label and nothing after it names another choice.
    LeadingBare,
    /// The last line is a lone label after prose, and no other line starts with a label.
    LastLine,
    /// The answer names one option's text and no other.
    OptionText,
    /// O/X items: 옳다/맞다 → ○, 틀리다/옳지 않다 → ×.
    OxWord,
    /// Statements name different choices and none is final.
    ConflictingStatements,
    /// One statement names several choices: "① 또는 ②", "①, ④ 둘 다", "2번(③)".
    Alternatives,
    /// A label written with a different option's text: "② 기획재정부" when ② is 금융위원회.
    LabelTextMismatch,
    /// Several option texts are named and no label.
    MultipleOptionTexts,
    /// O/X words of both kinds with no final one.
    OxWordConflict,
    /// A list of every option, one marked ✔ and the others ✘.
    VerdictList,
    /// An end-of-turn token leaked mid-answer, and the text up to it and the text read
    /// through it state different answers.
    LeakedTurn,
}

impl Rule {
    /// The stable name used in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Statement => "statement",
            Rule::CorrectedStatement => "corrected_statement",
            Rule::Boxed => "boxed",
            Rule::WeakStatement => "weak_statement",
            Rule::AskEcho => "ask_echo",
            Rule::SingledOut => "singled_out",
            Rule::Bare => "bare",
            Rule::LeadingBare => "leading_bare",
            Rule::LastLine => "last_line",
            Rule::OptionText => "option_text",
            Rule::OxWord => "ox_word",
            Rule::ConflictingStatements => "conflicting_statements",
            Rule::Alternatives => "alternatives",
            Rule::LabelTextMismatch => "label_text_mismatch",
            Rule::MultipleOptionTexts => "multiple_option_texts",
            Rule::OxWordConflict => "ox_word_conflict",
            Rule::VerdictList => "verdict_list",
            Rule::LeakedTurn => "leaked_turn",
        }
    }
}

/// Why no answer could be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoAnswerReason {
    /// Nothing but whitespace or markup.
    Empty,
    /// Reasoning (`<think>`, gpt-oss analysis channel) that never reached a final answer.
    TruncatedReasoning,
    /// The model declined or said it cannot tell.
    Refusal,
    /// Text, but no statement of a choice.
    NotFound,
    /// An answer marker followed by a copy of the option list ("정답:\n(1) …\n(2) …"),
    /// and nothing that singles one option out.
    RestatedOptions,
    /// Only the answer to another question the text goes on to write (a few-shot
    /// continuation: "\n\n문제: 다음 중 …?\n① …\n정답: ③"), nothing for this one.
    OtherQuestion,
}

impl NoAnswerReason {
    /// The stable name used in outputs.
    pub fn name(self) -> &'static str {
        match self {
            NoAnswerReason::Empty => "empty",
            NoAnswerReason::TruncatedReasoning => "truncated_reasoning",
            NoAnswerReason::Refusal => "refusal",
            NoAnswerReason::NotFound => "not_found",
            NoAnswerReason::RestatedOptions => "restated_options",
            NoAnswerReason::OtherQuestion => "other_question",
        }
    }
}

/// The verifier's decision on one answer. Spans are byte ranges in the original response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extraction {
    /// The answer commits to exactly one choice.
    Answer {
        choice: Choice,
        rule: Rule,
        span: Range<usize>,
    },
    /// The answer names several choices with no final one.
    Ambiguous {
        candidates: Vec<Choice>,
        rule: Rule,
        span: Range<usize>,
    },
    /// No choice is stated.
    NoAnswer { reason: NoAnswerReason },
    /// The answer states a choice the set does not have ("⑤" on a four-option item).
    Invalid {
        text: String,
        rule: Rule,
        span: Range<usize>,
    },
}

impl Extraction {
    /// `answer`, `ambiguous`, `no_answer` or `invalid`.
    pub fn status(&self) -> &'static str {
        match self {
            Extraction::Answer { .. } => "answer",
            Extraction::Ambiguous { .. } => "ambiguous",
            Extraction::NoAnswer { .. } => "no_answer",
            Extraction::Invalid { .. } => "invalid",
        }
    }

    /// The committed choice, if any.
    pub fn choice(&self) -> Option<Choice> {
        match self {
            Extraction::Answer { choice, .. } => Some(*choice),
            _ => None,
        }
    }

    /// The stable rule name; for `no_answer`, the reason.
    pub fn rule_name(&self) -> &'static str {
        match self {
            Extraction::Answer { rule, .. }
            | Extraction::Ambiguous { rule, .. }
            | Extraction::Invalid { rule, .. } => rule.name(),
            Extraction::NoAnswer { reason } => reason.name(),
        }
    }

    /// The byte range of the deciding text in the response, if there is one.
    pub fn span(&self) -> Option<Range<usize>> {
        match self {
            Extraction::Answer { span, .. }
            | Extraction::Ambiguous { span, .. }
            | Extraction::Invalid { span, .. } => Some(span.clone()),
            Extraction::NoAnswer { .. } => None,
        }
    }
}

/// Read the answer `response` gives to a question with choices `set`.
///
/// Deterministic and total: any UTF-8 input yields an extraction, never a panic.
pub fn verify(response: &str, set: &ChoiceSet) -> Extraction {
    let question = set.question().unwrap_or("");
    let (start, end, leaks) = match final_text::cut(response, question) {
        final_text::Cut::Final { start, end, leaks } => (start, end, leaks),
        final_text::Cut::Transcript => {
            return Extraction::NoAnswer {
                reason: NoAnswerReason::NotFound,
            }
        }
        final_text::Cut::Truncated => {
            return Extraction::NoAnswer {
                reason: NoAnswerReason::TruncatedReasoning,
            }
        }
    };
    let extraction = decide_in(response, start..end, set);
    weigh_leaks(response, start, &leaks, extraction, set)
}

/// The rules on `response[range]`, with spans in `response`.
fn decide_in(response: &str, range: Range<usize>, set: &ChoiceSet) -> Extraction {
    let mut extraction = rules::decide(&response[range.clone()], set);
    match &mut extraction {
        Extraction::Answer { span, .. }
        | Extraction::Ambiguous { span, .. }
        | Extraction::Invalid { span, .. } => {
            *span = span.start + range.start..span.end + range.start;
        }
        Extraction::NoAnswer { .. } => {}
    }
    extraction
}

/// End-of-turn tokens leaked with text after them, where no template shows the turn ended:
/// the answer may end at any of them (a server honouring its stop tokens sends nothing
/// after it) or go on (the turn it invented corrects the answer). The answer read through
/// them stands only when the text before each states nothing, or the same choice; where
/// the text before one states another choice, refuses or cannot decide, the readings
/// disagree and the answer is `leaked_turn`, never a guess between them (trial 47:
/// "정답은 ①입니다.<|endoftext|>이 문제를 다시 보면 정답은 ③입니다." is ① to a server that
/// stops there and ③ to one that does not; trial 48: every token is weighed, not only the
/// first, and a refusal before one is not "nothing").
fn weigh_leaks(
    response: &str,
    start: usize,
    leaks: &[Range<usize>],
    extraction: Extraction,
    set: &ChoiceSet,
) -> Extraction {
    let Some(chosen) = extraction.choice() else {
        return extraction;
    };
    for token in leaks {
        let before = decide_in(response, start..token.start, set);
        let agrees = match &before {
            Extraction::Answer { choice, .. } => *choice == chosen,
            Extraction::NoAnswer { reason } => {
                matches!(reason, NoAnswerReason::Empty | NoAnswerReason::NotFound)
            }
            Extraction::Ambiguous { .. } | Extraction::Invalid { .. } => false,
        };
        if !agrees {
            let mut candidates: Vec<Choice> = [Some(chosen), before.choice()]
                .into_iter()
                .flatten()
                .collect();
            candidates.sort_by_key(|c| c.index());
            candidates.dedup();
            return Extraction::Ambiguous {
                candidates,
                rule: Rule::LeakedTurn,
                span: token.clone(),
            };
        }
    }
    extraction
}
