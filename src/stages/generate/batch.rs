//! `--write-batch`: the run's requests as OpenAI Batch API input lines (`custom_id`, `method`,
//! `url`, `body`) instead of calls, for the half-price batch route. `custom_id` names the item,
//! and the sample and ordering when there are several
//! ([`crate::inputs::generations::custom_id`]), so that `grade` maps the batch output back.

use super::{io_at, GenerateError, Plan};
use crate::inputs::generations::custom_id;
use serde_json::json;
use std::io::{self, Write};
use std::path::Path;

/// Write one request line per task of `plan` to `path`; returns how many.
pub fn write_batch(plan: &Plan, path: &Path) -> Result<usize, GenerateError> {
    let file = std::fs::File::create(path).map_err(io_at(path))?;
    let mut out = io::BufWriter::new(file);
    let url = format!("/v1{}", plan.api.path());
    for task in &plan.tasks {
        let line = json!({
            "custom_id": custom_id(
                &task.id,
                task.sample,
                task.ordering.as_deref(),
                task.shown_notation,
            ),
            "method": "POST",
            "url": url,
            "body": task.body,
        });
        serde_json::to_writer(&mut out, &line).map_err(|e| io_at(path)(io::Error::other(e)))?;
        out.write_all(b"\n").map_err(io_at(path))?;
    }
    out.flush().map_err(io_at(path))?;
    Ok(plan.tasks.len())
}
