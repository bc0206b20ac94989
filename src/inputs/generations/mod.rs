//! Reading candidate answers as a stream, one line at a time (memory stays flat). Each file
//! shape is a [`Shape`] in its own module (kgrade's plain lines, lm-eval `--log_samples`,
//! OpenAI batch output and error files, Ollama `/api/chat` replies, OpenCompass predictions,
//! whose JSON documents are read as lines entry by entry); adding a shape is a new
//! file and one entry in [`SHAPES`]. Model replies inside them, whatever API wrote them, are
//! read by [`replies`]. A path may also be a folder, such as lm-eval's `--output_path`: every
//! `samples_<task>_<date>.jsonl` inside is read, and the task travels with its answers.
//! Reasoning given apart from the content stays apart: kgrade never writes markers of its
//! own into an answer. Not for grading.

mod folder;
mod lm_eval;
mod ollama;
mod openai_batch;
mod opencompass;
mod plain;
pub mod replies;

pub use folder::{content_hash, Generations};
pub use lm_eval::{LmEvalTally, TaskTally};

use crate::verify::Notation;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;
use std::str::FromStr;

/// One generations file shape: how to recognise its lines and read the answers in one.
trait Shape: Sync {
    /// The name `--generations-format` takes.
    fn name(&self) -> &'static str;
    /// Whether a line of this shape looks like `line` (the first line decides the file).
    fn detects(&self, line: &Value) -> bool;
    /// The answers on one line (several for samples, repeats or `n` > 1; none for a line
    /// that repeats answers already read, such as lm-eval's second filter).
    fn parse(&self, v: &Value, state: &mut ReadState) -> Result<Vec<Generation>, LineProblem>;
}

/// Every shape, most specific first: detection takes the first that recognises a line.
static SHAPES: [&dyn Shape; 5] = [
    &openai_batch::OpenAiBatch,
    &lm_eval::LmEval,
    &opencompass::OpenCompass,
    &ollama::Ollama,
    &plain::Plain,
];

/// A generations file shape, by name (`plain`, `lm-eval`, `openai-batch`, `ollama`,
/// `opencompass`).
#[derive(Clone, Copy)]
pub struct GenerationsFormat(&'static dyn Shape);

impl fmt::Debug for GenerationsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

impl PartialEq for GenerationsFormat {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for GenerationsFormat {}

impl FromStr for GenerationsFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.replace('_', "-");
        SHAPES
            .iter()
            .find(|shape| shape.name() == wanted)
            .map(|&shape| GenerationsFormat(shape))
            .ok_or_else(|| {
                let names: Vec<&str> = SHAPES.iter().map(|s| s.name()).collect();
                format!("unknown generations format `{s}` ({})", names.join(", "))
            })
    }
}

impl GenerationsFormat {
    /// The name `--generations-format` takes.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The shape of a line, from its keys.
    pub fn detect(line: &Value) -> GenerationsFormat {
        let shape = SHAPES
            .iter()
            .find(|shape| shape.detects(line))
            .copied()
            .unwrap_or(&plain::Plain);
        GenerationsFormat(shape)
    }
}

/// What is wrong with one line, before the reader adds the file and line number.
#[derive(Debug, Clone)]
struct LineProblem {
    field: Option<&'static str>,
    message: String,
}

impl LineProblem {
    fn field(field: &'static str, message: impl Into<String>) -> LineProblem {
        LineProblem {
            field: Some(field),
            message: message.into(),
        }
    }
}

/// Loglikelihood scores of a multiple-choice item (lm-eval's `multiple_choice` tasks): one
/// log-probability per option, with the option's text as the model was scored on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Loglikelihoods {
    pub logprobs: Vec<f64>,
    /// Each option's continuation without the leading target delimiter, as lm-eval's
    /// `doc_to_choice` gives it (its length normalises `acc_norm`).
    pub texts: Vec<String>,
}

/// One answer to one item.
#[derive(Clone, Debug, PartialEq)]
pub struct Generation {
    pub id: String,
    /// The final text to verify.
    pub response: String,
    /// Reasoning the server gave apart from the content (`reasoning_content`, `reasoning`,
    /// Ollama's `thinking`, Responses-API reasoning summaries). Never folded into `response`.
    pub reasoning: Option<String>,
    /// 1-based line number in the file.
    pub line: u64,
    /// The task this answer belongs to (lm-eval's task name, from the samples file name).
    pub task: Option<String>,
    /// The prompt the model saw, when the line carries it (lm-eval `arguments`, a chat
    /// `messages` list, a `prompt` field): it decides the labels the answer uses.
    pub prompt: Option<String>,
    /// The question the line says it answers (lm-eval's `doc.question`), to check the join.
    pub question: Option<String>,
    /// The request failed and there is no answer: the provider's message.
    pub error: Option<String>,
    /// For loglikelihood tasks: the option scores instead of a text answer.
    pub loglik: Option<Loglikelihoods>,
    /// The option order the item was shown in, when `kgrade generate --circular` wrote the
    /// answer: entry `k` is the 0-based original option shown at position `k`.
    pub ordering: Option<Vec<u8>>,
    /// The sample (draw) the line names: `#s=K` in a batch `custom_id` (0 when a circular
    /// `custom_id` has none), a plain line's `sample`. Circular metrics group a draw's
    /// orderings by it, so that line order does not matter.
    pub sample: Option<u32>,
    /// The model the line says answered (`model` on the line, in its saved reply, or in a
    /// batch output's response body), as `kgrade generate` and the APIs write it.
    pub model: Option<String>,
    /// The model declined to answer, in the provider's words (OpenAI's `message.refusal`,
    /// `refusal` on a line `kgrade generate` wrote).
    pub refusal: Option<String>,
    /// The notation the options were shown in, when a batch `custom_id` names one (`#n=`):
    /// the answer is read in it, as a carried prompt would say.
    pub shown: Option<Notation>,
}

/// The `custom_id` of a batch request for one answer: the item id, then `#s=SAMPLE` for
/// samples after the first, `#o=2,3,0,1` for a circular ordering and `#n=letter` for a
/// prompt that showed the options in another notation than the dataset's (a batch output
/// line carries nothing else of the request), so that batch output maps back to the item
/// and is read in the labels the model saw ([`split_custom_id`]). In the id, `%` is written `%25` and `#` is
/// written `%23`, so an id that itself contains `#s=1` (`a#s=1`, sample 0) cannot read as
/// another item's sample (`a`, sample 1): distinct (id, sample, ordering) triples give
/// distinct custom_ids, as the Batch API requires. Ids without `#` or `%` are unchanged.
pub fn custom_id(
    id: &str,
    sample: u32,
    ordering: Option<&[u8]>,
    shown: Option<Notation>,
) -> String {
    let mut s = id.replace('%', "%25").replace('#', "%23");
    if sample > 0 {
        s.push_str(&format!("#s={sample}"));
    }
    if let Some(o) = ordering {
        let o: Vec<String> = o.iter().map(u8::to_string).collect();
        s.push_str(&format!("#o={}", o.join(",")));
    }
    if let Some(n) = shown {
        s.push_str(&format!("#n={}", n.name()));
    }
    s
}

/// What a [`custom_id`] names.
#[derive(Debug, PartialEq, Eq)]
pub struct CustomId {
    pub id: String,
    pub sample: Option<u32>,
    pub ordering: Option<Vec<u8>>,
    /// The notation the prompt showed, when another than the dataset's.
    pub shown: Option<Notation>,
}

/// The item id, sample and ordering a [`custom_id`] names, with `%23` and `%25` in the id
/// read back as `#` and `%`. Suffixes that do not parse stay part of the id, so ids that
/// merely contain `#` (custom_ids another tool wrote) are read unchanged.
pub fn split_custom_id(custom_id: &str) -> CustomId {
    let mut id = custom_id;
    let mut shown = None;
    if let Some((head, tail)) = id.rsplit_once("#n=") {
        let named = [
            Notation::Circled,
            Notation::Number,
            Notation::Letter,
            Notation::Ox,
        ]
        .into_iter()
        .find(|n| n.name() == tail);
        if named.is_some() {
            shown = named;
            id = head;
        }
    }
    let mut ordering = None;
    if let Some((head, tail)) = id.rsplit_once("#o=") {
        let parsed: Option<Vec<u8>> = tail.split(',').map(|n| n.parse().ok()).collect();
        if let Some(o) = parsed {
            ordering = Some(o);
            id = head;
        }
    }
    let mut sample = None;
    if let Some((head, tail)) = id.rsplit_once("#s=") {
        if let Ok(s) = tail.parse::<u32>() {
            sample = Some(s);
            id = head;
        }
    }
    CustomId {
        id: unescape_id(id),
        sample,
        ordering,
        shown,
    }
}

/// `%23` → `#`, `%25` → `%`; every other `%` stays as it is.
fn unescape_id(id: &str) -> String {
    if !id.contains('%') {
        return id.to_string();
    }
    let mut out = String::with_capacity(id.len());
    let mut rest = id;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        if let Some(tail) = after.strip_prefix("%23") {
            out.push('#');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("%25") {
            out.push('%');
            rest = tail;
        } else {
            out.push('%');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

impl Generation {
    /// An answer with only an id, a text and a line.
    pub fn text(id: String, response: String, line: u64) -> Generation {
        Generation {
            id,
            response,
            reasoning: None,
            line,
            task: None,
            prompt: None,
            question: None,
            error: None,
            loglik: None,
            ordering: None,
            sample: None,
            model: None,
            refusal: None,
            shown: None,
        }
    }
}

/// The answers of a reply, as generations for `id`.
fn from_replies(id: &str, replies: replies::Replies, line: u64) -> Vec<Generation> {
    match replies {
        Ok(replies) => replies
            .into_iter()
            .map(|r| Generation {
                reasoning: r.reasoning,
                refusal: r.refusal,
                ..Generation::text(id.to_string(), r.content, line)
            })
            .collect(),
        Err(message) => vec![Generation {
            error: Some(message),
            ..Generation::text(id.to_string(), String::new(), line)
        }],
    }
}

/// A generation line that could not be read.
#[derive(Debug, Clone, thiserror::Error)]
pub struct GenerationError {
    pub source_name: String,
    pub line: u64,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for GenerationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.source_name, self.line)?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// What a shape may keep between lines of one file.
#[derive(Default)]
pub(crate) struct ReadState {
    pub line: u64,
    /// The task of the whole file (lm-eval samples files are one task each).
    pub task: Option<String>,
    /// lm-eval writes one line per filter for the same answers: per document, how many
    /// times its answers were read, and per (document, filter) how many lines named it. A
    /// (document, filter) named more often than the answers were read is another run of the
    /// task (two samples files concatenated), read again.
    pub reads: HashMap<String, u32>,
    pub named: HashMap<(String, String), u32>,
    /// lm-eval's own per-filter metrics, to report beside kgrade's.
    pub lm_eval: LmEvalTally,
}

/// Streams generations from one JSONL input. Each line yields zero or more generations or
/// an error; the stream goes on after a bad line and ends at the first I/O error.
pub struct GenerationReader<R> {
    input: R,
    source_name: String,
    format: Option<GenerationsFormat>,
    id_pattern: Option<regex::Regex>,
    state: ReadState,
    buf: Vec<u8>,
    /// Bytes read so far, for progress.
    pub bytes_read: u64,
    io_error: Option<std::io::Error>,
}

impl<R: BufRead> GenerationReader<R> {
    /// Read from `input`; `format` fixes the shape, otherwise the first line decides.
    pub fn new(input: R, source_name: &str, format: Option<GenerationsFormat>) -> Self {
        GenerationReader {
            input,
            source_name: source_name.to_string(),
            format,
            id_pattern: None,
            state: ReadState::default(),
            buf: Vec::with_capacity(1 << 16),
            bytes_read: 0,
            io_error: None,
        }
    }

    /// Every answer of this input belongs to `task`.
    pub fn with_task(mut self, task: Option<String>) -> Self {
        self.state.task = task;
        self
    }

    /// Map ids through `pattern`'s first capture group (`--id-pattern`); ids it does not
    /// match stay as they are (and will show as unknown if the dataset lacks them).
    pub fn with_id_pattern(mut self, pattern: Option<regex::Regex>) -> Self {
        self.id_pattern = pattern;
        self
    }

    /// The I/O error that ended the stream early, if one did.
    pub fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.io_error.take()
    }

    /// lm-eval's own metrics seen so far.
    pub fn lm_eval(&self) -> &LmEvalTally {
        &self.state.lm_eval
    }

    fn err(&self, field: Option<&str>, message: impl Into<String>) -> GenerationError {
        GenerationError {
            source_name: self.source_name.clone(),
            line: self.state.line,
            field: field.map(str::to_string),
            message: message.into(),
        }
    }

    /// The next line's generations; `None` at the end of the input.
    pub fn next_line(&mut self) -> Option<Result<Vec<Generation>, GenerationError>> {
        loop {
            self.buf.clear();
            let n = match crate::inputs::read_line_capped(
                &mut self.input,
                &mut self.buf,
                crate::inputs::MAX_LINE,
            ) {
                Ok((0, _)) => return None,
                Ok((n, true)) => {
                    self.bytes_read += n as u64;
                    self.state.line += 1;
                    let message = crate::inputs::line_too_long(n as u64);
                    return Some(Err(self.err(None, message)));
                }
                Ok((n, false)) => n,
                Err(e) => {
                    // An I/O error (a directory, a vanished file, a bad disk) is not one bad
                    // line: reading again would fail again, forever. End the stream and
                    // leave the error for the caller.
                    self.io_error = Some(e);
                    return None;
                }
            };
            self.bytes_read += n as u64;
            self.state.line += 1;
            let text = match crate::inputs::utf8(&self.buf) {
                Ok(t) => t.trim_start_matches('\u{feff}').trim(),
                Err(at) => {
                    let message = crate::inputs::invalid_utf8(&self.buf, at);
                    return Some(Err(self.err(None, message)));
                }
            };
            if text.is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_str::<Value>(text) {
                Ok(v) if v.is_object() => v,
                Ok(_) => {
                    return Some(Err(self.err(
                        None,
                        "not a JSON object (one answer per line: {\"id\": …, \"response\": …})"
                            .to_string(),
                    )))
                }
                Err(e) => {
                    let message = crate::types::json::line_error(&e);
                    return Some(Err(self.err(None, format!("invalid JSON: {message}"))));
                }
            };
            let format = *self.format.get_or_insert(GenerationsFormat::detect(&value));
            let parsed = format.0.parse(&value, &mut self.state);
            return Some(match parsed {
                Ok(mut generations) => {
                    let model = model_of(&value);
                    for g in &mut generations {
                        if g.model.is_none() {
                            g.model.clone_from(&model);
                        }
                        if g.task.is_none() {
                            g.task.clone_from(&self.state.task);
                        }
                        if let Some(pattern) = &self.id_pattern {
                            if let Some(m) = pattern.captures(&g.id).and_then(|c| c.get(1)) {
                                g.id = m.as_str().to_string();
                            }
                        }
                    }
                    Ok(generations)
                }
                Err(p) => Err(GenerationError {
                    source_name: self.source_name.clone(),
                    line: self.state.line,
                    field: p.field.map(str::to_string),
                    message: p.message,
                }),
            });
        }
    }
}

fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The model a line names: its own `model` (kgrade's plain lines, Ollama replies), or the
/// saved reply's (`response.model`; a batch output's `response.body.model`).
fn model_of(v: &Value) -> Option<String> {
    [
        v.get("model"),
        v.pointer("/response/model"),
        v.pointer("/response/body/model"),
    ]
    .into_iter()
    .flatten()
    .find_map(Value::as_str)
    .filter(|m| !m.trim().is_empty())
    .map(str::to_string)
}

/// The prompt a line carries: a chat `messages` list (the last user message), or a
/// `prompt` string.
fn prompt_of(v: &Value) -> Option<String> {
    if let Some(messages) = v.get("messages").and_then(Value::as_array) {
        return messages
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    v.get("prompt").and_then(Value::as_str).map(str::to_string)
}

#[cfg(test)]
mod tests;
