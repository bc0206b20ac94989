//! OpenAI Batch API output lines: `custom_id`, `response.body` (a chat completion), `error`.
//! A failed request has no answer; it is graded as an empty answer, never dropped.

use super::{chat_text, id_of, split_custom_id, Generation, LineProblem, Shape};
use serde_json::Value;

pub(super) struct OpenAiBatch;

impl Shape for OpenAiBatch {
    fn name(&self) -> &'static str {
        "openai-batch"
    }

    fn detects(&self, line: &Value) -> bool {
        line.get("custom_id").is_some()
    }

    fn parse(&self, v: &Value, line: u64) -> Result<Vec<Generation>, LineProblem> {
        let custom_id = id_of(v.get("custom_id"))
            .ok_or(LineProblem::field("custom_id", "missing or not a string"))?;
        // `kgrade generate --write-batch` names samples and orderings in the custom_id.
        let (id, ordering) = split_custom_id(&custom_id);
        if v.get("error").is_some_and(|e| !e.is_null()) {
            return Ok(vec![Generation {
                id,
                response: String::new(),
                line,
                ordering,
            }]);
        }
        let body = v
            .get("response")
            .and_then(|r| r.get("body"))
            .ok_or(LineProblem::field("response.body", "missing"))?;
        let response = chat_text(body).ok_or(LineProblem::field(
            "response.body.choices[0].message.content",
            "missing",
        ))?;
        Ok(vec![Generation {
            id,
            response,
            line,
            ordering,
        }])
    }
}
