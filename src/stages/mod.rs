//! The stages a run is made of, wired into one stream: read → join → verify → (escalate →
//! judge) → verdict → report. `grade` ([`grade`]) starts the stream from a dataset and a
//! generations file; `kgrade judge DIR` ([`rejudge`]) starts it from a graded run's stored
//! verdicts; both end in the same [`stream::VerdictStream`]. `extract` ([`extract`]) is the
//! verifier alone over answers that carry their own questions.

pub mod circular;
pub mod escalate;
pub mod extract;
pub mod generate;
pub mod grade;
pub mod join;
pub mod rejudge;
mod shift;
pub mod stream;
pub mod verdict;

use std::io;
use std::path::{Path, PathBuf};

/// Why a grading or judging run failed.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    #[error(transparent)]
    Dataset(#[from] crate::inputs::dataset::DatasetError),
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    // The I/O error is part of the message, not a separate `source`, so the one line
    // printed for it does not repeat it.
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    /// `--strict` and the join found trouble; the reports were still written.
    #[error("--strict: {0}")]
    Strict(String),
    #[error(transparent)]
    Join(#[from] JoinInfoError),
    #[error(transparent)]
    Cache(#[from] crate::cache::CacheError),
    #[error("judge: {0}")]
    Judge(String),
    /// Most answers that carry their own question (lm-eval's `doc`, a prompt) name a
    /// different question than their dataset row: the generations belong to another dataset.
    #[error("{0}")]
    QuestionsDiffer(String),
    /// The generations' ids are the dataset's shifted by one (answers keyed from 0 against
    /// ids from 1, or the reverse): every answer would be graded against another row.
    #[error("{0}")]
    IdsShifted(String),
    /// The run graded no answer at all (its reports were written only into a folder that
    /// held no earlier run).
    #[error("nothing was graded: {0}")]
    NothingGraded(String),
    /// `--by` names columns the dataset does not have.
    #[error("--by: no column {} in the dataset (its columns: {})", .unknown.join(", "), .available.join(", "))]
    UnknownColumns {
        unknown: Vec<String>,
        available: Vec<String>,
    },
    /// Ctrl-C stopped the judge stage: the verdicts the judge gave before are in the cache,
    /// and the output folder was left as it was.
    #[error("interrupted: {saved} new judge verdicts saved to the cache {}; the files in {} were left as they were; run the same command again to resume (verdicts in the cache are not asked for again)", .cache.display(), .out_dir.display())]
    Interrupted {
        saved: u64,
        cache: PathBuf,
        out_dir: PathBuf,
    },
}

/// A run directory without the `run.json` that `grade` writes.
#[derive(Debug, thiserror::Error)]
#[error("{dir}: no run.json here; run `kgrade grade` first")]
pub struct JoinInfoError {
    pub dir: PathBuf,
}

/// The end of a run that completed: `run.json` and the reports written under `staging`'s
/// temporary names beside the verdicts already there, then every file renamed into place.
/// A run that graded nothing (`nothing` says so) is an error; it replaces no earlier run in
/// `dir` (its files are dropped and the error says the earlier run is kept), and into a
/// folder with no run its reports are still written, to show what was read.
fn write_outputs(
    report: crate::report::ReportBuilder,
    join: &crate::types::JoinReport,
    verdicts: &Path,
    mut staging: crate::report::staging::Staging,
    dir: &Path,
    nothing: impl FnOnce(&crate::report::Built) -> Option<GradeError>,
) -> Result<crate::report::Built, GradeError> {
    let run_path = staging.path("run.json");
    crate::types::write_run(&run_path, join).map_err(io_at(&run_path))?;
    let built = report.finish(&verdicts.display().to_string(), Some(join), &mut staging)?;
    match nothing(&built) {
        Some(GradeError::NothingGraded(message)) if staging.final_path("run.json").exists() => {
            Err(GradeError::NothingGraded(format!(
                "{message}; the earlier run in {} was left as it was",
                dir.display()
            )))
        }
        Some(e) => {
            staging.commit().map_err(io_at(dir))?;
            Err(e)
        }
        None => {
            staging.commit().map_err(io_at(dir))?;
            Ok(built)
        }
    }
}

/// An I/O error at `path`, as a [`GradeError`].
fn io_at(path: &Path) -> impl Fn(io::Error) -> GradeError + '_ {
    move |error| GradeError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// What a run reports as it goes, for progress bars and messages. Every method has a default
/// that does nothing.
pub trait Observer {
    /// Bytes of the generations file read so far.
    fn bytes_read(&mut self, _bytes: u64) {}
    /// A generation line that could not be read (the run goes on).
    fn unreadable(&mut self, _error: &crate::inputs::generations::GenerationError) {}
    /// The judge stage started; its live counters.
    fn judging(&mut self, _counters: std::sync::Arc<crate::client::Counters>) {}
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}
