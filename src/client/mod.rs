//! The one HTTP client for every model call (the judge, candidate generation): bearer key,
//! bounded concurrency (tokio), a request rate (governor, on an absolute schedule), an
//! optional tokens-per-minute limit, per-request timeouts, retries with exponential backoff
//! and jitter that honour `Retry-After`, request/token accounting, and Ctrl-C ([`interrupt`]:
//! no new request after the first press, none under way after the second). What a reply means is
//! the caller's business: it passes a function that accepts a response body or says why not
//! (a reply that is not accepted is retried like a server error).

pub mod interrupt;
pub mod pool;
pub mod redact;
mod retry_after;
mod server_text;
pub use retry_after::{retry_after, RETRY_AFTER_CAP};
use server_text::{not_json, with_server_message};

pub use interrupt::Interrupt;

use governor::clock::Clock;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde_json::Value;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How to call a server.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The bearer key (from the environment; never logged, cached or reported).
    pub api_key: Option<String>,
    /// Requests per second, and the burst allowed above it (governor: up to rps + burst in
    /// any one second; burst 1 keeps a strict provider limit).
    pub rps: f64,
    pub burst: u32,
    /// Optional tokens-per-minute limit (each request's tokens are estimated by the caller).
    pub tpm: Option<u32>,
    pub max_concurrency: usize,
    pub timeout: Duration,
    pub max_retries: u32,
    /// The first retry waits about this long; each further one doubles it (capped at 60 s).
    pub backoff_base: Duration,
    /// Ctrl-C: once pressed no request is sent (retries included); pressed twice, the
    /// requests under way are cancelled ([`CallError::Interrupted`]).
    pub interrupt: Interrupt,
}

/// Live counts, for progress bars and summaries.
#[derive(Debug, Default)]
pub struct Counters {
    /// Tasks submitted, and tasks finished (either way).
    pub total: AtomicU64,
    pub done: AtomicU64,
    /// Tasks answered from a cache, with no request.
    pub cache_hits: AtomicU64,
    /// HTTP requests sent, and how many of them were retries.
    pub requests: AtomicU64,
    pub retries: AtomicU64,
    /// Tasks that failed (after every retry, or at once when retrying cannot help).
    pub failures: AtomicU64,
    /// Tokens the servers reported (`usage`, or Ollama's eval counts).
    pub prompt_tokens: AtomicU64,
    pub completion_tokens: AtomicU64,
}

/// A client that cannot be built from its configuration.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ClientError(pub String);

/// A successful call: what the caller's function accepted, and how long the last attempt took.
#[derive(Debug)]
pub struct Called<T> {
    pub value: T,
    pub latency: Duration,
}

/// The shared client. Cheap to share behind an `Arc`; every call goes through its limits.
pub struct Client {
    config: ClientConfig,
    http: reqwest::Client,
    limiter: DefaultDirectRateLimiter,
    /// The next free request slot on an absolute schedule (see `pace`).
    next_slot: std::sync::Mutex<Instant>,
    period: Duration,
    tokens: Option<DefaultDirectRateLimiter>,
    permits: tokio::sync::Semaphore,
    counters: Arc<Counters>,
    jitter: AtomicU64,
}

/// What one HTTP attempt came to.
enum Attempt<T> {
    Done(T),
    Retry {
        reason: String,
        after: Option<Duration>,
    },
    Fatal(String),
    /// The caller's `accept` refused the reply and asked not to retry it as it is.
    Rejected(String),
    /// The server refused the request in a way the caller recognises (see [`CallRules`]).
    Refused(String),
}

/// How a call treats replies and refusals the caller wants to handle itself.
#[derive(Clone, Copy, Default)]
pub struct CallRules<'a> {
    /// A reply `accept` refuses ends the call with [`CallError::Rejected`] instead of being
    /// asked for again byte for byte (at temperature 0 it would come back the same).
    pub no_retry_on_reject: bool,
    /// An error status and server message for which this is true end the call at once with
    /// [`CallError::Refused`] (for example a structured-output form the server does not take).
    pub refused: Option<Refusal<'a>>,
}

/// Recognises a server refusal from its status and message (see [`CallRules::refused`]).
pub type Refusal<'a> = &'a (dyn Fn(u16, &str) -> bool + Send + Sync);

/// Why a call did not succeed.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// Every attempt failed, or the request cannot succeed; the reason says how.
    Failed(String),
    /// `accept` refused the reply (with [`CallRules::no_retry_on_reject`]).
    Rejected(String),
    /// The server refused the request as [`CallRules::refused`] recognised.
    Refused(String),
    /// Ctrl-C stopped the call before it had an answer ([`ClientConfig::interrupt`]): not the
    /// server's fault, and not a failure to report, only an answer still to get.
    Interrupted,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Failed(r) | CallError::Refused(r) => f.write_str(r),
            CallError::Rejected(r) => write!(f, "malformed reply: {r}"),
            CallError::Interrupted => f.write_str("interrupted (Ctrl-C)"),
        }
    }
}

/// Seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Client {
    /// Build a client; `counters` receives request, retry and token counts.
    pub fn new(config: ClientConfig, counters: Arc<Counters>) -> Result<Client, ClientError> {
        // reqwest is built without a default crypto provider (ring, not aws-lc: no system
        // libraries, faster builds); install it once. A second install is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| ClientError(format!("HTTP client: {e}")))?;
        if !(config.rps > 0.0 && config.rps.is_finite()) {
            return Err(ClientError(format!(
                "--rps must be positive, got {}",
                config.rps
            )));
        }
        let period = Duration::from_secs_f64(1.0 / config.rps);
        let burst = NonZeroU32::new(config.burst.max(1)).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::with_period(period)
            .ok_or_else(|| ClientError("--rps too high".into()))?
            .allow_burst(burst);
        let tokens = config
            .tpm
            .and_then(NonZeroU32::new)
            .map(|tpm| RateLimiter::direct(Quota::per_minute(tpm)));
        Ok(Client {
            limiter: RateLimiter::direct(quota),
            next_slot: std::sync::Mutex::new(Instant::now()),
            period,
            tokens,
            permits: tokio::sync::Semaphore::new(config.max_concurrency.max(1)),
            http,
            counters,
            jitter: AtomicU64::new(0x9E37_79B9_7F4A_7C15 ^ now_secs()),
            config,
        })
    }

    /// The live counters.
    pub fn counters(&self) -> &Arc<Counters> {
        &self.counters
    }

    /// POST `body` to `url` as JSON until `accept` takes the response body, within the
    /// concurrency, rate and token limits. 429/503 (waiting `Retry-After` when given), other
    /// 5xx, timeouts, dropped connections, malformed bodies and bodies `accept` refuses are
    /// retried up to `max_retries` times; other 4xx fail at once. The error is the reason the
    /// last attempt failed, with the server's own message where it gave one.
    pub async fn call<T>(
        &self,
        url: &str,
        body: &Value,
        estimated_tokens: u32,
        accept: impl FnMut(&Value) -> Result<T, String>,
    ) -> Result<Called<T>, String> {
        self.call_with_retries(url, body, estimated_tokens, self.config.max_retries, accept)
            .await
    }

    /// [`Client::call`] with its own retry budget: a caller spreading work over several
    /// servers ([`pool::Endpoints`]) gives one server a few attempts before trying another.
    pub async fn call_with_retries<T>(
        &self,
        url: &str,
        body: &Value,
        estimated_tokens: u32,
        max_retries: u32,
        accept: impl FnMut(&Value) -> Result<T, String>,
    ) -> Result<Called<T>, String> {
        self.call_with_rules(
            url,
            body,
            estimated_tokens,
            max_retries,
            CallRules::default(),
            accept,
        )
        .await
        .map_err(|e| e.to_string())
    }

    /// [`Client::call_with_retries`] with [`CallRules`]: the caller handles refused replies
    /// and recognised server refusals itself.
    pub async fn call_with_rules<T>(
        &self,
        url: &str,
        body: &Value,
        estimated_tokens: u32,
        max_retries: u32,
        rules: CallRules<'_>,
        mut accept: impl FnMut(&Value) -> Result<T, String>,
    ) -> Result<Called<T>, CallError> {
        let _permit = self
            .unless_interrupted(1, self.permits.acquire())
            .await?
            .map_err(|_| CallError::Failed("client shut down".to_string()))?;
        let mut last_reason = String::new();
        for attempt in 0..=max_retries {
            if attempt > 0 {
                self.counters.retries.fetch_add(1, Ordering::Relaxed);
            }
            self.unless_interrupted(1, async {
                if let Some(tokens) = &self.tokens {
                    let tpm = self.config.tpm.unwrap_or(1).max(1);
                    let n =
                        NonZeroU32::new(estimated_tokens.clamp(1, tpm)).unwrap_or(NonZeroU32::MIN);
                    let _ = tokens.until_n_ready(n).await;
                }
                self.pace().await;
            })
            .await?;
            // A press while the turn came up still stops this request from being sent.
            if self.config.interrupt.stopping() {
                return Err(CallError::Interrupted);
            }
            let started = Instant::now();
            let sent = self.send(url, body, &rules, &mut accept);
            match self.unless_interrupted(2, sent).await? {
                Attempt::Done(value) => {
                    return Ok(Called {
                        value,
                        latency: started.elapsed(),
                    })
                }
                Attempt::Fatal(reason) => return Err(CallError::Failed(reason)),
                Attempt::Rejected(reason) => return Err(CallError::Rejected(reason)),
                Attempt::Refused(reason) => return Err(CallError::Refused(reason)),
                Attempt::Retry { reason, after } => {
                    last_reason = reason;
                    if attempt == max_retries {
                        break;
                    }
                    let wait = after.unwrap_or_else(|| self.backoff(attempt));
                    self.unless_interrupted(1, tokio::time::sleep(wait)).await?;
                }
            }
        }
        let attempts = max_retries + 1;
        Err(CallError::Failed(format!(
            "gave up after {attempts} attempt{}: {last_reason}",
            if attempts == 1 { "" } else { "s" }
        )))
    }

    /// `work` to its end, unless Ctrl-C has been pressed `presses` times before (or while) it
    /// runs: then [`CallError::Interrupted`], and `work` is dropped (a request under way is
    /// abandoned, its connection closed).
    async fn unless_interrupted<F: std::future::Future>(
        &self,
        presses: u32,
        work: F,
    ) -> Result<F::Output, CallError> {
        let interrupt = &self.config.interrupt;
        if interrupt.presses() >= presses {
            return Err(CallError::Interrupted);
        }
        tokio::select! {
            biased;
            () = interrupt.pressed(presses) => Err(CallError::Interrupted),
            out = work => Ok(out),
        }
    }

    /// Wait for this request's turn. Each request takes the next slot of an absolute schedule
    /// (one per `1/rps`, never earlier than now, so idle time does not bank a burst) and
    /// sleeps until it; governor then has the last word and never lets a request through
    /// early. With many waiters contending in governor alone, each timer tick's lateness is
    /// lost for good and the achieved rate falls well short of `--rps`; on an absolute
    /// schedule it is not.
    async fn pace(&self) {
        let slot = {
            let mut next = self
                .next_slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let slot = (*next).max(Instant::now());
            *next = slot + self.period;
            slot
        };
        tokio::time::sleep_until(slot.into()).await;
        // governor's own wait sleeps in whole timer ticks, which loses most of a slot at high
        // rates; a wait shorter than a tick is spent yielding instead.
        loop {
            match self.limiter.check() {
                Ok(()) => return,
                Err(not_until) => {
                    let wait = not_until.wait_time_from(self.limiter.clock().now());
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
    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.config.backoff_base.as_secs_f64() * 2f64.powi(attempt as i32);
        let capped = base.min(60.0);
        // xorshift over a shared state: jitter needs no cryptographic randomness.
        let mut x = self.jitter.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.jitter.store(x, Ordering::Relaxed);
        let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
        Duration::from_secs_f64(capped * (0.5 + 0.5 * unit))
    }

    async fn send<T>(
        &self,
        url: &str,
        body: &Value,
        rules: &CallRules<'_>,
        accept: &mut impl FnMut(&Value) -> Result<T, String>,
    ) -> Attempt<T> {
        self.counters.requests.fetch_add(1, Ordering::Relaxed);
        let mut request = self.http.post(url).json(body);
        if let Some(key) = &self.config.api_key {
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
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("no content type")
            .to_string();
        let after = retry_after(
            response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
        );
        let text = match response.text().await {
            // A server may echo the key it was sent: scrub it here, where every body enters.
            Ok(t) => match redact::redact(
                &t,
                &secrets(self.config.api_key.as_deref(), url),
                status.is_success(),
            ) {
                std::borrow::Cow::Owned(clean) => clean,
                std::borrow::Cow::Borrowed(_) => t,
            },
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
        if !status.is_success() {
            // A body that is not JSON (a proxy's HTML page) is said with its content type.
            let json = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
            let what = match json || text.trim().is_empty() {
                true => format!("HTTP {status}"),
                false => format!("HTTP {status} ({content_type})"),
            };
            let reason = with_server_message(&what, &text);
            if rules
                .refused
                .is_some_and(|refused| refused(status.as_u16(), &reason))
            {
                return Attempt::Refused(reason);
            }
            return match status.as_u16() {
                429 | 503 => Attempt::Retry { reason, after },
                _ if status.is_server_error() => Attempt::Retry {
                    reason,
                    after: None,
                },
                // 400, 401, 404…: retrying the same request cannot help.
                _ => Attempt::Fatal(reason),
            };
        }
        let body: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                return Attempt::Retry {
                    reason: not_json(status, &content_type, &text, &e),
                    after: None,
                }
            }
        };
        self.count_tokens(&body);
        match accept(&body) {
            Ok(value) => Attempt::Done(value),
            Err(reason) if rules.no_retry_on_reject => Attempt::Rejected(reason),
            Err(reason) => Attempt::Retry {
                reason: format!("malformed reply: {reason}"),
                after: None,
            },
        }
    }

    fn count_tokens(&self, body: &Value) {
        let get = |keys: [&str; 2]| {
            keys.iter()
                .find_map(|k| {
                    body.get("usage")
                        .and_then(|u| u.get(*k))
                        .or_else(|| body.get(*k))
                        .and_then(Value::as_u64)
                })
                .unwrap_or(0)
        };
        let prompt = get(["prompt_tokens", "prompt_eval_count"]);
        let completion = get(["completion_tokens", "eval_count"]);
        self.counters
            .prompt_tokens
            .fetch_add(prompt, Ordering::Relaxed);
        self.counters
            .completion_tokens
            .fetch_add(completion, Ordering::Relaxed);
    }
}

/// The URL of `path` (`/chat/completions`) under the base URL `base`: the path is joined to
/// the base's path, before its query, which is kept (Azure's `?api-version=…`).
///
/// ```
/// use kgrade::client::join_path;
/// assert_eq!(join_path("http://h/v1/", "/completions"), "http://h/v1/completions");
/// assert_eq!(
///     join_path("http://h/openai/v1?api-version=2024-02-01", "/chat/completions"),
///     "http://h/openai/v1/chat/completions?api-version=2024-02-01"
/// );
/// ```
pub fn join_path(base: &str, path: &str) -> String {
    let split = base.find(['?', '#']).unwrap_or(base.len());
    let (before, after) = base.split_at(split);
    format!("{}{path}{after}", before.trim_end_matches('/'))
}

/// Every credential a request to `url` carries: the bearer key and what the URL's user-info
/// holds.
fn secrets(key: Option<&str>, url: &str) -> Vec<String> {
    let mut out: Vec<String> = key.map(str::to_string).into_iter().collect();
    out.extend(redact::url_secrets(url));
    out
}
