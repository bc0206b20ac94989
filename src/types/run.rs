//! What a grading run records about itself in `run.json`: the join's findings (items,
//! answers, unknown ids, missing items, unreadable lines), the judge stage's summary, and the
//! reading options, so that `kgrade judge DIR` can read the same inputs again.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

/// What the join found, written to `run.json` and shown in reports.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct JoinReport {
    pub dataset: String,
    /// The dataset's content hash (blake3 of its bytes; see
    /// `inputs::dataset::content_hash`): `compare` tells datasets apart by it, not by path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_blake3: Option<String>,
    pub generations: String,
    /// The generations' content hash (see `inputs::generations::content_hash`), taken as
    /// the run was graded: `kgrade judge DIR` refuses a file changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generations_blake3: Option<String>,
    /// The dataset has no id column: its ids are row numbers from 0, so an unknown id means
    /// the rows and the generations do not line up (numbered from 1, a row lost or merged).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub row_number_ids: bool,
    /// The dataset's ids when they are the whole numbers `lo..=hi`, each once (row numbers,
    /// or an id column counting rows): answers numbered one off from them are seen.
    #[serde(skip)]
    pub id_range: Option<(i64, i64)>,
    /// The generations were OpenCompass predictions, keyed by row number.
    #[serde(skip)]
    pub opencompass: bool,
    /// With row numbers for ids, a column whose values count the rows from 1 (`번호`): the
    /// id column answers numbered from 1 were likely keyed by.
    #[serde(skip)]
    pub counting_column: Option<String>,
    /// Answers whose prompt shows the item's options in another order than the dataset's
    /// (matched by their texts): graded in the order shown. The first one as `FILE:LINE`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prompts_reordered: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_reordered_first: Option<String>,
    /// The model the generations name, when they all name one (`model` on kgrade's lines,
    /// in saved replies and batch output); absent when none names one or they name several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Every model the generations name, in the order first seen (up to 20), when they name
    /// more than one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    pub items: usize,
    pub answers: u64,
    /// Generations whose id is not in the dataset (count, and the first ids).
    pub unknown_ids: u64,
    pub unknown_ids_listed: Vec<String>,
    /// Dataset items with no generation at all.
    pub items_without_generations: Vec<String>,
    /// Lines naming a sample (and ordering) their item already had: the same answer given
    /// twice, or a retry beside its failure. Both are graded; the count and the first lines
    /// (`FILE:LINE`) say so.
    #[serde(default)]
    pub repeated_samples: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeated_samples_listed: Vec<String>,
    /// Answers that name no sample and repeat an earlier answer to their item word for word
    /// (40 bytes or more): a file appended to itself is the likely cause. Both are graded.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repeated_answers: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeated_answers_first: Option<String>,
    /// Ids on more than one dataset row (the first row was used).
    pub duplicate_dataset_ids: Vec<String>,
    /// Generation lines that could not be read (`FILE:LINE: …`).
    pub unreadable_lines: u64,
    pub unreadable_listed: Vec<String>,
    /// The judge stage's state ("not configured" until a judge is given): what it judged.
    pub judge: String,
    /// The calls the judge stage made: verdicts read from the cache, requests and retries.
    /// In `run.json` only, not in the reports: a rerun from the cache reports as the run
    /// that paid for the verdicts.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub judge_calls: String,
    /// How the inputs were read, so that `kgrade judge` can read them again.
    #[serde(default)]
    pub inputs: RunInputs,
    /// Other `.jsonl` files in an lm-eval output folder, which were not read (up to 200).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_not_read: Vec<String>,
    /// Tasks of an lm-eval output folder, in reading order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<String>,
    /// The dataset items behind each of those tasks (lm-eval's `n-samples.original`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub task_items: BTreeMap<String, u64>,
    /// lm-eval's own scores in the samples files: task → `metric,filter` → mean over the
    /// documents read, to compare with kgrade's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lm_eval: BTreeMap<String, BTreeMap<String, f64>>,
    /// Answers whose request failed (no answer to read; counted apart from model mistakes).
    #[serde(default)]
    pub request_errors: u64,
    /// Joined answers whose line carries its own question (lm-eval's `doc`, a prompt), and
    /// how many of those questions do not begin like their dataset row's: generations
    /// joined to the wrong dataset by id alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub questions_compared: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub questions_differing: u64,
    /// The first such answer: `FILE:LINE: id …: "its question…" vs the dataset's "…"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_differs_first: Option<String>,
    /// The same counts per task of a run of several (compared, differing, the first such
    /// answer), so that one task joined to another's dataset is seen when the other tasks
    /// match (not written).
    #[serde(skip)]
    pub task_questions: BTreeMap<String, (u64, u64, Option<String>)>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The reading options of a run (column map, choice set, generations shape).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunInputs {
    pub id_col: Option<String>,
    pub question_col: Option<String>,
    pub answer_col: Option<String>,
    pub choices: Option<String>,
    pub generations_format: Option<String>,
    /// `--id-pattern`, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_pattern: Option<String>,
}

/// Write a run's `run.json` to `path`.
pub fn write_run(path: &Path, join: &JoinReport) -> io::Result<()> {
    let f = std::fs::File::create(path)?;
    serde_json::to_writer_pretty(io::BufWriter::new(f), join).map_err(io::Error::other)
}

/// Read `run.json` if a grading run left one in `dir`.
pub fn read_run(dir: &Path) -> Option<JoinReport> {
    let text = std::fs::read_to_string(dir.join("run.json")).ok()?;
    serde_json::from_str(&text).ok()
}
