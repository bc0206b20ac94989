//! `generate`: candidate answers for a dataset from OpenAI-compatible servers (vLLM,
//! llama.cpp's server, hosted APIs), written as the plain generations JSONL that `grade`
//! reads. Each item is rendered through a prompt template ([`prompt`]), once per option
//! ordering under circular evaluation ([`super::circular`]) and once per sample; each request
//! goes through the one HTTP client ([`crate::client`]: limits, retries, accounting) to the
//! least busy live endpoint ([`crate::client::pool`]). Every answer is flushed to the cache
//! before it counts, so a rerun after a crash or SIGKILL asks only for what is missing. Ctrl-C
//! ([`crate::client::Interrupt`]) ends a run early and cleanly: nothing new is asked for,
//! the requests under way finish (or, after a second press, are cancelled), and `OUT` is
//! written with every answer received, as at the end of any run. `--write-batch` ([`batch`])
//! writes the same requests as an OpenAI batch file. Not for grading: `grade` reads what this
//! writes.

pub mod batch;
pub mod prompt;
pub mod request;

use super::circular::{self, CircularMode};
use crate::cache::{Cache, CachedGeneration};
use crate::client::pool::{EndpointStats, Endpoints};
use crate::client::{now_secs, CallError, CallRules, Client, ClientConfig, Counters};
use crate::inputs::dataset::{read_dataset, ColumnMap};
use prompt::PromptTemplate;
use request::{Api, Decoding};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Why a generation run could not run (one answer's failure is not one of these).
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error(transparent)]
    Dataset(#[from] crate::inputs::dataset::DatasetError),
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    #[error(transparent)]
    Cache(#[from] crate::cache::CacheError),
    #[error("HTTP client: {0}")]
    Client(String),
    /// Named `error`, not `source`: the message already says it, and a source would be
    /// printed again after it.
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    #[error("no --endpoint given")]
    NoEndpoint,
}

fn io_at(path: &Path) -> impl Fn(io::Error) -> GenerateError + '_ {
    move |error| GenerateError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// What to ask for: the dataset, the prompt and the decoding options.
pub struct GenerateOptions<'a> {
    pub dataset: &'a Path,
    pub columns: ColumnMap,
    /// A minijinja template file; the built-in one for the dataset's shape otherwise.
    pub template: Option<&'a Path>,
    pub system: Option<String>,
    pub model: String,
    pub api: Api,
    pub decoding: Decoding,
    /// Samples per item (and per ordering).
    pub samples: u32,
    pub circular: Option<CircularMode>,
}

/// One request to make: one sample of one item in one ordering.
#[derive(Clone, Debug)]
pub struct Task {
    pub id: String,
    pub sample: u32,
    pub ordering: Option<Vec<u8>>,
    pub body: Value,
    /// The cache key: model, API, rendered prompt, decoding options, sample and ordering;
    /// never the endpoint (replicas share answers) or the key.
    pub key: [u8; 32],
    pub estimated_tokens: u32,
    /// The rendered prompt, kept only when it shows the options in another notation than
    /// the dataset's (a `--template` that writes `A. …` for ①–④): it goes into the line, so
    /// `grade` reads the answer in the notation the model saw.
    pub shown_prompt: Option<String>,
    /// The start of the item's question (its first line, up to 60 characters), written on
    /// the answer's line so that `grade` can tell answers joined to another dataset.
    pub question: String,
    /// That prompt's notation, which a batch request names in its `custom_id`.
    pub shown_notation: Option<crate::verify::Notation>,
}

/// Every request of a run, in dataset order (item, then ordering, then sample).
pub struct Plan {
    pub tasks: Vec<Task>,
    pub items: usize,
    /// Items shown only in their original ordering under `--circular`, by reason.
    pub single_ordering: BTreeMap<String, usize>,
    /// Dataset rows skipped because their id was already used by an earlier row.
    pub duplicate_ids: usize,
    /// What reading the dataset skipped or assumed (see `Dataset::warnings`).
    pub dataset_warnings: Vec<String>,
    pub template: String,
    pub api: Api,
    pub model: String,
}

/// Render every request of a run.
pub fn plan(opts: &GenerateOptions) -> Result<Plan, GenerateError> {
    let dataset = read_dataset(opts.dataset, &opts.columns)?;
    let template = match opts.template {
        Some(path) => PromptTemplate::load(path, dataset.format)?,
        None => PromptTemplate::builtin(dataset.format),
    };
    let mut tasks = Vec::new();
    let mut single_ordering: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen = HashSet::new();
    let mut duplicate_ids = 0;
    for item in &dataset.items {
        if !seen.insert(item.id.as_str()) {
            duplicate_ids += 1;
            continue;
        }
        let question: String = (item.question.trim_start().lines().next())
            .unwrap_or("")
            .trim()
            .chars()
            .take(60)
            .collect();
        let orderings: Vec<Option<Vec<u8>>> = match opts.circular {
            None => vec![None],
            Some(mode) => match circular::not_permutable(item) {
                None => circular::orderings(mode, item.choices.len())
                    .into_iter()
                    .map(Some)
                    .collect(),
                Some(reason) => {
                    *single_ordering.entry(reason.to_string()).or_default() += 1;
                    vec![Some((0..item.choices.len() as u8).collect())]
                }
            },
        };
        for ordering in orderings {
            let shown = match &ordering {
                Some(o) => circular::permute(item, o).map_err(|e| GenerateError::Template {
                    name: template.name.clone(),
                    message: e.to_string(),
                })?,
                None => item.clone(),
            };
            let prompt = template.render(&shown)?;
            let shown_notation =
                crate::stages::verdict::seen_choices(item, &prompt).map(|set| set.notation());
            let shown_prompt = shown_notation.is_some().then(|| prompt.clone());
            let ordering_text = serde_json::to_string(&ordering).unwrap_or_default();
            for sample in 0..opts.samples.max(1) {
                let body = request::body(
                    opts.api,
                    &opts.model,
                    opts.system.as_deref(),
                    &prompt,
                    &opts.decoding,
                    sample,
                );
                let key = Cache::key(&[
                    "generation",
                    opts.api.name(),
                    &body.to_string(),
                    &sample.to_string(),
                    &ordering_text,
                ]);
                let prompt_chars =
                    prompt.chars().count() + opts.system.as_ref().map_or(0, |s| s.chars().count());
                tasks.push(Task {
                    id: item.id.clone(),
                    sample,
                    ordering: ordering.clone(),
                    body,
                    key,
                    estimated_tokens: (prompt_chars / 2) as u32 + opts.decoding.max_tokens,
                    shown_prompt: shown_prompt.clone(),
                    question: question.clone(),
                    shown_notation,
                });
            }
        }
    }
    Ok(Plan {
        tasks,
        items: seen.len(),
        single_ordering,
        duplicate_ids,
        dataset_warnings: dataset.warnings.clone(),
        template: template.name,
        api: opts.api,
        model: opts.model.clone(),
    })
}

/// Where and how to ask.
pub struct RunConfig<'a> {
    /// Base URLs (`http://host:8000/v1`); several spread the work.
    pub endpoints: &'a [String],
    pub client: ClientConfig,
    pub cache: &'a Path,
    /// The generations file; answers arrive in `OUT.partial` first.
    pub out: &'a Path,
}

/// What a run reports as it goes. Every method has a default that does nothing.
pub trait GenerateObserver {
    /// Requests are about to start; the live counters.
    fn started(&mut self, _counters: Arc<Counters>) {}
    /// Something the user should know (an endpoint taken out of rotation).
    fn message(&mut self, _text: &str) {}
}

/// An observer that ignores everything.
pub struct Quiet;

impl GenerateObserver for Quiet {}

/// What a finished (or interrupted) run did.
#[derive(Debug)]
pub struct Generated {
    /// Answers in the output file.
    pub answers: u64,
    /// Answers the run was to get (every task of the plan).
    pub total: u64,
    /// Ctrl-C stopped the run before every answer was asked for: `OUT` holds the `answers`
    /// saved so far (every one received), and a rerun asks only for the rest.
    pub interrupted: bool,
    /// Of those, answers read from the cache without a request.
    pub from_cache: u64,
    /// Answers that failed (after every retry, or at once when retrying cannot help), with the reason (`ID sample S`, reason).
    pub failed: Vec<(String, String)>,
    pub requests: u64,
    pub retries: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub endpoints: Vec<EndpointStats>,
    pub seconds: f64,
    /// The models the answers' replies name, in the order first met (up to 20).
    pub models: Vec<String>,
    /// The run stopped early: its first answers all failed alike and none arrived (the
    /// reason they gave).
    pub gave_up: Option<String>,
}

/// How many first answers failing alike, with none received, stop a run.
pub const GIVE_UP_AFTER: usize = 5;

/// One line of the generations file (the plain shape `grade` reads).
#[derive(Serialize)]
struct Line<'a> {
    id: &'a str,
    sample: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    ordering: Option<&'a [u8]>,
    response: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    finish_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refusal: Option<&'a str>,
    usage: Usage,
    model: &'a str,
    /// The question's start, for `grade` to check the join.
    question: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<&'a str>,
}

#[derive(Serialize)]
struct Usage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

fn write_line(out: &mut impl Write, task: &Task, g: &CachedGeneration) -> io::Result<()> {
    let line = Line {
        id: &task.id,
        sample: task.sample,
        ordering: task.ordering.as_deref(),
        response: &g.response,
        reasoning_content: g.reasoning_content.as_deref(),
        finish_reason: g.finish_reason.as_deref(),
        refusal: g.refusal.as_deref(),
        usage: Usage {
            prompt_tokens: g.prompt_tokens,
            completion_tokens: g.completion_tokens,
        },
        model: &g.model,
        question: &task.question,
        prompt: task.shown_prompt.as_deref(),
    };
    serde_json::to_writer(&mut *out, &line).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

/// A request that failed, as a line of the generations file: `grade`
/// counts it as a `request_error` (wrong, counted apart), so the item stays in the
/// denominator as lm-eval keeps every document; a rerun asks for it again.
#[derive(Serialize)]
struct FailedLine<'a> {
    id: &'a str,
    sample: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    ordering: Option<&'a [u8]>,
    error: &'a str,
}

fn write_failed(out: &mut impl Write, task: &Task, reason: &str) -> io::Result<()> {
    let line = FailedLine {
        id: &task.id,
        sample: task.sample,
        ordering: task.ordering.as_deref(),
        error: reason,
    };
    serde_json::to_writer(&mut *out, &line).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

/// The journal path: answers as they arrive, before the ordered file exists.
pub fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_os_string();
    name.push(".partial");
    PathBuf::from(name)
}

/// The top-level entry point for `kgrade generate`: ask for every answer the cache does not
/// hold, journal each to `OUT.partial` as it arrives, then write `OUT` in dataset order.
pub fn run_generate(
    plan: &Plan,
    run: &RunConfig,
    observer: &mut dyn GenerateObserver,
) -> Result<Generated, GenerateError> {
    if run.endpoints.is_empty() {
        return Err(GenerateError::NoEndpoint);
    }
    let started = std::time::Instant::now();
    let counters = Arc::new(Counters::default());
    let cache = Arc::new(Cache::open(run.cache)?);
    let client = Arc::new(
        Client::new(run.client.clone(), counters.clone())
            .map_err(|e| GenerateError::Client(e.to_string()))?,
    );
    let pool = Arc::new(Endpoints::new(run.endpoints));
    if let Some(dir) = run.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io_at(dir))?;
    }
    // Refused before any request is paid for, not at the end when OUT is written.
    if run.out.is_dir() {
        return Err(GenerateError::Io {
            path: run.out.to_path_buf(),
            error: io::Error::other(
                "--out is a folder; give the path of the generations file to write (a .jsonl)",
            ),
        });
    }
    let partial = partial_path(run.out);
    let mut journal = io::BufWriter::new(std::fs::File::create(&partial).map_err(io_at(&partial))?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(io_at(run.out))?;
    let tasks = Arc::new(plan.tasks.clone());
    counters.total.store(tasks.len() as u64, Relaxed);
    observer.started(counters.clone());
    let max_retries = run.client.max_retries;
    let interrupt = &run.client.interrupt;
    // Enough tasks in flight to keep every permit busy, few enough that memory stays flat.
    let in_flight = run.client.max_concurrency.max(1) * 2 + 1;
    let mut failed = Vec::new();
    let mut failed_at: std::collections::HashMap<usize, String> = Default::default();
    // The first answers all failing alike, with none received: the endpoint, model or key is
    // wrong, and asking for every other item would only fail the same way (trial 42: a
    // mistyped port cost 3 s per item, a bad key one request per item).
    let mut received = false;
    let mut gave_up: Option<String> = None;
    let mut from_cache = 0u64;
    runtime.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        let mut handle = |joined: Result<(usize, Asked), tokio::task::JoinError>,
                          journal: &mut io::BufWriter<std::fs::File>,
                          observer: &mut dyn GenerateObserver|
         -> Result<(), GenerateError> {
            let (i, asked) =
                joined.map_err(|e| GenerateError::Client(format!("task failed: {e}")))?;
            for note in &asked.notes {
                observer.message(note);
            }
            let task = &tasks[i];
            match asked.result {
                Ok(g) => {
                    received = true;
                    write_line(journal, task, &g).map_err(io_at(&partial))?;
                    journal.flush().map_err(io_at(&partial))?;
                }
                Err(Missing::Failed(reason)) => {
                    if !received
                        && gave_up.is_none()
                        && failed.len() + 1 >= GIVE_UP_AFTER
                        && failed.iter().all(|(_, r): &(String, String)| *r == reason)
                    {
                        gave_up = Some(reason.clone());
                        interrupt.press();
                        interrupt.press();
                    }
                    counters.failures.fetch_add(1, Relaxed);
                    failed_at.insert(i, reason.clone());
                    failed.push((format!("{} sample {}", task.id, task.sample), reason));
                }
                // Not done and not failed: a rerun asks for it.
                Err(Missing::Interrupted) => return Ok(()),
            }
            counters.done.fetch_add(1, Relaxed);
            Ok(())
        };
        for i in 0..tasks.len() {
            // After Ctrl-C, nothing new is started; what is under way ends below.
            if interrupt.stopping() {
                break;
            }
            if cache.get_generation(&tasks[i].key)?.is_some() {
                from_cache += 1;
                counters.cache_hits.fetch_add(1, Relaxed);
                counters.done.fetch_add(1, Relaxed);
                continue;
            }
            while set.len() >= in_flight && !interrupt.stopping() {
                tokio::select! {
                    Some(joined) = set.join_next() => handle(joined, &mut journal, observer)?,
                    () = interrupt.pressed(1) => {}
                }
            }
            if interrupt.stopping() {
                break;
            }
            let (client, pool, cache, tasks) =
                (client.clone(), pool.clone(), cache.clone(), tasks.clone());
            let (api, model) = (plan.api, plan.model.clone());
            set.spawn(async move {
                let asked = ask(&client, &pool, &cache, &tasks[i], api, &model, max_retries).await;
                (i, asked)
            });
        }
        // The client sends nothing new after Ctrl-C and cancels what is under way after a
        // second press, so every task here ends soon after either; each answer that arrives
        // is journaled like any other.
        while let Some(joined) = set.join_next().await {
            handle(joined, &mut journal, observer)?;
        }
        Ok::<(), GenerateError>(())
    })?;
    drop(journal);

    // The finished file, in dataset order, from the cache (the one record of every answer).
    let tmp = {
        let mut name = run.out.as_os_str().to_os_string();
        name.push(".tmp");
        PathBuf::from(name)
    };
    let mut out = io::BufWriter::new(std::fs::File::create(&tmp).map_err(io_at(&tmp))?);
    let mut answers = 0u64;
    let mut models: Vec<String> = Vec::new();
    for (i, task) in tasks.iter().enumerate() {
        if let Some(g) = cache.get_generation(&task.key)? {
            write_line(&mut out, task, &g).map_err(io_at(&tmp))?;
            answers += 1;
            if models.len() < 20 && !models.contains(&g.model) {
                models.push(g.model.clone());
            }
        } else if let Some(reason) = failed_at.get(&i) {
            write_failed(&mut out, task, reason).map_err(io_at(&tmp))?;
        }
    }
    out.flush().map_err(io_at(&tmp))?;
    drop(out);
    std::fs::rename(&tmp, run.out).map_err(io_at(run.out))?;
    std::fs::remove_file(&partial).map_err(io_at(&partial))?;
    let total = tasks.len() as u64;
    Ok(Generated {
        answers,
        total,
        // A press that came after the last answer stopped nothing: the run is complete.
        interrupted: gave_up.is_none()
            && interrupt.stopping()
            && answers + (failed.len() as u64) < total,
        gave_up,
        from_cache,
        failed,
        requests: counters.requests.load(Relaxed),
        retries: counters.retries.load(Relaxed),
        prompt_tokens: counters.prompt_tokens.load(Relaxed),
        completion_tokens: counters.completion_tokens.load(Relaxed),
        endpoints: pool.stats(),
        seconds: started.elapsed().as_secs_f64(),
        models,
    })
}

/// How asking for one answer ended, and what the user should hear about endpoints.
struct Asked {
    result: Result<CachedGeneration, Missing>,
    notes: Vec<String>,
}

/// Why an answer is not there.
enum Missing {
    /// Failed (after every retry, or at once), with the reason.
    Failed(String),
    /// Ctrl-C stopped it before the answer came: no endpoint's fault, and no failure.
    Interrupted,
}

/// A failure that says the request itself is wrong (too long, malformed), so another
/// endpoint would refuse it too and this one is not to blame.
fn request_is_at_fault(reason: &str) -> bool {
    ["HTTP 400", "HTTP 413", "HTTP 422"]
        .iter()
        .any(|s| reason.starts_with(s))
}

/// Ask for one answer: from the least busy live endpoint, then from the others in turn if it
/// fails; the answer is flushed to the cache before it counts.
async fn ask(
    client: &Client,
    pool: &Endpoints,
    cache: &Cache,
    task: &Task,
    api: Api,
    model: &str,
    max_retries: u32,
) -> Asked {
    // With replicas to fall back on, one server gets a few attempts, not the whole budget.
    let retries = if pool.len() > 1 {
        max_retries.min(2)
    } else {
        max_retries
    };
    let mut tried = Vec::new();
    let mut notes = Vec::new();
    let mut last = "no endpoint left in rotation".to_string();
    // Azure's prompt filter answers 400 with the code `content_filter`: the provider declines
    // this prompt and always will, so it is a refusal, a final answer, as a filtered reply
    // is (Inspect reads it so; trial 43: a request error, asked again on every rerun, exit 4).
    let filtered = |status: u16, reason: &str| status == 400 && reason.contains("content_filter");
    let rules = CallRules {
        refused: Some(&filtered),
        ..CallRules::default()
    };
    while let Some(lease) = pool.acquire(&tried) {
        let url = crate::client::join_path(lease.base(), api.path());
        let called = client
            .call_with_rules(
                &url,
                &task.body,
                task.estimated_tokens,
                retries,
                rules,
                |reply| request::answer(api, reply, model),
            )
            .await
            .map(|called| (called.value, called.latency))
            .or_else(|e| match e {
                CallError::Refused(reason) => {
                    Ok((request::prompt_refused(reason, model), Default::default()))
                }
                e => Err(e),
            });
        match called {
            Ok((value, latency)) => {
                pool.succeeded(&lease);
                let mut g = value;
                g.latency_ms = latency.as_millis() as u64;
                g.time = now_secs();
                // Flushed before the answer counts as done.
                let result = cache
                    .put_generation(&task.key, &g)
                    .await
                    .map(|()| g)
                    .map_err(|e| Missing::Failed(e.to_string()));
                return Asked { result, notes };
            }
            Err(CallError::Interrupted) => {
                return Asked {
                    result: Err(Missing::Interrupted),
                    notes,
                }
            }
            Err(error) => {
                let reason = error.to_string();
                if request_is_at_fault(&reason) {
                    return Asked {
                        result: Err(Missing::Failed(reason)),
                        notes,
                    };
                }
                if let Some(note) = pool.failed(&lease, &reason) {
                    notes.push(note);
                }
                tried.push(lease.index());
                last = format!("{}: {reason}", lease.shown());
            }
        }
    }
    Asked {
        result: Err(Missing::Failed(last)),
        notes,
    }
}
