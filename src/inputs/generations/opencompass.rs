//! OpenCompass's predictions, `predictions/<model>/<dataset>.json`: one JSON document keyed by
//! each answered row's 0-based index in the dataset OpenCompass read,
//! `{"0": {"origin_prompt", "prediction", "gold"}, …}` (its `GenInferencerOutputHandler`
//! writes it with `json.dump(…, indent=4)`). A dataset split into parts is written
//! `<dataset>_0.json`, `<dataset>_1.json`, …, each keyed from 0 again, and read in that order
//! as OpenCompass's own evaluator reads them. While a run is going, `tmp_<dataset>.jsonl` holds
//! the same entries one per line, the key as `idx`: that file is this shape's lines, and a
//! document is read as such lines ([`document_lines`]), one entry at a time.
//!
//! - `prediction` is the model's text, or a list of texts when it returned several
//!   (`num_return_sequences`): each is a sample.
//! - `origin_prompt` is the prompt as a text, or as the messages of a chat model
//!   (`[{"role": "HUMAN", "prompt": …}]`; `content` for OpenAI-style messages). It carries
//!   the question and the options the model saw, which the join checks and the labels follow.
//! - `gold` (the dataset's answer column as OpenCompass read it) is not read: the dataset is
//!   the key.

use super::folder::{Input, Kind};
use super::{id_of, Generation, GenerationsFormat, LineProblem, ReadState, Shape};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::cell::Cell;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

pub(super) struct OpenCompass;

/// This shape, which a predictions document's lines always have.
pub(super) const FORMAT: GenerationsFormat = GenerationsFormat(&OpenCompass);

impl Shape for OpenCompass {
    fn name(&self) -> &'static str {
        "opencompass"
    }

    fn detects(&self, line: &Value) -> bool {
        line.get("prediction").is_some()
            && (line.get("origin_prompt").is_some() || line.get("idx").is_some())
            && line.get("response").is_none()
    }

    fn parse(&self, v: &Value, state: &mut ReadState) -> Result<Vec<Generation>, LineProblem> {
        let line = state.line;
        let id = id_of(v.get("idx")).ok_or(LineProblem::field(
            "idx",
            "missing or not a row number (OpenCompass's tmp_*.jsonl lines carry one)",
        ))?;
        if let Some(entry) = v.get(NOT_AN_ENTRY) {
            return Err(LineProblem::field(
                "prediction",
                format!(
                    "entry \"{id}\" is {}, not an object with a `prediction`",
                    kind(entry)
                ),
            ));
        }
        let texts: Vec<&str> = match v.get("prediction") {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(list)) if !list.is_empty() => list
                .iter()
                .map(Value::as_str)
                .collect::<Option<_>>()
                .ok_or(LineProblem::field(
                    "prediction",
                    "a list holding something other than texts",
                ))?,
            Some(Value::Array(_)) => {
                return Err(LineProblem::field("prediction", "an empty list: no answer"))
            }
            // A failed request with nothing recorded: no answer, counted apart from the
            // model's mistakes, as a plain line's null `response` is.
            Some(Value::Null) => {
                return Ok(vec![Generation {
                    error: Some(
                        "`prediction` is null: no answer was recorded (a failed request?)"
                            .to_string(),
                    ),
                    ..Generation::text(id, String::new(), line)
                }])
            }
            Some(other) => {
                return Err(LineProblem::field(
                    "prediction",
                    format!("{}, not the model's text", kind(other)),
                ))
            }
            None => return Err(LineProblem::field("prediction", "missing")),
        };
        let prompt = v.get("origin_prompt").and_then(prompt_text);
        let several = texts.len() > 1;
        Ok(texts
            .into_iter()
            .enumerate()
            .map(|(i, text)| Generation {
                prompt: prompt.clone(),
                sample: several.then_some(i as u32),
                ..Generation::text(id.clone(), text.to_string(), line)
            })
            .collect())
    }
}

/// What a JSON value is, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The prompt's text: a string, or its messages' texts in order (`prompt`, as OpenCompass's
/// prompt lists write them, or `content`).
fn prompt_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(messages) => {
            let parts: Vec<&str> = messages
                .iter()
                .filter_map(|m| match m {
                    Value::String(s) => Some(s.as_str()),
                    _ => m
                        .get("prompt")
                        .or_else(|| m.get("content"))
                        .and_then(Value::as_str),
                })
                .collect();
            (!parts.is_empty()).then(|| parts.join("\n\n"))
        }
        _ => None,
    }
}

/// The field a [`document_lines`] line carries, instead of the entry's own, when the entry is
/// not an object.
const NOT_AN_ENTRY: &str = "\u{0}not_an_entry";

/// Does a file that starts with `head` hold an OpenCompass predictions document: an object
/// whose first key is a row number and whose first value is an object?
pub(super) fn is_document(head: &[u8]) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // The head may end inside a character.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    let rest = text.trim_start_matches('\u{feff}').trim_start();
    let Some(rest) = rest.strip_prefix('{') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix('"') else {
        return false;
    };
    let Some((key, rest)) = rest.split_once('"') else {
        return false;
    };
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let Some(rest) = rest.trim_start().strip_prefix(':') else {
        return false;
    };
    rest.trim_start().starts_with('{')
}

/// One predictions document as this shape's lines, one entry a line, read on a thread of its
/// own so that memory stays flat whatever the document's size. Each entry's line stands at
/// the line of the file its key is on (empty lines fill the gaps), so that a message about
/// an entry names the file's own line. Keys that are row numbers are moved on by `offset` (a
/// later part of a dataset split into parts); `entries` ends as its largest row number + 1.
/// JSON that breaks off or goes wrong ends the lines with an I/O error naming its line.
pub(super) fn document_lines(
    file: std::fs::File,
    offset: u64,
    entries: Arc<AtomicU64>,
) -> Box<dyn BufRead + Send> {
    let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(64);
    std::thread::spawn(move || {
        let line = Rc::new(Cell::new(1u64));
        let mut inner = io::BufReader::with_capacity(1 << 16, file);
        // A byte order mark (a Windows editor's) is not JSON.
        if inner
            .fill_buf()
            .is_ok_and(|b| b.starts_with("\u{feff}".as_bytes()))
        {
            inner.consume(3);
        }
        let counting = CountingLines {
            inner,
            line: Rc::clone(&line),
        };
        let mut de = serde_json::Deserializer::from_reader(counting);
        let visitor = Entries {
            tx: &tx,
            line,
            written: 0,
            offset,
            entries: &entries,
        };
        let read = (&mut de).deserialize_map(visitor).and_then(|()| de.end());
        if let Err(e) = read {
            // serde_json's message names the line and column.
            let message = match e.is_io() {
                true => e.to_string(),
                false => format!("invalid JSON: {e}"),
            };
            let _ = tx.send(Err(io::Error::new(io::ErrorKind::InvalidData, message)));
        }
    });
    Box::new(io::BufReader::with_capacity(
        1 << 16,
        ChannelReader {
            rx,
            chunk: Vec::new(),
            at: 0,
        },
    ))
}

/// A reader that counts the lines it has given.
struct CountingLines<R> {
    inner: R,
    line: Rc<Cell<u64>>,
}

impl<R: Read> Read for CountingLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let newlines = memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        self.line.set(self.line.get() + newlines);
        Ok(n)
    }
}

/// Visits the document's entries, sending each as a line.
struct Entries<'a> {
    tx: &'a mpsc::SyncSender<io::Result<Vec<u8>>>,
    line: Rc<Cell<u64>>,
    /// Lines sent so far.
    written: u64,
    offset: u64,
    entries: &'a AtomicU64,
}

impl<'de> Visitor<'de> for Entries<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of OpenCompass predictions keyed by row number")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            let at = self.line.get();
            let value: Value = map.next_value()?;
            let key_number = key.parse::<u64>().ok();
            let idx = match key_number {
                Some(n) => Value::from(n + self.offset),
                None => Value::String(key),
            };
            let mut entry = serde_json::Map::new();
            entry.insert("idx".to_string(), idx);
            match value {
                Value::Object(fields) => {
                    entry.extend(fields.into_iter().filter(|(k, _)| k != "idx"))
                }
                other => {
                    entry.insert(NOT_AN_ENTRY.to_string(), other);
                }
            }
            let gap = at.saturating_sub(self.written + 1);
            let mut bytes = vec![b'\n'; gap as usize];
            serde_json::to_writer(&mut bytes, &entry).map_err(de::Error::custom)?;
            bytes.push(b'\n');
            self.written += gap + 1;
            // The next part's rows start past this one's largest key (OpenCompass numbers
            // a part's rows 0..len; a key missing is one row unanswered, not a shift).
            if let Some(n) = key_number {
                self.entries.fetch_max(n + 1, Ordering::Relaxed);
            }
            if self.tx.send(Ok(bytes)).is_err() {
                // The reader stopped (an early stop): nothing more is wanted.
                return Err(de::Error::custom("the reader stopped"));
            }
        }
        Ok(())
    }
}

/// The lines [`Entries`] sends, as a reader.
struct ChannelReader {
    rx: mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                // The document has been read to its end.
                Err(mpsc::RecvError) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The task a predictions file name gives: its dataset's abbreviation (`tmp_` and the
/// extension taken off).
pub(super) fn task_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".json")
        .or_else(|| name.strip_prefix("tmp_")?.strip_suffix(".jsonl"))?;
    Some(stem.to_string())
}

/// `base` and `k` when `stem` is part `k` of a dataset split into parts: `<base>_<k>` with a
/// `<base>_0` among `stems` and no `<base>` (as OpenCompass's evaluator looks for them).
fn part_of<'a>(stem: &'a str, stems: &[String]) -> Option<(&'a str, u64)> {
    let (base, k) = stem.rsplit_once('_')?;
    let k: u64 = k.parse().ok().filter(|_| !k.starts_with('+'))?;
    let has = |s: String| stems.contains(&s);
    (has(format!("{base}_0")) && !has(base.to_string())).then_some((base, k))
}

/// Whether the file at `path` starts as a predictions document.
pub(super) fn is_document_file(path: &Path) -> io::Result<bool> {
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut head)?;
    Ok(is_document(&head))
}

/// A lone file that is one part of a dataset split into parts: its row numbers start at 0
/// again, so read alone it would be joined with the wrong rows.
pub(super) fn lone_part(path: &Path) -> io::Result<()> {
    let (Some(dir), Some(stem)) = (path.parent(), task_of(path)) else {
        return Ok(());
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let stems: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| task_of(&e.path()))
        .filter(|s| !s.is_empty())
        .collect();
    match part_of(&stem, &stems) {
        Some((base, k)) => Err(io::Error::other(format!(
            "part {k} of the predictions for `{base}`, which OpenCompass split into parts ({base}_0.json, {base}_1.json, …), each counting its rows from 0: give the folder {}, which reads the parts in order",
            dir.display()
        ))),
        None => Ok(()),
    }
}

/// OpenCompass's predictions below `dir`, in reading order: every predictions document (a
/// dataset's parts one after another), and the `tmp_<dataset>.jsonl` of a dataset whose
/// document is not written yet (an unfinished run). They must be one model's: OpenCompass
/// writes `predictions/<model>/<dataset>.json`.
pub(super) fn folder_inputs(dir: &Path) -> io::Result<Vec<Input>> {
    let mut found: Vec<PathBuf> = Vec::new();
    collect(dir, &mut found)?;
    let mut folders: Vec<&Path> = found.iter().filter_map(|p| p.parent()).collect();
    folders.sort();
    folders.dedup();
    if folders.len() > 1 {
        let names: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
        return Err(io::Error::other(format!(
            "holds OpenCompass predictions of {} models ({}): give one model's folder",
            names.len(),
            names.join(", ")
        )));
    }
    let stems: Vec<String> = found
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| task_of(p))
        .collect();
    // (task, part, path, kind)
    let mut inputs: Vec<(String, u64, PathBuf, bool)> = Vec::new();
    for path in found {
        let Some(stem) = task_of(&path) else { continue };
        let lines = path.extension().is_some_and(|e| e == "jsonl");
        if lines {
            // A dataset whose document is written needs no tmp file; a tmp file of one
            // part of a split dataset cannot say where its rows start.
            if stems.contains(&stem) {
                continue;
            }
            if let Some((base, _)) = stem.rsplit_once('_').filter(|(b, k)| {
                k.parse::<u64>().is_ok() && stems.iter().any(|s| s.starts_with(&format!("{b}_")))
            }) {
                return Err(io::Error::other(format!(
                    "{} holds the answers of an unfinished part of `{base}` (OpenCompass splits a dataset into parts, each counting its rows from 0): let the run finish, or give a finished part's .json alone",
                    path.display()
                )));
            }
        }
        match part_of(&stem, &stems) {
            Some((base, k)) if !lines => inputs.push((base.to_string(), k, path, false)),
            _ => inputs.push((stem, 0, path, lines)),
        }
    }
    inputs.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    // A split dataset's parts are read in turn, each counting on from the last: a part
    // missing would put every later one on the wrong rows (trial 48: 6/9 for 9/9). Parts
    // beside the dataset's whole document are an older run's, which OpenCompass passes
    // over; read with it, they were joined to its first rows as another dataset.
    for (i, (task, part, path, _)) in inputs.iter().enumerate() {
        let expected = match i.checked_sub(1).map(|p| &inputs[p]) {
            Some((before, k, _, _)) if before == task => k + 1,
            _ => 0,
        };
        if *part != expected {
            return Err(io::Error::other(format!(
                "holds {} but not part {expected} of `{task}` (OpenCompass splits a dataset into parts {task}_0.json, {task}_1.json, …, each counting its rows from 0): the rows after a missing part cannot be placed; give every part",
                path.display(),
            )));
        }
    }
    if let Some((whole, _, path, _)) = inputs.iter().find(|(task, _, path, lines)| {
        !*lines
            && task_of(path).as_ref() == Some(task)
            && stems.iter().any(|s| s == &format!("{task}_0"))
    }) {
        return Err(io::Error::other(format!(
            "holds {} and the parts {whole}_0.json, … of the same dataset, which OpenCompass passes over (an older run's): move the parts out, or the whole file",
            path.display()
        )));
    }
    Ok(inputs
        .into_iter()
        .map(|(task, part, path, lines)| Input {
            path,
            task: Some(task),
            kind: match (lines, part) {
                (true, _) => Kind::Lines,
                (false, 0) => Kind::Document,
                (false, _) => Kind::NextPart,
            },
        })
        .collect())
}

/// The predictions documents and `tmp_*.jsonl` files below `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            collect(&path, out)?;
        } else if (name.starts_with("tmp_") && name.ends_with(".jsonl"))
            || (name.ends_with(".json") && is_document_file(&path)?)
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::GenerationReader;
    use super::*;

    #[test]
    fn a_document_is_told_by_its_first_entry() {
        assert!(is_document(b"{\n    \"0\": {\n        \"origin_prompt\""));
        assert!(is_document(b"\xef\xbb\xbf{\"12\":{\"prediction\":\"B\"}}"));
        assert!(!is_document(b"{\"id\": \"0\", \"response\": \"B\"}"));
        assert!(!is_document(b"{\n  \"results\": {\"kmmlu\": {}}"));
        assert!(!is_document(b"{\"0\": \"B\"}"));
        assert!(!is_document(b"[{\"0\": {}}]"));
    }

    #[test]
    fn parts_are_named_as_opencompass_names_them() {
        let stems = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let split = stems(&["kmmlu_0", "kmmlu_1", "kmmlu_10", "other_1"]);
        assert_eq!(part_of("kmmlu_10", &split), Some(("kmmlu", 10)));
        assert_eq!(part_of("kmmlu_0", &split), Some(("kmmlu", 0)));
        // No `other_0`: a dataset whose own name ends in `_1`.
        assert_eq!(part_of("other_1", &split), None);
        // A whole document beside: OpenCompass reads that one.
        assert_eq!(part_of("x_0", &stems(&["x", "x_0"])), None);
    }

    /// A document's entries come out as lines standing at the file's own lines, with row
    /// numbers moved on by the offset, and a document that breaks off ends in an error
    /// naming where.
    #[test]
    fn entries_are_read_one_by_one_at_their_own_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.json");
        let text = "{\n    \"0\": {\n        \"origin_prompt\": [\n            {\"role\": \"HUMAN\", \"prompt\": \"Q?\\nA. x\\nB. y\"}\n        ],\n        \"prediction\": \"B\"\n    },\n    \"1\": {\n        \"prediction\": [\"A\", \"B\"]\n    },\n    \"2\": 7\n}\n";
        std::fs::write(&path, text).unwrap();
        let entries = Arc::new(AtomicU64::new(0));
        let lines = document_lines(
            std::fs::File::open(&path).unwrap(),
            10,
            Arc::clone(&entries),
        );
        let mut r = GenerationReader::new(lines, "d.json", Some(FORMAT));
        let read: Vec<_> = std::iter::from_fn(|| r.next_line()).collect();
        let first = read[0].as_ref().unwrap();
        assert_eq!(
            (
                first[0].id.as_str(),
                first[0].line,
                first[0].response.as_str()
            ),
            ("10", 2, "B")
        );
        assert_eq!(first[0].prompt.as_deref(), Some("Q?\nA. x\nB. y"));
        let second = read[1].as_ref().unwrap();
        let samples: Vec<_> = second.iter().map(|g| (g.line, g.sample)).collect();
        assert_eq!(samples, [(8, Some(0)), (8, Some(1))]);
        let third = read[2].as_ref().unwrap_err();
        assert_eq!(third.line, 11);
        assert!(
            third.message.contains("entry \"12\" is a number"),
            "{third}"
        );
        assert!(r.take_io_error().is_none());
        assert_eq!(entries.load(Ordering::Relaxed), 3);

        std::fs::write(&path, &text[..text.len() - 30]).unwrap();
        let lines = document_lines(std::fs::File::open(&path).unwrap(), 0, Arc::default());
        let mut r = GenerationReader::new(lines, "d.json", Some(FORMAT));
        assert_eq!(std::iter::from_fn(|| r.next_line()).count(), 1);
        let e = r
            .take_io_error()
            .expect("a document that breaks off is an error");
        assert!(e.to_string().contains("at line 9"), "{e}");
    }
}
