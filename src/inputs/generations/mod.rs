//! Reading candidate answers as a stream, one line at a time (memory stays flat). Each file
//! shape is a [`Shape`] in its own module (kgrade's plain lines, lm-eval `--log_samples`,
//! OpenAI batch output); adding a shape is a new file and one entry in [`SHAPES`]. Reasoning
//! given separately (`reasoning_content`) is folded in here, so the verifier applies one rule.
//! Not for grading.

mod lm_eval;
mod openai_batch;
mod plain;

use serde_json::Value;
use std::fmt;
use std::io::BufRead;
use std::str::FromStr;

/// One generations file shape: how to recognise its lines and read the answers in one.
trait Shape: Sync {
    /// The name `--generations-format` takes.
    fn name(&self) -> &'static str;
    /// Whether a line of this shape looks like `line` (the first line decides the file).
    fn detects(&self, line: &Value) -> bool;
    /// The answers on one line (lm-eval lines hold one per sample).
    fn parse(&self, v: &Value, line: u64) -> Result<Vec<Generation>, LineProblem>;
}

/// Every shape, most specific first: detection takes the first that recognises a line.
static SHAPES: [&dyn Shape; 3] = [&openai_batch::OpenAiBatch, &lm_eval::LmEval, &plain::Plain];

/// A generations file shape, by name (`plain`, `lm-eval`, `openai-batch`).
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

/// One answer to one item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generation {
    pub id: String,
    /// The text to verify. Reasoning given separately is folded in as `<think>…</think>` so
    /// that the verifier applies one rule: only the final text counts, and reasoning with no
    /// final text is truncated.
    pub response: String,
    /// 1-based line number in the file.
    pub line: u64,
    /// The option order the item was shown in, when `kgrade generate --circular` wrote the
    /// answer: entry `k` is the 0-based original option shown at position `k`.
    pub ordering: Option<Vec<u8>>,
}

/// The `custom_id` of a batch request for one answer: the item id, then `#s=SAMPLE` for
/// samples after the first and `#o=2,3,0,1` for a circular ordering, so that batch output
/// maps back to the item ([`split_custom_id`]). Ids must be unique within a batch file.
pub fn custom_id(id: &str, sample: u32, ordering: Option<&[u8]>) -> String {
    let mut s = id.to_string();
    if sample > 0 {
        s.push_str(&format!("#s={sample}"));
    }
    if let Some(o) = ordering {
        let o: Vec<String> = o.iter().map(u8::to_string).collect();
        s.push_str(&format!("#o={}", o.join(",")));
    }
    s
}

/// The item id and ordering a [`custom_id`] names. Suffixes that do not parse stay part of
/// the id, so ids that merely contain `#` are read unchanged.
pub fn split_custom_id(custom_id: &str) -> (String, Option<Vec<u8>>) {
    let mut id = custom_id;
    let mut ordering = None;
    if let Some((head, tail)) = id.rsplit_once("#o=") {
        let parsed: Option<Vec<u8>> = tail.split(',').map(|n| n.parse().ok()).collect();
        if let Some(o) = parsed {
            ordering = Some(o);
            id = head;
        }
    }
    if let Some((head, tail)) = id.rsplit_once("#s=") {
        if tail.parse::<u32>().is_ok() {
            id = head;
        }
    }
    (id.to_string(), ordering)
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

/// Streams generations from JSONL. Each line yields zero or more generations (lm-eval lines
/// hold one per sample) or an error; the stream goes on after an error.
pub struct GenerationReader<R> {
    input: R,
    source_name: String,
    format: Option<GenerationsFormat>,
    line: u64,
    buf: Vec<u8>,
    /// Bytes read so far, for progress.
    pub bytes_read: u64,
}

impl<R: BufRead> GenerationReader<R> {
    /// Read from `input`; `format` fixes the shape, otherwise the first line decides.
    pub fn new(input: R, source_name: &str, format: Option<GenerationsFormat>) -> Self {
        GenerationReader {
            input,
            source_name: source_name.to_string(),
            format,
            line: 0,
            buf: Vec::with_capacity(1 << 16),
            bytes_read: 0,
        }
    }

    fn err(&self, field: Option<&str>, message: impl Into<String>) -> GenerationError {
        GenerationError {
            source_name: self.source_name.clone(),
            line: self.line,
            field: field.map(str::to_string),
            message: message.into(),
        }
    }

    /// The next line's generations; `None` at the end of the input.
    pub fn next_line(&mut self) -> Option<Result<Vec<Generation>, GenerationError>> {
        loop {
            self.buf.clear();
            let n = match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(n) => n,
                Err(e) => {
                    self.line += 1;
                    return Some(Err(self.err(None, format!("cannot read: {e}"))));
                }
            };
            self.bytes_read += n as u64;
            self.line += 1;
            let text = match std::str::from_utf8(&self.buf) {
                Ok(t) => t.trim_start_matches('\u{feff}').trim(),
                Err(e) => {
                    return Some(Err(
                        self.err(None, format!("invalid UTF-8 at byte {}", e.valid_up_to()))
                    ))
                }
            };
            if text.is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_str(text) {
                Ok(v) => v,
                Err(e) => return Some(Err(self.err(None, format!("invalid JSON: {e}")))),
            };
            let format = *self.format.get_or_insert(GenerationsFormat::detect(&value));
            return Some(
                format
                    .0
                    .parse(&value, self.line)
                    .map_err(|p| GenerationError {
                        source_name: self.source_name.clone(),
                        line: self.line,
                        field: p.field.map(str::to_string),
                        message: p.message,
                    }),
            );
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

fn reasoning_of(v: &Value) -> Option<&str> {
    v.get("reasoning_content")
        .or_else(|| v.get("reasoning"))
        .and_then(Value::as_str)
}

fn with_reasoning(content: &str, reasoning: Option<&str>) -> String {
    match reasoning {
        Some(r) if !r.trim().is_empty() => {
            if content.trim().is_empty() {
                format!("<think>{r}")
            } else {
                format!("<think>{r}</think>{content}")
            }
        }
        _ => content.to_string(),
    }
}

/// The answer text of a chat completion: `choices[0].message.content`, with
/// `reasoning_content` folded in.
fn chat_text(body: &Value) -> Option<String> {
    let message = body.get("choices")?.get(0)?.get("message")?;
    let content = match message.get("content") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Null) | None => "",
        _ => return None,
    };
    if message.get("content").is_none() && reasoning_of(message).is_none() {
        return None;
    }
    Some(with_reasoning(content, reasoning_of(message)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(
        text: &str,
        format: Option<GenerationsFormat>,
    ) -> Vec<Result<Vec<Generation>, GenerationError>> {
        let mut r = GenerationReader::new(text.as_bytes(), "g.jsonl", format);
        std::iter::from_fn(|| r.next_line()).collect()
    }

    #[test]
    fn reads_each_shape() {
        let plain = read_all("{\"id\":\"a\",\"response\":\"③\"}\n{\"id\":7,\"response\":\"②\",\"reasoning_content\":\"음\"}\n", None);
        assert_eq!(plain[0].as_ref().unwrap()[0].response, "③");
        assert_eq!(plain[1].as_ref().unwrap()[0].id, "7");
        assert_eq!(plain[1].as_ref().unwrap()[0].response, "<think>음</think>②");

        let lm = read_all("{\"doc_id\":3,\"resps\":[[\"정답: ①\"],[\"②\"]],\"filtered_resps\":[\"①\",\"②\"],\"doc\":{}}\n", None);
        let lm = lm[0].as_ref().unwrap();
        assert_eq!(
            (lm.len(), lm[0].id.as_str(), lm[1].response.as_str()),
            (2, "3", "②")
        );

        let batch = read_all(concat!(
            "{\"custom_id\":\"q1\",\"response\":{\"status_code\":200,\"body\":{\"choices\":[{\"message\":{\"content\":\"④\",\"reasoning_content\":\"생각\"}}]}},\"error\":null}\n",
            "{\"custom_id\":\"q2\",\"response\":null,\"error\":{\"message\":\"rate limited\"}}\n",
        ), None);
        assert_eq!(
            batch[0].as_ref().unwrap()[0].response,
            "<think>생각</think>④"
        );
        assert_eq!(batch[1].as_ref().unwrap()[0].response, "");
    }

    #[test]
    fn custom_ids_map_back_to_item_and_ordering() {
        assert_eq!(custom_id("q1", 0, None), "q1");
        let id = custom_id("a#b", 2, Some(&[3, 0, 1, 2]));
        assert_eq!(id, "a#b#s=2#o=3,0,1,2");
        assert_eq!(split_custom_id(&id), ("a#b".into(), Some(vec![3, 0, 1, 2])));
        assert_eq!(split_custom_id("x#o=y"), ("x#o=y".into(), None));
        let batch = read_all("{\"custom_id\":\"q1#s=1#o=1,0\",\"response\":{\"body\":{\"choices\":[{\"message\":{\"content\":\"②\"}}]}}}\n{\"id\":\"q2\",\"response\":\"①\",\"ordering\":[1,0]}\n", None);
        let g = &batch[0].as_ref().unwrap()[0];
        assert_eq!(
            (g.id.as_str(), g.ordering.clone()),
            ("q1", Some(vec![1, 0]))
        );
        let plain = read_all(
            "{\"id\":\"q2\",\"response\":\"①\",\"ordering\":[1,0]}\n",
            None,
        );
        assert_eq!(plain[0].as_ref().unwrap()[0].ordering, Some(vec![1, 0]));
    }

    #[test]
    fn reasoning_without_content_is_truncated_reasoning() {
        let g = read_all("{\"id\":\"a\",\"response\":{\"choices\":[{\"message\":{\"content\":null,\"reasoning_content\":\"정답은 ②일까\"}}]}}\n", None);
        assert_eq!(g[0].as_ref().unwrap()[0].response, "<think>정답은 ②일까");
    }

    #[test]
    fn bad_lines_are_located_and_the_stream_goes_on() {
        let out = read_all("{\"id\":\"a\",\"response\":\"③\"}\n{\"id\":\"b\",\"resp\n{\"response\":\"x\"}\n{\"id\":\"c\",\"response\":\"①\"}\n", None);
        assert_eq!(out.len(), 4);
        assert!(out[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("g.jsonl:2: invalid JSON"));
        assert_eq!(
            out[2].as_ref().unwrap_err().to_string(),
            "g.jsonl:3: field `id`: missing or not a string/number"
        );
        assert_eq!(out[3].as_ref().unwrap()[0].id, "c");
    }
}
