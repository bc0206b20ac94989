//! OpenAI Batch API output and error files: `custom_id`, `response` (`status_code`, `body`:
//! a chat completion with every choice, a text completion, or a Responses-API response),
//! `error`. A failed request (an `error` object, a non-200 status, an error body) is kept as
//! an answer with the provider's message, so it is counted apart, never dropped and never
//! mistaken for a wrong answer.

use super::{
    from_replies, id_of, replies, split_custom_id, Generation, LineProblem, ReadState, Shape,
};
use serde_json::Value;

pub(super) struct OpenAiBatch;

impl Shape for OpenAiBatch {
    fn name(&self) -> &'static str {
        "openai-batch"
    }

    /// A `custom_id` with a `response` that is a Batch API response object (or null, or
    /// absent beside an `error`): a plain line that carries a `custom_id` of its own beside
    /// its `id` and a text `response` is plain.
    fn detects(&self, line: &Value) -> bool {
        line.get("custom_id").is_some()
            && !(line.get("id").is_some() && line.get("response").is_some_and(Value::is_string))
    }

    fn parse(&self, v: &Value, state: &mut ReadState) -> Result<Vec<Generation>, LineProblem> {
        let custom_id = id_of(v.get("custom_id"))
            .ok_or(LineProblem::field("custom_id", "missing or not a string"))?;
        // `kgrade generate --write-batch` names samples and orderings in the custom_id.
        let named = split_custom_id(&custom_id);
        let (id, sample, ordering) = (named.id, named.sample, named.ordering);
        // A custom_id names no sample for the first one. The Batch API takes each custom_id
        // once, so a line repeating one (a retry beside its failure) repeats that sample.
        let sample = sample.or(Some(0));
        let mut out = self.answers(v, id, state.line)?;
        for (i, g) in out.iter_mut().enumerate() {
            g.ordering.clone_from(&ordering);
            g.shown = named.shown;
            // Several choices in one reply are consecutive samples.
            g.sample = sample.map(|s| s + i as u32);
        }
        Ok(out)
    }
}

impl OpenAiBatch {
    fn answers(&self, v: &Value, id: String, line: u64) -> Result<Vec<Generation>, LineProblem> {
        if let Some(message) = replies::error_message(v) {
            return Ok(from_replies(&id, Err(message), line));
        }
        let response = v
            .get("response")
            .filter(|r| !r.is_null())
            .ok_or(LineProblem::field("response", "missing"))?;
        let body = response
            .get("body")
            .ok_or(LineProblem::field("response.body", "missing"))?;
        let status = response.get("status_code").and_then(Value::as_u64);
        if let Some(message) = replies::error_message(body) {
            let message = match status {
                Some(code) => format!("HTTP {code}: {message}"),
                None => message,
            };
            return Ok(from_replies(&id, Err(message), line));
        }
        if let Some(code) = status.filter(|c| !(200..300).contains(c)) {
            return Ok(from_replies(&id, Err(format!("HTTP {code}")), line));
        }
        let replies = replies::read(body).ok_or(LineProblem::field(
            "response.body",
            "no choices[].message.content, choices[].text or output[]",
        ))?;
        Ok(from_replies(&id, replies, line))
    }
}
