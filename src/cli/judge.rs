//! The judge options shared by `grade` and `judge`, and `kgrade judge DIR`.

use super::limits::{self, fraction};
use super::out;
use super::progress::Progress;
use anyhow::Context;
use clap::Args;
use kgrade::judge::rubric::{Rubric, RubricKind};
use kgrade::judge::{Backend, JudgeSpec};
use kgrade::stages::escalate::{Escalate, JudgeStage, JudgeSummary, Policy};
use std::path::PathBuf;
use std::process::ExitCode;

/// Judge options shared by `grade` and `judge`.
#[derive(Args, Clone)]
pub struct JudgeArgs {
    /// The judge: ollama:MODEL (host from OLLAMA_HOST, default http://127.0.0.1:11434) or
    /// openai:BASE_URL#MODEL (e.g. openai:http://127.0.0.1:8000/v1#gpt-oss-20b).
    #[arg(long)]
    judge: Option<String>,
    /// Environment variable holding the bearer key for openai: judges; a variable named here
    /// must be set. Default: OPENAI_API_KEY, if set.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Rubric id: a built-in rubric (mc_final_answer), or a file RUBRICS_DIR/ID.md.
    #[arg(long, default_value = "mc_final_answer")]
    rubric: String,
    /// Directory of your own rubric files (default: the rubrics built into kgrade).
    #[arg(long)]
    rubrics_dir: Option<PathBuf>,
    /// Verifier outcomes sent to the judge (comma-separated: ambiguous, no_answer, empty, refusal, truncated, invalid; by default all but empty, refusal and truncated: reasoning that never reached a final answer).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "ambiguous,no_answer,invalid"
    )]
    escalate: Vec<Escalate>,
    /// Fraction of verifier-decided answers also sent to the judge, for agreement figures.
    #[arg(long, default_value_t = 0.0, value_parser = fraction)]
    audit_rate: f64,
    /// Seed of the audit sample (the same seed picks the same answers).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Requests per second (0.001 to 100000).
    #[arg(long, default_value_t = 5.0, value_parser = limits::rate)]
    rps: f64,
    /// Requests allowed above --rps in a burst (1 keeps a strict provider limit).
    #[arg(long, default_value_t = 1, value_parser = limits::count::<1, 100_000>)]
    burst: u32,
    /// Optional limit on tokens per minute (estimated from prompt length).
    #[arg(long, value_parser = limits::count::<1, 1_000_000_000>)]
    tpm: Option<u32>,
    /// Judge calls in flight at once (1 to 1024).
    #[arg(long, default_value_t = 4, value_parser = limits::concurrency)]
    max_concurrency: usize,
    /// Seconds before one request times out (up to a day).
    #[arg(long, default_value_t = 120.0, value_parser = limits::seconds)]
    timeout: f64,
    /// Retries after a 429, 5xx, timeout, dropped connection or malformed reply (0 to 100).
    #[arg(long, default_value_t = 5, value_parser = limits::count::<0, 100>)]
    max_retries: u32,
    /// The first retry's wait in milliseconds when the server gives no Retry-After
    /// (doubles each time, with jitter, capped at 60 s).
    #[arg(long, default_value_t = 1000, value_parser = limits::millis)]
    backoff_ms: u64,
    /// The verdict cache directory (default: $KGRADE_CACHE, else $XDG_CACHE_HOME/kgrade,
    /// else ~/.cache/kgrade).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// The most tokens a judge reply may have (always sent: servers default to unbounded
    /// output, and a small model looping inside its reason would run to the timeout).
    #[arg(long = "judge-max-tokens", default_value_t = kgrade::judge::run::DEFAULT_JUDGE_MAX_TOKENS, value_parser = limits::count::<16, 100_000>)]
    judge_max_tokens: u32,
    /// Exit 0 even when answers remain unresolved after the judge.
    #[arg(long)]
    pub allow_unresolved: bool,
}

impl JudgeArgs {
    /// The judge stage these options describe, or None without --judge. With a judge, Ctrl-C
    /// from now on stops the run cleanly (see [`super::ctrl_c`]) instead of ending the process.
    pub fn stage(&self) -> anyhow::Result<Option<JudgeStage>> {
        let Some(spec) = &self.judge else {
            // An audit sample with no judge to send it to would do nothing, silently.
            if self.audit_rate > 0.0 {
                anyhow::bail!(
                    "--audit-rate {}: an audit sample is judged, so it needs --judge",
                    self.audit_rate
                );
            }
            return Ok(None);
        };
        let spec: JudgeSpec = spec
            .parse()
            .map_err(anyhow::Error::msg)
            .context("--judge")?;
        let api_key = match spec.backend {
            Backend::OpenAi { .. } => super::api_key(self.api_key_env.as_deref())?,
            Backend::Ollama { .. } => None,
        };
        let rubric = Rubric::resolve(self.rubrics_dir.as_deref(), &self.rubric)?;
        if rubric.kind != RubricKind::Choice {
            anyhow::bail!("--rubric {}: grading multiple-choice answers needs a choice rubric such as mc_final_answer", rubric.id);
        }
        self.warn_if_tpm_below_one_request(&rubric);
        Ok(Some(JudgeStage {
            config: kgrade::judge::run::JudgeConfig {
                spec,
                client: kgrade::client::ClientConfig {
                    api_key,
                    rps: self.rps,
                    burst: self.burst,
                    tpm: self.tpm,
                    max_concurrency: self.max_concurrency,
                    timeout: std::time::Duration::from_secs_f64(self.timeout),
                    max_retries: self.max_retries,
                    backoff_base: std::time::Duration::from_millis(self.backoff_ms),
                    interrupt: super::ctrl_c::on_ctrl_c(
                        "stopping: no new judge requests are sent; waiting for those under way to finish (press Ctrl-C again to cancel them)",
                    )
                    .context("listening for Ctrl-C")?,
                },
                max_tokens: self.judge_max_tokens,
            },
            rubric,
            cache_path: self
                .cache
                .clone()
                .unwrap_or_else(kgrade::cache::default_path),
            policy: Policy {
                escalate: self.escalate.clone(),
                audit_rate: self.audit_rate,
                seed: self.seed,
            },
        }))
    }
}

impl JudgeArgs {
    /// One request over --tpm waits a whole minute of tokens and still goes over the limit,
    /// so the judge crawls with no word (as `generate` warns, trial 42 defect 7). Every
    /// judge request holds at least the rubric with an empty question and answer, plus
    /// --judge-max-tokens: a --tpm below that is below every request.
    fn warn_if_tpm_below_one_request(&self, rubric: &Rubric) {
        let Some(tpm) = self.tpm else { return };
        let least = kgrade::verify::ChoiceSet::new(kgrade::verify::Notation::Number, 2)
            .ok()
            .and_then(|choices| rubric.render_choice("", &choices, "").ok())
            .map_or(0, |messages| {
                kgrade::judge::run::estimated_tokens(&messages, self.judge_max_tokens)
            });
        if least > tpm {
            say!(
                "kgrade: warning: --tpm {tpm} is below one judge request's estimate (at least ~{least} tokens: the rubric {} and --judge-max-tokens {}); each request waits a whole minute and still goes over the limit: raise --tpm or lower --judge-max-tokens",
                rubric.id, self.judge_max_tokens
            );
        }
    }
}

#[derive(Args)]
pub struct JudgeCommandArgs {
    /// The run directory written by `kgrade grade`.
    dir: PathBuf,
    #[command(flatten)]
    judge: JudgeArgs,
    /// Group reports by these columns (comma-separated); default as for `grade`.
    #[arg(long, value_delimiter = ',')]
    by: Option<Vec<String>>,
}

/// Exit 4 when a judge was configured and answers remain unresolved, unless allowed.
pub fn unresolved_exit(summary: &JudgeSummary, allow: bool) -> Option<ExitCode> {
    if summary.unresolved > 0 && !allow {
        say!(
            "kgrade: {} answers remain unresolved ({} judge failures); see the audit in report.md, or pass --allow-unresolved",
            summary.unresolved, summary.failures
        );
        return Some(ExitCode::from(4));
    }
    None
}

/// The top-level entry point for `kgrade judge DIR`.
pub fn run(args: JudgeCommandArgs) -> anyhow::Result<ExitCode> {
    let stage = args.judge.stage()?.context("kgrade judge needs --judge")?;
    let mut progress = Progress::new(0);
    let result = kgrade::stages::rejudge::judge_dir(&args.dir, &stage, args.by, &mut progress);
    progress.finish();
    let done = result?;
    // A closed stdout stops the printing, not the exit code.
    let shown = out!("{}", done.built.summary).and_then(|()| {
        out!(
            "wrote {}/verdicts.jsonl, run.json, report.json, report.md, report.html, results.json\n",
            args.dir.display()
        )
    });
    if let Some(code) = unresolved_exit(&done.summary, args.judge.allow_unresolved) {
        return Ok(code);
    }
    shown?;
    Ok(ExitCode::SUCCESS)
}
