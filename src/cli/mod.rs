//! The commands and their arguments, one module per command, and how errors map to exit
//! codes (documented in `main.rs` and the README).

mod cache;
mod columns;
mod compare;
mod ctrl_c;
mod extract;
mod generate;
mod grade;
mod judge;
mod limits;
mod progress;
mod report;

use clap::{Parser, Subcommand};
use kgrade::report::leaderboard::CompareError;
use kgrade::report::ReportError;
use kgrade::stages::GradeError;
use std::io;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "kgrade",
    version,
    about = "Grade Korean multiple-choice LLM answers: deterministic verifier first, judge for the rest"
)]
pub struct Cli {
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
    Extract(extract::ExtractArgs),
    /// Ask OpenAI-compatible servers (vLLM, llama.cpp, hosted APIs) for candidate answers
    /// and write them as generations JSONL for `grade`; resumable, spread over replicas,
    /// optionally with circular evaluation or as an OpenAI batch file.
    ///
    /// Output lines: {"id", "sample", "ordering"? (circular), "response",
    /// "reasoning_content"?, "finish_reason", "usage", "model", "question"} (the start of the
    /// item's question, which `grade` checks), with "prompt" when a --template shows the
    /// options in another notation, "refusal" when the provider declined, and "error" for a
    /// request that failed after every retry; in dataset order.
    ///
    /// Ctrl-C stops new requests and lets those under way finish (a second Ctrl-C cancels
    /// them), writes every answer received to OUT, says how many were saved and exits with
    /// 130; the same command then asks only for the rest.
    Generate(generate::GenerateArgs),
    /// Join a dataset with a model's generations, verify every answer, and write
    /// OUT/verdicts.jsonl, OUT/run.json, OUT/report.json, OUT/report.md, OUT/report.html and
    /// OUT/results.json (lm-eval's results layout).
    Grade(grade::GradeArgs),
    /// Judge a graded run again (OUT of `kgrade grade`): escalated answers and an audit
    /// sample go to the judge, verdicts.jsonl and the reports are rewritten.
    Judge(judge::JudgeCommandArgs),
    /// Inspect, export or clear the cache of judge verdicts and generated answers.
    Cache(cache::CacheArgs),
    /// Rebuild report.json, report.md, report.html and results.json from a verdicts file
    /// without grading again.
    Report(report::ReportArgs),
    /// Compare graded runs (different models on the same dataset): accuracy, Bradley–Terry
    /// ratings with bootstrap intervals, McNemar tests; writes OUT/leaderboard.json, .md and
    /// .html and prints the table.
    Compare(compare::CompareArgs),
}

impl Cli {
    /// Run the command; the exit code on success, or the error to print.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self.command {
            Command::Extract(args) => extract::run(args),
            Command::Generate(args) => generate::run(args),
            Command::Grade(args) => grade::run(args),
            Command::Judge(args) => judge::run(args),
            Command::Cache(args) => cache::run(args),
            Command::Report(args) => report::run(args),
            Command::Compare(args) => compare::run(args),
        }
    }
}

/// The variable `--api-key-env` defaults to.
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";

/// The bearer key: from the variable `--api-key-env` names, which must then be set (a typo
/// would otherwise send no key at all and fail far from its cause, as a 401 per request);
/// without the flag, from `OPENAI_API_KEY` if set (local servers need no key).
pub fn api_key(named: Option<&str>) -> anyhow::Result<Option<String>> {
    match named {
        Some(var) => match std::env::var(var) {
            Ok(key) if !key.is_empty() => Ok(Some(key)),
            _ => anyhow::bail!(
                "--api-key-env {var}: the environment variable {var} is not set (or is empty)"
            ),
        },
        None => Ok(std::env::var(DEFAULT_KEY_ENV)
            .ok()
            .filter(|k| !k.is_empty())),
    }
}

/// Bad input data (exit 3): a dataset row, a generation or verdict line, or `--strict`. A
/// dataset that cannot be read at all is not bad data but a command that could not run (2),
/// as for every other unreadable file.
pub fn is_bad_data(err: &anyhow::Error) -> bool {
    use kgrade::inputs::dataset::DatasetError;
    let bad = |d: &DatasetError| !d.unreadable;
    err.chain().any(|e| {
        e.downcast_ref::<DatasetError>().is_some_and(bad)
            || matches!(
                e.downcast_ref::<ReportError>(),
                Some(ReportError::BadLine { .. } | ReportError::NothingGraded { .. })
            )
            || matches!(
                e.downcast_ref::<CompareError>(),
                Some(CompareError::Report(ReportError::BadLine { .. }))
            )
            || matches!(
                e.downcast_ref::<GradeError>(),
                Some(GradeError::Dataset(d)) if bad(d)
            )
            || matches!(
                e.downcast_ref::<GradeError>(),
                Some(
                    GradeError::Strict(_)
                        | GradeError::NothingGraded(_)
                        | GradeError::QuestionsDiffer(_)
                        | GradeError::IdsShifted(_)
                ) | Some(GradeError::Report(
                    ReportError::BadLine { .. } | ReportError::NothingGraded { .. }
                ))
            )
            || matches!(
                e.downcast_ref::<kgrade::stages::generate::GenerateError>(),
                Some(kgrade::stages::generate::GenerateError::Dataset(d)) if bad(d)
            )
    })
}

/// Ctrl-C ended the run (exit 130): what was saved is said in the error's message.
pub fn interrupted_exit(err: &anyhow::Error) -> Option<ExitCode> {
    err.chain()
        .any(|e| {
            matches!(
                e.downcast_ref::<GradeError>(),
                Some(GradeError::Interrupted { .. })
            )
        })
        .then(|| ExitCode::from(ctrl_c::INTERRUPTED))
}

/// Write to standard output like `print!`, but hand back the error instead of panicking:
/// a closed pipe (`kgrade grade … | head -1`) comes back as the I/O error that
/// [`is_broken_pipe`] recognises, and `main` ends quietly with 0. Every command prints
/// through this; the files a command writes are written before it prints.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*))
    };
}
pub(crate) use out;

/// What [`out!`] expands to: format onto the locked standard output and flush it.
pub fn write_stdout(args: std::fmt::Arguments) -> io::Result<()> {
    use std::io::Write;
    let mut stdout = io::stdout().lock();
    stdout.write_fmt(args)?;
    stdout.flush()
}

/// A closed output pipe: a graceful end, as `kgrade extract … | head` expects.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        let io = e
            .downcast_ref::<io::Error>()
            .or_else(|| match e.downcast_ref::<GradeError>() {
                Some(GradeError::Io { error, .. }) => Some(error),
                _ => None,
            })
            .or_else(|| match e.downcast_ref::<ReportError>() {
                Some(ReportError::Io { error, .. }) => Some(error),
                _ => None,
            });
        io.is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
