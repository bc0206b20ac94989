//! kgrade's own shape: `{"id", "response"}`. `response` is a string (with
//! `reasoning_content` or `reasoning` beside it), or a saved reply of any API
//! ([`super::replies`]; also under `body`), or null. A `prompt` or chat `messages` field is
//! the prompt the model saw, and a `question` field the question it answers (the join checks
//! both against the dataset row); an `error` field marks a failed request. Several lines for one
//! id are several samples. `kgrade generate` writes this shape, with `sample`,
//! `finish_reason`, `usage` and `model` for people (ignored here) and, under `--circular`,
//! `ordering`: the option order the item was shown in.

use super::replies::{self, reasoning_of};
use super::{from_replies, id_of, prompt_of, Generation, LineProblem, ReadState, Shape};
use serde_json::Value;

pub(super) struct Plain;

impl Shape for Plain {
    fn name(&self) -> &'static str {
        "plain"
    }

    fn detects(&self, _line: &Value) -> bool {
        true
    }

    fn parse(&self, v: &Value, state: &mut ReadState) -> Result<Vec<Generation>, LineProblem> {
        let line = state.line;
        let id =
            id_of(v.get("id")).ok_or(LineProblem::field("id", "missing or not a string/number"))?;
        let saved = v
            .get("response")
            .and_then(Value::as_str)
            .and_then(saved_reply);
        let mut out = match (v.get("response"), v.get("error").filter(|e| !e.is_null())) {
            (None | Some(Value::Null), Some(error)) => {
                let message = replies::error_message(&serde_json::json!({ "error": error }))
                    .unwrap_or_else(|| error.to_string());
                from_replies(&id, Err(message), line)
            }
            // A reply body saved as a JSON string (`json.dumps(reply)` in a script): read
            // as the reply it is, not as prose. Only a shape kgrade knows counts, so a model
            // answer that is itself JSON ({"answer": "B"}) stays the answer.
            (Some(Value::String(_)), _) if saved.is_some() => {
                from_replies(&id, saved.unwrap_or_else(|| Ok(Vec::new())), line)
            }
            (Some(Value::String(s)), _) => vec![Generation {
                reasoning: reasoning_of(v).map(str::to_string),
                refusal: v.get("refusal").and_then(Value::as_str).map(str::to_string),
                ..Generation::text(id, s.clone(), line)
            }],
            (Some(obj @ Value::Object(_)), _) => {
                let replies = replies::read(obj)
                    .or_else(|| obj.get("body").and_then(replies::read))
                    .ok_or(LineProblem::field(
                        "response",
                        "not a reply kgrade knows (chat or text completion, Responses API, Ollama)",
                    ))?;
                from_replies(&id, replies, line)
            }
            // A script that writes null for a failed request: no answer, counted apart from
            // model mistakes (a `request_error` with this note), not as an empty answer.
            (Some(Value::Null), None) => from_replies(
                &id,
                Err("`response` is null: no answer was recorded (a failed request?)".to_string()),
                line,
            ),
            (Some(_), _) => return Err(LineProblem::field("response", "not a string or a reply")),
            (None, None) => return Err(LineProblem::field("response", "missing")),
        };
        let prompt = prompt_of(v);
        // The question the line answers (the `extract` input shape): the join checks it.
        let question = v.get("question").and_then(Value::as_str);
        let ordering = match v.get("ordering") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => Some(
                a.iter()
                    .map(|n| n.as_u64().and_then(|n| u8::try_from(n).ok()))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or(LineProblem::field(
                        "ordering",
                        "not a list of option indexes",
                    ))?,
            ),
            Some(_) => {
                return Err(LineProblem::field(
                    "ordering",
                    "not a list of option indexes",
                ))
            }
        };
        let sample = match v.get("sample") {
            None | Some(Value::Null) => None,
            Some(n) => Some(n.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or(
                LineProblem::field("sample", "not a sample number (0, 1, …)"),
            )?),
        };
        for (i, g) in out.iter_mut().enumerate() {
            g.prompt.clone_from(&prompt);
            g.question = question.map(str::to_string);
            g.ordering.clone_from(&ordering);
            // Several choices in one reply are consecutive samples.
            g.sample = sample.map(|s| s + i as u32);
        }
        Ok(out)
    }
}

/// A reply body of a known shape written as a JSON string, if `s` is one.
fn saved_reply(s: &str) -> Option<replies::Replies> {
    let t = s.trim_start();
    if !t.starts_with('{') {
        return None;
    }
    let body: Value = serde_json::from_str(t).ok()?;
    replies::read(&body)
}
