//! Ollama `/api/chat` replies saved one per line, with the item's id beside them:
//! `{"id", "model", "message": {"content", "thinking"}, "done"}`.

use super::{from_replies, id_of, prompt_of, replies, Generation, LineProblem, ReadState, Shape};
use serde_json::Value;

pub(super) struct Ollama;

impl Shape for Ollama {
    fn name(&self) -> &'static str {
        "ollama"
    }

    fn detects(&self, line: &Value) -> bool {
        line.get("message").is_some_and(Value::is_object)
            && line.get("response").is_none()
            && (line.get("done").is_some() || line.get("model").is_some())
    }

    fn parse(&self, v: &Value, state: &mut ReadState) -> Result<Vec<Generation>, LineProblem> {
        let id =
            id_of(v.get("id")).ok_or(LineProblem::field("id", "missing or not a string/number"))?;
        let replies =
            replies::read(v).ok_or(LineProblem::field("message.content", "missing or not text"))?;
        let mut out = from_replies(&id, replies, state.line);
        let prompt = prompt_of(v);
        for g in &mut out {
            g.prompt.clone_from(&prompt);
        }
        Ok(out)
    }
}
