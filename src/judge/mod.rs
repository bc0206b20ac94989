//! The judge: backends (Ollama `/api/chat`, OpenAI-compatible `/v1/chat/completions`), strict
//! parsing of their replies, and (in `run`) concurrent, rate-limited, retried, cached calls.
//! Not for deciding what the verifier can decide: only escalated answers come here.

pub mod rubric;
pub mod run;

use crate::verify::{Choice, ChoiceSet};
use rubric::{Message, Rubric, RubricKind};
use serde_json::{json, Value};
use std::fmt;
use std::str::FromStr;

/// Where the judge runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Ollama's native `/api/chat`, at `host` (from `OLLAMA_HOST`).
    Ollama { host: String },
    /// Any OpenAI-compatible server: vLLM, llama.cpp server, hosted APIs.
    OpenAi { base_url: String },
}

/// `ollama:MODEL` or `openai:BASE_URL#MODEL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeSpec {
    pub backend: Backend,
    pub model: String,
}

/// The default Ollama address when `OLLAMA_HOST` is unset.
pub const DEFAULT_OLLAMA_HOST: &str = "http://127.0.0.1:11434";

impl JudgeSpec {
    /// Parse a spec; `ollama_host` is `OLLAMA_HOST` if set.
    pub fn parse(spec: &str, ollama_host: Option<&str>) -> Result<JudgeSpec, String> {
        if let Some(model) = spec.strip_prefix("ollama:") {
            if model.is_empty() {
                return Err("ollama:MODEL needs a model, e.g. ollama:gpt-oss:20b".into());
            }
            let host = ollama_host
                .filter(|h| !h.trim().is_empty())
                .unwrap_or(DEFAULT_OLLAMA_HOST)
                .trim()
                .trim_end_matches('/');
            let host = if host.contains("://") {
                host.to_string()
            } else {
                format!("http://{host}")
            };
            return Ok(JudgeSpec {
                backend: Backend::Ollama { host },
                model: model.to_string(),
            });
        }
        if let Some(rest) = spec.strip_prefix("openai:") {
            let (base, model) = rest
                .rsplit_once('#')
                .ok_or("openai:BASE_URL#MODEL needs #MODEL, e.g. openai:http://127.0.0.1:8000/v1#gpt-oss-20b")?;
            if !(base.starts_with("http://") || base.starts_with("https://")) || model.is_empty() {
                return Err(format!(
                    "`{spec}`: expected openai:http(s)://HOST[:PORT]/v1#MODEL"
                ));
            }
            return Ok(JudgeSpec {
                backend: Backend::OpenAi {
                    base_url: base.trim_end_matches('/').to_string(),
                },
                model: model.to_string(),
            });
        }
        Err(format!(
            "`{spec}`: expected ollama:MODEL or openai:BASE_URL#MODEL"
        ))
    }

    /// `ollama` or `openai`.
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            Backend::Ollama { .. } => "ollama",
            Backend::OpenAi { .. } => "openai",
        }
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        match &self.backend {
            Backend::Ollama { host } => crate::client::join_path(host, "/api/chat"),
            Backend::OpenAi { base_url } => crate::client::join_path(base_url, "/chat/completions"),
        }
    }

    /// The decoding options sent with every request (part of the cache key).
    pub fn decoding(&self) -> Value {
        json!({"temperature": 0})
    }

    /// The request body: messages, deterministic decoding, a bound on the reply's length
    /// (servers default to unbounded output), and structured output in `form`, with the
    /// reply schema restricted to `choices`' labels.
    pub fn body(
        &self,
        rubric: &Rubric,
        messages: &[Message],
        choices: Option<&ChoiceSet>,
        form: OutputForm,
        max_tokens: u32,
    ) -> Value {
        let schema = reply_schema(rubric, choices);
        match self.backend {
            Backend::Ollama { .. } => json!({
                "model": self.model,
                "messages": messages,
                "stream": false,
                "format": schema,
                "options": {"temperature": 0, "num_predict": max_tokens},
            }),
            Backend::OpenAi { .. } => {
                let mut body = json!({
                    "model": self.model,
                    "messages": messages,
                    "temperature": 0,
                    "max_tokens": max_tokens,
                    "stream": false,
                });
                let format = match form {
                    OutputForm::JsonSchema => Some(json!({
                        "type": "json_schema",
                        "json_schema": {"name": rubric.id, "schema": schema, "strict": true},
                    })),
                    OutputForm::JsonObject => {
                        Some(json!({"type": "json_object", "schema": schema}))
                    }
                    OutputForm::Prompt => None,
                };
                if let (Some(format), Some(obj)) = (format, body.as_object_mut()) {
                    obj.insert("response_format".into(), format);
                }
                body
            }
        }
    }

    /// The reply text in a response body.
    pub fn reply_text<'a>(&self, body: &'a Value) -> Option<&'a str> {
        match self.backend {
            Backend::Ollama { .. } => body.get("message")?.get("content")?.as_str(),
            Backend::OpenAi { .. } => body
                .get("choices")?
                .get(0)?
                .get("message")?
                .get("content")?
                .as_str(),
        }
    }
}

impl fmt::Display for JudgeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.backend {
            Backend::Ollama { .. } => write!(f, "ollama:{}", self.model),
            // Shown in messages and stored in verdicts: without a key written into the URL.
            Backend::OpenAi { base_url } => write!(
                f,
                "openai:{}#{}",
                crate::client::redact::shown_url(base_url),
                self.model
            ),
        }
    }
}

impl FromStr for JudgeSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        JudgeSpec::parse(s, std::env::var("OLLAMA_HOST").ok().as_deref())
    }
}

/// How a request asks for structured output, most constraining first. Servers differ: vLLM
/// and llama.cpp's server take `json_schema`; llama-cpp-python's refuses it and takes
/// `json_object` (with a `schema`); some take neither, and the prompt and strict parsing must
/// do. The judge starts with the first and falls back when a server refuses a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputForm {
    JsonSchema,
    JsonObject,
    Prompt,
}

impl OutputForm {
    /// The next form to try when a server refuses this one.
    pub fn fallback(self) -> Option<OutputForm> {
        match self {
            OutputForm::JsonSchema => Some(OutputForm::JsonObject),
            OutputForm::JsonObject => Some(OutputForm::Prompt),
            OutputForm::Prompt => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OutputForm::JsonSchema => "json_schema",
            OutputForm::JsonObject => "json_object",
            OutputForm::Prompt => "prompt",
        }
    }
}

/// Does a server's refusal (status, message) say it does not take a structured-output form?
pub fn refuses_output_form(status: u16, message: &str) -> bool {
    let m = message.to_lowercase();
    (400..600).contains(&status)
        && [
            "response_format",
            "json_schema",
            "json schema",
            "grammar",
            "schema",
        ]
        .iter()
        .any(|w| m.contains(w))
}

/// The rubric's reply schema, with `choice` restricted to the item's labels (or null), so
/// that constrained decoding keeps a judge inside the set.
pub fn reply_schema(rubric: &Rubric, choices: Option<&ChoiceSet>) -> Value {
    let mut schema = rubric.schema.clone();
    if let (RubricKind::Choice, Some(set)) = (rubric.kind, choices) {
        let mut labels: Vec<Value> = set.choices().map(|c| Value::from(set.label(c))).collect();
        labels.push(Value::Null);
        if let Some(choice) = schema
            .get_mut("properties")
            .and_then(|p| p.get_mut("choice"))
        {
            *choice = json!({"type": ["string", "null"], "enum": labels});
        }
    }
    schema
}

/// A judge's parsed reply.
#[derive(Clone, Debug, PartialEq)]
pub enum JudgeReply {
    /// `mc_final_answer`: the chosen option, or none.
    Choice {
        choice: Option<Choice>,
        reason: String,
    },
    /// `freeform_score`: 1–5.
    Score { score: u8, reason: String },
}

/// Parse a reply strictly: one JSON object (optionally inside one markdown code fence) with
/// exactly the rubric's fields; a choice must be one of the item's labels.
pub fn parse_reply(
    kind: RubricKind,
    text: &str,
    choices: Option<&ChoiceSet>,
) -> Result<(JudgeReply, Value), String> {
    let t = text.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|r| r.trim_end().strip_suffix("```"))
        .map_or(t, str::trim);
    let v: Value = serde_json::from_str(t).map_err(|e| format!("reply is not JSON: {e}"))?;
    let obj = v.as_object().ok_or("reply is not a JSON object")?;
    let reason = obj
        .get("reason")
        .and_then(Value::as_str)
        .ok_or("reply has no string `reason`")?
        .to_string();
    match kind {
        RubricKind::Choice => {
            let choice = match obj.get("choice") {
                Some(Value::Null) => None,
                Some(Value::String(label)) => {
                    let set = choices.ok_or("no choice set for a choice rubric")?;
                    match set.parse_label(label) {
                        Some(c) => Some(c),
                        None => {
                            return Err(format!("reply names `{label}`, not one of the options"))
                        }
                    }
                }
                Some(_) => return Err("`choice` is not a string or null".into()),
                None => return Err("reply has no `choice`".into()),
            };
            Ok((JudgeReply::Choice { choice, reason }, v))
        }
        RubricKind::Score => {
            let score = obj
                .get("score")
                .and_then(Value::as_u64)
                .filter(|s| (1..=5).contains(s))
                .ok_or("`score` is not an integer from 1 to 5")?;
            Ok((
                JudgeReply::Score {
                    score: score as u8,
                    reason,
                },
                v,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        let s = JudgeSpec::parse("ollama:gpt-oss:20b", None).unwrap();
        assert_eq!(s.model, "gpt-oss:20b");
        assert_eq!(s.endpoint(), "http://127.0.0.1:11434/api/chat");
        let s = JudgeSpec::parse("ollama:m", Some("10.0.0.1:1234")).unwrap();
        assert_eq!(s.endpoint(), "http://10.0.0.1:1234/api/chat");
        let s = JudgeSpec::parse("openai:http://127.0.0.1:8000/v1#gpt-oss-20b", None).unwrap();
        assert_eq!(s.endpoint(), "http://127.0.0.1:8000/v1/chat/completions");
        assert_eq!(s.model, "gpt-oss-20b");
        assert!(JudgeSpec::parse("openai:http://x/v1", None).is_err());
        assert!(JudgeSpec::parse("claude:x", None).is_err());
    }

    #[test]
    fn parses_replies_strictly() {
        let set: ChoiceSet = "circled:4".parse().unwrap();
        let (r, _) = parse_reply(
            RubricKind::Choice,
            "{\"choice\":\"③\",\"reason\":\"final\"}",
            Some(&set),
        )
        .unwrap();
        assert_eq!(
            r,
            JudgeReply::Choice {
                choice: set.at_position(3),
                reason: "final".into()
            }
        );
        let (r, _) = parse_reply(
            RubricKind::Choice,
            "```json\n{\"choice\":null,\"reason\":\"none\"}\n```",
            Some(&set),
        )
        .unwrap();
        assert!(matches!(r, JudgeReply::Choice { choice: None, .. }));
        assert!(parse_reply(
            RubricKind::Choice,
            "{\"choice\":\"⑤\",\"reason\":\"x\"}",
            Some(&set)
        )
        .is_err());
        assert!(parse_reply(RubricKind::Choice, "The answer is ③", Some(&set)).is_err());
        assert!(parse_reply(RubricKind::Choice, "{\"reason\":\"x\"}", Some(&set)).is_err());
        assert!(parse_reply(RubricKind::Score, "{\"score\":6,\"reason\":\"x\"}", None).is_err());
        assert!(parse_reply(RubricKind::Score, "{\"score\":4,\"reason\":\"x\"}", None).is_ok());
    }
}
