//! kgrade's own shape: `{"id", "response"}`, where `response` is a string or a saved chat
//! completion (`choices[0].message.content`, also under `body`), and `reasoning_content` may
//! sit beside it. Several lines for one id are several samples. `kgrade generate` writes this
//! shape, with `sample`, `finish_reason`, `usage` and `model` for people (ignored here) and,
//! under `--circular`, `ordering`: the option order the item was shown in.

use super::{chat_text, id_of, reasoning_of, with_reasoning, Generation, LineProblem, Shape};
use serde_json::Value;

pub(super) struct Plain;

impl Shape for Plain {
    fn name(&self) -> &'static str {
        "plain"
    }

    fn detects(&self, _line: &Value) -> bool {
        true
    }

    fn parse(&self, v: &Value, line: u64) -> Result<Vec<Generation>, LineProblem> {
        let id =
            id_of(v.get("id")).ok_or(LineProblem::field("id", "missing or not a string/number"))?;
        let response = match v.get("response") {
            Some(Value::String(s)) => with_reasoning(s, reasoning_of(v)),
            Some(obj @ Value::Object(_)) => chat_text(obj)
                .or_else(|| obj.get("body").and_then(chat_text))
                .ok_or(LineProblem::field(
                    "response",
                    "no choices[0].message.content",
                ))?,
            Some(Value::Null) => String::new(),
            Some(_) => {
                return Err(LineProblem::field(
                    "response",
                    "not a string or chat response",
                ))
            }
            None => return Err(LineProblem::field("response", "missing")),
        };
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
        Ok(vec![Generation {
            id,
            response,
            line,
            ordering,
        }])
    }
}
