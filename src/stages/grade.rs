//! `grade`: join a dataset with a stream of generations, verify every answer, send what the
//! verifier abstains on (and an audit sample) to the judge if one is configured, and write
//! `verdicts.jsonl`, `run.json` and the reports, reading each input once. Memory holds the
//! dataset and per-item counters, never the answers.

use super::circular::permute;
use super::escalate::{Escalator, JudgeStage, JudgeSummary};
use super::join::Joiner;
use super::stream::VerdictStream;
use super::{io_at, GradeError, Observer};
use crate::inputs::dataset::{read_dataset, ColumnMap, DEFAULT_GROUPS};
use crate::inputs::generations::{GenerationReader, GenerationsFormat};
use crate::report::{Built, ReportBuilder};
use crate::types::{tail, write_run, Item, JoinReport, Source, Verdict, NOT_JUDGED};
use crate::verify::{verify, Extraction};
use std::io;
use std::path::Path;

/// Options for a whole `kgrade grade` run.
pub struct GradeOptions<'a> {
    pub dataset: &'a Path,
    pub columns: ColumnMap,
    pub generations: &'a Path,
    pub generations_format: Option<GenerationsFormat>,
    pub out_dir: &'a Path,
    /// Grouping columns; `None` means every default column present.
    pub by: Option<Vec<String>>,
    /// Join trouble (unknown ids, missing items, duplicate ids, unreadable lines) is an error.
    pub strict: bool,
    /// The judge stage, if a judge is configured.
    pub judge: Option<&'a JudgeStage>,
}

/// What a finished run produced.
pub struct GradeOutcome {
    pub join: JoinReport,
    pub built: Built,
    pub judged: Option<JudgeSummary>,
}

/// The columns to group by: the given ones, or every default grouping column.
pub fn grouping(by: Option<Vec<String>>) -> Vec<String> {
    by.unwrap_or_else(|| DEFAULT_GROUPS.iter().map(|s| s.to_string()).collect())
}

/// The verifier's verdict on one answer to `item`.
pub fn verdict_of(item: &Item, sample: u32, response: &str, line: u64) -> Verdict {
    let e = verify(response, &item.choices);
    let chosen = e.choice();
    let decided = chosen.is_some();
    Verdict {
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
        tail: (!decided).then(|| tail(response)),
        note: (!decided).then(|| NOT_JUDGED.to_string()),
        line,
        judge: None,
        ordering: None,
    }
}

/// The top-level entry point for `kgrade grade`: read the dataset, stream, verify (and judge)
/// the generations into `OUT/verdicts.jsonl`, and write `run.json`, `report.json` and
/// `report.md`.
pub fn run_grade(
    opts: GradeOptions,
    observer: &mut dyn Observer,
) -> Result<GradeOutcome, GradeError> {
    let dataset = read_dataset(opts.dataset, &opts.columns)?;
    std::fs::create_dir_all(opts.out_dir).map_err(io_at(opts.out_dir))?;
    let file = std::fs::File::open(opts.generations).map_err(io_at(opts.generations))?;
    let name = opts.generations.display().to_string();
    let reader = GenerationReader::new(
        io::BufReader::with_capacity(1 << 16, file),
        &name,
        opts.generations_format,
    );
    let escalator = opts.judge.map(Escalator::start).transpose()?;
    if let Some(e) = &escalator {
        observer.judging(e.counters());
    }
    let by = grouping(opts.by);
    let report = ReportBuilder::new(opts.out_dir, &by)?;
    let verdicts_path = opts.out_dir.join("verdicts.jsonl");
    let mut stream = VerdictStream::new(&verdicts_path, report, escalator)?;

    let mut joiner = Joiner::new(&dataset, reader, &name);
    while let Some((index, sample, g)) = joiner.next(observer) {
        let item = &dataset.items[index];
        // A circular run's answer is graded against the options in the order it was shown.
        let shown = match &g.ordering {
            Some(o) => Some(permute(item, o).map_err(|source| GradeError::Ordering {
                path: opts.generations.to_path_buf(),
                line: g.line,
                source,
            })?),
            None => None,
        };
        let item = shown.as_ref().unwrap_or(item);
        let mut v = verdict_of(item, sample, &g.response, g.line);
        v.ordering = g.ordering;
        stream.push(v, item, g.response)?;
    }
    let mut join = joiner.finish(observer);
    let finished = stream.finish()?;
    join.inputs = crate::inputs::run_inputs(&opts.columns, opts.generations_format);
    let judged = finished.judged.map(|(summary, line)| {
        join.judge = line;
        summary
    });
    write_run(opts.out_dir, &join).map_err(io_at(opts.out_dir))?;
    let built = finished
        .report
        .finish(&verdicts_path.display().to_string(), Some(&join))?;
    if opts.strict {
        strict_check(&join)?;
    }
    Ok(GradeOutcome {
        join,
        built,
        judged,
    })
}

/// With `--strict`, join trouble fails the run (after the reports are written).
fn strict_check(join: &JoinReport) -> Result<(), GradeError> {
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
    if trouble.is_empty() {
        Ok(())
    } else {
        Err(GradeError::Strict(trouble.join(", ")))
    }
}
