//! Running judgements: bounded concurrency (tokio), a request rate limit and an optional
//! token-per-minute limit (governor), per-request timeouts, retries with exponential backoff
//! and jitter that honour `Retry-After`, and the sled cache in front of it all. Every task
//! ends judged or failed with a reason; nothing is silently "wrong".

use super::rubric::{Message, Rubric, RubricKind};
use super::{parse_reply, retry_after, JudgeReply, JudgeSpec};
use crate::cache::{Cache, CachedVerdict};
use crate::verify::{Choice, ChoiceSet};
use governor::clock::Clock;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How to call the judge.
#[derive(Clone, Debug)]
pub struct JudgeConfig {
    pub spec: JudgeSpec,
    /// The bearer key for OpenAI-compatible servers (from the environment; never logged,
    /// cached or reported).
    pub api_key: Option<String>,
    /// Requests per second, and the burst allowed above it (governor: up to rps + burst in
    /// any one second; burst 1 keeps a strict provider limit).
    pub rps: f64,
    pub burst: u32,
    /// Optional tokens-per-minute limit (estimated from the prompt length).
    pub tpm: Option<u32>,
    pub max_concurrency: usize,
    pub timeout: Duration,
    pub max_retries: u32,
    /// The first retry waits about this long; each further one doubles it (capped at 60 s).
    pub backoff_base: Duration,
}

/// One answer to judge.
#[derive(Clone, Debug)]
pub struct Task {
    pub question: String,
    pub choices: ChoiceSet,
    pub answer: String,
}

/// How a task ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Judged {
        reply: JudgeReply,
        /// Read from the cache: no request was made.
        cached: bool,
    },
    /// Every attempt failed; `reason` says how the last one did.
    Failed { reason: String },
}

impl Outcome {
    /// The chosen option of a choice reply.
    pub fn choice(&self) -> Option<Choice> {
        match self {
            Outcome::Judged {
                reply: JudgeReply::Choice { choice, .. },
                ..
            } => *choice,
            _ => None,
        }
    }
}

/// Live counts, for progress bars and the report.
#[derive(Debug, Default)]
pub struct Counters {
    pub total: AtomicU64,
    pub done: AtomicU64,
    pub cache_hits: AtomicU64,
    pub requests: AtomicU64,
    pub retries: AtomicU64,
    pub failures: AtomicU64,
}

/// A judge problem that stops the whole stage (not one task's failure).
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("judge setup: {0}")]
    Setup(String),
    #[error(transparent)]
    Cache(#[from] crate::cache::CacheError),
    #[error(transparent)]
    Rubric(#[from] super::rubric::RubricError),
}

struct Shared {
    config: JudgeConfig,
    rubric: Rubric,
    cache: Arc<Cache>,
    http: reqwest::Client,
    limiter: DefaultDirectRateLimiter,
    /// The next free request slot on an absolute schedule (see `pace`).
    next_slot: std::sync::Mutex<Instant>,
    period: Duration,
    tokens: Option<DefaultDirectRateLimiter>,
    counters: Arc<Counters>,
    jitter: AtomicU64,
}

/// The cache key of a judgement: backend, model, rubric id, version and text, the rendered
/// messages and the decoding options. The API key is not part of it.
pub fn cache_key(spec: &JudgeSpec, rubric: &Rubric, messages: &[Message]) -> [u8; 32] {
    let messages = serde_json::to_string(messages).unwrap_or_default();
    let version = rubric.version.to_string();
    let decoding = spec.decoding().to_string();
    Cache::key(&[
        spec.backend_name(),
        &spec.endpoint(),
        &spec.model,
        &rubric.id,
        &version,
        &rubric.source,
        &messages,
        &decoding,
    ])
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Judge every task; the result has one outcome per task, in order. `counters` is updated as
/// tasks finish.
pub async fn judge_all(
    config: JudgeConfig,
    rubric: Rubric,
    cache: Arc<Cache>,
    tasks: Vec<Task>,
    counters: Arc<Counters>,
) -> Result<Vec<Outcome>, JudgeError> {
    // reqwest is built without a default crypto provider (ring, not aws-lc: no system
    // libraries, faster builds); install it once. A second install is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .timeout(config.timeout)
        .build()
        .map_err(|e| JudgeError::Setup(format!("HTTP client: {e}")))?;
    if !(config.rps > 0.0 && config.rps.is_finite()) {
        return Err(JudgeError::Setup(format!(
            "--rps must be positive, got {}",
            config.rps
        )));
    }
    let period = Duration::from_secs_f64(1.0 / config.rps);
    let burst = NonZeroU32::new(config.burst.max(1)).unwrap_or(NonZeroU32::MIN);
    let quota = Quota::with_period(period)
        .ok_or_else(|| JudgeError::Setup("--rps too high".into()))?
        .allow_burst(burst);
    let tokens = config
        .tpm
        .and_then(NonZeroU32::new)
        .map(|tpm| RateLimiter::direct(Quota::per_minute(tpm)));
    counters
        .total
        .fetch_add(tasks.len() as u64, Ordering::Relaxed);
    let shared = Arc::new(Shared {
        limiter: RateLimiter::direct(quota),
        next_slot: std::sync::Mutex::new(Instant::now()),
        period,
        tokens,
        rubric,
        cache,
        http,
        counters: counters.clone(),
        jitter: AtomicU64::new(0x9E37_79B9_7F4A_7C15 ^ now_secs()),
        config,
    });
    let permits = Arc::new(tokio::sync::Semaphore::new(
        shared.config.max_concurrency.max(1),
    ));
    let mut set = tokio::task::JoinSet::new();
    for (i, task) in tasks.into_iter().enumerate() {
        let shared = shared.clone();
        let permits = permits.clone();
        set.spawn(async move {
            let outcome = match permits.acquire_owned().await {
                Ok(_permit) => judge_one(&shared, &task).await,
                Err(_) => Outcome::Failed {
                    reason: "judge stage shut down".into(),
                },
            };
            if matches!(outcome, Outcome::Failed { .. }) {
                shared.counters.failures.fetch_add(1, Ordering::Relaxed);
            }
            shared.counters.done.fetch_add(1, Ordering::Relaxed);
            (i, outcome)
        });
    }
    let mut out: Vec<Option<Outcome>> = vec![None; set.len()];
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((i, outcome)) => out[i] = Some(outcome),
            Err(e) => return Err(JudgeError::Setup(format!("judge task failed: {e}"))),
        }
    }
    Ok(out
        .into_iter()
        .map(|o| {
            o.unwrap_or(Outcome::Failed {
                reason: "lost".into(),
            })
        })
        .collect())
}

/// What one HTTP attempt came to.
enum Attempt {
    Done(JudgeReply, serde_json::Value, String, Duration),
    Retry {
        reason: String,
        after: Option<Duration>,
    },
    Fatal(String),
}

async fn judge_one(shared: &Shared, task: &Task) -> Outcome {
    let messages = match shared.rubric.kind {
        RubricKind::Choice => {
            shared
                .rubric
                .render_choice(&task.question, &task.choices, &task.answer)
        }
        RubricKind::Score => shared.rubric.render_score(&task.question, "", &task.answer),
    };
    let messages = match messages {
        Ok(m) => m,
        Err(e) => {
            return Outcome::Failed {
                reason: e.to_string(),
            }
        }
    };
    let key = cache_key(&shared.config.spec, &shared.rubric, &messages);
    match shared.cache.get(&key) {
        Ok(Some(hit)) => {
            if let Ok((reply, _)) = parse_reply(
                shared.rubric.kind,
                &hit.verdict.to_string(),
                Some(&task.choices),
            ) {
                shared.counters.cache_hits.fetch_add(1, Ordering::Relaxed);
                return Outcome::Judged {
                    reply,
                    cached: true,
                };
            }
        }
        Ok(None) => {}
        Err(e) => {
            return Outcome::Failed {
                reason: e.to_string(),
            }
        }
    }
    let body = shared.config.spec.body(&shared.rubric, &messages);
    let estimated_tokens = (messages
        .iter()
        .map(|m| m.content.chars().count())
        .sum::<usize>()
        / 2
        + 256) as u32;
    let mut last_reason = String::new();
    for attempt in 0..=shared.config.max_retries {
        if attempt > 0 {
            shared.counters.retries.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(tokens) = &shared.tokens {
            let tpm = shared.config.tpm.unwrap_or(1).max(1);
            let n = NonZeroU32::new(estimated_tokens.clamp(1, tpm)).unwrap_or(NonZeroU32::MIN);
            let _ = tokens.until_n_ready(n).await;
        }
        pace(shared).await;
        match send(shared, &body, task).await {
            Attempt::Done(reply, verdict, raw, latency) => {
                let value = CachedVerdict {
                    verdict,
                    raw,
                    latency_ms: latency.as_millis() as u64,
                    time: now_secs(),
                    backend: shared.config.spec.backend_name().to_string(),
                    model: shared.config.spec.model.clone(),
                    rubric: shared.rubric.id.clone(),
                    rubric_version: shared.rubric.version,
                };
                // Flushed before the verdict counts as done.
                if let Err(e) = shared.cache.put(&key, &value).await {
                    return Outcome::Failed {
                        reason: e.to_string(),
                    };
                }
                return Outcome::Judged {
                    reply,
                    cached: false,
                };
            }
            Attempt::Fatal(reason) => return Outcome::Failed { reason },
            Attempt::Retry { reason, after } => {
                last_reason = reason;
                if attempt == shared.config.max_retries {
                    break;
                }
                let wait = after.unwrap_or_else(|| backoff(shared, attempt));
                tokio::time::sleep(wait).await;
            }
        }
    }
    Outcome::Failed {
        reason: format!(
            "gave up after {} attempts: {last_reason}",
            shared.config.max_retries + 1
        ),
    }
}

/// Wait for this request's turn. Each request takes the next slot of an absolute schedule
/// (one per `1/rps`, never earlier than now, so idle time does not bank a burst) and sleeps
/// until it; governor then has the last word and never lets a request through early. With
/// many waiters contending in governor alone, each timer tick's lateness is lost for good and
/// the achieved rate falls well short of `--rps`; on an absolute schedule it is not.
async fn pace(shared: &Shared) {
    let slot = {
        let mut next = shared
            .next_slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = (*next).max(Instant::now());
        *next = slot + shared.period;
        slot
    };
    tokio::time::sleep_until(slot.into()).await;
    // governor's own wait sleeps in whole timer ticks, which loses most of a slot at high
    // rates; a wait shorter than a tick is spent yielding instead.
    loop {
        match shared.limiter.check() {
            Ok(()) => return,
            Err(not_until) => {
                let wait = not_until.wait_time_from(shared.limiter.clock().now());
                if wait > Duration::from_millis(2) {
                    tokio::time::sleep(wait).await;
                } else {
                    tokio::task::yield_now().await;
                }
            }
        }
    }
}

/// Exponential backoff with equal jitter: half fixed, half random.
fn backoff(shared: &Shared, attempt: u32) -> Duration {
    let base = shared.config.backoff_base.as_secs_f64() * 2f64.powi(attempt as i32);
    let capped = base.min(60.0);
    // xorshift over a shared state: jitter needs no cryptographic randomness.
    let mut x = shared.jitter.load(Ordering::Relaxed);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    shared.jitter.store(x, Ordering::Relaxed);
    let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
    Duration::from_secs_f64(capped * (0.5 + 0.5 * unit))
}

async fn send(shared: &Shared, body: &serde_json::Value, task: &Task) -> Attempt {
    shared.counters.requests.fetch_add(1, Ordering::Relaxed);
    let started = Instant::now();
    let mut request = shared.http.post(shared.config.spec.endpoint()).json(body);
    if let Some(key) = &shared.config.api_key {
        request = request.bearer_auth(key);
    }
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => {
            let reason = if e.is_timeout() {
                "timed out".to_string()
            } else if e.is_connect() {
                "could not connect".to_string()
            } else {
                "connection failed".to_string()
            };
            return Attempt::Retry {
                reason,
                after: None,
            };
        }
    };
    let status = response.status();
    let after = retry_after(
        response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok()),
    );
    let text = match response.text().await {
        Ok(t) => t,
        Err(e) => {
            let reason = if e.is_timeout() {
                "timed out reading the reply"
            } else {
                "connection dropped while reading the reply"
            };
            return Attempt::Retry {
                reason: reason.into(),
                after: None,
            };
        }
    };
    if status.as_u16() == 429 || status.as_u16() == 503 {
        return Attempt::Retry {
            reason: format!("HTTP {status}"),
            after,
        };
    }
    if status.is_server_error() {
        return Attempt::Retry {
            reason: format!("HTTP {status}"),
            after: None,
        };
    }
    if !status.is_success() {
        // 400, 401, 404…: retrying the same request cannot help.
        return Attempt::Fatal(format!("HTTP {status}"));
    }
    let body: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            return Attempt::Retry {
                reason: format!("malformed response body: {e}"),
                after: None,
            }
        }
    };
    let Some(reply_text) = shared.config.spec.reply_text(&body) else {
        return Attempt::Retry {
            reason: "response has no reply text".into(),
            after: None,
        };
    };
    match parse_reply(shared.rubric.kind, reply_text, Some(&task.choices)) {
        Ok((reply, verdict)) => {
            Attempt::Done(reply, verdict, reply_text.to_string(), started.elapsed())
        }
        Err(reason) => Attempt::Retry {
            reason: format!("malformed reply: {reason}"),
            after: None,
        },
    }
}
