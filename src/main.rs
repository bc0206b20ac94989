//! The `kgrade` command line: arguments in, library call, exit code out.
//!
//! Exit codes: 0 everything was processed; 1 (`extract`) some input lines could not be read
//! (they are reported and the rest processed); 2 the command could not run (bad arguments,
//! unreadable file, I/O error); 3 (`grade`, `report`) the input data is bad: a dataset row, a
//! generation line or a verdict line names the file, line and field, or `--strict` found join
//! trouble (reports are still written when only generation lines were bad); 4 (`grade
//! --judge`, `judge`) answers remain unresolved after the judge and `--allow-unresolved` was
//! not given. A closed output pipe (`kgrade extract … | head`) ends quietly with 0.

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use kgrade::pipeline::GradeError;
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "kgrade",
    version,
    about = "Grade Korean multiple-choice LLM answers: deterministic verifier first, judge for the rest"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read answers and print what each one chose, with the rule and span that decided it.
    ///
    /// Input: JSONL lines {"id", "question", "response", "choices"?}; `choices` is optional
    /// (circled:N, number:N, letter:N or ox) and otherwise detected from the question.
    /// Output: one JSON line per input line, in order:
    /// {"id", "status", "choice", "index", "rule", "span"} (+ "candidates" when ambiguous,
    /// "text" when invalid, "error" when the line could not be read).
    Extract {
        /// JSONL file to read, or `-` for standard input.
        #[arg(default_value = "-")]
        file: String,
        /// Explain one decision instead: the question text (with its options).
        #[arg(long, requires = "text", conflicts_with = "file")]
        question: Option<String>,
        /// Explain one decision instead: the model's answer.
        #[arg(long, requires = "question")]
        text: Option<String>,
        /// With --question/--text: the choice set (circled:N, number:N, letter:N, ox).
        #[arg(long)]
        choices: Option<String>,
    },
    /// Join a dataset with a model's generations, verify every answer, and write
    /// OUT/verdicts.jsonl, OUT/report.json, OUT/report.md and OUT/run.json.
    Grade {
        /// Dataset: domain_eval CSV, KMMLU CSV, or any CSV/JSONL with --question-col/--answer-col.
        #[arg(long)]
        dataset: PathBuf,
        /// Generations JSONL: plain {"id","response"}, lm-eval --log_samples, or OpenAI batch output.
        #[arg(long)]
        generations: PathBuf,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Group reports by these columns (comma-separated); default: every one of
        /// domain, sub_domain, format, lang, Category present.
        #[arg(long, value_delimiter = ',')]
        by: Option<Vec<String>>,
        /// Generations shape instead of detecting it: plain, lm-eval, openai-batch.
        #[arg(long)]
        generations_format: Option<kgrade::generations::GenerationsFormat>,
        /// Dataset id column (default: `id` if present, else the 0-based row index).
        #[arg(long)]
        id_col: Option<String>,
        /// Dataset question column (default: `question`).
        #[arg(long)]
        question_col: Option<String>,
        /// Dataset answer column (default: `answer`).
        #[arg(long)]
        answer_col: Option<String>,
        /// Choice set for every item (circled:N, number:N, letter:N, ox) instead of detecting it.
        #[arg(long)]
        choices: Option<String>,
        /// Fail (exit 3) on unknown ids, items without generations, duplicate dataset ids or
        /// unreadable generation lines; reports are still written.
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        judge: JudgeArgs,
    },
    /// Judge a graded run again (OUT of `kgrade grade`): escalated answers and an audit
    /// sample go to the judge, verdicts.jsonl and the reports are rewritten.
    Judge {
        /// The run directory written by `kgrade grade`.
        dir: PathBuf,
        #[command(flatten)]
        judge: JudgeArgs,
        /// Group reports by these columns (comma-separated); default as for `grade`.
        #[arg(long, value_delimiter = ',')]
        by: Option<Vec<String>>,
    },
    /// Inspect or clear the judge verdict cache.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
        /// The cache directory.
        #[arg(long, global = true, default_value = kgrade::cache::DEFAULT_CACHE)]
        cache: PathBuf,
    },
    /// Rebuild report.json and report.md from a verdicts file without grading again.
    Report {
        /// A verdicts.jsonl written by `kgrade grade`.
        verdicts: PathBuf,
        /// Group by these columns (comma-separated); default as for `grade`.
        #[arg(long, value_delimiter = ',')]
        by: Option<Vec<String>>,
        /// Where to write the reports (default: beside the verdicts).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum CacheAction {
    /// Entries, size on disk, and entries per judge model and rubric.
    Stats,
    /// Every entry as a JSON line on standard output.
    Export,
    /// Remove every entry.
    Clear,
}

/// Judge options shared by `grade` and `judge`.
#[derive(Args, Clone)]
struct JudgeArgs {
    /// The judge: ollama:MODEL (host from OLLAMA_HOST, default http://127.0.0.1:11434) or
    /// openai:BASE_URL#MODEL (e.g. openai:http://127.0.0.1:8000/v1#gpt-oss-20b).
    #[arg(long)]
    judge: Option<String>,
    /// Environment variable holding the bearer key for openai: judges.
    #[arg(long, default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    /// Rubric id (a file RUBRICS_DIR/ID.md).
    #[arg(long, default_value = "mc_final_answer")]
    rubric: String,
    /// Directory of rubric files.
    #[arg(long, default_value = "rubrics")]
    rubrics_dir: PathBuf,
    /// Verifier outcomes sent to the judge (comma-separated: ambiguous, no_answer, empty, invalid).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "ambiguous,no_answer,invalid"
    )]
    escalate: Vec<kgrade::escalate::Escalate>,
    /// Fraction of verifier-decided answers also sent to the judge, for agreement figures.
    #[arg(long, default_value_t = 0.0)]
    audit_rate: f64,
    /// Seed of the audit sample (the same seed picks the same answers).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Requests per second.
    #[arg(long, default_value_t = 5.0)]
    rps: f64,
    /// Requests allowed above --rps in a burst (1 keeps a strict provider limit).
    #[arg(long, default_value_t = 1)]
    burst: u32,
    /// Optional limit on tokens per minute (estimated from prompt length).
    #[arg(long)]
    tpm: Option<u32>,
    /// Judge calls in flight at once.
    #[arg(long, default_value_t = 4)]
    max_concurrency: usize,
    /// Seconds before one request times out.
    #[arg(long, default_value_t = 120.0)]
    timeout: f64,
    /// Retries after a 429, 5xx, timeout, dropped connection or malformed reply.
    #[arg(long, default_value_t = 5)]
    max_retries: u32,
    /// The first retry's wait in milliseconds when the server gives no Retry-After
    /// (doubles each time, with jitter, capped at 60 s).
    #[arg(long, default_value_t = 1000)]
    backoff_ms: u64,
    /// The verdict cache directory.
    #[arg(long, default_value = kgrade::cache::DEFAULT_CACHE)]
    cache: PathBuf,
    /// Exit 0 even when answers remain unresolved after the judge.
    #[arg(long)]
    allow_unresolved: bool,
}

impl JudgeArgs {
    /// The judge stage these options describe, or None without --judge.
    fn stage(&self) -> anyhow::Result<Option<kgrade::escalate::JudgeStage>> {
        let Some(spec) = &self.judge else {
            return Ok(None);
        };
        let spec: kgrade::judge::JudgeSpec = spec
            .parse()
            .map_err(anyhow::Error::msg)
            .context("--judge")?;
        let api_key = match spec.backend {
            kgrade::judge::Backend::OpenAi { .. } => std::env::var(&self.api_key_env)
                .ok()
                .filter(|k| !k.is_empty()),
            kgrade::judge::Backend::Ollama { .. } => None,
        };
        let rubric = kgrade::judge::rubric::Rubric::load(&self.rubrics_dir, &self.rubric)?;
        if rubric.kind != kgrade::judge::rubric::RubricKind::Choice {
            anyhow::bail!("--rubric {}: grading multiple-choice answers needs a choice rubric such as mc_final_answer", rubric.id);
        }
        if !(0.0..=1.0).contains(&self.audit_rate) {
            anyhow::bail!("--audit-rate must be between 0 and 1");
        }
        if !(self.timeout > 0.0 && self.timeout.is_finite()) {
            anyhow::bail!("--timeout must be a positive number of seconds");
        }
        Ok(Some(kgrade::escalate::JudgeStage {
            config: kgrade::judge::run::JudgeConfig {
                spec,
                api_key,
                rps: self.rps,
                burst: self.burst,
                tpm: self.tpm,
                max_concurrency: self.max_concurrency,
                timeout: std::time::Duration::from_secs_f64(self.timeout),
                max_retries: self.max_retries,
                backoff_base: std::time::Duration::from_millis(self.backoff_ms),
            },
            rubric,
            cache_path: self.cache.clone(),
            policy: kgrade::escalate::Policy {
                escalate: self.escalate.clone(),
                audit_rate: self.audit_rate,
                seed: self.seed,
            },
        }))
    }
}

/// A progress bar for judge calls, updated from the live counters until they are all done.
fn judge_progress(
    counters: std::sync::Arc<kgrade::judge::run::Counters>,
) -> std::thread::JoinHandle<()> {
    use std::sync::atomic::Ordering::Relaxed;
    std::thread::spawn(move || {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} judging [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        loop {
            let total = counters.total.load(Relaxed);
            let done = counters.done.load(Relaxed);
            bar.set_length(total);
            bar.set_position(done);
            bar.set_message(format!(
                "cache hits {}, retries {}, failed {}",
                counters.cache_hits.load(Relaxed),
                counters.retries.load(Relaxed),
                counters.failures.load(Relaxed)
            ));
            if total > 0 && done >= total {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        bar.finish_and_clear();
    })
}

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("kgrade: {err:#}");
            if is_bad_data(&err) {
                ExitCode::from(3)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

fn is_bad_data(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<kgrade::dataset::DatasetError>().is_some()
            || matches!(
                e.downcast_ref::<kgrade::report::ReportError>(),
                Some(kgrade::report::ReportError::BadLine { .. })
            )
            || matches!(
                e.downcast_ref::<GradeError>(),
                Some(GradeError::Dataset(_) | GradeError::Strict(_))
                    | Some(GradeError::Report(
                        kgrade::report::ReportError::BadLine { .. }
                    ))
            )
    })
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn try_main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Extract {
            file,
            question,
            text,
            choices,
        } => {
            if let (Some(q), Some(t)) = (question, text) {
                return explain(&q, &t, choices.as_deref());
            }
            extract(&file)
        }
        Command::Grade {
            dataset,
            generations,
            out,
            by,
            generations_format,
            id_col,
            question_col,
            answer_col,
            choices,
            strict,
            judge,
        } => {
            let choices = choices
                .map(|c| c.parse::<kgrade::verify::ChoiceSet>())
                .transpose()
                .context("--choices")?;
            let stage = judge.stage()?;
            let opts = kgrade::pipeline::GradeOptions {
                dataset: &dataset,
                columns: kgrade::dataset::ColumnMap {
                    id: id_col,
                    question: question_col,
                    answer: answer_col,
                    choices,
                },
                generations: &generations,
                generations_format,
                out_dir: &out,
                by,
                strict,
                judge: stage.as_ref(),
            };
            grade(opts, judge.allow_unresolved)
        }
        Command::Judge { dir, judge, by } => judge_again(&dir, &judge, by),
        Command::Cache { action, cache } => cache_command(action, &cache),
        Command::Report { verdicts, by, out } => report(&verdicts, by, out),
    }
}

/// A progress bar over bytes with rate and ETA; hidden when stderr is not a terminal.
fn progress_bar(total: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} verifying [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

/// The top-level entry point for `kgrade grade`.
fn grade(opts: kgrade::pipeline::GradeOptions, allow_unresolved: bool) -> anyhow::Result<ExitCode> {
    let total = std::fs::metadata(opts.generations).map_or(0, |m| m.len());
    let bar = progress_bar(total);
    let out_dir = opts.out_dir.to_path_buf();
    let mut unreadable = 0u64;
    let mut judge_bar = None;
    let result = kgrade::pipeline::run_grade(
        opts,
        |bytes| bar.set_position(bytes),
        |e| {
            unreadable += 1;
            bar.suspend(|| eprintln!("kgrade: {e}"));
        },
        |counters| {
            bar.finish_and_clear();
            judge_bar = Some(judge_progress(counters));
        },
    );
    bar.finish_and_clear();
    if let Some(handle) = judge_bar {
        let _ = handle.join();
    }
    let outcome = result?;
    print!("{}", outcome.built.summary);
    println!(
        "wrote {}/verdicts.jsonl, report.json, report.md",
        out_dir.display()
    );
    if unreadable > 0 {
        eprintln!("kgrade: {unreadable} generation lines could not be read (listed in the report)");
        return Ok(ExitCode::from(3));
    }
    if let Some(summary) = &outcome.judged {
        return Ok(unresolved_exit(summary, allow_unresolved));
    }
    Ok(ExitCode::SUCCESS)
}

/// Exit 4 when a judge was configured and answers remain unresolved, unless allowed.
fn unresolved_exit(summary: &kgrade::escalate::JudgeSummary, allow: bool) -> ExitCode {
    if summary.unresolved > 0 && !allow {
        eprintln!(
            "kgrade: {} answers remain unresolved ({} judge failures); see the audit in report.md, or pass --allow-unresolved",
            summary.unresolved, summary.failures
        );
        return ExitCode::from(4);
    }
    ExitCode::SUCCESS
}

/// The top-level entry point for `kgrade judge DIR`.
fn judge_again(
    dir: &std::path::Path,
    judge: &JudgeArgs,
    by: Option<Vec<String>>,
) -> anyhow::Result<ExitCode> {
    let stage = judge.stage()?.context("kgrade judge needs --judge")?;
    let mut handle = None;
    let result = kgrade::escalate::judge_dir(dir, &stage, |counters| {
        handle = Some(judge_progress(counters));
    });
    if let Some(h) = handle {
        let _ = h.join();
    }
    let summary = result?;
    let join = kgrade::pipeline::read_join(dir);
    let by = kgrade::pipeline::grouping(by);
    let built = kgrade::report::build(&dir.join("verdicts.jsonl"), dir, &by, join.as_ref())?;
    print!("{}", built.summary);
    println!(
        "wrote {}/verdicts.jsonl, report.json, report.md",
        dir.display()
    );
    Ok(unresolved_exit(&summary, judge.allow_unresolved))
}

/// The top-level entry point for `kgrade cache`.
fn cache_command(action: CacheAction, path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let cache = kgrade::cache::Cache::open(path)?;
    match action {
        CacheAction::Stats => {
            let stats = cache.stats()?;
            println!("{}", serde_json::to_string_pretty(&stats)?);
        }
        CacheAction::Export => {
            let stdout = io::stdout();
            let mut out = io::BufWriter::new(stdout.lock());
            let n = cache.export(&mut out)?;
            out.flush()?;
            eprintln!("kgrade: exported {n} entries");
        }
        CacheAction::Clear => {
            let n = cache.clear()?;
            println!("cleared {n} entries from {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The top-level entry point for `kgrade report`.
fn report(
    verdicts: &std::path::Path,
    by: Option<Vec<String>>,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let dir = verdicts
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let out = out.unwrap_or_else(|| dir.clone());
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let join = kgrade::pipeline::read_join(&dir);
    let by = kgrade::pipeline::grouping(by);
    let built = kgrade::report::build(verdicts, &out, &by, join.as_ref())?;
    print!("{}", built.summary);
    println!("wrote {}/report.json, report.md", out.display());
    Ok(ExitCode::SUCCESS)
}

/// The top-level entry point for `kgrade extract --question Q --text T`.
fn explain(question: &str, text: &str, choices: Option<&str>) -> anyhow::Result<ExitCode> {
    let report = kgrade::extract::explain(question, text, choices).map_err(anyhow::Error::msg)?;
    io::stdout().write_all(report.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The top-level entry point for `kgrade extract [FILE|-]`.
fn extract(file: &str) -> anyhow::Result<ExitCode> {
    let stdout = io::stdout().lock();
    let mut report = |e: &kgrade::extract::LineError| eprintln!("kgrade: {e}");
    let summary = if file == "-" {
        kgrade::extract::run("<stdin>", io::stdin().lock(), stdout, &mut report)?
    } else {
        let path = PathBuf::from(file);
        let f = File::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
        kgrade::extract::run(
            file,
            BufReader::with_capacity(1 << 16, f),
            stdout,
            &mut report,
        )?
    };
    if summary.failed > 0 {
        eprintln!(
            "kgrade: {} of {} lines could not be read",
            summary.failed, summary.lines
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
