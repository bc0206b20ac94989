//! One generation request in OpenAI's shape (`/chat/completions` or `/completions`, as
//! vLLM, llama.cpp's server and hosted APIs take it) and the answer read from its reply. The
//! body never holds a key: keys go in the client's header only.

use crate::cache::CachedGeneration;
use crate::inputs::generations::replies;
use serde_json::{json, Value};
use std::str::FromStr;

/// Which OpenAI-compatible endpoint to call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `BASE_URL/chat/completions` with `messages`.
    Chat,
    /// `BASE_URL/completions` with one `prompt` string.
    Completions,
}

impl Api {
    pub fn name(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Completions => "completions",
        }
    }

    /// The path after the base URL (`/v1` included in the base).
    pub fn path(self) -> &'static str {
        match self {
            Api::Chat => "/chat/completions",
            Api::Completions => "/completions",
        }
    }
}

impl FromStr for Api {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "chat" | "chat-completions" | "chat_completions" => Ok(Api::Chat),
            "completions" => Ok(Api::Completions),
            _ => Err(format!("unknown API `{s}` (chat, completions)")),
        }
    }
}

/// Decoding options sent with every request.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoding {
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// Always sent: servers default to unbounded output.
    pub max_tokens: u32,
    pub stop: Vec<String>,
    /// Sample `k` is sent with `seed + k`, so that seeded samples differ from each other.
    pub seed: Option<u64>,
}

/// The request body for one sample of one prompt.
pub fn body(
    api: Api,
    model: &str,
    system: Option<&str>,
    prompt: &str,
    decoding: &Decoding,
    sample: u32,
) -> Value {
    let mut body = match api {
        Api::Chat => {
            let mut messages = Vec::new();
            if let Some(s) = system {
                messages.push(json!({"role": "system", "content": s}));
            }
            messages.push(json!({"role": "user", "content": prompt}));
            json!({"model": model, "messages": messages})
        }
        Api::Completions => {
            let text = match system {
                Some(s) => format!("{s}\n\n{prompt}"),
                None => prompt.to_string(),
            };
            json!({"model": model, "prompt": text})
        }
    };
    let Some(obj) = body.as_object_mut() else {
        return body;
    };
    obj.insert("max_tokens".into(), json!(decoding.max_tokens));
    if let Some(t) = decoding.temperature {
        obj.insert("temperature".into(), json!(t));
    }
    if let Some(p) = decoding.top_p {
        obj.insert("top_p".into(), json!(p));
    }
    if !decoding.stop.is_empty() {
        obj.insert("stop".into(), json!(decoding.stop));
    }
    if let Some(seed) = decoding.seed {
        obj.insert("seed".into(), json!(seed.wrapping_add(u64::from(sample))));
    }
    body
}

/// The answer in a reply, or why the reply is not one (the client then retries it). The
/// choice is read as `grade` reads a saved reply ([`replies::choice_reply`]); the provider's
/// own words are kept when the body is an error (OpenRouter's and LM Studio's `error` in a
/// 200 body, trial 43).
pub fn answer(api: Api, reply: &Value, model: &str) -> Result<CachedGeneration, String> {
    if let Some(e) = replies::error_message(reply) {
        return Err(format!("the server says {e}"));
    }
    let choice = reply
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or("no choices[0]")?;
    let read = replies::choice_reply(choice).ok_or(match api {
        Api::Chat => "no choices[0].message",
        Api::Completions => "no choices[0].text",
    })??;
    if api == Api::Chat {
        let message = choice.get("message").ok_or("no choices[0].message")?;
        // Content that is null or missing is a final answer only with reasoning (a
        // reasoning model cut off before its answer) or a refusal: retrying those would ask
        // again for ever. Otherwise the reply is broken, and retried.
        if replies::content_text(message).is_none()
            && read.reasoning.is_none()
            && read.refusal.is_none()
        {
            return Err("no choices[0].message.content".into());
        }
    }
    let (response, reasoning, refusal) = (read.content, read.reasoning, read.refusal);
    let usage = |k: &str| {
        reply
            .get("usage")
            .and_then(|u| u.get(k))
            .and_then(Value::as_u64)
    };
    Ok(CachedGeneration {
        response,
        reasoning_content: reasoning.filter(|r| !r.is_empty()),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        refusal,
        prompt_tokens: usage("prompt_tokens"),
        completion_tokens: usage("completion_tokens"),
        // The model the reply names (vLLM's served name, OpenAI's dated snapshot), else the
        // one asked for: replicas serving different models show as such (trial 42).
        model: (reply.get("model").and_then(Value::as_str))
            .filter(|m| !m.trim().is_empty())
            .unwrap_or(model)
            .to_string(),
        latency_ms: 0,
        time: 0,
    })
}

/// The reply recorded when the provider refused the prompt itself (Azure's 400
/// `content_filter`): no content, the provider's words as the refusal.
pub fn prompt_refused(reason: String, model: &str) -> CachedGeneration {
    CachedGeneration {
        response: String::new(),
        reasoning_content: None,
        finish_reason: Some("content_filter".to_string()),
        refusal: Some(reason),
        prompt_tokens: None,
        completion_tokens: None,
        model: model.to_string(),
        latency_ms: 0,
        time: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoding() -> Decoding {
        Decoding {
            temperature: Some(0.0),
            top_p: None,
            max_tokens: 64,
            stop: vec!["\n\n".into()],
            seed: Some(7),
        }
    }

    #[test]
    fn bodies_always_bound_output_and_vary_the_seed_per_sample() {
        let b = body(Api::Chat, "m", Some("sys"), "q", &decoding(), 2);
        assert_eq!(b["messages"][0]["role"], "system");
        assert_eq!(b["messages"][1]["content"], "q");
        assert_eq!(
            (b["max_tokens"].as_u64(), b["seed"].as_u64()),
            (Some(64), Some(9))
        );
        let c = body(Api::Completions, "m", None, "q", &decoding(), 0);
        assert_eq!(c["prompt"], "q");
        assert!(c.get("messages").is_none());
    }

    /// Audit 28, C1: a refusal or a content filter was "malformed" and retried for ever.
    #[test]
    fn refusals_and_content_filters_are_final_empty_answers() {
        let refusal = json!({"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}}]});
        let a = answer(Api::Chat, &refusal, "m").unwrap();
        assert_eq!(
            (a.response.as_str(), a.refusal.as_deref()),
            ("", Some("I'm sorry, I can't help with that."))
        );
        let filtered = json!({"choices":[{"index":0,"finish_reason":"content_filter","message":{"role":"assistant","content":null}}]});
        let a = answer(Api::Chat, &filtered, "m").unwrap();
        assert_eq!(
            (a.refusal.as_deref(), a.finish_reason.as_deref()),
            (Some("content_filter"), Some("content_filter"))
        );
        // A null content with no reason given is still malformed, and retried.
        let broken = json!({"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null}}]});
        assert!(answer(Api::Chat, &broken, "m").is_err());
    }

    #[test]
    fn replies_from_real_server_shapes() {
        // Shapes as llama.cpp's server replies (see /work/staging/server-notes.md) and vLLM's
        // reasoning parser (`reasoning_content` beside `content`).
        let chat = json!({"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"There's a cat named"}}],"usage":{"completion_tokens":5,"prompt_tokens":42}});
        let a = answer(Api::Chat, &chat, "m").unwrap();
        assert_eq!(
            (
                a.response.as_str(),
                a.finish_reason.as_deref(),
                a.completion_tokens
            ),
            ("There's a cat named", Some("length"), Some(5))
        );
        let reasoning = json!({"choices":[{"message":{"content":null,"reasoning_content":"생각 중"},"finish_reason":"length"}]});
        let a = answer(Api::Chat, &reasoning, "m").unwrap();
        assert_eq!(
            (a.response.as_str(), a.reasoning_content.as_deref()),
            ("", Some("생각 중"))
        );
        let text = json!({"choices":[{"text":" Paris.","index":0,"finish_reason":"length"}]});
        assert_eq!(
            answer(Api::Completions, &text, "m").unwrap().response,
            " Paris."
        );
        assert!(answer(Api::Chat, &json!({"choices":[]}), "m").is_err());
        assert!(answer(Api::Chat, &json!({"choices":[{"message":{}}]}), "m").is_err());
    }
}
