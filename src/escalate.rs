//! The judge stage of a run: choose which verdicts go to the judge (the escalation policy
//! and a reproducible audit sample of verifier-decided answers), pair them again with their
//! answers by re-reading the run's inputs, judge them, and rewrite `verdicts.jsonl` with the
//! judge's part. Used by `grade --judge` and by `kgrade judge DIR`.

use crate::cache::Cache;
use crate::judge::rubric::Rubric;
use crate::judge::run::{judge_all, Counters, JudgeConfig, Outcome, Task};
use crate::pipeline::{read_join, write_join, GradeError, JoinInfoError, Joiner, Source, Verdict};
use crate::pipeline::{JudgeInfo, NOT_JUDGED};
use crate::verify::ChoiceSet;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

/// Verifier outcomes that can be escalated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escalate {
    Ambiguous,
    /// `no_answer` other than `empty`.
    NoAnswer,
    /// `no_answer` because the answer was empty.
    Empty,
    Invalid,
}

impl FromStr for Escalate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "ambiguous" => Ok(Escalate::Ambiguous),
            "no_answer" => Ok(Escalate::NoAnswer),
            "empty" => Ok(Escalate::Empty),
            "invalid" => Ok(Escalate::Invalid),
            other => Err(format!(
                "unknown outcome `{other}` (ambiguous, no_answer, empty, invalid)"
            )),
        }
    }
}

/// Which verdicts the judge sees.
#[derive(Clone, Debug)]
pub struct Policy {
    pub escalate: Vec<Escalate>,
    /// Fraction of verifier-decided answers also judged, for the agreement figures.
    pub audit_rate: f64,
    pub seed: u64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            escalate: vec![Escalate::Ambiguous, Escalate::NoAnswer, Escalate::Invalid],
            audit_rate: 0.0,
            seed: 0,
        }
    }
}

impl Policy {
    /// `Some(false)` to escalate, `Some(true)` to audit, `None` to leave alone.
    pub fn wants(&self, v: &Verdict) -> Option<bool> {
        let kind = match v.status.as_str() {
            "answer" => return self.audited(v).then_some(true),
            "ambiguous" => Escalate::Ambiguous,
            "invalid" => Escalate::Invalid,
            "no_answer" if v.rule == "empty" => Escalate::Empty,
            "no_answer" => Escalate::NoAnswer,
            _ => return None,
        };
        self.escalate.contains(&kind).then_some(false)
    }

    /// A reproducible sample: a hash of (seed, id, sample) below the rate.
    fn audited(&self, v: &Verdict) -> bool {
        if self.audit_rate <= 0.0 {
            return false;
        }
        let seed = self.seed.to_string();
        let sample = v.sample.to_string();
        let h = Cache::key(&["audit", &seed, &v.id, &sample]);
        let x = u64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]);
        (x as f64 / u64::MAX as f64) < self.audit_rate
    }
}

/// Everything the judge stage needs.
pub struct JudgeStage {
    pub config: JudgeConfig,
    pub rubric: Rubric,
    pub cache_path: PathBuf,
    pub policy: Policy,
}

/// What the judge stage did.
#[derive(Debug, Default, Clone)]
pub struct JudgeSummary {
    pub escalated: u64,
    pub audited: u64,
    pub judged: u64,
    pub cache_hits: u64,
    pub failures: u64,
    pub requests: u64,
    pub retries: u64,
    /// Answers left unresolved after the judge.
    pub unresolved: u64,
}

fn io_at(path: &Path) -> impl Fn(io::Error) -> GradeError + '_ {
    move |source| GradeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The top-level entry point of the judge stage for run directory `dir`. `on_counters` gets
/// the live counters once the calls start (for a progress bar).
pub fn judge_dir(
    dir: &Path,
    stage: &JudgeStage,
    on_counters: impl FnOnce(Arc<Counters>),
) -> Result<JudgeSummary, GradeError> {
    let mut join = read_join(dir).ok_or(GradeError::Join(JoinInfoError {
        dir: dir.to_path_buf(),
    }))?;
    let dataset = crate::dataset::read_dataset(Path::new(&join.dataset), &join.inputs.columns())?;
    let gen_path = PathBuf::from(&join.generations);
    let file = std::fs::File::open(&gen_path).map_err(io_at(&gen_path))?;
    let reader = crate::generations::GenerationReader::new(
        io::BufReader::with_capacity(1 << 16, file),
        &join.generations,
        join.inputs.format(),
    );
    let verdicts_path = dir.join("verdicts.jsonl");
    let verdicts = std::fs::File::open(&verdicts_path).map_err(io_at(&verdicts_path))?;
    let mut verdict_lines = io::BufReader::new(verdicts).lines();

    // Pair each answer with its verdict, in order, and pick the ones to judge.
    let mut joiner = Joiner::new(&dataset, reader, &join.generations);
    let mut tasks = Vec::new();
    let mut picked: Vec<(u64, bool)> = Vec::new();
    let mut summary = JudgeSummary::default();
    let mut n = 0u64;
    while let Some((index, _sample, g)) = joiner.next(&mut |_| {}, &mut |_| {}) {
        let line = verdict_lines
            .next()
            .ok_or_else(|| mismatch(&verdicts_path, n + 1, "ends before the generations do"))?
            .map_err(io_at(&verdicts_path))?;
        n += 1;
        let v: Verdict = serde_json::from_str(&line)
            .map_err(|e| mismatch(&verdicts_path, n, &format!("not a verdict: {e}")))?;
        let item = &dataset.items[index];
        if v.id != item.id {
            return Err(mismatch(
                &verdicts_path,
                n,
                &format!(
                    "is for `{}`, the generations give `{}`: was the run's input changed?",
                    v.id, item.id
                ),
            ));
        }
        if let Some(audit) = stage.policy.wants(&v) {
            if audit {
                summary.audited += 1;
            } else {
                summary.escalated += 1;
            }
            picked.push((n, audit));
            tasks.push(Task {
                question: item.question.clone(),
                choices: item.choices.clone(),
                answer: g.response,
            });
        }
    }

    let cache = Arc::new(Cache::open(&stage.cache_path)?);
    let counters = Arc::new(Counters::default());
    on_counters(counters.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(io_at(dir))?;
    let outcomes = runtime
        .block_on(judge_all(
            stage.config.clone(),
            stage.rubric.clone(),
            cache,
            tasks,
            counters.clone(),
        ))
        .map_err(|e| GradeError::Judge(e.to_string()))?;
    use std::sync::atomic::Ordering::Relaxed;
    summary.cache_hits = counters.cache_hits.load(Relaxed);
    summary.failures = counters.failures.load(Relaxed);
    summary.requests = counters.requests.load(Relaxed);
    summary.retries = counters.retries.load(Relaxed);
    summary.judged = outcomes.len() as u64 - summary.failures;

    // Rewrite the verdicts with the judge's part, then swap the file in.
    let by_line: HashMap<u64, (bool, Outcome)> = picked
        .into_iter()
        .zip(outcomes)
        .map(|((line, audit), outcome)| (line, (audit, outcome)))
        .collect();
    let judge_name = stage.config.spec.to_string();
    let rubric_name = format!("{}@{}", stage.rubric.id, stage.rubric.version);
    let tmp = dir.join("verdicts.jsonl.tmp");
    {
        let mut out = io::BufWriter::new(std::fs::File::create(&tmp).map_err(io_at(&tmp))?);
        let input = std::fs::File::open(&verdicts_path).map_err(io_at(&verdicts_path))?;
        for (k, line) in io::BufReader::new(input).lines().enumerate() {
            let line = line.map_err(io_at(&verdicts_path))?;
            let mut v: Verdict = serde_json::from_str(&line).map_err(|e| {
                mismatch(&verdicts_path, k as u64 + 1, &format!("not a verdict: {e}"))
            })?;
            reset(&mut v);
            if let Some((audit, outcome)) = by_line.get(&(k as u64 + 1)) {
                apply(&mut v, *audit, outcome, &judge_name, &rubric_name);
            }
            if v.source == Source::Unresolved {
                summary.unresolved += 1;
            }
            serde_json::to_writer(&mut out, &v).map_err(|e| io_at(&tmp)(io::Error::other(e)))?;
            out.write_all(b"\n").map_err(io_at(&tmp))?;
        }
        out.flush().map_err(io_at(&tmp))?;
    }
    std::fs::rename(&tmp, &verdicts_path).map_err(io_at(&verdicts_path))?;
    join.judge = format!(
        "{judge_name} with {rubric_name}: {} escalated, {} audited, {} judged ({} from cache), {} failed",
        summary.escalated, summary.audited, summary.judged, summary.cache_hits, summary.failures
    );
    write_join(dir, &join).map_err(io_at(dir))?;
    Ok(summary)
}

fn mismatch(path: &Path, line: u64, what: &str) -> GradeError {
    GradeError::Report(crate::report::ReportError::BadLine {
        path: path.to_path_buf(),
        line,
        message: what.to_string(),
    })
}

/// Undo an earlier judge stage, so that judging again starts from the verifier's verdict.
fn reset(v: &mut Verdict) {
    let Some(info) = v.judge.take() else { return };
    if info.audit {
        return;
    }
    v.source = Source::Unresolved;
    v.chosen = None;
    v.correct = false;
    v.note = Some(NOT_JUDGED.to_string());
}

fn apply(v: &mut Verdict, audit: bool, outcome: &Outcome, judge: &str, rubric: &str) {
    let set = ChoiceSet::from_str(&v.choices).ok();
    let label = outcome
        .choice()
        .and_then(|c| set.as_ref().map(|s| s.label(c)));
    let (reason, error, cached) = match outcome {
        Outcome::Judged { reply, cached } => (
            Some(match reply {
                crate::judge::JudgeReply::Choice { reason, .. }
                | crate::judge::JudgeReply::Score { reason, .. } => reason.clone(),
            }),
            None,
            *cached,
        ),
        Outcome::Failed { reason } => (None, Some(reason.clone()), false),
    };
    v.judge = Some(JudgeInfo {
        judge: judge.to_string(),
        rubric: rubric.to_string(),
        choice: label.clone(),
        reason,
        error: error.clone(),
        cached,
        audit,
    });
    if audit {
        return;
    }
    match error {
        None => {
            v.source = if cached { Source::Cache } else { Source::Judge };
            v.correct = label.as_deref() == Some(v.gold.as_str());
            v.chosen = label;
            v.note = None;
        }
        Some(e) => {
            v.source = Source::Unresolved;
            v.chosen = None;
            v.correct = false;
            v.note = Some(format!("judge_error: {e}"));
        }
    }
}
