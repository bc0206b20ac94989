//! `kgrade report`: rebuild the reports from a verdicts file without grading again.

use super::out;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ReportArgs {
    /// A verdicts.jsonl written by `kgrade grade`, or the run folder that holds it.
    verdicts: PathBuf,
    /// Group by these columns (comma-separated); default as for `grade`.
    #[arg(long, value_delimiter = ',')]
    by: Option<Vec<String>>,
    /// Where to write the reports (default: beside the verdicts).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The top-level entry point for `kgrade report`.
pub fn run(mut args: ReportArgs) -> anyhow::Result<ExitCode> {
    if args.verdicts.is_dir() {
        args.verdicts = args.verdicts.join("verdicts.jsonl");
    }
    let dir = args
        .verdicts
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let out = args.out.unwrap_or_else(|| dir.clone());
    kgrade::report::staging::create_out_dir(&out)
        .with_context(|| format!("--out {}", out.display()))?;
    let join = kgrade::types::read_run(&dir);
    let default = kgrade::stages::grade::grouping(None);
    let built = kgrade::report::build(
        &args.verdicts,
        &out,
        args.by.as_deref(),
        &default,
        join.as_ref(),
    )?;
    out!("{}", built.summary)?;
    out!(
        "wrote {}/report.json, report.md, report.html, results.json\n",
        out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
