//! `kgrade judge DIR`: judge a graded run again. The run's stored verdicts, paired in order
//! with their answers (the run's generations, read through the same join), go into the same
//! stream as `grade --judge`: an earlier judge's part is undone, the policy picks what goes to
//! the judge, and `verdicts.jsonl`, `run.json` and the reports are rewritten.

use super::escalate::{reset, Escalator, JudgeStage, JudgeSummary};
use super::join::Joiner;
use super::stream::VerdictStream;
use super::{io_at, GradeError, JoinInfoError, Observer};
use crate::inputs::dataset::read_dataset;
use crate::inputs::generations::Generations;
use crate::report::staging::Staging;
use crate::report::{Built, ReportBuilder, ReportError};
use crate::types::{read_run, JoinReport, Verdict};
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

/// What judging a run again produced.
pub struct Rejudged {
    pub join: JoinReport,
    pub built: Built,
    pub summary: JudgeSummary,
}

/// The top-level entry point for `kgrade judge DIR`.
pub fn judge_dir(
    dir: &Path,
    stage: &JudgeStage,
    by: Option<Vec<String>>,
    observer: &mut dyn Observer,
) -> Result<Rejudged, GradeError> {
    let mut join = read_run(dir).ok_or(GradeError::Join(JoinInfoError {
        dir: dir.to_path_buf(),
    }))?;
    for (what, path) in [
        ("dataset", &join.dataset),
        ("generations", &join.generations),
    ] {
        if !Path::new(path).exists() {
            return Err(GradeError::Io {
                path: dir.join("run.json"),
                error: io::Error::other(format!(
                    "the run's {what} {path} is no longer there; grade again with `kgrade grade`"
                )),
            });
        }
    }
    // A file changed since the run was graded (cut short, emptied, edited, another file
    // copied over it) would be judged as the run's: its verdicts replaced by others.
    let changed = [
        (
            "dataset",
            &join.dataset,
            &join.dataset_blake3,
            crate::inputs::dataset::content_hash as fn(&Path) -> io::Result<String>,
        ),
        (
            "generations",
            &join.generations,
            &join.generations_blake3,
            crate::inputs::generations::content_hash,
        ),
    ];
    for (what, path, recorded, hash) in changed {
        let Some(recorded) = recorded else { continue };
        let now = hash(Path::new(path)).map_err(io_at(Path::new(path)))?;
        if &now != recorded {
            return Err(GradeError::Io {
                path: dir.join("run.json"),
                error: io::Error::other(format!(
                    "the run's {what} {path} changed since the run was graded (its content hash is not the one run.json records), so its answers are not the run's; grade again with `kgrade grade` (the files in {} were left as they were)",
                    dir.display()
                )),
            });
        }
    }
    let (columns, format, id_pattern) = crate::inputs::reading_options(&join.inputs);
    let dataset = read_dataset(Path::new(&join.dataset), &columns)?;
    let gen_path = PathBuf::from(&join.generations);
    let reader = Generations::open(&gen_path, format, id_pattern).map_err(io_at(&gen_path))?;
    let mut available = dataset.grouping_columns();
    if !reader.tasks.is_empty() {
        available.push("task".to_string());
    }
    let by = super::grade::grouping_for(by, &available)?;
    let verdicts_path = dir.join("verdicts.jsonl");
    let verdicts = std::fs::File::open(&verdicts_path).map_err(io_at(&verdicts_path))?;
    let mut verdict_lines = io::BufReader::with_capacity(1 << 16, verdicts).lines();

    let escalator = Escalator::start(stage)?;
    observer.judging(escalator.counters());
    let report = ReportBuilder::new(dir, &by)?;
    // As in `grade`: the run's files change only when this one completes.
    let mut staging = Staging::new(dir);
    let mut stream = VerdictStream::new(&staging.path("verdicts.jsonl"), report, Some(escalator))?;

    let mut joiner = Joiner::new(&dataset, reader, &join.generations);
    let mut n = 0u64;
    while let Some((index, item, _sample, g)) = joiner.next_shown(&dataset.items, observer) {
        let line = verdict_lines
            .next()
            .ok_or_else(|| mismatch(&verdicts_path, n + 1, "ends before the generations do"))?
            .map_err(io_at(&verdicts_path))?;
        n += 1;
        let mut v: Verdict = serde_json::from_str(&line)
            .map_err(|e| mismatch(&verdicts_path, n, &format!("not a verdict: {e}")))?;
        if v.id != dataset.items[index].id {
            return Err(mismatch(
                &verdicts_path,
                n,
                &format!(
                    "is for `{}`, the generations give `{}`: was the run's input changed?",
                    v.id, dataset.items[index].id
                ),
            ));
        }
        reset(&mut v);
        let (_, answer) = super::verdict::verdict_of(&item, v.sample, &g);
        stream.push(v, &item, answer)?;
    }
    // The verdicts go on after the generations end: answers are missing from the file.
    if verdict_lines.next().is_some() {
        return Err(mismatch(
            &verdicts_path,
            n + 1,
            "goes on after the generations end: was the run's input changed?",
        ));
    }
    let finished = stream.finish()?;
    let (summary, line, calls) = finished
        .judged
        .ok_or_else(|| GradeError::Judge("the judge stage did not run".into()))?;
    join.judge = line;
    join.judge_calls = calls;
    let built = super::write_outputs(finished.report, &join, &verdicts_path, staging, dir, |_| {
        None
    })?;
    Ok(Rejudged {
        join,
        built,
        summary,
    })
}

fn mismatch(path: &Path, line: u64, what: &str) -> GradeError {
    GradeError::Report(ReportError::BadLine {
        path: path.to_path_buf(),
        line,
        message: what.to_string(),
    })
}
