//! Model replies as servers and batch APIs write them, whatever wraps them: an OpenAI chat
//! completion (every choice, `message.content` with `reasoning_content` or `reasoning`
//! kept apart), a text completion (`choices[].text`), a Responses-API response
//! (`output[]` messages of `output_text`, reasoning summaries apart), an Ollama `/api/chat`
//! reply (`message.content`, `message.thinking`), and the error bodies they carry instead.

use serde_json::Value;

/// One answer in a reply: the final content, and reasoning the server kept apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub content: String,
    pub reasoning: Option<String>,
    /// The model declined: OpenAI's `message.refusal`, a Responses-API `refusal` part.
    pub refusal: Option<String>,
}

/// What a reply body holds: its answers (several with `n` > 1), or the provider's error.
pub type Replies = Result<Vec<Reply>, String>;

/// Read a reply body of any known shape; `None` when it is none of them.
pub fn read(body: &Value) -> Option<Replies> {
    if let Some(message) = error_message(body) {
        return Some(Err(message));
    }
    if let Some(choices) = body.get("choices").and_then(Value::as_array) {
        let mut out = Vec::with_capacity(choices.len());
        for c in choices {
            match choice_reply(c)? {
                Ok(reply) => out.push(reply),
                Err(e) => return Some(Err(e)),
            }
        }
        return Some(Ok(out));
    }
    // A Responses-API response. The SDKs' `output_text` (every message's text joined) is
    // written out by some proxies and loggers, at times with `output` left empty.
    let output_text = body.get("output_text").and_then(Value::as_str);
    if let Some(output) = body.get("output").and_then(Value::as_array) {
        let mut reply = responses_reply(output);
        if let Some(text) = output_text.filter(|_| reply.content.trim().is_empty()) {
            reply.content = text.to_string();
        }
        return Some(Ok(vec![reply]));
    }
    if let Some(text) = output_text {
        return Some(Ok(vec![Reply {
            content: text.to_string(),
            reasoning: None,
            refusal: None,
        }]));
    }
    if let Some(message) = body.get("message").filter(|m| m.is_object()) {
        return Some(Ok(vec![message_reply(message)?]));
    }
    // Ollama's /api/generate: `response` and `done`, reasoning in `thinking`.
    if let (Some(text), Some(_)) = (
        body.get("response").and_then(Value::as_str),
        body.get("done"),
    ) {
        return Some(Ok(vec![Reply {
            content: text.to_string(),
            reasoning: reasoning_of(body).map(str::to_string),
            refusal: None,
        }]));
    }
    None
}

/// One choice of a chat or text completion: its answer, or the provider's error inside it.
/// OpenRouter reports an upstream failure after the reply began as `finish_reason: "error"`
/// with an `error` object in the choice: a failed request, not the model's empty answer
/// (trial 43). A content filter that left no content (`finish_reason: "content_filter"`,
/// Azure and OpenAI) is the provider declining: a refusal, as `message.refusal` is.
pub fn choice_reply(choice: &Value) -> Option<Replied> {
    if let Some(e) = error_message(choice) {
        return Some(Err(format!("the provider failed mid-reply: {e}")));
    }
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    if finish == Some("error") {
        return Some(Err(
            "the provider failed mid-reply (finish_reason `error`)".to_string()
        ));
    }
    let mut reply = if let Some(message) = choice.get("message") {
        message_reply(message)?
    } else {
        Reply {
            content: choice.get("text").and_then(Value::as_str)?.to_string(),
            reasoning: None,
            refusal: None,
        }
    };
    if finish == Some("content_filter") && reply.refusal.is_none() && reply.content.is_empty() {
        reply.refusal = Some("content_filter".to_string());
    }
    Some(Ok(reply))
}

/// One choice's answer, or the provider's error in it.
pub type Replied = Result<Reply, String>;

/// A message's `content`: a string, or the text of a list of parts (Mistral's and the
/// Anthropic-style `[{"type": "text", "text": …}]`; a `thinking` part is not text). `None`
/// for null, a missing key or another shape.
pub fn content_text(message: &Value) -> Option<String> {
    match message.get("content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter(|p| {
                    p.get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "text")
                })
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
}

/// A chat message: `content` (a string, null, or a list of text parts) and any reasoning.
fn message_reply(message: &Value) -> Option<Reply> {
    let content = match message.get("content") {
        Some(Value::Null) | None => String::new(),
        Some(_) => content_text(message)?,
    };
    // OpenAI's refusal (`content: null`, `refusal: "…"`) is a final, empty answer.
    let refusal = message
        .get("refusal")
        .and_then(Value::as_str)
        .map(str::to_string);
    if message.get("content").is_none() && reasoning_of(message).is_none() && refusal.is_none() {
        return None;
    }
    Some(Reply {
        content,
        reasoning: reasoning_of(message).map(str::to_string),
        refusal,
    })
}

/// Reasoning kept apart from the content: vLLM's `reasoning_content`, OpenRouter's and
/// newer vLLM's `reasoning`, Ollama's `thinking`.
pub fn reasoning_of(v: &Value) -> Option<&str> {
    ["reasoning_content", "reasoning", "thinking"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .filter(|r| !r.trim().is_empty())
}

/// A Responses-API `output` list: the text of its messages, reasoning summaries apart.
fn responses_reply(output: &[Value]) -> Reply {
    let mut content = String::new();
    let mut reasoning = String::new();
    let mut refusal: Option<String> = None;
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => {
                            content.push_str(part.get("text").and_then(Value::as_str).unwrap_or(""))
                        }
                        Some("refusal") => {
                            refusal = part
                                .get("refusal")
                                .and_then(Value::as_str)
                                .map(str::to_string);
                        }
                        _ => {}
                    }
                }
            }
            Some("reasoning") => {
                for part in item
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .chain(
                        item.get("content")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten(),
                    )
                {
                    if let Some(t) = part.get("text").and_then(Value::as_str) {
                        if !reasoning.is_empty() {
                            reasoning.push('\n');
                        }
                        reasoning.push_str(t);
                    }
                }
            }
            _ => {}
        }
    }
    Reply {
        content,
        reasoning: (!reasoning.trim().is_empty()).then_some(reasoning),
        refusal,
    }
}

/// The provider's error message in a body (`{"error": {"message"}}`, `{"error": "…"}`), if
/// the body is an error.
pub fn error_message(body: &Value) -> Option<String> {
    let e = body.get("error").filter(|e| !e.is_null())?;
    let message = e
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| e.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| e.to_string());
    let code = e
        .get("code")
        .filter(|c| !c.is_null())
        .or_else(|| e.get("type"))
        .and_then(|c| {
            c.as_str()
                .map(str::to_string)
                .or_else(|| c.as_u64().map(|n| n.to_string()))
        });
    Some(match code {
        Some(code) if !message.contains(&code) => format!("{code}: {message}"),
        _ => message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shape_and_every_choice() {
        let chat = json!({"choices": [
            {"message": {"content": "②", "reasoning_content": "생각"}},
            {"message": {"content": null, "reasoning": "정답은 ③"}}
        ]});
        assert_eq!(
            read(&chat).unwrap().unwrap(),
            vec![
                Reply {
                    content: "②".into(),
                    reasoning: Some("생각".into()),
                    refusal: None
                },
                Reply {
                    content: "".into(),
                    reasoning: Some("정답은 ③".into()),
                    refusal: None
                },
            ]
        );
        let responses = json!({"object": "response", "output": [
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "고민"}]},
            {"type": "message", "content": [{"type": "output_text", "text": "정답은 ④"}]}
        ]});
        assert_eq!(
            read(&responses).unwrap().unwrap(),
            vec![Reply {
                content: "정답은 ④".into(),
                reasoning: Some("고민".into()),
                refusal: None
            }]
        );
        // Trial 40, D12: `output_text` alone (an empty `output`, or none) read as an empty
        // answer, a model failure; it is the answer's text.
        for body in [
            json!({"object": "response", "output": [], "output_text": "정답은 ②"}),
            json!({"object": "response", "output_text": "정답은 ②"}),
        ] {
            assert_eq!(read(&body).unwrap().unwrap()[0].content, "정답은 ②");
        }
        let both = json!({"output": [{"type": "message", "content": [{"type": "output_text", "text": "③"}]}], "output_text": "③"});
        assert_eq!(read(&both).unwrap().unwrap()[0].content, "③");
        let ollama = json!({"model": "m", "message": {"role": "assistant", "content": "①", "thinking": "음"}, "done": true});
        assert_eq!(
            read(&ollama).unwrap().unwrap(),
            vec![Reply {
                content: "①".into(),
                reasoning: Some("음".into()),
                refusal: None
            }]
        );
        let text = json!({"choices": [{"text": " B"}]});
        assert_eq!(read(&text).unwrap().unwrap()[0].content, " B");
        let error = json!({"error": {"message": "This model's maximum context length is 8192 tokens", "code": "context_length_exceeded"}});
        assert_eq!(
            read(&error).unwrap().unwrap_err(),
            "context_length_exceeded: This model's maximum context length is 8192 tokens"
        );
        assert!(read(&json!({"foo": 1})).is_none());
    }

    /// Trial 43, D2 and D8: a choice-level provider error is the reply's error, not an empty
    /// answer; a content filter that left no content is a refusal in a saved reply, a batch
    /// output and a text completion alike, as it is in `generate`'s chat path.
    #[test]
    fn a_choice_s_error_and_a_content_filter() {
        let failed = json!({"choices": [{"index": 0, "finish_reason": "error",
            "message": {"role": "assistant", "content": ""},
            "error": {"code": 502, "message": "Upstream idle timeout"}}]});
        assert_eq!(
            read(&failed).unwrap().unwrap_err(),
            "the provider failed mid-reply: 502: Upstream idle timeout"
        );
        let bare = json!({"choices": [{"finish_reason": "error", "message": {"content": ""}}]});
        assert!(read(&bare).unwrap().is_err());
        for filtered in [
            json!({"choices": [{"finish_reason": "content_filter", "message": {"content": null}}]}),
            json!({"choices": [{"finish_reason": "content_filter", "text": ""}]}),
        ] {
            let reply = &read(&filtered).unwrap().unwrap()[0];
            assert_eq!(reply.refusal.as_deref(), Some("content_filter"));
        }
        // Text the filter let through stays the answer.
        let partial = json!({"choices": [{"finish_reason": "content_filter", "message": {"content": "정답은 ②"}}]});
        assert_eq!(read(&partial).unwrap().unwrap()[0].refusal, None);
        // Content as a list of parts: the text parts, not the thinking.
        let parts = json!({"choices": [{"message": {"content": [
            {"type": "thinking", "thinking": [{"type": "text", "text": "④?"}]},
            {"type": "text", "text": "정답은 ①"}]}}]});
        assert_eq!(read(&parts).unwrap().unwrap()[0].content, "정답은 ①");
    }
}
