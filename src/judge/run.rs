//! Running judgements: the sled cache in front, then the shared HTTP client
//! ([`crate::client`]: concurrency, rate and token limits, timeouts, retries honouring
//! `Retry-After`). Every task ends judged or failed with a reason; nothing is silently
//! "wrong". A cache hit never waits behind live requests: the cache is read before a
//! concurrency permit is taken.

use super::rubric::{Message, Rubric, RubricKind};
use super::{parse_reply, refuses_output_form, JudgeReply, JudgeSpec, OutputForm};
use crate::cache::{Cache, CachedVerdict};
use crate::client::{now_secs, CallError, CallRules, Client, ClientConfig};
use crate::verify::{Choice, ChoiceSet};
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;

pub use crate::client::Counters;

/// How to call the judge.
#[derive(Clone, Debug)]
pub struct JudgeConfig {
    pub spec: JudgeSpec,
    /// How to call the judge's server: the bearer key for OpenAI-compatible servers, rate,
    /// concurrency, timeouts and retries (tokens per minute are estimated from the prompt).
    pub client: ClientConfig,
    /// The most tokens a reply may have (`max_tokens`, Ollama's `num_predict`): a judge that
    /// loops inside its reason would otherwise generate until the timeout, on every retry.
    pub max_tokens: u32,
}

/// The default bound on a judge reply's length: a one-sentence reason and a label.
pub const DEFAULT_JUDGE_MAX_TOKENS: u32 = 256;

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
    /// Ctrl-C stopped the judgement before the judge answered: not a judge failure (nothing
    /// is stored; a rerun asks again).
    Interrupted,
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

/// The tokens a judge request is counted as against --tpm: its messages at about two
/// characters a token (Korean runs nearer one, English nearer four), plus the reply's bound.
pub fn estimated_tokens(messages: &[Message], max_tokens: u32) -> u32 {
    let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
    u32::try_from(chars / 2)
        .unwrap_or(u32::MAX)
        .saturating_add(max_tokens)
}

/// Why a judge reply has no text, in the words that say what to do (trial 43: all of these
/// were "response has no reply text"): the provider's error, the judge's refusal, a content
/// filter, or a reasoning judge that spent its whole token budget thinking.
fn no_reply_text(response: &Value, max_tokens: u32) -> String {
    let choice = response.get("choices").and_then(|c| c.get(0));
    let said = |v: Option<&Value>| {
        v.and_then(|e| e.get("message").or(Some(e)))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let message = choice.and_then(|c| c.get("message"));
    let finish = choice
        .and_then(|c| c.get("finish_reason"))
        .and_then(Value::as_str);
    let reasoned = message.is_some_and(|m| {
        ["reasoning_content", "reasoning", "thinking"]
            .iter()
            .any(|k| {
                m.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|r| !r.trim().is_empty())
            })
    });
    let why = if let Some(m) = said(response.get("error")) {
        format!("the server says {m}")
    } else if let Some(m) = said(choice.and_then(|c| c.get("error"))) {
        format!("the provider failed mid-reply: {m}")
    } else if let Some(r) = message
        .and_then(|m| m.get("refusal"))
        .and_then(Value::as_str)
    {
        format!("the judge declined: {r}")
    } else if finish == Some("content_filter") {
        "the provider's content filter stopped the reply".to_string()
    } else if finish == Some("length") && reasoned {
        format!(
            "the judge spent its whole token budget reasoning and gave no reply (finish reason `length`): raise --judge-max-tokens (now {max_tokens})"
        )
    } else {
        return "response has no reply text".to_string();
    };
    format!("response has no reply text: {why}")
}

/// The follow-up message after a reply that could not be used.
fn follow_up(reason: &str, choices: &ChoiceSet) -> String {
    let labels: Vec<String> = choices.choices().map(|c| choices.label(c)).collect();
    format!(
        "That reply could not be used ({reason}). Reply again with only the JSON object: a short `reason`, then `choice`, which must be exactly one of {} or null.",
        labels.join(", ")
    )
}

/// A judge ready to take tasks: its settings, rubric, cache and HTTP client. Shared by every
/// task of a run (`judge_all`, or the grading stream that submits tasks as it reads).
pub struct Judge {
    spec: JudgeSpec,
    rubric: Rubric,
    cache: Arc<Cache>,
    client: Client,
    max_tokens: u32,
    max_retries: u32,
    /// The structured-output form this endpoint takes, learnt for the run (an index into
    /// [`OutputForm`]'s order: 0 json_schema, 1 json_object, 2 prompt only).
    form: std::sync::atomic::AtomicU8,
    /// Until a request has shown which form the endpoint takes, requests go one at a time, so
    /// a refused form costs one request, not one per answer in flight.
    form_known: std::sync::atomic::AtomicBool,
    probing: tokio::sync::Mutex<()>,
    /// Judgements being asked for, by cache key: a task with the same key (`--n` samples
    /// that say the same thing, an answer given twice) waits for the first and reads its
    /// verdict from the cache, so no judgement is paid twice in one run either. An entry
    /// lives only while its judgement is under way.
    in_flight: InFlight,
}

type InFlight =
    Arc<std::sync::Mutex<std::collections::HashMap<[u8; 32], Arc<tokio::sync::Mutex<()>>>>>;

/// The right to ask for one judgement; the key's entry goes when the last holder or waiter
/// is done.
struct Asking {
    map: InFlight,
    key: [u8; 32],
    slot: Arc<tokio::sync::Mutex<()>>,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Asking {
    async fn take(map: &InFlight, key: [u8; 32]) -> Asking {
        let slot = {
            let mut m = map
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            m.entry(key).or_default().clone()
        };
        let guard = slot.clone().lock_owned().await;
        Asking {
            map: map.clone(),
            key,
            slot,
            guard: Some(guard),
        }
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut m = self
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The map's and this one's: nobody else waits for the key.
        if Arc::strong_count(&self.slot) == 2 {
            m.remove(&self.key);
        }
    }
}

const FORMS: [OutputForm; 3] = [
    OutputForm::JsonSchema,
    OutputForm::JsonObject,
    OutputForm::Prompt,
];

impl Judge {
    /// Build a judge; `counters` receives its live counts.
    pub fn new(
        config: JudgeConfig,
        rubric: Rubric,
        cache: Arc<Cache>,
        counters: Arc<Counters>,
    ) -> Result<Judge, JudgeError> {
        let client = Client::new(config.client.clone(), counters)
            .map_err(|e| JudgeError::Setup(e.to_string()))?;
        Ok(Judge {
            spec: config.spec,
            rubric,
            cache,
            client,
            max_tokens: config.max_tokens,
            max_retries: config.client.max_retries,
            form: std::sync::atomic::AtomicU8::new(0),
            form_known: std::sync::atomic::AtomicBool::new(false),
            probing: tokio::sync::Mutex::new(()),
            in_flight: InFlight::default(),
        })
    }

    /// The live counters.
    pub fn counters(&self) -> &Arc<Counters> {
        self.client.counters()
    }

    /// Judge one task: from the cache if it holds this judgement, else over HTTP (flushed to
    /// the cache before it counts). Updates `done`, `cache_hits` and `failures`; an
    /// interrupted judgement counts in none of them.
    pub async fn judge(&self, task: &Task) -> Outcome {
        let outcome = self.judge_uncounted(task).await;
        let counters = self.counters();
        match outcome {
            // Not done: the answer is still to be judged.
            Outcome::Interrupted => return outcome,
            Outcome::Failed { .. } => {
                counters.failures.fetch_add(1, Ordering::Relaxed);
            }
            Outcome::Judged { .. } => {}
        }
        counters.done.fetch_add(1, Ordering::Relaxed);
        outcome
    }

    /// The cached judgement of `key`, if the cache holds a usable one.
    fn cached(&self, key: &[u8; 32], task: &Task) -> Option<Outcome> {
        match self.cache.get(key) {
            Ok(Some(hit)) => {
                let (reply, _) = parse_reply(
                    self.rubric.kind,
                    &hit.verdict.to_string(),
                    Some(&task.choices),
                )
                .ok()?;
                self.counters().cache_hits.fetch_add(1, Ordering::Relaxed);
                Some(Outcome::Judged {
                    reply,
                    cached: true,
                })
            }
            Ok(None) => None,
            Err(e) => Some(Outcome::Failed {
                reason: e.to_string(),
            }),
        }
    }

    async fn judge_uncounted(&self, task: &Task) -> Outcome {
        let messages = match self.rubric.kind {
            RubricKind::Choice => {
                self.rubric
                    .render_choice(&task.question, &task.choices, &task.answer)
            }
            RubricKind::Score => self.rubric.render_score(&task.question, "", &task.answer),
        };
        let messages = match messages {
            Ok(m) => m,
            Err(e) => {
                return Outcome::Failed {
                    reason: e.to_string(),
                }
            }
        };
        let key = cache_key(&self.spec, &self.rubric, &messages);
        if let Some(outcome) = self.cached(&key, task) {
            return outcome;
        }
        // One request per key at a time; a task that waited finds the verdict in the cache.
        let _asking = Asking::take(&self.in_flight, key).await;
        if let Some(outcome) = self.cached(&key, task) {
            return outcome;
        }
        let estimated_tokens = estimated_tokens(&messages, self.max_tokens);
        let spec = &self.spec;
        let kind = self.rubric.kind;
        let refused = |status: u16, message: &str| {
            matches!(spec.backend, super::Backend::OpenAi { .. })
                && refuses_output_form(status, message)
        };
        let rules = CallRules {
            no_retry_on_reject: true,
            refused: Some(&refused),
        };
        let mut messages = messages;
        let mut followed_up = false;
        let called = loop {
            let mut _probe = None;
            if !self.form_known.load(Ordering::Acquire) {
                let guard = self.probing.lock().await;
                // Whoever held the lock may have learnt the form meanwhile: then go on in
                // parallel rather than one at a time.
                if !self.form_known.load(Ordering::Acquire) {
                    _probe = Some(guard);
                }
            }
            let form_index = self.form.load(Ordering::Relaxed);
            let form = FORMS[usize::from(form_index).min(FORMS.len() - 1)];
            let body = spec.body(
                &self.rubric,
                &messages,
                Some(&task.choices),
                form,
                self.max_tokens,
            );
            let mut raw = String::new();
            let result = self
                .client
                .call_with_rules(
                    &spec.endpoint(),
                    &body,
                    estimated_tokens,
                    self.max_retries,
                    rules,
                    |response| {
                        // A 200 whose body is an error (`{"error": {"message": "quota
                        // exceeded"}}`) says why in the provider's words.
                        let text = spec
                            .reply_text(response)
                            .ok_or_else(|| no_reply_text(response, self.max_tokens))?;
                        raw = text.to_string();
                        let max_tokens = self.max_tokens;
                        let (reply, verdict) = parse_reply(kind, text, Some(&task.choices))
                            .map_err(|e| match cut_at_token_limit(response) {
                                true => format!(
                                    "{e}; the reply stopped at the token limit (finish reason \
                                     `length`): raise --judge-max-tokens (now {max_tokens})"
                                ),
                                false => e,
                            })?;
                        Ok((reply, verdict, text.to_string()))
                    },
                )
                .await;
            if !matches!(result, Err(CallError::Refused(_) | CallError::Interrupted)) {
                // Whatever else happened, the endpoint took this form.
                self.form_known.store(true, Ordering::Release);
            }
            match result {
                Ok(called) => break Ok(called),
                Err(CallError::Refused(message)) => match form.fallback() {
                    // The server does not take this form: remember the next one for the
                    // run, and ask again at once.
                    Some(_) => {
                        let _ = self.form.compare_exchange(
                            form_index,
                            form_index + 1,
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                        self.counters().retries.fetch_add(1, Ordering::Relaxed);
                    }
                    None => break Err(message),
                },
                Err(CallError::Rejected(reason)) if !followed_up => {
                    // At temperature 0 the same request gets the same reply: ask once more
                    // with the reply and what was wrong with it.
                    followed_up = true;
                    self.counters().retries.fetch_add(1, Ordering::Relaxed);
                    messages.push(Message {
                        role: "assistant",
                        content: raw,
                    });
                    messages.push(Message {
                        role: "user",
                        content: follow_up(&reason, &task.choices),
                    });
                }
                Err(CallError::Rejected(reason)) => {
                    break Err(format!("malformed reply after one follow-up: {reason}"))
                }
                Err(CallError::Failed(reason)) => break Err(reason),
                Err(CallError::Interrupted) => return Outcome::Interrupted,
            }
        };
        match called {
            Ok(called) => {
                let (reply, verdict, raw) = called.value;
                let value = CachedVerdict {
                    verdict,
                    raw,
                    latency_ms: called.latency.as_millis() as u64,
                    time: now_secs(),
                    backend: self.spec.backend_name().to_string(),
                    model: self.spec.model.clone(),
                    rubric: self.rubric.id.clone(),
                    rubric_version: self.rubric.version,
                };
                // Flushed before the verdict counts as done.
                if let Err(e) = self.cache.put(&key, &value).await {
                    return Outcome::Failed {
                        reason: e.to_string(),
                    };
                }
                Outcome::Judged {
                    reply,
                    cached: false,
                }
            }
            Err(reason) => Outcome::Failed { reason },
        }
    }
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
    counters
        .total
        .fetch_add(tasks.len() as u64, Ordering::Relaxed);
    let judge = Arc::new(Judge::new(config, rubric, cache, counters)?);
    let mut set = tokio::task::JoinSet::new();
    for (i, task) in tasks.into_iter().enumerate() {
        let judge = judge.clone();
        set.spawn(async move { (i, judge.judge(&task).await) });
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

/// Did the server stop the reply at its token limit: OpenAI's `finish_reason` (chat and
/// completions) or Ollama's `done_reason` is `length`?
fn cut_at_token_limit(response: &Value) -> bool {
    let openai = response
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("finish_reason"));
    openai
        .or_else(|| response.get("done_reason"))
        .and_then(Value::as_str)
        == Some("length")
}

#[cfg(test)]
mod tests {
    use super::no_reply_text;
    use serde_json::json;

    #[test]
    fn a_reply_without_text_says_why() {
        let thinking = json!({"choices": [{"finish_reason": "length",
            "message": {"content": null, "reasoning_content": "Let me think about option"}}]});
        assert!(no_reply_text(&thinking, 256).contains("raise --judge-max-tokens (now 256)"));
        let declined = json!({"choices": [{"finish_reason": "stop",
            "message": {"content": null, "refusal": "I can't help with that."}}]});
        assert!(
            no_reply_text(&declined, 256).ends_with("the judge declined: I can't help with that.")
        );
        let filtered =
            json!({"choices": [{"finish_reason": "content_filter", "message": {"content": null}}]});
        assert!(no_reply_text(&filtered, 256).contains("content filter"));
        let upstream = json!({"choices": [{"finish_reason": "error", "message": {"content": ""},
            "error": {"code": 502, "message": "Upstream idle timeout"}}]});
        assert!(no_reply_text(&upstream, 256).ends_with("mid-reply: Upstream idle timeout"));
        let quota = json!({"error": {"message": "quota exceeded"}});
        assert!(no_reply_text(&quota, 256).ends_with("the server says quota exceeded"));
        assert_eq!(no_reply_text(&json!({}), 256), "response has no reply text");
    }
}
