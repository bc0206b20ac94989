//! The generations of a run, from one file or a folder. A folder is read as lm-eval's
//! `--output_path`: every `samples_<task>_<date>.jsonl` below it (model subfolders
//! included), in name order, each file's answers tagged with its task, since `doc_id`
//! restarts at 0 in every task's file; or, when it holds none, as OpenCompass's work folder:
//! one model's predictions documents below it, each a task ([`super::opencompass`]).

use super::opencompass;
use super::{GenerationError, GenerationReader, GenerationsFormat, LmEvalTally};
use crate::inputs::generations::Generation;
use std::collections::VecDeque;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

type Reader = GenerationReader<Box<dyn BufRead + Send>>;

/// One file to read, with the task its answers belong to.
pub(super) struct Input {
    pub path: PathBuf,
    pub task: Option<String>,
    /// How its lines are read.
    pub kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// JSON lines.
    Lines,
    /// An OpenCompass predictions document, read entry by entry.
    Document,
    /// A later part of the document before it (a dataset OpenCompass split into parts):
    /// its row numbers go on from that one's.
    NextPart,
}

/// Every answer of a run, file after file.
pub struct Generations {
    pending: VecDeque<Input>,
    current: Option<(PathBuf, Reader)>,
    format: Option<GenerationsFormat>,
    id_pattern: Option<regex::Regex>,
    /// Bytes of finished files.
    done_bytes: u64,
    total_bytes: u64,
    io_error: Option<(PathBuf, io::Error)>,
    lm_eval: LmEvalTally,
    /// The first row number of the document being read, and how many entries it has given
    /// so far (the next part's row numbers start after them).
    part_offset: u64,
    part_entries: Arc<AtomicU64>,
    /// The tasks of lm-eval samples files and OpenCompass documents, in reading order (empty
    /// for other files).
    pub tasks: Vec<String>,
    /// Other `.jsonl` files in a folder of samples files: not read, and said so.
    pub not_read: Vec<PathBuf>,
    /// Some answers were OpenCompass predictions, keyed by row number.
    pub opencompass: bool,
}

/// The task named by an lm-eval samples file name, `samples_<task>_<date>.jsonl`.
pub fn task_of(file_name: &str) -> Option<String> {
    let stem = file_name.strip_prefix("samples_")?.strip_suffix(".jsonl")?;
    // The date lm-eval appends: `_2026-11-23T08-27-47.304648` (`:` written as `-`).
    let cut = stem
        .rmatch_indices('_')
        .map(|(i, _)| i)
        .find(|&i| {
            let date = &stem[i + 1..];
            date.len() >= 10
                && date.as_bytes()[..4].iter().all(u8::is_ascii_digit)
                && date.as_bytes()[4] == b'-'
        })
        .unwrap_or(stem.len());
    Some(stem[..cut].to_string())
}

/// A file whose first line is a lone `{` or `[` is one pretty-printed JSON document, not
/// JSON lines: say so once (and what to give instead for lm-eval's `results_*.json`), rather
/// than once per line of it.
fn not_one_json_document(file: std::fs::File) -> io::Result<()> {
    let mut reader = io::BufReader::new(file);
    let mut first = Vec::new();
    // A first line that is not text, or a long one, is for the line reader to report.
    let Ok((_, false)) = crate::inputs::read_line_capped(&mut reader, &mut first, 1 << 10) else {
        return Ok(());
    };
    let Ok(first) = String::from_utf8(first) else {
        return Ok(());
    };
    if !matches!(first.trim().trim_start_matches('\u{feff}'), "{" | "[") {
        return Ok(());
    }
    let mut rest = first;
    io::Read::read_to_string(&mut reader, &mut rest)?;
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&rest) else {
        return Ok(());
    };
    let message = if doc.get("results").is_some() && doc.get("configs").is_some() {
        "an lm-eval results file (scores, no answers): give the samples_<task>_<date>.jsonl file beside it (lm-eval --log_samples), or the whole --output_path folder"
    } else {
        "one JSON document, not JSON lines: give one answer per line ({\"id\": …, \"response\": …})"
    };
    Err(io::Error::other(message))
}

/// The lm-eval samples files below `dir` into `out`, and any other `.jsonl` file into
/// `others` (answers the folder holds but lm-eval did not write, which are not read).
fn samples_files(dir: &Path, out: &mut Vec<PathBuf>, others: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            samples_files(&path, out, others)?;
        } else if task_of(name).is_some() {
            out.push(path);
        } else if name.ends_with(".jsonl") {
            others.push(path);
        }
    }
    Ok(())
}

/// The generations' identity by content (blake3, hex): the file's bytes, or for a folder
/// each samples file's path below it and bytes, in path order. `kgrade judge DIR` compares it
/// with the one `grade` recorded, so that a file changed since is not judged as the run's.
pub fn content_hash(path: &Path) -> io::Result<String> {
    let files = match path.is_dir() {
        true => {
            let (inputs, _) = folder_inputs(path)?;
            let mut found: Vec<PathBuf> = inputs.into_iter().map(|i| i.path).collect();
            found.sort();
            let named = found.into_iter().map(|f| {
                let name = f
                    .strip_prefix(path)
                    .unwrap_or(&f)
                    .to_string_lossy()
                    .into_owned();
                (name, f)
            });
            Some(named.collect())
        }
        false => None,
    };
    crate::inputs::content_hash(path, files)
}

/// The files a folder's answers are in: lm-eval's samples files (each its task), else
/// OpenCompass's predictions; and the other `.jsonl` files beside lm-eval's, not read.
fn folder_inputs(dir: &Path) -> io::Result<(Vec<Input>, Vec<PathBuf>)> {
    let mut found = Vec::new();
    let mut not_read = Vec::new();
    samples_files(dir, &mut found, &mut not_read)?;
    found.sort();
    not_read.sort();
    if found.is_empty() {
        let predictions = opencompass::folder_inputs(dir)?;
        if !predictions.is_empty() {
            return Ok((predictions, Vec::new()));
        }
    }
    let inputs = found
        .into_iter()
        .map(|path| Input {
            task: path.file_name().and_then(|n| n.to_str()).and_then(task_of),
            path,
            kind: Kind::Lines,
        })
        .collect();
    Ok((inputs, not_read))
}

impl Generations {
    /// The generations at `path`: a JSONL file, an OpenCompass predictions document, or a
    /// folder of lm-eval samples files or of one model's OpenCompass predictions.
    pub fn open(
        path: &Path,
        format: Option<GenerationsFormat>,
        id_pattern: Option<regex::Regex>,
    ) -> io::Result<Generations> {
        let mut files: Vec<Input> = Vec::new();
        let mut tasks: Vec<String> = Vec::new();
        let mut not_read = Vec::new();
        if path.is_dir() {
            let (found, others) = folder_inputs(path)?;
            not_read = others;
            if found.is_empty() {
                let hint = match not_read.as_slice() {
                    [] => String::new(),
                    [one] => format!(" (it holds {}: give that file)", one.display()),
                    more => format!(
                        " (it holds {} other .jsonl files, such as {}: give one file)",
                        more.len(),
                        more[0].display()
                    ),
                };
                return Err(io::Error::other(format!(
                    "a folder with no samples_<task>_<date>.jsonl (lm-eval --output_path with --log_samples) and no OpenCompass predictions in it; give a generations JSONL file or such a folder{hint}",
                )));
            }
            for f in found {
                if let Some(t) = f.task.as_ref().filter(|_| f.kind != Kind::NextPart) {
                    if tasks.contains(t) {
                        // lm-eval writes a rerun into the same --output_path, each run's files
                        // stamped with its start time: name every file of the task.
                        let same: Vec<String> = files
                            .iter()
                            .filter(|other| other.task.as_ref() == Some(t))
                            .map(|other| other.path.display().to_string())
                            .chain([f.path.display().to_string()])
                            .collect();
                        return Err(io::Error::other(format!(
                            "holds {} samples files for task `{t}`, from separate lm-eval runs into the same --output_path: {}. Give one of them as --generations, or move the other runs' samples_*.jsonl and results_*.json out of the folder",
                            same.len(),
                            same.join(", ")
                        )));
                    }
                    tasks.push(t.clone());
                }
                files.push(f);
            }
        } else if opencompass::is_document_file(path)? {
            opencompass::lone_part(path)?;
            let task = opencompass::task_of(path);
            tasks.extend(task.clone());
            files.push(Input {
                path: path.to_path_buf(),
                task,
                kind: Kind::Document,
            });
        } else {
            // Opened now so that a missing file fails before any work.
            let file = std::fs::File::open(path)?;
            not_one_json_document(file)?;
            // A lone lm-eval samples file still names its task.
            let task = path.file_name().and_then(|n| n.to_str()).and_then(task_of);
            tasks.extend(task.clone());
            files.push(Input {
                path: path.to_path_buf(),
                task,
                kind: Kind::Lines,
            });
        }
        let total_bytes = files
            .iter()
            .map(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len()))
            .sum();
        let opencompass = files.iter().any(|f| f.kind != Kind::Lines);
        Ok(Generations {
            pending: files.into(),
            current: None,
            format,
            id_pattern,
            done_bytes: 0,
            total_bytes,
            io_error: None,
            lm_eval: LmEvalTally::default(),
            part_offset: 0,
            part_entries: Arc::default(),
            tasks,
            not_read,
            opencompass,
        })
    }

    /// Generations from an open reader (one file's worth), named `name` in messages.
    pub fn from_reader(
        reader: Box<dyn BufRead + Send>,
        name: &str,
        format: Option<GenerationsFormat>,
    ) -> Generations {
        Generations {
            pending: VecDeque::new(),
            current: Some((
                PathBuf::from(name),
                GenerationReader::new(reader, name, format),
            )),
            format,
            id_pattern: None,
            done_bytes: 0,
            total_bytes: 0,
            io_error: None,
            lm_eval: LmEvalTally::default(),
            part_offset: 0,
            part_entries: Arc::default(),
            tasks: Vec::new(),
            not_read: Vec::new(),
            opencompass: false,
        }
    }

    /// The next line's generations, across files; `None` at the end (or at an I/O error,
    /// which [`Generations::take_io_error`] then gives).
    pub fn next_line(&mut self) -> Option<Result<Vec<Generation>, GenerationError>> {
        loop {
            if let Some((_, reader)) = &mut self.current {
                if let Some(line) = reader.next_line() {
                    self.opencompass |= reader.format == Some(opencompass::FORMAT);
                    return Some(line);
                }
                let Some((path, mut reader)) = self.current.take() else {
                    continue;
                };
                self.done_bytes += reader.bytes_read;
                self.lm_eval
                    .merge(std::mem::take(&mut reader.state.lm_eval));
                if let Some(e) = reader.take_io_error() {
                    self.io_error = Some((path, e));
                    return None;
                }
            }
            let Input { path, task, kind } = self.pending.pop_front()?;
            let file = match std::fs::File::open(&path) {
                Ok(f) => f,
                Err(e) => {
                    self.io_error = Some((path, e));
                    return None;
                }
            };
            let name = path.display().to_string();
            let (reader, format): (Box<dyn BufRead + Send>, _) = match kind {
                Kind::Lines => (
                    Box::new(io::BufReader::with_capacity(1 << 16, file)),
                    self.format,
                ),
                Kind::Document | Kind::NextPart => {
                    self.part_offset = match kind {
                        Kind::NextPart => {
                            self.part_offset + self.part_entries.load(Ordering::Relaxed)
                        }
                        _ => 0,
                    };
                    self.part_entries = Arc::default();
                    let lines = opencompass::document_lines(
                        file,
                        self.part_offset,
                        Arc::clone(&self.part_entries),
                    );
                    (lines, Some(opencompass::FORMAT))
                }
            };
            let reader = GenerationReader::new(reader, &name, format)
                .with_task(task)
                .with_id_pattern(self.id_pattern.clone());
            self.current = Some((path, reader));
        }
    }

    /// The file being read, as messages name it (the file of the last line given).
    pub fn current_name(&self) -> String {
        self.current
            .as_ref()
            .map_or_else(String::new, |(path, _)| path.display().to_string())
    }

    /// Bytes read so far, for progress.
    pub fn bytes_read(&self) -> u64 {
        self.done_bytes + self.current.as_ref().map_or(0, |(_, r)| r.bytes_read)
    }

    /// The size of every file to read.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// The I/O error that ended the stream early, with its file, if one did.
    pub fn take_io_error(&mut self) -> Option<(PathBuf, io::Error)> {
        self.io_error.take()
    }

    /// lm-eval's own per-filter metrics of every file read.
    pub fn lm_eval(&self) -> LmEvalTally {
        let mut all = self.lm_eval.clone();
        if let Some((_, r)) = &self.current {
            all.merge(r.state.lm_eval.clone());
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::task_of;

    #[test]
    fn task_names_from_lm_eval_file_names() {
        assert_eq!(
            task_of("samples_kmmlu_direct_public_safety_2026-11-23T08-27-47.304648.jsonl")
                .as_deref(),
            Some("kmmlu_direct_public_safety")
        );
        assert_eq!(task_of("samples_x.jsonl").as_deref(), Some("x"));
        assert_eq!(task_of("results_2026.json"), None);
    }
}
