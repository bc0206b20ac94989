//! Reading a JSON dataset file into rows: JSON lines (one record a line, streamed), or one
//! JSON document holding the records (a top-level array, as pandas' `to_json(orient=
//! "records")` and `json.dump(rows, indent=2)` write it, or an object with one array of
//! records, `{"data": […]}`), read from memory record by record, each named by its line.
//! Not for nested documents (a record holding a list of questions, as CSAT's `problems`):
//! those are refused with how to flatten them.

use super::position::LineCounter;
use super::{read_whole, sniff, Dataset, DatasetError, RowSource, Rows};
use crate::verify::{label_in, Notation};
use serde_json::{Map, Value};
use std::io::BufRead;

/// Read the JSON file of `rows` into `rows`.
pub(super) fn read(rows: &mut Rows) -> Result<(), DatasetError> {
    let path = rows.path;
    let unreadable = |message: String| DatasetError::unreadable(path, message);
    let file = std::fs::File::open(path).map_err(|e| unreadable(format!("cannot open: {e}")))?;
    let mut reader = std::io::BufReader::new(file);
    let head = reader
        .fill_buf()
        .map_err(|e| unreadable(format!("cannot read: {e}")))?;
    sniff::refuse_binary(path, head)?;
    let first = String::from_utf8_lossy(&head[..head.len().min(64)]);
    if first
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('[')
    {
        return read_document(rows);
    }
    let mut line = Vec::new();
    for n in 1.. {
        let src = RowSource {
            path,
            line: n,
            csv: None,
        };
        line.clear();
        let (read, long) =
            crate::inputs::read_line_capped(&mut reader, &mut line, crate::inputs::MAX_LINE)
                .map_err(|e| DatasetError {
                    unreadable: true,
                    ..src.err(None, format!("cannot read: {e}"))
                })?;
        if read == 0 {
            break;
        }
        if long {
            return Err(src.err(None, crate::inputs::line_too_long(read as u64)));
        }
        let text = crate::inputs::utf8(&line)
            .map_err(|at| src.err(None, crate::inputs::invalid_utf8(&line, at)))?;
        let text = text.trim_start_matches('\u{feff}').trim();
        if text.is_empty() {
            continue;
        }
        let value: Map<String, Value> = match serde_json::from_str(text) {
            Ok(value) => value,
            // A pretty-printed document: its first line is an unfinished object.
            Err(e) if n == 1 && e.is_eof() => return read_document(rows),
            Err(e) => {
                let message = crate::types::json::line_error(&e);
                return Err(src.err(None, format!("invalid JSON: {message}")));
            }
        };
        // One line holding the records (`{"data": […]}`) is a document too.
        if n == 1 && holds_records(&value, rows.columns.question_col()) {
            return read_document(rows);
        }
        let record =
            flatten(value, false, rows.columns.answer_col()).map_err(|m| src.err(None, m))?;
        rows.push(&src, &record.fields, record.labels)?;
    }
    fill_missing_fields(&mut rows.dataset);
    Ok(())
}

/// Does a first record hold the records rather than being one: no question, and a list of
/// objects in it?
fn holds_records(value: &Map<String, Value>, question: &str) -> bool {
    !value.contains_key(question) && value.values().any(is_list_of_objects)
}

fn is_list_of_objects(value: &Value) -> bool {
    matches!(value, Value::Array(a) if a.first().is_some_and(Value::is_object))
}

/// A row without a key other rows have is in that column's empty group, as a null is (a row
/// in no group would leave the group counts short of the total).
fn fill_missing_fields(dataset: &mut Dataset) {
    let columns = dataset.grouping_columns();
    for item in &mut dataset.items {
        for c in &columns {
            if !item.fields.iter().any(|(k, _)| k == c) {
                item.fields.push((c.clone(), String::new()));
            }
        }
    }
}

/// Options written as objects with a `text` (`[{"label", "text"}, …]`, ARC's
/// `{"text": […], "label": […]}`): their texts, and the notation of their labels unless those
/// are the letters A, B, … in order (the places the texts are read at anyway).
struct Labelled {
    texts: Vec<String>,
    labels: Option<(Notation, Vec<String>)>,
}

/// A JSON record's fields as text, and the notation its options' own labels are in (`1`–`4`
/// numbers, `①`–`④` circled, `a`–`d` letters): the labels a prompt built from the row shows,
/// and the ones its answer names (rewritten to the notation's own form: `b` → `B`).
pub(super) struct Record {
    pub fields: Vec<(String, String)>,
    pub labels: Option<Notation>,
}

/// The notation `labels` are, in order from the first option; letters in either case.
fn labels_notation(labels: &[String]) -> Option<Notation> {
    [Notation::Letter, Notation::Number, Notation::Circled]
        .into_iter()
        .find(|&n| {
            (labels.iter().enumerate()).all(|(i, l)| l.eq_ignore_ascii_case(&label_in(n, i)))
        })
}

/// The option texts of a `choices`/`options` field written as objects. Labels must run in
/// order in one notation (A–D, a–d, 1–4, ①–④), as the options are shown and read by place:
/// labels out of order (`D, C, B, A`), with a gap (`A, B, D, E`) or from 0 (`0`–`3`) would
/// read a model's answer by place and its gold by label, a wrong grade at exit 0 (trial 49),
/// so they are refused.
fn option_texts(key: &str, v: &Value) -> Option<Result<Labelled, String>> {
    if !matches!(key, "choices" | "options") {
        return None;
    }
    let text = |o: &Value| o.get("text").and_then(Value::as_str).map(str::to_string);
    let (texts, labels): (Option<Vec<String>>, Vec<Value>) = match v {
        Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => (
            items.iter().map(text).collect(),
            items
                .iter()
                .filter_map(|o| o.get("label").cloned())
                .collect(),
        ),
        Value::Object(o) => (
            (o.get("text")?.as_array()?.iter())
                .map(|t| t.as_str().map(str::to_string))
                .collect(),
            (o.get("label").and_then(Value::as_array))
                .cloned()
                .unwrap_or_default(),
        ),
        _ => return None,
    };
    let texts = texts?;
    let labels: Vec<String> = labels
        .iter()
        .map(|l| match l {
            Value::String(s) => s.trim().to_string(),
            other => other.to_string(),
        })
        .collect();
    let letters = (labels.iter().enumerate())
        .all(|(i, l)| *l == char::from(b'A' + (i as u8 % 26)).to_string());
    if letters {
        return Some(Ok(Labelled {
            texts,
            labels: None,
        }));
    }
    let notation = (labels.len() == texts.len())
        .then(|| labels_notation(&labels))
        .flatten();
    Some(match notation {
        Some(n) => Ok(Labelled {
            texts,
            labels: Some((n, labels)),
        }),
        None => Err(format!(
            "field `{key}`: {} options labelled {}: kgrade reads options by place, so their labels must run in order from the first, as A, B, C, …, 1, 2, 3, … or ①, ②, ③, …; write the options in their labels' order",
            texts.len(),
            shown_labels(&labels)
        )),
    })
}

fn shown_labels(labels: &[String]) -> String {
    let shown: Vec<String> = labels.iter().take(6).map(|l| format!("{l:?}")).collect();
    let more = if labels.len() > 6 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The answer beside options with labels of their own (ARC's `1`–`4` on some rows, A–D on
/// others) names a label, as lm-eval's `choices.label.index(answerKey)` reads it: it is
/// written in the notation's own form (`b` → `B`), read in that notation whatever the row is
/// shown in. Read as an index it was one off (trial 46: 0/9 for 9/9), and refusing it refused
/// ARC, whose files mix both (trial 47).
fn answer_by_label(
    record: &mut [(String, String)],
    answer: &str,
    list: &str,
    (notation, labels): (Notation, &[String]),
) -> Result<(), String> {
    let Some((_, value)) = record.iter_mut().find(|(k, _)| k == answer) else {
        return Ok(());
    };
    let named = value.trim();
    match labels.iter().position(|l| l == named) {
        Some(i) => {
            *value = label_in(notation, i);
            Ok(())
        }
        None => Err(format!(
            "field `{answer}`: {named:?} is none of the labels of `{list}` ({}), which the answer names",
            shown_labels(labels)
        )),
    }
}

/// A JSON record's fields as text: a string as it is, null as empty, anything else (a
/// number, a list of options) as its JSON. A list of objects is a nested record, refused.
/// `answer` is the answer's field, read against the options' labels when they have some.
fn flatten(value: Map<String, Value>, in_document: bool, answer: &str) -> Result<Record, String> {
    let mut record = Vec::with_capacity(value.len());
    let mut labelled = None;
    for (k, v) in value {
        // Options as objects: `[{"label": "A", "text": …}, …]`, or ARC's
        // `{"text": […], "label": […]}`: their texts are the list (trial 45: refused as a
        // nested record, with a jq line that made each option a question).
        if let Some(options) = option_texts(&k, &v) {
            let options = options?;
            if let Some(labels) = options.labels {
                labelled = Some((k.clone(), labels));
            }
            record.push((k, Value::from(options.texts).to_string()));
            continue;
        }
        if is_list_of_objects(&v) {
            let jq = if in_document {
                format!("jq -c '.[] | .{k}[]' FILE.json > FILE.jsonl")
            } else {
                format!("jq -c '.{k}[]' FILE.jsonl > flat.jsonl")
            };
            return Err(format!(
                "field `{k}` holds a list of records (nested JSON, as CSAT's `problems`): kgrade reads one question per record; flatten the file first, e.g. `{jq}` (fields of the outer record, such as a shared passage, are then to be copied into each question by a script)"
            ));
        }
        let v = match v {
            Value::String(s) => s,
            Value::Null => String::new(),
            other => other.to_string(),
        };
        record.push((k, v));
    }
    let mut shown = None;
    if let Some((list, (notation, labels))) = labelled {
        answer_by_label(&mut record, answer, &list, (notation, &labels))?;
        shown = Some(notation);
    }
    Ok(Record {
        fields: record,
        labels: shown,
    })
}

/// Read a file that is one JSON document: a records array, or an object holding exactly one.
fn read_document(rows: &mut Rows) -> Result<(), DatasetError> {
    let path = rows.path;
    let bytes = read_whole(path)?;
    let text = crate::inputs::utf8(&bytes).map_err(|at| DatasetError {
        path: path.to_path_buf(),
        line: Some(1 + memchr::memchr_iter(b'\n', &bytes[..at]).count() as u64),
        field: None,
        message: crate::inputs::invalid_utf8(&bytes, at),
        unreadable: false,
    })?;
    let bytes = text.as_bytes();
    let mut lines = LineCounter::new(bytes);
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let start = skip_ws(bytes, bom);
    let mut err = |at: usize, message: String| DatasetError {
        path: path.to_path_buf(),
        line: Some(lines.line_at(at as u64)),
        field: None,
        message,
        unreadable: false,
    };
    let end = match bytes.get(start) {
        Some(b'[') => read_array(rows, bytes, start, &mut LineCounter::new(bytes))?,
        Some(b'{') => {
            let (value, end) = one_value::<Map<String, Value>>(bytes, start).map_err(|e| {
                err(
                    start,
                    format!("invalid JSON: {}", crate::types::json::line_error(&e)),
                )
            })?;
            if skip_ws(bytes, end) < bytes.len() {
                // Several objects: JSON lines whose records hold lists of records.
                flatten(value, false, rows.columns.answer_col()).map_err(|m| err(start, m))?;
                return Err(err(end, "more than one JSON document".into()));
            }
            let lists: Vec<&String> = value
                .iter()
                .filter(|(_, v)| is_list_of_objects(v))
                .map(|(k, _)| k)
                .collect();
            let key = match lists.as_slice() {
                [key] => (*key).clone(),
                [] => {
                    return Err(err(
                        start,
                        "one JSON object, not JSON lines, and no list of records in it: give one record a line".into(),
                    ))
                }
                keys => {
                    let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                    return Err(err(
                        start,
                        format!(
                            "one JSON object with several lists of records ({}): give one as JSON lines, e.g. `jq -c '.{}[]' FILE.json > FILE.jsonl`",
                            keys.join(", "),
                            lists[0]
                        ),
                    ));
                }
            };
            drop(value);
            let at = find_member(bytes, start, &key).ok_or_else(|| {
                err(
                    start,
                    format!("cannot find the list `{key}` in the document"),
                )
            })?;
            read_array(rows, bytes, at, &mut LineCounter::new(bytes))?;
            end
        }
        _ => {
            return Err(err(
                start,
                "neither JSON lines nor a JSON array of records".into(),
            ))
        }
    };
    if skip_ws(bytes, end) < bytes.len() {
        return Err(err(
            skip_ws(bytes, end),
            "data after the JSON document".into(),
        ));
    }
    fill_missing_fields(&mut rows.dataset);
    Ok(())
}

/// Read the array of records starting at `at` (its `[`) into `rows`; returns where it ends.
fn read_array(
    rows: &mut Rows,
    bytes: &[u8],
    at: usize,
    lines: &mut LineCounter,
) -> Result<usize, DatasetError> {
    let path = rows.path;
    let mut i = skip_ws(bytes, at + 1);
    if bytes.get(i) == Some(&b']') {
        return Ok(i + 1);
    }
    loop {
        let src = RowSource {
            path,
            line: lines.line_at(i as u64),
            csv: None,
        };
        let (value, next) = one_value::<Value>(bytes, i).map_err(|e| DatasetError {
            line: Some(src.line + (e.line() as u64).saturating_sub(1)),
            ..src.err(
                None,
                format!("invalid JSON: {}", crate::types::json::line_error(&e)),
            )
        })?;
        let Value::Object(map) = value else {
            return Err(src.err(None, "a record that is not a JSON object"));
        };
        let record = flatten(map, true, rows.columns.answer_col()).map_err(|m| src.err(None, m))?;
        rows.push(&src, &record.fields, record.labels)?;
        i = skip_ws(bytes, next);
        match bytes.get(i) {
            Some(b',') => i = skip_ws(bytes, i + 1),
            Some(b']') => return Ok(i + 1),
            _ => {
                let line = lines.line_at(i as u64);
                return Err(DatasetError {
                    line: Some(line),
                    ..src.err(None, "expected `,` or `]` after a record")
                });
            }
        }
    }
}

/// Where the value of the top-level object's member `key` starts (the object at `at`).
fn find_member(bytes: &[u8], at: usize, key: &str) -> Option<usize> {
    let mut i = skip_ws(bytes, at + 1);
    loop {
        let (name, next) = one_value::<String>(bytes, i).ok()?;
        i = skip_ws(bytes, next);
        (bytes.get(i) == Some(&b':')).then_some(())?;
        i = skip_ws(bytes, i + 1);
        if name == key {
            return Some(i);
        }
        let (_, next) = one_value::<serde::de::IgnoredAny>(bytes, i).ok()?;
        i = skip_ws(bytes, next);
        (bytes.get(i) == Some(&b',')).then_some(())?;
        i = skip_ws(bytes, i + 1);
    }
}

/// One JSON value starting at `at`, and the offset just past it.
fn one_value<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    at: usize,
) -> Result<(T, usize), serde_json::Error> {
    let mut values = serde_json::Deserializer::from_slice(&bytes[at..]).into_iter::<T>();
    match values.next() {
        Some(Ok(value)) => Ok((value, at + values.byte_offset())),
        Some(Err(e)) => Err(e),
        None => Err(serde::de::Error::custom("EOF while parsing a value")),
    }
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}
