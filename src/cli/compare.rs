//! `kgrade compare`: a leaderboard across graded runs (different models on one dataset).

use super::out;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct CompareArgs {
    /// Run directories written by `kgrade grade` (each with verdicts.jsonl and run.json), or
    /// the verdicts.jsonl in one.
    #[arg(required = true, num_args = 2..)]
    runs: Vec<PathBuf>,
    /// Where to write leaderboard.json, leaderboard.md and leaderboard.html.
    #[arg(long)]
    out: PathBuf,
    /// Group by these columns (comma-separated); default as for `grade`.
    #[arg(long, value_delimiter = ',')]
    by: Option<Vec<String>>,
    /// Bootstrap resamples of the items for the rating intervals: 100 to 100000, or 0 for
    /// no intervals.
    #[arg(long, default_value_t = 1000)]
    bootstrap: u32,
    /// Seed for the bootstrap and the Elo shuffles: the same seed gives the same numbers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Also compute online Elo (K=32, averaged over 100 shuffled match orders).
    #[arg(long)]
    elo: bool,
    /// Compare on the items every run has, instead of refusing runs whose item sets differ.
    #[arg(long)]
    common_items: bool,
    /// How circular runs are ranked: `all-orderings` (an item is right when it is right in
    /// every ordering; circular runs only) or `original` (the original ordering only, which
    /// compares with plain runs).
    #[arg(long, default_value = "all-orderings")]
    circular_outcome: kgrade::report::leaderboard::CircularOutcome,
}

/// The top-level entry point for `kgrade compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let opts = kgrade::report::leaderboard::CompareOptions {
        by: kgrade::stages::grade::grouping(args.by),
        bootstrap: args.bootstrap,
        seed: args.seed,
        elo: args.elo,
        common_items: args.common_items,
        circular: args.circular_outcome,
    };
    let board = kgrade::report::leaderboard::compare(&args.runs, &opts)?;
    kgrade::report::staging::create_out_dir(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    kgrade::report::leaderboard::write(&board, &args.out)?;
    out!("{}", kgrade::report::leaderboard::render::terminal(&board))?;
    out!(
        "wrote {}/leaderboard.json, leaderboard.md, leaderboard.html\n",
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
