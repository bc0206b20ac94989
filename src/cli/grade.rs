//! `kgrade grade`: dataset + generations → verdicts, run record and reports.

use super::columns::ColumnArgs;
use super::judge::{unresolved_exit, JudgeArgs};
use super::out;
use super::progress::Progress;
use clap::Args;
use kgrade::inputs::generations::GenerationsFormat;
use kgrade::stages::grade::{run_grade, GradeOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct GradeArgs {
    /// Dataset: domain_eval CSV, KMMLU CSV, or any CSV/JSONL with --question-col/--answer-col;
    /// or a folder of them, one subject per file (ids become SUBJECT/ID).
    #[arg(long)]
    dataset: PathBuf,
    /// Generations JSONL: plain {"id","response"}, lm-eval --log_samples, OpenAI batch output
    /// (chat, Responses API, error files), Ollama /api/chat lines; an OpenCompass predictions
    /// file (predictions/<model>/<dataset>.json); or an lm-eval --output_path folder (every
    /// samples_<task>_<date>.jsonl in it) or one model's OpenCompass predictions folder.
    #[arg(long)]
    generations: PathBuf,
    /// A regular expression whose first capture group turns a generation id (an OpenAI
    /// batch custom_id such as kmmlu-public-safety-17) into a dataset id (17).
    #[arg(long, value_parser = id_pattern, allow_hyphen_values = true)]
    id_pattern: Option<regex::Regex>,
    /// Output directory (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Group reports by these columns (comma-separated); default: every one of
    /// domain, sub_domain, format, lang, Category present.
    #[arg(long, value_delimiter = ',')]
    by: Option<Vec<String>>,
    /// Generations shape instead of detecting it: plain, lm-eval, openai-batch, ollama,
    /// opencompass.
    #[arg(long)]
    generations_format: Option<GenerationsFormat>,
    #[command(flatten)]
    columns: ColumnArgs,
    /// Fail (exit 3) on unknown ids, items without generations, duplicate dataset ids or
    /// unreadable generation lines; reports are still written.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    judge: JudgeArgs,
}

/// `--id-pattern`: a regular expression with at least one capture group.
fn id_pattern(s: &str) -> Result<regex::Regex, String> {
    let re = regex::Regex::new(s).map_err(|e| e.to_string())?;
    if re.captures_len() < 2 {
        return Err("needs one capture group, e.g. '-(\\d+)$'".into());
    }
    Ok(re)
}

/// The top-level entry point for `kgrade grade`.
pub fn run(args: GradeArgs) -> anyhow::Result<ExitCode> {
    // Both inputs missing (a command run from the wrong folder): name both, and the folder
    // the paths are read from, rather than only the first file opened.
    if !args.dataset.exists() && !args.generations.exists() {
        let here = std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string());
        anyhow::bail!(
            "{}: cannot open (no such file or folder); {}: cannot open (no such file or folder); \
             both paths are read from {here}",
            args.dataset.display(),
            args.generations.display()
        );
    }
    let columns = args.columns.column_map()?;
    let stage = args.judge.stage()?;
    let opts = GradeOptions {
        dataset: &args.dataset,
        columns,
        generations: &args.generations,
        generations_format: args.generations_format,
        id_pattern: args.id_pattern.clone(),
        out_dir: &args.out,
        by: args.by,
        strict: args.strict,
        judge: stage.as_ref(),
    };
    let total = std::fs::metadata(&args.generations).map_or(0, |m| m.len());
    let mut progress = Progress::new(total);
    let result = run_grade(opts, &mut progress);
    let unreadable = progress.unreadable;
    progress.finish();
    let outcome = result?;
    // A closed stdout stops the printing, not the warnings or the exit code.
    let shown = out!("{}", outcome.built.summary);
    for w in &outcome.warnings {
        say!("kgrade: warning: {w}");
    }
    let shown = shown.and_then(|()| {
        out!(
            "wrote {}/verdicts.jsonl, run.json, report.json, report.md, report.html, results.json\n",
            args.out.display()
        )
    });
    if unreadable > 0 {
        say!("kgrade: {unreadable} generation lines could not be read (listed in the report)");
        return Ok(ExitCode::from(3));
    }
    if let Some(code) = outcome
        .judged
        .as_ref()
        .and_then(|summary| unresolved_exit(summary, args.judge.allow_unresolved))
    {
        return Ok(code);
    }
    shown?;
    Ok(ExitCode::SUCCESS)
}
