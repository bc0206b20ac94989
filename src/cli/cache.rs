//! `kgrade cache`: inspect, export or clear the cache of judge verdicts and generated answers.

use super::out;
use clap::{Args, Subcommand};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    action: CacheAction,
    /// The cache directory (default: $KGRADE_CACHE, else $XDG_CACHE_HOME/kgrade, else
    /// ~/.cache/kgrade).
    #[arg(long, global = true)]
    cache: Option<PathBuf>,
}

#[derive(Subcommand)]
enum CacheAction {
    /// Entries, size on disk, entries per judge model and rubric, and generated answers.
    Stats,
    /// Every judge verdict as a JSON line on standard output (generated answers are not
    /// exported: the generations file they were written to holds them).
    Export,
    /// Remove every entry, verdicts and generated answers.
    Clear,
}

/// The top-level entry point for `kgrade cache`.
pub fn run(args: CacheArgs) -> anyhow::Result<ExitCode> {
    let path = args.cache.unwrap_or_else(kgrade::cache::default_path);
    let cache = kgrade::cache::Cache::open_existing(&path)?;
    match args.action {
        CacheAction::Stats => {
            let stats = cache.stats()?;
            out!("{}\n", serde_json::to_string_pretty(&stats)?)?;
        }
        CacheAction::Export => {
            let stdout = io::stdout();
            let mut out = io::BufWriter::new(stdout.lock());
            let n = cache.export(&mut out)?;
            out.flush()?;
            say!("kgrade: exported {n} entries");
        }
        CacheAction::Clear => {
            let n = cache.clear()?;
            out!("cleared {n} entries from {}\n", path.display())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
