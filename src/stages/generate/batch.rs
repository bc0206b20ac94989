//! `--write-batch`: the run's requests as OpenAI Batch API input lines (`custom_id`, `method`,
//! `url`, `body`) instead of calls, for the half-price batch route. `custom_id` names the item,
//! and the sample and ordering when there are several
//! ([`crate::inputs::generations::custom_id`]), so that `grade` maps the batch output back.
//! The Batch API takes at most 50,000 requests and 200 MB per input file: a run past either
//! is written as `NAME.part1.jsonl`, `NAME.part2.jsonl`, … (trial 42: one 60,000-line file
//! was refused only at `batches.create`).

use super::{io_at, GenerateError, Plan};
use crate::inputs::generations::custom_id;
use serde_json::json;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The Batch API's limits on one input file.
pub const MAX_REQUESTS: usize = 50_000;
pub const MAX_BYTES: u64 = 200 * 1024 * 1024;

/// Write one request line per task of `plan` to `path`, or to its parts when the run is past
/// one file's limits; returns each file written with its requests.
pub fn write_batch(plan: &Plan, path: &Path) -> Result<Vec<(PathBuf, usize)>, GenerateError> {
    write_batch_within(plan, path, MAX_REQUESTS, MAX_BYTES)
}

/// [`write_batch`] with the limits given.
fn write_batch_within(
    plan: &Plan,
    path: &Path,
    max_requests: usize,
    max_bytes: u64,
) -> Result<Vec<(PathBuf, usize)>, GenerateError> {
    let url = format!("/v1{}", plan.api.path());
    let mut written: Vec<(PathBuf, usize)> = Vec::new();
    let mut open: Option<Part> = None;
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
        let mut text = serde_json::to_vec(&line).map_err(|e| io_at(path)(io::Error::other(e)))?;
        text.push(b'\n');
        if let Some(full) =
            open.take_if(|f| f.requests >= max_requests || f.bytes + text.len() as u64 > max_bytes)
        {
            let (mut done, requests) = full.close()?;
            // The first file becomes part 1 once a second is needed.
            if written.is_empty() {
                let first = part(path, 1);
                std::fs::rename(&done, &first).map_err(io_at(&first))?;
                done = first;
            }
            written.push((done, requests));
        }
        let file = match open.as_mut() {
            Some(file) => file,
            None => open.insert(Part::create(match written.len() {
                0 => path.to_path_buf(),
                k => part(path, k + 1),
            })?),
        };
        file.out.write_all(&text).map_err(io_at(&file.path))?;
        file.requests += 1;
        file.bytes += text.len() as u64;
    }
    let last = match open {
        Some(file) => file,
        None => Part::create(path.to_path_buf())?,
    };
    written.push(last.close()?);
    Ok(written)
}

/// A batch input file being written.
struct Part {
    out: io::BufWriter<std::fs::File>,
    path: PathBuf,
    requests: usize,
    bytes: u64,
}

impl Part {
    fn create(path: PathBuf) -> Result<Part, GenerateError> {
        let file = std::fs::File::create(&path).map_err(io_at(&path))?;
        Ok(Part {
            out: io::BufWriter::new(file),
            path,
            requests: 0,
            bytes: 0,
        })
    }

    fn close(mut self) -> Result<(PathBuf, usize), GenerateError> {
        self.out.flush().map_err(io_at(&self.path))?;
        Ok((self.path, self.requests))
    }
}

/// `NAME.partK.EXT` beside `path` (`batch.jsonl` → `batch.part2.jsonl`).
fn part(path: &Path, k: usize) -> PathBuf {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("batch");
    let name = match path.extension().and_then(|e| e.to_str()) {
        Some(ext) => format!("{stem}.part{k}.{ext}"),
        None => format!("{stem}.part{k}"),
    };
    path.with_file_name(name)
}
