//! `kgrade extract`: the verifier alone, over a JSONL stream or one question and answer.

use anyhow::Context;
use clap::Args;
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ExtractArgs {
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
}

/// The top-level entry point for `kgrade extract`.
pub fn run(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    if let (Some(q), Some(t)) = (&args.question, &args.text) {
        return explain(q, t, args.choices.as_deref());
    }
    extract(&args.file)
}

/// `kgrade extract --question Q --text T`: one decision, explained.
fn explain(question: &str, text: &str, choices: Option<&str>) -> anyhow::Result<ExitCode> {
    let report =
        kgrade::stages::extract::explain(question, text, choices).map_err(anyhow::Error::msg)?;
    io::stdout().write_all(report.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `kgrade extract [FILE|-]`: one output line per input line.
fn extract(file: &str) -> anyhow::Result<ExitCode> {
    let stdout = io::stdout().lock();
    // The first lines that fail are named; every one has its error line in the output.
    let mut shown = 0u32;
    let mut report = |e: &kgrade::stages::extract::LineError| {
        shown += 1;
        match shown {
            1..=20 => say!("kgrade: {e}"),
            21 => say!("kgrade: more lines could not be read; each has its error in the output"),
            _ => {}
        }
    };
    let summary = if file == "-" {
        kgrade::stages::extract::run("<stdin>", io::stdin().lock(), stdout, &mut report)?
    } else {
        let path = PathBuf::from(file);
        let f = File::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
        kgrade::stages::extract::run(
            file,
            BufReader::with_capacity(1 << 16, f),
            stdout,
            &mut report,
        )?
    };
    if summary.lines == 0 {
        // An empty input extracts nothing: that is not a success.
        say!("kgrade: {file}: no lines to extract");
        return Ok(ExitCode::from(3));
    }
    if summary.failed > 0 {
        say!(
            "kgrade: {} of {} lines could not be read",
            summary.failed,
            summary.lines
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
