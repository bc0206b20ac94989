//! The `kgrade` command line: arguments in, library call, exit code out.
//!
//! Exit codes: 0 everything was processed; 1 some input lines could not be read (they are
//! reported and the rest processed); 2 the command could not run (bad arguments, unreadable
//! file). A closed output pipe (`kgrade extract … | head`) ends quietly with 0.

use anyhow::Context;
use clap::{Parser, Subcommand};
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
}

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("kgrade: {err:#}");
            ExitCode::from(2)
        }
    }
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
    }
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
