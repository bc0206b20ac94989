//! The `kgrade` command line: arguments in, library call, exit code out.
//!
//! Exit codes: 0 everything was processed; 1 (`extract`) some input lines could not be read
//! (they are reported and the rest processed); 2 the command could not run (bad arguments,
//! unreadable file, I/O error); 3 (`grade`, `report`) the input data is bad: a dataset row, a
//! generation line or a verdict line names the file, line and field, or `--strict` found join
//! trouble (reports are still written when only generation lines were bad). A closed output
//! pipe (`kgrade extract … | head`) ends quietly with 0.

use anyhow::Context;
use clap::{Parser, Subcommand};
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
        } => {
            let choices = choices
                .map(|c| c.parse::<kgrade::verify::ChoiceSet>())
                .transpose()
                .context("--choices")?;
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
            };
            grade(opts)
        }
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
fn grade(opts: kgrade::pipeline::GradeOptions) -> anyhow::Result<ExitCode> {
    let total = std::fs::metadata(opts.generations).map_or(0, |m| m.len());
    let bar = progress_bar(total);
    let out_dir = opts.out_dir.to_path_buf();
    let mut unreadable = 0u64;
    let result = kgrade::pipeline::run_grade(
        opts,
        |bytes| bar.set_position(bytes),
        |e| {
            unreadable += 1;
            bar.suspend(|| eprintln!("kgrade: {e}"));
        },
    );
    bar.finish_and_clear();
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
