//! The verdict: the final decision on one answer, as written to `verdicts.jsonl` and read by
//! every report. Which stage decided it is a [`Source`]; a judge's part is a [`JudgeInfo`].
//! Data only: no stage logic lives here.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Who decided a verdict.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord,
)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A verifier rule (named in `rule`).
    Verifier,
    /// A judge model's verdict, asked for in this run or read back from the cache (whether it
    /// was is `judge.cached`, a fact about the run): a rerun from the cache grades and reports
    /// exactly as the run that paid for the verdicts. `cache` is how runs before this wrote it.
    #[serde(alias = "cache")]
    Judge,
    /// Nobody: the verifier abstained and no judge decided.
    #[default]
    Unresolved,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Verifier => "verifier",
            Source::Judge => "judge",
            Source::Unresolved => "unresolved",
        }
    }
}

/// One line of `verdicts.jsonl`: the final decision on one answer.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    pub id: String,
    /// 0-based sample number of this answer among the item's answers.
    pub sample: u32,
    /// The verifier's outcome: `answer`, `ambiguous`, `no_answer`, `invalid`; or
    /// `request_error` (the request failed: no answer to read, counted apart from model
    /// mistakes) or `loglikelihood` (scored from option log-likelihoods, as lm-eval does).
    pub status: String,
    /// The verifier rule (or no-answer reason) behind `status`.
    pub rule: String,
    /// Byte range of the deciding text in the response.
    pub span: Option<[usize; 2]>,
    /// The chosen label in the notation the model saw, or null when unresolved.
    pub chosen: Option<String>,
    /// The gold label in the notation the model saw.
    pub gold: String,
    /// 1-based positions of `chosen` and `gold`, whatever the notation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen_index: Option<usize>,
    #[serde(default)]
    pub gold_index: usize,
    pub correct: bool,
    pub source: Source,
    /// The item's choice set (`circled:4`, `ox`, …).
    pub choices: String,
    /// Grouping fields copied from the dataset row.
    pub fields: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<String>>,
    /// For abstentions: the end of the answer, for a human to look at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// 1-based line of the answer in the generations file.
    #[serde(default)]
    pub line: u64,
    /// What the judge said, when the answer was escalated or audited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeInfo>,
    /// For loglikelihood items: the choice and its correctness under lm-eval's `acc_norm`
    /// (log-likelihood divided by the option text's length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acc_norm: Option<NormChoice>,
    /// The option order the item was shown in (circular evaluation): entry `k` is the
    /// 0-based original option shown at position `k`. `chosen`, `gold` and `choices` are in
    /// that order. Absent when the item was shown as the dataset has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordering: Option<Vec<u8>>,
    /// The sample (draw) the generation line named (`#s=K` in a batch `custom_id`, a plain
    /// line's `sample`), which `sample` above is not: that one counts the item's answers in
    /// file order. Circular metrics group each draw's orderings by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<u32>,
}

/// The `acc_norm` reading of a loglikelihood item.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NormChoice {
    pub chosen: String,
    pub correct: bool,
}

/// The judge's part in a verdict.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JudgeInfo {
    /// The judge spec (`ollama:MODEL`, `openai:URL#MODEL`); never a key.
    pub judge: String,
    /// `RUBRIC@VERSION`.
    pub rubric: String,
    /// The option the judge read, or null (no single final choice, or a failure).
    pub choice: Option<String>,
    pub reason: Option<String>,
    /// Why the judge could not decide (after every retry), if it could not.
    pub error: Option<String>,
    /// Read from the cache rather than asked.
    pub cached: bool,
    /// Judged as part of the audit sample of verifier-decided answers.
    pub audit: bool,
    /// The judge's reason names a different option than its choice (small judges often
    /// reply `{"reason": "…③…", "choice": "①"}`): the verdict stands, flagged for a person.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reason_conflict: bool,
}

/// The note on answers no stage decided.
pub const NOT_JUDGED: &str = "not judged (no judge configured)";

const TAIL_CHARS: usize = 160;

/// The last 160 characters of an answer, kept on undecided verdicts for a person to read.
pub fn tail(s: &str) -> String {
    let start = s
        .char_indices()
        .rev()
        .nth(TAIL_CHARS - 1)
        .map_or(0, |(i, _)| i);
    s[start..].to_string()
}
