//! The end of every run's stream: each verdict goes to the judge if the policy wants it, then,
//! in input order, to `verdicts.jsonl` and the report. Judgements run concurrently while
//! reading goes on; a bounded window of pending verdicts keeps memory flat and output in
//! order (when the window is full, the oldest pending judgement is waited for).

use super::escalate::{Escalator, JudgeSummary, Judging};
use super::{io_at, GradeError};
use crate::report::ReportBuilder;
use crate::types::{Item, Verdict};
use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How many verdicts may wait for earlier judgements before reading pauses.
const WINDOW: usize = 4096;

/// Verdicts on their way to the verdicts file and the report.
/// The note of an abstention a configured judge was not sent (see `--escalate`).
const NOT_SENT: &str = "not sent to the judge (its outcome is not in --escalate)";

pub struct VerdictStream {
    out: io::BufWriter<std::fs::File>,
    out_path: PathBuf,
    report: ReportBuilder,
    escalator: Option<Escalator>,
    /// Pending verdicts, each with its judgement and, when the report shows it, its answer.
    queue: VecDeque<(Verdict, Option<Judging>, Option<String>)>,
}

/// What a finished stream leaves: the report to finish, and the judge stage's summary and
/// line if a judge ran.
pub struct Finished {
    pub report: ReportBuilder,
    pub judged: Option<(JudgeSummary, String, String)>,
}

impl VerdictStream {
    /// Write verdicts to `out_path` and count them in `report`; judge through `escalator`.
    pub fn new(
        out_path: &Path,
        report: ReportBuilder,
        escalator: Option<Escalator>,
    ) -> Result<VerdictStream, GradeError> {
        let file = std::fs::File::create(out_path).map_err(io_at(out_path))?;
        Ok(VerdictStream {
            out: io::BufWriter::with_capacity(1 << 16, file),
            out_path: out_path.to_path_buf(),
            report,
            escalator,
            queue: VecDeque::new(),
        })
    }

    /// Take one verdict, with the item and answer it is about. After Ctrl-C, take none:
    /// the run ends with [`GradeError::Interrupted`].
    pub fn push(&mut self, mut v: Verdict, item: &Item, answer: String) -> Result<(), GradeError> {
        if let Some(stopped) = self.interrupted() {
            return Err(stopped);
        }
        // The report shows the text of abstentions and of judged answers; which answers a
        // judge takes is known only after submitting, so with a judge the text is copied
        // first and dropped when not needed.
        let (judging, answer) = match &mut self.escalator {
            Some(e) => {
                let kept = answer.clone();
                let judging = e.submit(&v, item, answer);
                // A judge is configured: an abstention it was not sent says so, not "no
                // judge configured" (trial 45).
                if judging.is_none() && v.note.as_deref() == Some(crate::types::NOT_JUDGED) {
                    v.note = Some(NOT_SENT.to_string());
                }
                let keep = judging.is_some() || ReportBuilder::wants_answer(&v);
                (judging, keep.then_some(kept))
            }
            None => (None, ReportBuilder::wants_answer(&v).then_some(answer)),
        };
        self.queue.push_back((v, judging, answer));
        self.drain(false)
    }

    /// After Ctrl-C, the end of the run: every judgement under way is waited for, so each
    /// verdict the judge gives is stored in the cache before the run ends (those still queued
    /// end at once; a second Ctrl-C cancels those under way). Nothing more is written: the
    /// caller's staged files are dropped, leaving the output folder as it was.
    fn interrupted(&mut self) -> Option<GradeError> {
        let escalator = self.escalator.as_mut().filter(|e| e.stopping())?;
        for (_, judging, _) in self.queue.drain(..) {
            if let Some(judging) = judging {
                escalator.wait(judging);
            }
        }
        let out_dir = self.out_path.parent().unwrap_or(Path::new("."));
        Some(escalator.interrupted(out_dir))
    }

    /// Write out every verdict at the head of the queue that is ready (all of them if `all`).
    fn drain(&mut self, all: bool) -> Result<(), GradeError> {
        loop {
            let ready = match self.queue.front() {
                None => return Ok(()),
                Some((_, judging, _)) => {
                    all || self.queue.len() > WINDOW
                        || judging.as_ref().is_none_or(Judging::is_finished)
                }
            };
            if !ready {
                return Ok(());
            }
            let Some((mut v, judging, answer)) = self.queue.pop_front() else {
                return Ok(());
            };
            if let Some(escalator) = &mut self.escalator {
                if let Some(judging) = judging {
                    escalator.resolve(&mut v, judging);
                }
                escalator.count(&v);
            }
            serde_json::to_writer(&mut self.out, &v)
                .map_err(|e| io_at(&self.out_path)(io::Error::other(e)))?;
            self.out.write_all(b"\n").map_err(io_at(&self.out_path))?;
            self.report.add(&v, answer.as_deref())?;
        }
    }

    /// Wait for every judgement, write everything out and flush; or, after Ctrl-C (before
    /// or while waiting), [`GradeError::Interrupted`].
    pub fn finish(mut self) -> Result<Finished, GradeError> {
        if let Some(stopped) = self.interrupted() {
            return Err(stopped);
        }
        self.drain(true)?;
        // Ctrl-C while waiting for the last judgements: they ended early, so this run's
        // verdicts are not to be written either.
        if let Some(stopped) = self.interrupted() {
            return Err(stopped);
        }
        self.out.flush().map_err(io_at(&self.out_path))?;
        Ok(Finished {
            report: self.report,
            judged: self.escalator.map(Escalator::finish),
        })
    }
}
