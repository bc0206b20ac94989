//! The judge stage's policy and bookkeeping: which verdicts go to the judge (the escalation
//! policy and a reproducible audit sample of verifier-decided answers), the running judge
//! ([`Escalator`]: a tokio runtime, the cache and the judge's HTTP client, opened before any
//! grading starts), and how a judge's outcome changes a verdict.

use super::GradeError;
use crate::cache::Cache;
use crate::judge::rubric::Rubric;
use crate::judge::run::{Judge, JudgeConfig, Outcome, Task};
use crate::types::{Item, JudgeInfo, Source, Verdict, NOT_JUDGED};
use crate::verify::ChoiceSet;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Verifier outcomes that can be escalated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escalate {
    Ambiguous,
    /// `no_answer` other than `empty`, `refusal` and `truncated`.
    NoAnswer,
    /// `no_answer` because the model never gave a final answer: its reasoning never closed
    /// (`truncated_reasoning`) or the server kept the reasoning apart with no final content
    /// (`reasoning_only`, a reply cut off at `max_tokens` while thinking). A judge shown that
    /// reasoning would grade a thought as the answer (trial 43: 0% → 100% with a judge), as
    /// lm-eval, OpenCompass and Inspect never do; sent only when asked for.
    Truncated,
    /// `no_answer` because the answer was empty.
    Empty,
    /// `no_answer` because the model declined ("잘 모르겠습니다", "I cannot help with that") or
    /// its provider refused (`refusal`, `content_filter`): an answer it chose not to give,
    /// which a judge can only turn into a guess.
    Refusal,
    Invalid,
}

impl FromStr for Escalate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "ambiguous" => Ok(Escalate::Ambiguous),
            "no_answer" => Ok(Escalate::NoAnswer),
            "empty" => Ok(Escalate::Empty),
            "truncated" => Ok(Escalate::Truncated),
            "refusal" => Ok(Escalate::Refusal),
            "invalid" => Ok(Escalate::Invalid),
            other => Err(format!(
                "unknown outcome `{other}` (ambiguous, no_answer, empty, refusal, truncated, invalid)"
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
            "no_answer" if v.rule == "refusal" => Escalate::Refusal,
            "no_answer" if matches!(v.rule.as_str(), "truncated_reasoning" | "reasoning_only") => {
                Escalate::Truncated
            }
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

/// The judge stage at work: the runtime its calls run on, and the judge. Built before any
/// grading starts, so a cache held by another process or a bad setting fails the run at once.
pub struct Escalator {
    policy: Policy,
    /// Ctrl-C, as the judge's client sees it.
    interrupt: crate::client::Interrupt,
    runtime: tokio::runtime::Runtime,
    judge: Arc<Judge>,
    judge_name: String,
    rubric_name: String,
    cache_path: PathBuf,
    summary: JudgeSummary,
}

/// A judgement under way for one verdict.
pub struct Judging {
    audit: bool,
    handle: tokio::task::JoinHandle<Outcome>,
}

impl Judging {
    /// Whether the judgement has finished (reading it will not wait).
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }
}

impl Escalator {
    /// Open the cache and build the judge.
    pub fn start(stage: &JudgeStage) -> Result<Escalator, GradeError> {
        let cache = Arc::new(Cache::open(&stage.cache_path)?);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(super::io_at(&stage.cache_path))?;
        let counters = Arc::new(crate::client::Counters::default());
        let judge = Judge::new(stage.config.clone(), stage.rubric.clone(), cache, counters)
            .map_err(|e| GradeError::Judge(e.to_string()))?;
        Ok(Escalator {
            policy: stage.policy.clone(),
            interrupt: stage.config.client.interrupt.clone(),
            runtime,
            judge: Arc::new(judge),
            judge_name: stage.config.spec.to_string(),
            rubric_name: format!("{}@{}", stage.rubric.id, stage.rubric.version),
            cache_path: stage.cache_path.clone(),
            summary: JudgeSummary::default(),
        })
    }

    /// The judge's live counters.
    pub fn counters(&self) -> Arc<crate::client::Counters> {
        self.judge.counters().clone()
    }

    /// Send `v`'s answer to the judge if the policy wants it.
    pub fn submit(&mut self, v: &Verdict, item: &Item, answer: String) -> Option<Judging> {
        let audit = self.policy.wants(v)?;
        if audit {
            self.summary.audited += 1;
        } else {
            self.summary.escalated += 1;
        }
        self.judge.counters().total.fetch_add(1, Relaxed);
        let (question, choices) = shown_to_judge(v, item);
        let task = Task {
            question,
            choices,
            answer,
        };
        let judge = self.judge.clone();
        let handle = self.runtime.spawn(async move { judge.judge(&task).await });
        Some(Judging { audit, handle })
    }

    /// Wait for a judgement and apply it to its verdict.
    pub fn resolve(&mut self, v: &mut Verdict, judging: Judging) {
        let outcome = self
            .runtime
            .block_on(judging.handle)
            .unwrap_or_else(|e| Outcome::Failed {
                reason: format!("judge task failed: {e}"),
            });
        apply(
            v,
            judging.audit,
            &outcome,
            &self.judge_name,
            &self.rubric_name,
        );
    }

    /// Ctrl-C was pressed: the run is to stop (the judge sends no new request).
    pub fn stopping(&self) -> bool {
        self.interrupt.stopping()
    }

    /// Wait for a judgement without applying it (the run is stopping): a call under way ends
    /// stored in the cache, or cancelled by a second Ctrl-C.
    pub fn wait(&mut self, judging: Judging) {
        let _ = self.runtime.block_on(judging.handle);
    }

    /// What an interrupted stage says: how many new verdicts it stored, and where.
    pub fn interrupted(&self, out_dir: &std::path::Path) -> GradeError {
        let c = self.judge.counters();
        let saved = c
            .done
            .load(Relaxed)
            .saturating_sub(c.failures.load(Relaxed) + c.cache_hits.load(Relaxed));
        GradeError::Interrupted {
            saved,
            cache: self.cache_path.clone(),
            out_dir: out_dir.to_path_buf(),
        }
    }

    /// Count a final verdict. An empty answer, a refusal or an answer never given (reasoning
    /// cut off) that was not judged is no answer, which nothing can resolve: it counts as
    /// wrong, not as unresolved.
    pub fn count(&mut self, v: &Verdict) {
        let no_answer = v.status == "no_answer"
            && matches!(
                v.rule.as_str(),
                "empty" | "refusal" | "truncated_reasoning" | "reasoning_only"
            )
            && v.judge.is_none();
        if v.source == Source::Unresolved && !no_answer {
            self.summary.unresolved += 1;
        }
    }

    /// What the stage did; the line `run.json` and the reports show for it (what was judged,
    /// the same however many verdicts came from the cache); and the line `run.json` and the
    /// terminal show for the calls made (cache hits, requests, retries), which only a rerun
    /// changes.
    pub fn finish(mut self) -> (JudgeSummary, String, String) {
        let counters = self.judge.counters().clone();
        let s = &mut self.summary;
        s.cache_hits = counters.cache_hits.load(Relaxed);
        s.failures = counters.failures.load(Relaxed);
        s.requests = counters.requests.load(Relaxed);
        s.retries = counters.retries.load(Relaxed);
        s.judged = counters.done.load(Relaxed) - s.failures;
        let line = format!(
            "{} with {}: {} escalated, {} audited, {} judged, {} failed",
            self.judge_name, self.rubric_name, s.escalated, s.audited, s.judged, s.failures,
        );
        let calls = format!(
            "{} verdicts from the cache at {}; {} requests, {} retries",
            s.cache_hits,
            self.cache_path.display(),
            s.requests,
            s.retries
        );
        (self.summary, line, calls)
    }
}

/// Undo an earlier judge stage, so that judging again starts from the verifier's verdict.
pub fn reset(v: &mut Verdict) {
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
        // Only an interrupted run has these, and it writes no verdicts; said plainly anyway.
        Outcome::Interrupted => (None, Some("interrupted (Ctrl-C)".to_string()), false),
    };
    // The reason read by the verifier: a stated choice other than the judge's own is flagged,
    // and so are choices it weighs that leave the judge's out ("② 또는 ④", choice ①).
    let reason_conflict = match (&reason, &set, outcome.choice()) {
        (Some(r), Some(set), Some(choice)) => reason_conflicts(r, set, choice),
        _ => false,
    };
    v.judge = Some(JudgeInfo {
        judge: judge.to_string(),
        rubric: rubric.to_string(),
        choice: label.clone(),
        reason,
        error: error.clone(),
        cached,
        audit,
        reason_conflict,
    });
    if audit {
        return;
    }
    match error {
        None => {
            v.source = Source::Judge;
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

/// The question and options the judge is shown: in the notation the model saw (the
/// verdict's `choices`: lm-eval shows KMMLU as `A. …`), so that an answer's "C" is read
/// against the options labelled A–D, not (1)–(4). That needs the item's stem apart from its
/// options (KMMLU's layout renders them after it); otherwise the item as it is.
fn shown_to_judge(v: &Verdict, item: &Item) -> (String, crate::verify::ChoiceSet) {
    let own = (item.question.clone(), item.choices.clone());
    if v.choices == item.choices.to_string() {
        return own;
    }
    let Ok(seen) = v.choices.parse::<crate::verify::ChoiceSet>() else {
        return own;
    };
    let texts: Option<Vec<String>> = (item.choices.choices())
        .map(|c| item.choices.option_text(c).map(str::to_string))
        .collect();
    match (texts, item.choices.question()) {
        (Some(texts), Some(stem))
            if seen.len() == item.choices.len()
                && stem != item.question
                && crate::verify::ChoiceSet::detect(stem).is_none() =>
        {
            let set = seen.with_options(texts).with_question(stem);
            (stem.to_string(), set)
        }
        _ => own,
    }
}

/// Does the judge's `reason`, read by the verifier, state another choice than `choice`, or
/// weigh choices that leave it out?
fn reason_conflicts(
    reason: &str,
    set: &crate::verify::ChoiceSet,
    choice: crate::verify::Choice,
) -> bool {
    match crate::verify::verify(reason, set) {
        crate::verify::Extraction::Ambiguous { candidates, .. } => {
            !candidates.is_empty() && !candidates.contains(&choice)
        }
        e => e.choice().is_some_and(|stated| stated != choice),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trial 39, defect 9: a reason that weighs ② and ④ and never names the judge's ① was
    /// not flagged; only a reason settling on one other label was.
    #[test]
    fn a_reason_weighing_other_options_conflicts_with_the_choice() {
        let set: crate::verify::ChoiceSet = "circled:4".parse().unwrap();
        let c = |label: &str| set.choices().find(|&c| set.label(c) == label).unwrap();
        assert!(reason_conflicts("정답은 ② 또는 ④입니다.", &set, c("①")));
        assert!(!reason_conflicts("정답은 ② 또는 ④입니다.", &set, c("②")));
        assert!(reason_conflicts("정답은 ③입니다.", &set, c("①")));
        assert!(!reason_conflicts("정답은 ①입니다.", &set, c("①")));
        assert!(!reason_conflicts("답이 분명하지 않습니다.", &set, c("①")));
    }

    fn verdict(status: &str, rule: &str) -> Verdict {
        Verdict {
            status: status.into(),
            rule: rule.into(),
            ..Verdict::default()
        }
    }

    /// Trial 39, defect 2: a refusal ("잘 모르겠습니다", a provider's `content_filter`) went to
    /// the judge by default, and a judge's guess turned it into a right answer.
    #[test]
    fn refusals_and_empty_answers_are_not_judged_unless_asked_for() {
        let default = Policy::default();
        assert_eq!(default.wants(&verdict("no_answer", "refusal")), None);
        assert_eq!(default.wants(&verdict("no_answer", "empty")), None);
        assert_eq!(
            default.wants(&verdict("no_answer", "not_found")),
            Some(false)
        );
        assert_eq!(
            default.wants(&verdict("ambiguous", "alternatives")),
            Some(false)
        );
        let asked = Policy {
            escalate: vec!["refusal".parse().unwrap()],
            ..Policy::default()
        };
        assert_eq!(asked.wants(&verdict("no_answer", "refusal")), Some(false));
        assert_eq!(asked.wants(&verdict("no_answer", "not_found")), None);
    }
}
