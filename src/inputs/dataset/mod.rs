//! Reading datasets into [`Item`]s: domain_eval CSV, KMMLU CSV, and generic CSV/JSONL with a
//! column map. Rows are read one at a time; every problem names the file, line and field.
//! Not for answers: see [`super::generations`].

mod header;
mod identity;
mod position;

use crate::types::Item;
use crate::verify::{ChoiceSet, Notation};
use header::{detect_format, header_problem, kmmlu_options, OPTION_COLUMNS};
pub use identity::{content_hash, subject_key};
use position::{csv_field_start, record_text, LineCounter};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The dataset shapes kgrade knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetFormat {
    /// `question` (options inline), `answer` (①–⑤ or ○/×), `domain`, `sub_domain`, `format`, `lang`.
    DomainEval,
    /// `question`, `A`–`D`, `answer` (1–4), `Category`, `Human Accuracy`.
    Kmmlu,
    /// Any CSV or JSONL, with the columns named on the command line.
    Generic,
}

/// How to read a generic dataset (and overrides for the known ones).
#[derive(Clone, Debug, Default)]
pub struct ColumnMap {
    pub id: Option<String>,
    pub question: Option<String>,
    pub answer: Option<String>,
    /// The choice set for every item, instead of detecting it from each question.
    pub choices: Option<ChoiceSet>,
}

/// A dataset in memory: the join needs every item by id. Its size is the dataset's, never
/// the number of answers.
#[derive(Debug)]
pub struct Dataset {
    pub path: PathBuf,
    pub format: DatasetFormat,
    pub items: Vec<Item>,
    pub index: HashMap<String, usize>,
    /// Ids that appear on more than one row (the first row wins the join).
    pub duplicate_ids: Vec<String>,
    /// For a folder of datasets: each file's subject key (item ids are `SUBJECT/ID`).
    pub subjects: Vec<String>,
}

impl Dataset {
    /// The item an answer is for: by its id, and for a folder of datasets by the subject its
    /// task names (`kmmlu_direct_public_safety` → `public_safety`, the longest subject the
    /// task name ends with).
    pub fn find(&self, task: Option<&str>, id: &str) -> Option<usize> {
        if self.subjects.is_empty() {
            return self.index.get(id).copied();
        }
        match task.and_then(|t| self.subject_of(t)) {
            Some(s) => self.index.get(&format!("{s}/{id}")).copied(),
            None => self.index.get(id).copied(),
        }
    }

    /// The subject (dataset file of a folder) an lm-eval task's lines are joined to: the
    /// longest subject the task's name is or ends in (`kmmlu_direct_criminal_law` →
    /// `criminal_law`, not `law`).
    fn subject_of(&self, task: &str) -> Option<&str> {
        let t = subject_key(task);
        self.subjects
            .iter()
            .filter(|s| t == s.as_str() || t.ends_with(&format!("_{s}")))
            .max_by_key(|s| s.len())
            .map(String::as_str)
    }

    /// The items an lm-eval task was drawn from, as lm-eval's `n-samples.original` counts
    /// them: its subject's rows in a folder, else the whole dataset.
    pub fn task_items(&self, task: &str) -> usize {
        match self.subject_of(task) {
            Some(s) => {
                let prefix = format!("{s}/");
                self.items
                    .iter()
                    .filter(|i| i.id.starts_with(&prefix))
                    .count()
            }
            None => self.items.len(),
        }
    }

    /// The columns reports can group by: every item field seen, in first-seen order.
    pub fn grouping_columns(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for item in &self.items {
            for (k, _) in &item.fields {
                if !seen.contains(k) {
                    seen.push(k.clone());
                }
            }
        }
        seen
    }
}

/// The largest CSV dataset read (it is read whole, then parsed).
const MAX_DATASET: u64 = 2 << 30;

/// A dataset problem, located.
#[derive(Debug, thiserror::Error)]
pub struct DatasetError {
    pub path: PathBuf,
    /// 1-based line number, when the problem is on a line.
    pub line: Option<u64>,
    pub field: Option<String>,
    pub message: String,
    /// The file or folder could not be read at all (missing, a folder without datasets, an
    /// I/O error): the command could not run (exit 2), which is not bad data (exit 3).
    pub unreadable: bool,
}

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// The label shown for an empty sub_domain.
pub const UNCLASSIFIED: &str = "(미분류)";

/// Columns that group reports when present (the default `--by`).
pub const DEFAULT_GROUPS: [&str; 7] = [
    "task",
    "subject",
    "domain",
    "sub_domain",
    "format",
    "lang",
    "Category",
];

struct RowSource<'a> {
    path: &'a Path,
    /// The line the row starts on.
    line: u64,
    /// A CSV record's raw text, to find the line a field is on (a quoted field may hold
    /// line breaks, so a record's fields can lie on several lines).
    csv: Option<CsvRow<'a>>,
}

/// Where a CSV record lies in its file: its bytes from its start, and the column names.
struct CsvRow<'a> {
    rest: &'a [u8],
    names: &'a [String],
}

impl RowSource<'_> {
    fn err(&self, field: Option<&str>, message: impl Into<String>) -> DatasetError {
        DatasetError {
            path: self.path.to_path_buf(),
            line: Some(self.field_line(field)),
            field: field.map(str::to_string),
            message: message.into(),
            unreadable: false,
        }
    }

    /// The physical line `field` starts on: the row's line plus the line breaks before it.
    fn field_line(&self, field: Option<&str>) -> u64 {
        let (Some(csv), Some(field)) = (&self.csv, field) else {
            return self.line;
        };
        let Some(index) = csv.names.iter().position(|n| n == field) else {
            return self.line;
        };
        let start = csv_field_start(csv.rest, index);
        self.line + memchr::memchr_iter(b'\n', &csv.rest[..start]).count() as u64
    }
}

/// Read a dataset: one file, or a folder of them (one subject each, as KMMLU ships its 45
/// subjects). In a folder, each file's stem without `-test`/`_test` is its subject (the
/// grouping column `subject`), and an item's id is `SUBJECT/ID`, since row indexes restart
/// in every file.
pub fn read_dataset(path: &Path, columns: &ColumnMap) -> Result<Dataset, DatasetError> {
    if !path.is_dir() {
        return read_dataset_file(path, columns);
    }
    // Both of this function's own errors say the folder cannot be read as a dataset.
    let err = |message: String| DatasetError {
        path: path.to_path_buf(),
        line: None,
        field: None,
        message,
        unreadable: true,
    };
    let files = dataset_files(path).map_err(|e| err(format!("cannot read the folder: {e}")))?;
    if files.is_empty() {
        return Err(err("a folder with no .csv or .jsonl dataset in it".into()));
    }
    let mut all = Dataset {
        path: path.to_path_buf(),
        format: DatasetFormat::Generic,
        items: Vec::new(),
        index: HashMap::new(),
        duplicate_ids: Vec::new(),
        subjects: Vec::new(),
    };
    for file in files {
        let one = read_dataset_file(&file, columns)?;
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let label = stem
            .strip_suffix("-test")
            .or_else(|| stem.strip_suffix("_test"))
            .unwrap_or(stem)
            .to_string();
        let subject = subject_key(&label);
        all.format = one.format;
        for mut item in one.items {
            item.id = format!("{subject}/{}", item.id);
            item.fields.push(("subject".to_string(), label.clone()));
            if all.index.contains_key(&item.id) {
                all.duplicate_ids.push(item.id.clone());
            } else {
                all.index.insert(item.id.clone(), all.items.len());
            }
            all.items.push(item);
        }
        all.subjects.push(subject);
    }
    Ok(all)
}

/// The dataset files of a folder, in name order.
fn dataset_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "csv" | "jsonl" | "json" | "ndjson"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Read one dataset file, detecting its shape from the header (CSV) or first line (JSONL).
fn read_dataset_file(path: &Path, columns: &ColumnMap) -> Result<Dataset, DatasetError> {
    let file_err = |message: String| DatasetError {
        path: path.to_path_buf(),
        line: None,
        field: None,
        message,
        unreadable: false,
    };
    let unreadable = |message: String| DatasetError {
        unreadable: true,
        ..file_err(message)
    };
    let file = std::fs::File::open(path).map_err(|e| unreadable(format!("cannot open: {e}")))?;
    let is_jsonl = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "jsonl" | "json" | "ndjson"));
    let mut dataset = Dataset {
        path: path.to_path_buf(),
        format: DatasetFormat::Generic,
        items: Vec::new(),
        index: HashMap::new(),
        duplicate_ids: Vec::new(),
        subjects: Vec::new(),
    };
    let push = |dataset: &mut Dataset, item: Item| {
        if dataset.index.contains_key(&item.id) {
            dataset.duplicate_ids.push(item.id.clone());
        } else {
            dataset.index.insert(item.id.clone(), dataset.items.len());
        }
        dataset.items.push(item);
    };
    if is_jsonl {
        let mut reader = std::io::BufReader::new(file);
        let mut row = 0usize;
        let mut line = Vec::new();
        for n in 0.. {
            let src = RowSource {
                path,
                line: n as u64 + 1,
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
            let value: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text)
                .map_err(|e| {
                    let message = crate::types::json::line_error(&e);
                    src.err(None, format!("invalid JSON: {message}"))
                })?;
            let record: Vec<(String, String)> = value
                .into_iter()
                .map(|(k, v)| {
                    let v = match v {
                        serde_json::Value::String(s) => s,
                        serde_json::Value::Null => String::new(),
                        other => other.to_string(),
                    };
                    (k, v)
                })
                .collect();
            if row == 0 {
                let names: Vec<&str> = record.iter().map(|(k, _)| k.as_str()).collect();
                dataset.format = detect_format(&names, columns);
            }
            let item = build_item(&src, dataset.format, columns, &record, row)?;
            push(&mut dataset, item);
            row += 1;
        }
        // A row without a key other rows have is in that column's empty group, as a null is
        // (a row in no group would leave the group counts short of the total).
        let columns = dataset.grouping_columns();
        for item in &mut dataset.items {
            for c in &columns {
                if !item.fields.iter().any(|(k, _)| k == c) {
                    item.fields.push((c.clone(), String::new()));
                }
            }
        }
        return Ok(dataset);
    }
    // Datasets are held in memory as items anyway; reading the bytes whole lets errors name
    // the physical line a text editor shows (the csv crate's own line count is off on CRLF).
    let mut bytes = Vec::new();
    // At most MAX_DATASET bytes: a device or a file far past any dataset is refused, not
    // read into memory until it runs out.
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::io::BufReader::new(file), MAX_DATASET + 1),
        &mut bytes,
    )
    .map_err(|e| unreadable(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_DATASET {
        return Err(unreadable(format!(
            "larger than {} GiB: a dataset is held in memory (give a JSONL dataset, read line by line, or split the file)",
            MAX_DATASET >> 30
        )));
    }
    let mut lines = LineCounter::new(&bytes);
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_reader(bytes.as_slice());
    let headers = reader
        .byte_headers()
        .map_err(|e| file_err(format!("cannot read the header: {e}")))?
        .clone();
    let mut names = Vec::with_capacity(headers.len());
    for (i, h) in headers.iter().enumerate() {
        let h = std::str::from_utf8(h).map_err(|_| DatasetError {
            path: path.to_path_buf(),
            line: Some(1),
            field: None,
            message: format!(
                "column {} has an invalid UTF-8 name ({})",
                i + 1,
                crate::inputs::invalid_utf8(&bytes[..bytes.len().min(4096)], 0)
            ),
            unreadable: false,
        })?;
        names.push(h.trim_start_matches('\u{feff}').trim().to_string());
    }
    header_problem(&names, columns).map_or(Ok(()), |message| {
        Err(DatasetError {
            path: path.to_path_buf(),
            line: Some(1),
            field: None,
            message,
            unreadable: false,
        })
    })?;
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    dataset.format = detect_format(&name_refs, columns);
    let mut record = csv::ByteRecord::new();
    let mut row = 0usize;
    loop {
        let more = reader.read_byte_record(&mut record).map_err(|e| {
            let line = e.position().map(|p| lines.line_at(p.byte()));
            DatasetError {
                path: path.to_path_buf(),
                line,
                field: None,
                message: match e.kind() {
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!("{len} fields where the header has {expected_len}"),
                    _ => e.to_string(),
                },
                unreadable: false,
            }
        })?;
        if !more {
            break;
        }
        let src = RowSource {
            path,
            line: record
                .position()
                .map_or(row as u64 + 2, |p| lines.line_at(p.byte())),
            csv: record.position().map(|p| CsvRow {
                rest: record_text(&bytes, p.byte()),
                names: &names,
            }),
        };
        let mut fields = Vec::with_capacity(names.len());
        for (name, value) in names.iter().zip(record.iter()) {
            let value = std::str::from_utf8(value).map_err(|e| {
                src.err(
                    Some(name),
                    crate::inputs::invalid_utf8(value, e.valid_up_to()),
                )
            })?;
            fields.push((name.clone(), value.to_string()));
        }
        let item = build_item(&src, dataset.format, columns, &fields, row)?;
        push(&mut dataset, item);
        row += 1;
    }
    Ok(dataset)
}

fn get<'a>(record: &'a [(String, String)], name: &str) -> Option<&'a str> {
    record
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn build_item(
    src: &RowSource,
    format: DatasetFormat,
    columns: &ColumnMap,
    record: &[(String, String)],
    row: usize,
) -> Result<Item, DatasetError> {
    let question_col = columns.question.as_deref().unwrap_or("question");
    let answer_col = columns.answer.as_deref().unwrap_or("answer");
    let id_col = columns.id.as_deref().unwrap_or("id");
    let required =
        |name: &str| get(record, name).ok_or_else(|| src.err(Some(name), "missing column"));
    let question_raw = required(question_col)?;
    let answer = required(answer_col)?.trim();
    if answer.is_empty() {
        return Err(src.err(Some(answer_col), "empty answer"));
    }
    let id = match get(record, id_col) {
        Some(v) if !v.trim().is_empty() => v.trim().to_string(),
        Some(_) => return Err(src.err(Some(id_col), "empty id")),
        None if columns.id.is_some() => return Err(src.err(Some(id_col), "missing column")),
        None => row.to_string(),
    };
    let (question, choices) = match format {
        DatasetFormat::Kmmlu => {
            // Shown as (1)–(4) unless --choices says how the model saw them (lm-eval's
            // kmmlu tasks show `A. …`–`D. …`).
            let notation = columns
                .choices
                .as_ref()
                .map_or(Notation::Number, ChoiceSet::notation);
            // A–D, and E, F, … when the file has them (a five-option exam in KMMLU's layout).
            let n = kmmlu_options(record);
            let set =
                ChoiceSet::new(notation, n as u8).map_err(|e| src.err(None, e.to_string()))?;
            let mut q = question_raw.to_string();
            let mut options = Vec::with_capacity(n);
            for (choice, col) in set.choices().zip(OPTION_COLUMNS) {
                let text = required(col)?.trim().replace('\n', " ");
                let label = set.label(choice);
                match notation {
                    Notation::Number => q.push_str(&format!("\n({label}) {text}")),
                    _ => q.push_str(&format!("\n{label}. {text}")),
                }
                options.push(text);
            }
            (q, set.with_options(options).with_question(question_raw))
        }
        _ => {
            let set = if let Some(set) = &columns.choices {
                ChoiceSet::for_question(question_raw, Some(set))
            } else if looks_ox(answer) {
                // An O/X key makes an O/X item only when the question shows no other options:
                // on a question with ①–④ it is a wrong key (reported below like ⑤ would be).
                match ChoiceSet::detect(question_raw) {
                    Some(shown) if shown.notation() != Notation::Ox => Some(shown),
                    _ => ChoiceSet::new(Notation::Ox, 2)
                        .ok()
                        .map(|set| set.with_question(question_raw)),
                }
            } else {
                ChoiceSet::detect(question_raw)
            };
            let set = set.ok_or_else(|| {
                src.err(
                    Some(question_col),
                    "no options found (①…, (1)…, 1. …, 1) …, 1번 - …, A. …, | ① | … |, O/X); give --choices",
                )
            })?;
            if let Some(shown) = set.truncated_from() {
                return Err(src.err(
                    Some(question_col),
                    format!(
                        "the question shows {shown} options, more than {} {} can label; give --choices",
                        set.len(),
                        match set.notation() {
                            Notation::Letter => "letters",
                            _ => "numbers",
                        }
                    ),
                ));
            }
            (question_raw.to_string(), set)
        }
    };
    // KMMLU's answer is the 1-based position of the right column, whatever notation the
    // options are shown in; with `--choices letter:4` the column's letter (A–D) is read too.
    let letters = choices.notation() == Notation::Letter;
    let gold = match format {
        DatasetFormat::Kmmlu => answer
            .parse::<usize>()
            .ok()
            .and_then(|p| choices.at_position(p))
            .or_else(|| {
                (letters && answer.len() == 1)
                    .then(|| choices.parse_label(answer))
                    .flatten()
            }),
        _ => choices.parse_label(answer),
    };
    let gold = gold.ok_or_else(|| {
        let reason = match format {
            DatasetFormat::Kmmlu if letters => format!(
                "{answer:?} is neither an option's 1-based position (1–{}) nor its letter (A–{})",
                choices.len(),
                OPTION_COLUMNS[choices.len() - 1]
            ),
            DatasetFormat::Kmmlu => format!(
                "{answer:?} is not an option's 1-based position (1–{}), which KMMLU's answer is{}",
                choices.len(),
                if OPTION_COLUMNS[..choices.len()].contains(&answer) {
                    "; for letter answers give --choices letter:4"
                } else {
                    ""
                }
            ),
            _ => format!("unknown answer label {answer:?} for choices {choices}"),
        };
        src.err(Some(answer_col), reason)
    })?;
    // A key pointing at an option with no text (a blank D in a sheet) grades every answer
    // against nothing: the row is wrong, not the model.
    if choices
        .option_text(gold)
        .is_some_and(|t| t.trim().is_empty())
    {
        return Err(src.err(
            Some(answer_col),
            format!(
                "{answer:?} names option {}, whose text is empty",
                choices.label(gold)
            ),
        ));
    }
    let excluded = |k: &str| {
        k == question_col
            || k == answer_col
            || k == id_col
            || (format == DatasetFormat::Kmmlu
                && (k == "Human Accuracy" || OPTION_COLUMNS.contains(&k)))
    };
    let fields = record
        .iter()
        .filter(|(k, _)| !excluded(k))
        .map(|(k, v)| {
            let v = v.trim();
            let v = if v.is_empty() && k == "sub_domain" {
                UNCLASSIFIED.to_string()
            } else {
                v.to_string()
            };
            (k.clone(), v)
        })
        .collect();
    Ok(Item {
        id,
        question,
        choices,
        gold,
        fields,
    })
}

fn looks_ox(answer: &str) -> bool {
    matches!(
        answer,
        "O" | "X" | "o" | "x" | "○" | "×" | "◯" | "✕" | "Ｏ" | "Ｘ"
    )
}

#[cfg(test)]
mod tests;
