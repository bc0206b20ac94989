//! `kgrade generate`: dataset → prompts → OpenAI-compatible servers (or a batch file) →
//! generations JSONL for `kgrade grade`.

use super::columns::ColumnArgs;
use super::limits;
use super::out;
use anyhow::Context;
use clap::Args;
use kgrade::client::{ClientConfig, Counters};
use kgrade::stages::circular::CircularMode;
use kgrade::stages::generate::batch::write_batch;
use kgrade::stages::generate::request::{Api, Decoding};
use kgrade::stages::generate::{
    plan, run_generate, GenerateObserver, GenerateOptions, Generated, Plan, RunConfig,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;

#[derive(Args)]
pub struct GenerateArgs {
    /// Dataset: domain_eval CSV, KMMLU CSV, or any CSV/JSONL with --question-col/--answer-col.
    #[arg(long)]
    dataset: PathBuf,
    /// Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1. Repeat it
    /// for replicas: each request goes to the one with the fewest requests outstanding, and
    /// one that keeps failing is taken out of rotation.
    #[arg(long = "endpoint", value_parser = endpoint_url)]
    endpoints: Vec<String>,
    /// Model name sent with every request.
    #[arg(long)]
    model: String,
    /// Generations JSONL to write (answers arrive in OUT.partial first; OUT is in dataset order).
    #[arg(long)]
    out: Option<PathBuf>,
    /// chat (BASE_URL/chat/completions) or completions (BASE_URL/completions).
    #[arg(long, default_value = "chat")]
    api: Api,
    /// Environment variable holding the bearer key (never logged, cached or written); a
    /// variable named here must be set. Default: OPENAI_API_KEY, if set.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Prompt template (minijinja) instead of the built-in one for the dataset's shape;
    /// variables: question, stem, choices ({label, text}), options, labels, id, fields.
    #[arg(long)]
    template: Option<PathBuf>,
    /// System message (chat), or text put before the prompt (completions).
    #[arg(long)]
    system: Option<String>,
    /// Sampling temperature (server default if not given).
    #[arg(long)]
    temperature: Option<f64>,
    /// Nucleus sampling (server default if not given).
    #[arg(long)]
    top_p: Option<f64>,
    /// Most tokens per answer; always sent, since servers default to unbounded output.
    #[arg(long, default_value_t = 1024, value_parser = limits::count::<1, 1_000_000>)]
    max_tokens: u32,
    /// Stop sequence (repeatable).
    #[arg(long)]
    stop: Vec<String>,
    /// Samples per item (one request each; with --seed, sample k uses seed + k).
    #[arg(long, default_value_t = 1, value_parser = limits::count::<1, 1000>)]
    n: u32,
    /// Sampling seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Circular evaluation: circular (cyclic rotations of the options) or all_possible (every
    /// ordering). Items whose options cannot be re-rendered safely keep their ordering.
    #[arg(long)]
    circular: Option<CircularMode>,
    /// Write OpenAI Batch API request lines to this file instead of calling a server.
    #[arg(long)]
    write_batch: Option<PathBuf>,
    /// Requests per second (over all endpoints; 0.001 to 100000).
    #[arg(long, default_value_t = 10.0, value_parser = limits::rate)]
    rps: f64,
    /// Requests allowed above --rps in a burst (1 keeps a strict provider limit).
    #[arg(long, default_value_t = 1, value_parser = limits::count::<1, 100_000>)]
    burst: u32,
    /// Optional limit on tokens per minute (estimated from prompt length and --max-tokens).
    #[arg(long, value_parser = limits::count::<1, 1_000_000_000>)]
    tpm: Option<u32>,
    /// Requests in flight at once (over all endpoints; 1 to 1024).
    #[arg(long, default_value_t = 8, value_parser = limits::concurrency)]
    max_concurrency: usize,
    /// Seconds before one request times out (up to a day).
    #[arg(long, default_value_t = 300.0, value_parser = limits::seconds)]
    timeout: f64,
    /// Retries after a 429, 5xx, timeout, dropped connection or malformed reply (with several
    /// endpoints, at most 2 per endpoint before the next one is tried).
    #[arg(long, default_value_t = 5, value_parser = limits::count::<0, 100>)]
    max_retries: u32,
    /// The first retry's wait in milliseconds when the server gives no Retry-After
    /// (doubles each time, with jitter, capped at 60 s).
    #[arg(long, default_value_t = 1000, value_parser = limits::millis)]
    backoff_ms: u64,
    /// The cache directory, where answers are kept so a rerun asks only for missing ones
    /// (default: $KGRADE_CACHE, else $XDG_CACHE_HOME/kgrade, else ~/.cache/kgrade).
    #[arg(long)]
    cache: Option<PathBuf>,
    #[command(flatten)]
    columns: ColumnArgs,
}

/// The top-level entry point for `kgrade generate`.
pub fn run(args: GenerateArgs) -> anyhow::Result<ExitCode> {
    let columns = args.columns.column_map()?;
    let api_key = super::api_key(args.api_key_env.as_deref())?;
    let cache = args
        .cache
        .clone()
        .unwrap_or_else(kgrade::cache::default_path);
    let opts = GenerateOptions {
        dataset: &args.dataset,
        columns,
        template: args.template.as_deref(),
        system: args.system.clone(),
        model: args.model.clone(),
        api: args.api,
        decoding: Decoding {
            temperature: args.temperature,
            top_p: args.top_p,
            max_tokens: args.max_tokens,
            stop: args.stop.clone(),
            seed: args.seed,
        },
        samples: args.n,
        circular: args.circular,
    };
    // The flags first: a missing --out or --endpoint is said before the dataset is read.
    let out = match (&args.write_batch, &args.out) {
        (Some(_), _) => None,
        (None, Some(out)) => Some(out),
        (None, None) => anyhow::bail!("--out is needed unless --write-batch is given"),
    };
    if args.write_batch.is_none() && args.endpoints.is_empty() {
        anyhow::bail!("give at least one --endpoint (or --write-batch FILE)");
    }
    // An output path that is an input would overwrite it (trial 42, defect 5).
    let same = |a: &std::path::Path, b: &std::path::Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
    for (flag, path) in [("--out", &args.out), ("--write-batch", &args.write_batch)] {
        let Some(path) = path else { continue };
        let inputs = [
            ("--dataset", Some(&args.dataset)),
            ("--template", args.template.as_ref()),
        ];
        for (what, input) in inputs {
            if input.is_some_and(|input| same(path, input)) {
                anyhow::bail!(
                    "{flag} {} is the {what} file, which would be overwritten; give another path",
                    path.display()
                );
            }
        }
    }
    let plan = plan(&opts)?;
    announce(&plan, args.circular);
    // One request over --tpm waits a whole minute of tokens, so the run crawls and the limit
    // is not kept either (trial 42, defect 7: it looked hung, with no word).
    if let (Some(tpm), Some(most)) = (
        args.tpm,
        plan.tasks.iter().map(|t| t.estimated_tokens).max(),
    ) {
        if most > tpm && args.write_batch.is_none() {
            say!(
                "kgrade: warning: --tpm {tpm} is below one request's estimate (up to ~{most} tokens: the prompt and --max-tokens {}); each such request waits a whole minute and still goes over the limit: raise --tpm or lower --max-tokens",
                args.max_tokens
            );
        }
    }
    // A dataset with no rows asks for nothing: not a success, as grading nothing is not.
    if plan.items == 0 {
        say!(
            "kgrade: {}: the dataset has no rows; nothing to ask for",
            args.dataset.display()
        );
        return Ok(ExitCode::from(3));
    }
    if let Some(path) = &args.write_batch {
        let files = write_batch(&plan, path)?;
        let n: usize = files.iter().map(|(_, n)| n).sum();
        match files.as_slice() {
            [(one, _)] => out!(
                "wrote {n} batch requests to {} (grade the batch output with kgrade grade --generations OUTPUT)\n",
                one.display()
            )?,
            parts => {
                let listed: Vec<String> = parts
                    .iter()
                    .map(|(p, k)| format!("{} ({k})", p.display()))
                    .collect();
                out!(
                    "wrote {n} batch requests in {} files, as the Batch API takes at most 50,000 requests and 200 MB per file: {} (submit each; grade their outputs together: cat them into one file for --generations)\n",
                    parts.len(),
                    listed.join(", ")
                )?
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out = out.context("--out is needed unless --write-batch is given")?;
    let interrupt = super::ctrl_c::on_ctrl_c(
        "stopping: no new requests are sent; waiting for those under way to finish (press Ctrl-C again to cancel them)",
    )
    .context("listening for Ctrl-C")?;
    let client = ClientConfig {
        api_key,
        rps: args.rps,
        burst: args.burst,
        tpm: args.tpm,
        max_concurrency: args.max_concurrency,
        timeout: std::time::Duration::from_secs_f64(args.timeout),
        max_retries: args.max_retries,
        backoff_base: std::time::Duration::from_millis(args.backoff_ms),
        interrupt,
    };
    let run = RunConfig {
        endpoints: &args.endpoints,
        client,
        cache: &cache,
        out,
    };
    let mut progress = Progress::default();
    let result = run_generate(&plan, &run, &mut progress);
    progress.finish();
    let done = result?;
    // A closed stdout stops the printing, not the failure messages or the exit code.
    let shown = summary(&done, out);
    for (what, reason) in done.failed.iter().take(20) {
        say!("kgrade: {what}: {reason}");
    }
    if done.models.len() > 1 {
        say!(
            "kgrade: warning: the replies name {} models: {} (do the --endpoint replicas serve different models? each line names the model that answered it; answers are cached by the model asked for, so clear --cache after fixing the replicas)",
            done.models.len(),
            done.models.join(", ")
        );
    }
    if let Some(reason) = &done.gave_up {
        say!(
            "kgrade: stopped: the first {} answers all failed alike and none arrived ({reason}); check --endpoint, --model and the API key, then run the same command again ({} of {} failed; requests under way were cancelled)",
            kgrade::stages::generate::GIVE_UP_AFTER,
            thousands(done.failed.len() as u64),
            thousands(done.total)
        );
        return Ok(ExitCode::from(4));
    }
    if done.interrupted {
        // Every answer received is in OUT, written whole in dataset order like any run's, and
        // in the cache, which is what a rerun reads before asking for the rest.
        let failed = match done.failed.len() {
            0 => String::new(),
            n => format!(", {n} failed"),
        };
        say!(
            "kgrade: interrupted: {} of {} answers saved to {}{failed}; run the same command again to resume",
            thousands(done.answers),
            thousands(done.total),
            out.display()
        );
        return Ok(ExitCode::from(super::ctrl_c::INTERRUPTED));
    }
    if !done.failed.is_empty() {
        say!(
            "kgrade: {} failed (a server error or rate limit after every retry, any other refusal such as 401 at once; the reasons are above); {} has each as an `error` line, which grade counts as a request_error (wrong, counted apart); run the same command again to ask only for them",
            match done.failed.len() {
                1 => "1 answer".to_string(),
                n => format!("{n} answers"),
            },
            out.display()
        );
        return Ok(ExitCode::from(4));
    }
    shown?;
    Ok(ExitCode::SUCCESS)
}

/// `n` with a comma between each group of three digits (`1,000`), as people read counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// `--endpoint`: an http(s) URL with a host, checked when the arguments are parsed (a typo
/// would otherwise be retried as a connection failure for half a minute).
fn endpoint_url(s: &str) -> Result<String, String> {
    let shown = kgrade::client::redact::shown_url(s);
    let rest = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"))
        .ok_or_else(|| format!("`{shown}` is not an http(s) URL, e.g. http://127.0.0.1:8000/v1"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() || s.chars().any(char::is_whitespace) {
        return Err(format!(
            "`{shown}` is not an http(s) URL with a host, e.g. http://127.0.0.1:8000/v1"
        ));
    }
    Ok(s.to_string())
}

fn announce(plan: &Plan, circular: Option<CircularMode>) {
    say!(
        "kgrade: {} items, {} answers to get (from the cache, else asked for), template {}",
        plan.items,
        plan.tasks.len(),
        plan.template
    );
    for w in &plan.dataset_warnings {
        say!("kgrade: warning: {w}");
    }
    if plan.duplicate_ids > 0 {
        say!(
            "kgrade: {} dataset rows skipped (id used by an earlier row)",
            plan.duplicate_ids
        );
    }
    if let Some(mode) = circular {
        let kept: usize = plan.single_ordering.values().sum();
        let reasons: Vec<String> = plan
            .single_ordering
            .iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        say!(
            "kgrade: circular ({mode}): {kept} of {} items keep their one original ordering{}",
            plan.items,
            if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            }
        );
    }
}

fn summary(done: &Generated, out: &std::path::Path) -> std::io::Result<()> {
    out!(
        "wrote {} answers to {} ({} from the cache, {} failed) in {:.1} s\n",
        done.answers,
        out.display(),
        done.from_cache,
        done.failed.len(),
        done.seconds
    )?;
    out!(
        "requests {} (retries {}); tokens: prompt {}, completion {}, total {}\n",
        done.requests,
        done.retries,
        done.prompt_tokens,
        done.completion_tokens,
        done.prompt_tokens + done.completion_tokens
    )?;
    if done.endpoints.len() > 1 {
        for e in &done.endpoints {
            out!(
                "  {}: {} answered, {} failed calls{}\n",
                e.base,
                e.succeeded,
                e.failed,
                if e.removed { ", out of rotation" } else { "" }
            )?;
        }
    }
    Ok(())
}

/// A bar over answers with answers/s, tokens/s and ETA, hidden when stderr is not a terminal.
#[derive(Default)]
struct Progress {
    bar: Option<(indicatif::ProgressBar, Arc<AtomicBool>, JoinHandle<()>)>,
}

impl Progress {
    fn finish(self) {
        if let Some((bar, stop, handle)) = self.bar {
            stop.store(true, Relaxed);
            let _ = handle.join();
            bar.finish_and_clear();
        }
    }
}

impl GenerateObserver for Progress {
    fn started(&mut self, counters: Arc<Counters>) {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} generating [{bar:30}] {pos}/{len} {per_sec} ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        let stop = Arc::new(AtomicBool::new(false));
        let (b, s) = (bar.clone(), stop.clone());
        let handle = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            while !s.load(Relaxed) {
                b.set_length(counters.total.load(Relaxed));
                b.set_position(counters.done.load(Relaxed));
                let secs = started.elapsed().as_secs_f64().max(0.001);
                b.set_message(format!(
                    "{:.0} tok/s, cached {}, retries {}, failed {}",
                    counters.completion_tokens.load(Relaxed) as f64 / secs,
                    counters.cache_hits.load(Relaxed),
                    counters.retries.load(Relaxed),
                    counters.failures.load(Relaxed)
                ));
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
        self.bar = Some((bar, stop, handle));
    }

    fn message(&mut self, text: &str) {
        match &self.bar {
            Some((bar, _, _)) => bar.suspend(|| say!("kgrade: {text}")),
            None => say!("kgrade: {text}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn counts_are_grouped_by_thousands() {
        for (n, shown) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (412_345, "412,345"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), shown);
        }
    }
}
