//! `grade`: join a dataset with a stream of generations, verify every answer, and write one
//! verdict line per answer to `verdicts.jsonl`, plus `run.json` with what the join found.
//! Answers the verifier abstains on are recorded as unresolved, "not judged (no judge
//! configured)". Memory holds the dataset and per-item counters, never the answers.

use crate::dataset::Dataset;
use crate::generations::{GenerationError, GenerationReader};
use crate::verify::{verify, Extraction};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::path::Path;

/// Who decided a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A verifier rule (named in `rule`).
    Verifier,
    /// A judge model's verdict.
    Judge,
    /// A judge verdict read back from the cache.
    Cache,
    /// Nobody: the verifier abstained and no judge decided.
    Unresolved,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Verifier => "verifier",
            Source::Judge => "judge",
            Source::Cache => "cache",
            Source::Unresolved => "unresolved",
        }
    }
}

/// One line of `verdicts.jsonl`: the final decision on one answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    pub id: String,
    /// 0-based sample number of this answer among the item's answers.
    pub sample: u32,
    /// The verifier's outcome: `answer`, `ambiguous`, `no_answer`, `invalid`.
    pub status: String,
    /// The verifier rule (or no-answer reason) behind `status`.
    pub rule: String,
    /// Byte range of the deciding text in the response.
    pub span: Option<[usize; 2]>,
    /// The chosen label in the item's notation, or null when unresolved.
    pub chosen: Option<String>,
    pub gold: String,
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
}

/// The note on answers no stage decided.
pub const NOT_JUDGED: &str = "not judged (no judge configured)";

/// What the join found, written to `run.json` and shown in reports.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct JoinReport {
    pub dataset: String,
    pub generations: String,
    pub items: usize,
    pub answers: u64,
    /// Generations whose id is not in the dataset (count, and the first ids).
    pub unknown_ids: u64,
    pub unknown_ids_listed: Vec<String>,
    /// Dataset items with no generation at all.
    pub items_without_generations: Vec<String>,
    /// Ids on more than one dataset row (the first row was used).
    pub duplicate_dataset_ids: Vec<String>,
    /// Generation lines that could not be read (`FILE:LINE: …`).
    pub unreadable_lines: u64,
    pub unreadable_listed: Vec<String>,
    /// The judge stage's state ("not configured" until a judge is given).
    pub judge: String,
    /// How the inputs were read, so that `kgrade judge` can read them again.
    #[serde(default)]
    pub inputs: RunInputs,
}

/// The reading options of a run (column map, choice set, generations shape).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunInputs {
    pub id_col: Option<String>,
    pub question_col: Option<String>,
    pub answer_col: Option<String>,
    pub choices: Option<String>,
    pub generations_format: Option<String>,
}

impl RunInputs {
    pub fn new(
        columns: &crate::dataset::ColumnMap,
        format: Option<crate::generations::GenerationsFormat>,
    ) -> Self {
        RunInputs {
            id_col: columns.id.clone(),
            question_col: columns.question.clone(),
            answer_col: columns.answer.clone(),
            choices: columns.choices.as_ref().map(ToString::to_string),
            generations_format: format.map(|f| f.name().to_string()),
        }
    }

    pub fn columns(&self) -> crate::dataset::ColumnMap {
        crate::dataset::ColumnMap {
            id: self.id_col.clone(),
            question: self.question_col.clone(),
            answer: self.answer_col.clone(),
            choices: self.choices.as_deref().and_then(|c| c.parse().ok()),
        }
    }

    pub fn format(&self) -> Option<crate::generations::GenerationsFormat> {
        self.generations_format
            .as_deref()
            .and_then(|f| f.parse().ok())
    }
}

const LISTED: usize = 200;
const TAIL_CHARS: usize = 160;

/// Last `TAIL_CHARS` characters of `s`.
pub fn tail(s: &str) -> String {
    let start = s
        .char_indices()
        .rev()
        .nth(TAIL_CHARS - 1)
        .map_or(0, |(i, _)| i);
    s[start..].to_string()
}

/// Generations joined with dataset items, in file order: what `grade` verifies and what
/// `judge` pairs with the verdicts it re-reads. Unknown ids and unreadable lines are counted
/// in `join` and skipped.
pub struct Joiner<'a, R> {
    dataset: &'a Dataset,
    reader: GenerationReader<R>,
    pending: std::vec::IntoIter<crate::generations::Generation>,
    samples: Vec<u32>,
    lines: u64,
    pub join: JoinReport,
}

impl<'a, R: BufRead> Joiner<'a, R> {
    pub fn new(dataset: &'a Dataset, reader: GenerationReader<R>, generations_name: &str) -> Self {
        Joiner {
            dataset,
            reader,
            pending: Vec::new().into_iter(),
            samples: vec![0; dataset.items.len()],
            lines: 0,
            join: JoinReport {
                dataset: dataset.path.display().to_string(),
                generations: generations_name.to_string(),
                items: dataset.items.len(),
                duplicate_dataset_ids: dataset.duplicate_ids.clone(),
                judge: "not configured".to_string(),
                ..JoinReport::default()
            },
        }
    }

    /// The next answer: its item's index, its sample number, and the generation.
    pub fn next(
        &mut self,
        progress: &mut impl FnMut(u64),
        on_error: &mut impl FnMut(&GenerationError),
    ) -> Option<(usize, u32, crate::generations::Generation)> {
        loop {
            for g in self.pending.by_ref() {
                let Some(&index) = self.dataset.index.get(&g.id) else {
                    self.join.unknown_ids += 1;
                    if self.join.unknown_ids_listed.len() < LISTED {
                        self.join.unknown_ids_listed.push(g.id);
                    }
                    continue;
                };
                let sample = self.samples[index];
                self.samples[index] += 1;
                self.join.answers += 1;
                return Some((index, sample, g));
            }
            let result = self.reader.next_line()?;
            self.lines += 1;
            if self.lines.is_multiple_of(1024) {
                progress(self.reader.bytes_read);
            }
            match result {
                Ok(batch) => self.pending = batch.into_iter(),
                Err(e) => {
                    on_error(&e);
                    self.join.unreadable_lines += 1;
                    if self.join.unreadable_listed.len() < LISTED {
                        self.join.unreadable_listed.push(e.to_string());
                    }
                }
            }
        }
    }

    /// The join report, with the items that got no generation.
    pub fn finish(mut self, progress: &mut impl FnMut(u64)) -> JoinReport {
        progress(self.reader.bytes_read);
        self.join.items_without_generations = self
            .dataset
            .items
            .iter()
            .zip(&self.samples)
            .filter(|(_, &n)| n == 0)
            .map(|(item, _)| item.id.clone())
            .collect();
        self.join
    }
}

/// The top-level grading pass: read generations, write `verdicts` (one JSON line per
/// answer), call `progress` with the bytes read so far, and report unreadable lines to
/// `on_error`. Returns the join report.
pub fn grade<R: BufRead, W: Write>(
    dataset: &Dataset,
    generations: GenerationReader<R>,
    generations_name: &str,
    verdicts: W,
    mut progress: impl FnMut(u64),
    mut on_error: impl FnMut(&GenerationError),
) -> io::Result<JoinReport> {
    let mut out = io::BufWriter::with_capacity(1 << 16, verdicts);
    let mut joiner = Joiner::new(dataset, generations, generations_name);
    while let Some((index, sample, g)) = joiner.next(&mut progress, &mut on_error) {
        let item = &dataset.items[index];
        let e = verify(&g.response, &item.choices);
        let chosen = e.choice();
        let decided = chosen.is_some();
        let verdict = Verdict {
            id: item.id.clone(),
            sample,
            status: e.status().to_string(),
            rule: e.rule_name().to_string(),
            span: e.span().map(|s| [s.start, s.end]),
            chosen: chosen.map(|c| item.choices.label(c)),
            gold: item.choices.label(item.gold),
            correct: chosen == Some(item.gold),
            source: if decided {
                Source::Verifier
            } else {
                Source::Unresolved
            },
            choices: item.choices.to_string(),
            fields: item.fields.iter().cloned().collect(),
            candidates: match &e {
                Extraction::Ambiguous { candidates, .. } => {
                    Some(candidates.iter().map(|&c| item.choices.label(c)).collect())
                }
                _ => None,
            },
            tail: (!decided).then(|| tail(&g.response)),
            note: (!decided).then(|| NOT_JUDGED.to_string()),
            line: g.line,
            judge: None,
        };
        serde_json::to_writer(&mut out, &verdict).map_err(io::Error::other)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(joiner.finish(&mut progress))
}

/// Write `run.json` beside the verdicts.
pub fn write_join(dir: &Path, join: &JoinReport) -> io::Result<()> {
    let f = std::fs::File::create(dir.join("run.json"))?;
    serde_json::to_writer_pretty(io::BufWriter::new(f), join).map_err(io::Error::other)
}

/// Read `run.json` if a grading run left one.
pub fn read_join(dir: &Path) -> Option<JoinReport> {
    let text = std::fs::read_to_string(dir.join("run.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// Options for a whole `kgrade grade` run.
pub struct GradeOptions<'a> {
    pub dataset: &'a Path,
    pub columns: crate::dataset::ColumnMap,
    pub generations: &'a Path,
    pub generations_format: Option<crate::generations::GenerationsFormat>,
    pub out_dir: &'a Path,
    /// Grouping columns; `None` means every default column present.
    pub by: Option<Vec<String>>,
    /// Join trouble (unknown ids, missing items, duplicate ids, unreadable lines) is an error.
    pub strict: bool,
    /// The judge stage, if a judge is configured.
    pub judge: Option<&'a crate::escalate::JudgeStage>,
}

/// Why a grading run failed.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    #[error(transparent)]
    Dataset(#[from] crate::dataset::DatasetError),
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: io::Error,
    },
    /// `--strict` and the join found trouble; the reports were still written.
    #[error("--strict: {0}")]
    Strict(String),
    #[error(transparent)]
    Join(#[from] JoinInfoError),
    #[error(transparent)]
    Cache(#[from] crate::cache::CacheError),
    #[error("judge: {0}")]
    Judge(String),
}

/// A run directory without the `run.json` that `grade` writes.
#[derive(Debug, thiserror::Error)]
#[error("{dir}: no run.json here; run `kgrade grade` first")]
pub struct JoinInfoError {
    pub dir: std::path::PathBuf,
}

/// What a finished run produced.
pub struct GradeOutcome {
    pub join: JoinReport,
    pub built: crate::report::Built,
    pub judged: Option<crate::escalate::JudgeSummary>,
}

/// The columns to group by: the given ones, or every default grouping column.
pub fn grouping(by: Option<Vec<String>>) -> Vec<String> {
    by.unwrap_or_else(|| {
        crate::dataset::DEFAULT_GROUPS
            .iter()
            .map(|s| s.to_string())
            .collect()
    })
}

/// The top-level entry point for `kgrade grade`: read the dataset, stream and verify the
/// generations into `OUT/verdicts.jsonl`, write `run.json`, `report.json` and `report.md`.
/// `progress` gets (bytes read, total bytes); `on_error` each unreadable generation line.
pub fn run_grade(
    opts: GradeOptions,
    progress: impl FnMut(u64),
    on_error: impl FnMut(&GenerationError),
    on_judge: impl FnOnce(std::sync::Arc<crate::judge::run::Counters>),
) -> Result<GradeOutcome, GradeError> {
    let dataset = crate::dataset::read_dataset(opts.dataset, &opts.columns)?;
    let io_at = |path: &Path| {
        let path = path.to_path_buf();
        move |source| GradeError::Io {
            path: path.clone(),
            source,
        }
    };
    std::fs::create_dir_all(opts.out_dir).map_err(io_at(opts.out_dir))?;
    let file = std::fs::File::open(opts.generations).map_err(io_at(opts.generations))?;
    let name = opts.generations.display().to_string();
    let reader = GenerationReader::new(
        io::BufReader::with_capacity(1 << 16, file),
        &name,
        opts.generations_format,
    );
    let verdicts_path = opts.out_dir.join("verdicts.jsonl");
    let out = std::fs::File::create(&verdicts_path).map_err(io_at(&verdicts_path))?;
    let mut join =
        grade(&dataset, reader, &name, out, progress, on_error).map_err(io_at(&verdicts_path))?;
    join.inputs = RunInputs::new(&opts.columns, opts.generations_format);
    write_join(opts.out_dir, &join).map_err(io_at(opts.out_dir))?;
    let judged = match opts.judge {
        Some(stage) => {
            let summary = crate::escalate::judge_dir(opts.out_dir, stage, on_judge)?;
            join = read_join(opts.out_dir).unwrap_or(join);
            Some(summary)
        }
        None => None,
    };
    let by = grouping(opts.by);
    let built = crate::report::build(&verdicts_path, opts.out_dir, &by, Some(&join))?;
    if opts.strict {
        let mut trouble = Vec::new();
        if join.unknown_ids > 0 {
            trouble.push(format!("{} generations for unknown ids", join.unknown_ids));
        }
        if !join.items_without_generations.is_empty() {
            trouble.push(format!(
                "{} items without generations",
                join.items_without_generations.len()
            ));
        }
        if !join.duplicate_dataset_ids.is_empty() {
            trouble.push(format!(
                "{} duplicate dataset ids",
                join.duplicate_dataset_ids.len()
            ));
        }
        if join.unreadable_lines > 0 {
            trouble.push(format!(
                "{} unreadable generation lines",
                join.unreadable_lines
            ));
        }
        if !trouble.is_empty() {
            return Err(GradeError::Strict(trouble.join(", ")));
        }
    }
    Ok(GradeOutcome {
        join,
        built,
        judged,
    })
}
