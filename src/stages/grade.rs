//! `grade`: join a dataset with a stream of generations, verify every answer, send what the
//! verifier abstains on (and an audit sample) to the judge if one is configured, and write
//! `verdicts.jsonl`, `run.json` and the reports, reading each input once. Memory holds the
//! dataset and per-item counters, never the answers.

use super::escalate::{Escalator, JudgeStage, JudgeSummary};
use super::join::Joiner;
use super::shift::{ids_shifted, Neighbours};
use super::stream::VerdictStream;
use super::verdict::verdict_of;
use super::{io_at, GradeError, Observer};
use crate::inputs::dataset::{read_dataset, ColumnMap, DEFAULT_GROUPS};
use crate::inputs::generations::Generation;
use crate::inputs::generations::{Generations, GenerationsFormat};
use crate::report::staging::Staging;
use crate::report::{Built, ReportBuilder};
use crate::types::JoinReport;
use crate::types::{Item, Verdict};
use std::borrow::Cow;
use std::path::Path;
use std::sync::mpsc;

/// Answers handed to the verifying thread at a time: large enough that handing over costs
/// nothing, small enough that memory stays flat.
const VERIFY_BATCH: usize = 1024;

type Shown<'a> = (usize, Cow<'a, Item>, u32, Generation);

/// Read, join and verify every answer into `stream`, in read order. Verification runs on a
/// thread of its own while this one reads the next batch and pushes the last one's verdicts
/// (reading, joining and writing verdicts cost more than verifying most answers, so a
/// pipeline of two uses both cores where splitting verification alone would not).
fn verify_pipelined<'a>(
    joiner: &mut Joiner<'a>,
    items: &'a [Item],
    stream: &mut VerdictStream,
    neighbours: &mut Neighbours,
    observer: &mut dyn Observer,
) -> Result<(), GradeError> {
    std::thread::scope(|scope| {
        let (jobs, job_rx) = mpsc::sync_channel::<Vec<Shown<'a>>>(1);
        let (done_tx, done) = mpsc::sync_channel::<Vec<(usize, Cow<'a, Item>, Verdict, String)>>(1);
        scope.spawn(move || {
            for batch in job_rx {
                let verdicts = batch
                    .into_iter()
                    .map(|(row, item, sample, g)| {
                        let (v, answer) = verdict_of(&item, sample, &g);
                        (row, item, v, answer)
                    })
                    .collect();
                if done_tx.send(verdicts).is_err() {
                    break;
                }
            }
        });
        let mut in_flight = false;
        loop {
            // Read the next batch while the last one is verified.
            let mut batch = Vec::with_capacity(VERIFY_BATCH);
            while batch.len() < VERIFY_BATCH {
                // A circular run's answer is graded against the options in the order it
                // was shown.
                let Some(shown) = joiner.next_shown(items, observer) else {
                    break;
                };
                batch.push(shown);
            }
            if in_flight {
                let verdicts = done.recv().expect("the verifying thread ended early");
                for (row, item, v, answer) in verdicts {
                    neighbours.push(items, row, &item, &v);
                    stream.push(v, &item, answer)?;
                }
            }
            in_flight = !batch.is_empty();
            if in_flight {
                jobs.send(batch).expect("the verifying thread ended early");
            }
            if !in_flight {
                return Ok(());
            }
        }
    })
}

/// Options for a whole `kgrade grade` run.
pub struct GradeOptions<'a> {
    pub dataset: &'a Path,
    pub columns: ColumnMap,
    pub generations: &'a Path,
    pub generations_format: Option<GenerationsFormat>,
    /// Maps generation ids to dataset ids (its first capture group).
    pub id_pattern: Option<regex::Regex>,
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
    /// Join trouble worth a person's attention even without `--strict` (many unknown ids,
    /// items without generations, repeated dataset ids).
    pub warnings: Vec<String>,
}

/// The columns to group by: the given ones, or every default grouping column.
pub fn grouping(by: Option<Vec<String>>) -> Vec<String> {
    by.unwrap_or_else(|| DEFAULT_GROUPS.iter().map(|s| s.to_string()).collect())
}

/// The columns to group by for a dataset with `available` columns: every `--by` column must
/// exist; by default, every default grouping column the dataset has.
pub fn grouping_for(
    by: Option<Vec<String>>,
    available: &[String],
) -> Result<Vec<String>, GradeError> {
    match by {
        Some(by) => {
            let unknown: Vec<String> = by
                .iter()
                .filter(|c| !available.contains(c))
                .cloned()
                .collect();
            if unknown.is_empty() {
                Ok(by)
            } else {
                Err(GradeError::UnknownColumns {
                    unknown,
                    available: available.to_vec(),
                })
            }
        }
        None => Ok(DEFAULT_GROUPS
            .iter()
            .filter(|c| available.iter().any(|a| a == *c))
            .map(|c| c.to_string())
            .collect()),
    }
}

/// The path as `run.json` records it for `kgrade judge DIR`: resolved (no `..`, which
/// would name another file once the folder it started from is gone; trial 42), else
/// absolute.
fn absolute(path: &Path) -> String {
    (path.canonicalize())
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The first few of `ids`, for messages.
fn first_ids(ids: &[String]) -> String {
    let shown: Vec<String> = ids.iter().take(5).map(|i| format!("`{i}`")).collect();
    let more = if ids.len() > 5 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// What the terminal should say about the join even without `--strict`.
fn join_warnings(join: &JoinReport) -> Vec<String> {
    let mut out = Vec::new();
    let total = join.answers + join.unknown_ids;
    // With repeated dataset ids, an unknown id is likely the row whose id was mistyped into
    // another's: worth saying however few there are.
    let repeats = !join.duplicate_dataset_ids.is_empty();
    // With row numbers for ids, one unknown id means the rows and the answers do not line up:
    // every answer after the gap is graded against the wrong row.
    if join.unknown_ids > 0 && (join.unknown_ids * 10 > total || repeats || join.row_number_ids) {
        let why = if !join.row_number_ids {
            String::new()
        } else {
            format!(
                "; the dataset's ids are row numbers 0–{} (it has no id column, or one counting rows from 0), and an id past them means rows and answers do not line up (a row lost, or two merged by a stray quote in the CSV?): give the dataset an id column",
                join.items.saturating_sub(1)
            )
        };
        out.push(format!(
            "{} of {total} generations name ids the dataset does not have (first: {}){why}",
            join.unknown_ids,
            first_ids(&join.unknown_ids_listed)
        ));
    }
    if !join.items_without_generations.is_empty() {
        out.push(format!(
            "{} of {} items have no generation (first: {})",
            join.items_without_generations.len(),
            join.items,
            first_ids(&join.items_without_generations)
        ));
    }
    if let Some(first) = &join.question_differs_first {
        out.push(format!(
            "{} of {} answers that carry their question name another question than their dataset row (first: {first})",
            join.questions_differing, join.questions_compared
        ));
    }
    if !join.duplicate_dataset_ids.is_empty() {
        out.push(format!(
            "{} dataset ids repeat; the first row of each was used (first: {})",
            join.duplicate_dataset_ids.len(),
            first_ids(&join.duplicate_dataset_ids)
        ));
    }
    if join.repeated_samples > 0 {
        let lines = match join.repeated_samples {
            1 => "1 answer names a sample its item".to_string(),
            n => format!("{n} answers name a sample their item"),
        };
        out.push(format!(
            "{lines} already had (a file given twice, another run of the same task, or a retry beside its failure); both were graded (first: {})",
            first_ids(&join.repeated_samples_listed)
        ));
    }
    if let Some(first) = &join.repeated_answers_first {
        out.push(format!(
            "{} answers name no sample and repeat an earlier answer to their item word for word (first: `{first}`): a file appended to itself? Both were graded",
            join.repeated_answers
        ));
    }
    if let Some(first) = &join.prompts_reordered_first {
        out.push(format!(
            "{} answers' prompts show the options in another order than the dataset (first: `{first}`); each was graded in the order its prompt showed, matched by the options' texts",
            join.prompts_reordered
        ));
    }
    if let Some(first) = join.files_not_read.first() {
        out.push(match join.files_not_read.len() {
            1 => format!("{first} is not an lm-eval samples file (samples_<task>_<date>.jsonl), so it was not read; give it as --generations on its own to grade it"),
            n => format!("{n} .jsonl files in the folder are not lm-eval samples files (samples_<task>_<date>.jsonl), so they were not read (first: {first})"),
        });
    }
    if join.models.len() > 1 {
        out.push(format!(
            "the generations name {} models: {} (one run is usually one model)",
            join.models.len(),
            join.models.join(", ")
        ));
    }
    out
}

/// The top-level entry point for `kgrade grade`: read the dataset, stream, verify (and judge)
/// the generations into `OUT/verdicts.jsonl`, and write `run.json`, `report.json` and
/// `report.md`.
pub fn run_grade(
    opts: GradeOptions,
    observer: &mut dyn Observer,
) -> Result<GradeOutcome, GradeError> {
    let reader = Generations::open(
        opts.generations,
        opts.generations_format,
        opts.id_pattern.clone(),
    )
    .map_err(io_at(opts.generations))?;
    let dataset = read_dataset(opts.dataset, &opts.columns)?;
    several_datasets_one_file(&reader, &dataset, &opts)?;
    // Hashed beside the grading (a second read of a file the first has just brought into
    // the page cache), for `kgrade judge DIR` to tell a changed file.
    let generations_hash = {
        let path = opts.generations.to_path_buf();
        std::thread::spawn(move || crate::inputs::generations::content_hash(&path))
    };
    let mut available = dataset.grouping_columns();
    if !reader.tasks.is_empty() {
        available.push("task".to_string());
    }
    let by = grouping_for(opts.by, &available)?;
    crate::report::staging::create_out_dir(opts.out_dir).map_err(io_at(opts.out_dir))?;
    let name = opts.generations.display().to_string();
    // The judge (and its cache lock) first: a cache another process holds fails the run
    // before any work is done.
    let escalator = opts.judge.map(Escalator::start).transpose()?;
    if let Some(e) = &escalator {
        observer.judging(e.counters());
    }
    let report = ReportBuilder::new(opts.out_dir, &by)?;
    // Every file goes under a temporary name until the run completes: an interrupted or
    // failed run leaves the previous run's files as they were.
    let mut staging = Staging::new(opts.out_dir);
    let verdicts_path = staging.final_path("verdicts.jsonl");
    let mut stream = VerdictStream::new(&staging.path("verdicts.jsonl"), report, escalator)?;

    let mut joiner = Joiner::new(&dataset, reader, &name);
    let mut neighbours = Neighbours::new(&dataset.items);
    verify_pipelined(
        &mut joiner,
        &dataset.items,
        &mut stream,
        &mut neighbours,
        observer,
    )?;
    let io_error = joiner.take_io_error();
    let mut join = joiner.finish(observer);
    let finished = stream.finish()?;
    join.dataset = absolute(opts.dataset);
    join.dataset_blake3 = crate::inputs::dataset::content_hash(opts.dataset).ok();
    join.generations_blake3 = generations_hash.join().ok().and_then(Result::ok);
    join.generations = absolute(opts.generations);
    join.inputs = crate::inputs::run_inputs(
        &opts.columns,
        opts.generations_format,
        opts.id_pattern.as_ref(),
    );
    let judged = finished.judged.map(|(summary, line, calls)| {
        join.judge = line;
        join.judge_calls = calls;
        summary
    });
    // Generations of another dataset are refused before anything is written: their reports
    // would only replace a good run in OUT with a meaningless one.
    if let Some(e) = (ids_shifted(&join, &neighbours))
        .or_else(|| neighbours.check(&dataset.items, &join))
        .or_else(|| questions_differ(&join))
    {
        return Err(e);
    }
    // A generations file that failed before its first answer graded nothing: the error, and
    // the run already in OUT left as it was (trial 48: an OpenCompass document that broke off
    // in its first entry replaced a good run with an empty one).
    if let (Some((path, error)), 0) = (&io_error, join.answers) {
        return Err(GradeError::Io {
            path: path.clone(),
            error: std::io::Error::new(error.kind(), error.to_string()),
        });
    }
    let nothing = |built: &crate::report::Built| {
        // A generations file that failed to read is that error, said below.
        if io_error.is_some() {
            return None;
        }
        if join.answers == 0 {
            return Some(nothing_graded(&join, &dataset));
        }
        crate::report::nothing_graded(&built.metrics).map(|message| {
            GradeError::NothingGraded(format!("{message} (generations {})", join.generations))
        })
    };
    let built = super::write_outputs(
        finished.report,
        &join,
        &verdicts_path,
        staging,
        opts.out_dir,
        nothing,
    )?;
    // The reports are written before this error: nothing already graded is lost.
    if let Some((path, error)) = io_error {
        return Err(GradeError::Io { path, error });
    }
    if opts.strict {
        strict_check(&join)?;
    }
    let mut warnings = dataset.warnings.clone();
    warnings.extend(join_warnings(&join));
    warnings.extend(outside_the_set(&built.metrics));
    Ok(GradeOutcome {
        join,
        built,
        judged,
        warnings,
    })
}

/// Many answers naming a label outside their item's choice set (`invalid`) mean the model
/// was shown the options in another notation than kgrade reads them in: "정답은 2번" on a
/// Hugging Face list of options, which kgrade shows as A–D (trial 44: 0% with no word).
fn outside_the_set(m: &crate::report::metrics::Metrics) -> Option<String> {
    let invalid = m.statuses.get("invalid").copied().unwrap_or(0);
    let n = m.overall.n;
    (invalid >= 3 && invalid * 5 >= n).then(|| {
        format!(
            "{invalid} of {n} answers name a label outside their item's choice set (status invalid, counted wrong): if the model was shown the options in another notation than kgrade reads (numbers where it reads letters, or the reverse), give --choices with the notation the model saw (number:4, letter:4, circled:4 …)"
        )
    })
}

/// A run that graded nothing is an error: say what the generations' ids and the dataset's
/// ids look like, which is nearly always the cause.
fn nothing_graded(join: &JoinReport, dataset: &crate::inputs::dataset::Dataset) -> GradeError {
    let dataset_ids: Vec<String> = dataset.items.iter().take(5).map(|i| i.id.clone()).collect();
    let message = if dataset.items.is_empty() {
        format!("the dataset {} has no rows", join.dataset)
    } else if join.unknown_ids > 0 {
        format!(
            "none of the {} generations matched a dataset id: the generations name {}, the dataset's ids are {}{} ({})",
            join.unknown_ids,
            first_ids(&join.unknown_ids_listed),
            first_ids(&dataset_ids),
            if dataset.items.first().is_some_and(|i| i.id == "0") {
                " (row numbers: the dataset has no id column)"
            } else {
                ""
            },
            match join.opencompass {
                true => "OpenCompass keys its predictions by row number from 0: give --id-col @row to join by row number",
                // lm-eval's doc_id (`task/3` here) beside a dataset with ids of its own (ARC's
                // `Mercury_…`).
                false if row_numbers(&join.unknown_ids_listed) && !row_numbers(&dataset_ids) => "the generations name rows by number, as lm-eval's doc_id counts them from 0: give --id-col @row to join by row number",
                // `kmmlu-public-safety-17` beside the dataset's `17`.
                false if ends_in_dataset_ids(&join.unknown_ids_listed, dataset) => "the generations' ids end in the dataset's: give --id-pattern '(\\d+)$' to join by the number at their end",
                false => "give --id-col, or check that the files belong together",
            }
        )
    } else if join.unreadable_lines > 0 {
        format!(
            "none of the {} generation lines could be read (first: {})",
            join.unreadable_lines,
            join.unreadable_listed.first().map_or("", String::as_str)
        )
    } else {
        format!("the generations file {} has no answers", join.generations)
    };
    GradeError::NothingGraded(message)
}

/// Do these ids end in a number (after a non-digit) that is a dataset id, every one of them
/// (`kmmlu-public-safety-17` beside `17`)?
fn ends_in_dataset_ids(ids: &[String], dataset: &crate::inputs::dataset::Dataset) -> bool {
    !ids.is_empty()
        && ids.iter().all(|id| {
            let digits = id.len() - id.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            digits > 0 && digits < id.len() && dataset.index.contains_key(&id[id.len() - digits..])
        })
}

/// Are these ids row numbers (`3`, or lm-eval's `task/3`)?
fn row_numbers(ids: &[String]) -> bool {
    !ids.is_empty()
        && ids.iter().all(|id| {
            let n = id.rsplit('/').next().unwrap_or("");
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        })
}

/// Generations joined to the wrong dataset: when most answers that carry their own question
/// (lm-eval's `doc.question`, a prompt) name another question than the dataset row with
/// their id, the ids matched by accident. A majority, not any one: a dataset whose few rows
/// were edited since the generations were made still grades (with a warning), while a
/// wrong dataset differs on nearly every row.
///
/// So for each task of a run of several: lm-eval's group of two subjects graded against one
/// subject's file joined the other subject's answers to its rows as second samples, exactly
/// half differing, graded at exit 0 (walkthrough 50: 5/16).
fn questions_differ(join: &JoinReport) -> Option<GradeError> {
    let mostly = |differing: u64, compared: u64| differing * 2 > compared;
    let several = join.task_questions.len() > 1;
    let (task, first, differing, compared) = match (join.task_questions.iter())
        .find(|(_, &(compared, differing, _))| several && mostly(differing, compared))
    {
        Some((task, (compared, differing, first))) => {
            (Some(task), first.as_deref(), *differing, *compared)
        }
        None if mostly(join.questions_differing, join.questions_compared) => (
            None,
            join.question_differs_first.as_deref(),
            join.questions_differing,
            join.questions_compared,
        ),
        None => return None,
    };
    let whose = match task {
        Some(task) => format!(" of task `{task}`"),
        None => String::new(),
    };
    let hint = match (join.opencompass, task) {
        (true, _) => ". OpenCompass predictions are keyed by the row of the dataset OpenCompass read, from 0: give that dataset (with an id column, and --id-col @row to join by row number)",
        (false, Some(_)) if std::path::Path::new(&join.dataset).is_dir() => ". The folder's rows for this task are not the questions it was run on: check that the folder holds the file the task was run on (not an edited or another copy of its subject)",
        (false, Some(_)) => ". Each task of a run is graded against its own dataset: give a folder holding one file per task's subject (KMMLU's `<Subject>-test.csv`), or grade the task's own samples file against its dataset",
        (false, None) => "",
    };
    Some(GradeError::QuestionsDiffer(format!(
        "{}; {differing} of {compared} answers{whose} that carry their question name another question than the dataset row with their id: the generations {} do not belong to the dataset {} (nothing was written){hint}",
        first.unwrap_or(""),
        join.generations,
        join.dataset
    )))
}

/// An OpenCompass work folder holding several datasets' predictions, each keyed from row 0,
/// against one dataset file: every dataset's answers would be joined to that file's rows
/// (trial 48: half of them named another question, just short of the refusal, 4/24 at exit
/// 0). A dataset folder, one file per dataset, joins each to its own.
fn several_datasets_one_file(
    reader: &Generations,
    dataset: &crate::inputs::dataset::Dataset,
    opts: &GradeOptions,
) -> Result<(), GradeError> {
    if !reader.opencompass || reader.tasks.len() < 2 || !dataset.subjects.is_empty() {
        return Ok(());
    }
    Err(GradeError::Io {
        path: opts.generations.to_path_buf(),
        error: std::io::Error::other(format!(
            "holds OpenCompass predictions of {} datasets ({}), each keyed by the rows of its own, and --dataset {} is one file: give a --dataset folder with one file per dataset, named as they are, or one dataset's predictions file",
            reader.tasks.len(),
            reader.tasks.join(", "),
            opts.dataset.display()
        )),
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
    if join.questions_differing > 0 {
        trouble.push(format!(
            "{} answers whose question differs from their dataset row",
            join.questions_differing
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
