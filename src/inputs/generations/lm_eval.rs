//! lm-evaluation-harness `--log_samples` lines: `doc_id`, `resps` (one `[text]` list per
//! sample). `filtered_resps` is the harness's own extraction, which kgrade does not trust: it
//! extracts from the raw text itself.

use super::{id_of, Generation, LineProblem, Shape};
use serde_json::Value;

pub(super) struct LmEval;

impl Shape for LmEval {
    fn name(&self) -> &'static str {
        "lm-eval"
    }

    fn detects(&self, line: &Value) -> bool {
        line.get("doc_id").is_some() && line.get("resps").is_some()
    }

    fn parse(&self, v: &Value, line: u64) -> Result<Vec<Generation>, LineProblem> {
        let id = id_of(v.get("doc_id"))
            .ok_or(LineProblem::field("doc_id", "missing or not a number"))?;
        let resps = v
            .get("resps")
            .and_then(Value::as_array)
            .ok_or(LineProblem::field("resps", "missing or not a list"))?;
        let mut out = Vec::with_capacity(resps.len());
        for (i, r) in resps.iter().enumerate() {
            let text = match r {
                Value::String(s) => s.as_str(),
                Value::Array(a) => a.first().and_then(Value::as_str).ok_or_else(|| {
                    LineProblem::field("resps", format!("sample {i} is not [text]"))
                })?,
                _ => {
                    return Err(LineProblem::field(
                        "resps",
                        format!("sample {i} is not text"),
                    ))
                }
            };
            out.push(Generation {
                id: id.clone(),
                response: text.to_string(),
                line,
                ordering: None,
            });
        }
        Ok(out)
    }
}
