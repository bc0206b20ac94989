//! Reading datasets into [`Item`]s: domain_eval CSV, KMMLU CSV, and generic CSV/JSONL with a
//! column map. Rows are read one at a time; every problem names the file, line and field.
//! Not for answers: see [`super::generations`].

mod csv_file;
mod header;
mod identity;
mod item;
mod json;
mod layout;
mod listed;
mod position;
mod sniff;

use crate::types::Item;
use crate::verify::ChoiceSet;
pub use identity::{content_hash, subject_key};
use layout::{detect_layout, Layout, OptionSource};
use listed::{resolve_indexes, Pending};
use position::csv_field_start;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// `--id-col @row`: ids are the 0-based row numbers (lm-eval's `doc_id`), whatever id
/// column the file has (its `id` is then neither the id nor a grouping field).
pub const ROW_IDS: &str = "@row";

/// The dataset shapes kgrade knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetFormat {
    /// `question` (options inline), `answer` (①–⑤ or ○/×), `domain`, `sub_domain`, `format`, `lang`.
    DomainEval,
    /// `question`, `A`–`D`, `answer` (1–4), `Category`, `Human Accuracy`; also any dataset
    /// with option columns (`보기1`…, `a`–`d`, …), its question and answer columns renamed.
    Kmmlu,
    /// Options as a list in one column (`choices`/`options`), as Hugging Face's MMLU and CLIcK
    /// write them; the answer an index into it, a letter, or an option's text.
    Listed,
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
    /// What reading it skipped or assumed (empty rows skipped, the base of integer answers
    /// beside option lists), each naming its file: the terminal shows them.
    pub warnings: Vec<String>,
}

impl Dataset {
    /// A dataset of `path` with no items yet.
    fn empty(path: &Path) -> Dataset {
        Dataset {
            path: path.to_path_buf(),
            format: DatasetFormat::Generic,
            items: Vec::new(),
            index: HashMap::new(),
            duplicate_ids: Vec::new(),
            subjects: Vec::new(),
            warnings: Vec::new(),
        }
    }

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

impl DatasetError {
    /// The file could not be read at all: exit 2, not bad data.
    pub(super) fn unreadable(path: &Path, message: String) -> DatasetError {
        DatasetError {
            path: path.to_path_buf(),
            line: None,
            field: None,
            message,
            unreadable: true,
        }
    }
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
    delimiter: u8,
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
        let start = csv_field_start(csv.rest, index, csv.delimiter);
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
        return Err(err(format!(
            "a folder with no .csv or .jsonl dataset in it{}",
            sniff::folder_hint(path)
        )));
    }
    let mut all = Dataset::empty(path);
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
        all.warnings.extend(one.warnings);
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

/// Does the file's first line hold a tab? A `.tsv` whose header has none is read as
/// comma-separated (trial 45: a CSV named `.tsv` was refused for a header it read as one
/// column; a tab-separated `.csv` is said as such where its header is checked).
fn first_line_has_tab(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(path) else {
        return true;
    };
    let mut line = Vec::new();
    let _ = std::io::BufReader::new(file.take(1 << 20)).read_until(b'\n', &mut line);
    line.contains(&b'\t') || !line.contains(&b',')
}

/// The dataset files of a folder, in name order.
fn dataset_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "csv" | "tsv" | "jsonl" | "json" | "ndjson"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Read one dataset file, detecting its shape from the header (CSV) or first record (JSON).
fn read_dataset_file(path: &Path, columns: &ColumnMap) -> Result<Dataset, DatasetError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    let mut rows = Rows::new(path, columns);
    match ext {
        "jsonl" | "json" | "ndjson" => json::read(&mut rows)?,
        "tsv" if !first_line_has_tab(path) => csv_file::read(&mut rows, b',')?,
        "tsv" => csv_file::read(&mut rows, b'\t')?,
        _ => csv_file::read(&mut rows, b',')?,
    }
    rows.finish()
}

/// A dataset file's whole bytes, at most [`MAX_DATASET`], refused when they are a
/// spreadsheet or Parquet file rather than text.
fn read_whole(path: &Path) -> Result<Vec<u8>, DatasetError> {
    let unreadable = |message: String| DatasetError::unreadable(path, message);
    let file = std::fs::File::open(path).map_err(|e| unreadable(format!("cannot open: {e}")))?;
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
    sniff::refuse_binary(path, &bytes)?;
    Ok(bytes)
}

/// The rows of one dataset file as they are read: its layout (from the header and first
/// row), the items built so far, and what was skipped or left to decide once every row is in.
struct Rows<'a> {
    path: &'a Path,
    columns: &'a ColumnMap,
    dataset: Dataset,
    layout: Option<Layout>,
    /// Lines of rows whose every field is empty (an Excel export's cleared rows).
    empty_rows: Vec<u64>,
    /// Integer answers beside a list of options, whose base (0 or 1) the whole file decides.
    pending: Vec<Pending>,
    /// The line of the first answer given as an option's text beside a list.
    first_text_gold: Option<u64>,
}

impl<'a> Rows<'a> {
    fn new(path: &'a Path, columns: &'a ColumnMap) -> Rows<'a> {
        Rows {
            path,
            columns,
            dataset: Dataset::empty(path),
            layout: None,
            empty_rows: Vec::new(),
            pending: Vec::new(),
            first_text_gold: None,
        }
    }

    /// Read one row (its columns and values in order) into an item; `labels` is the notation
    /// its options' own labels are in, when a JSON record labels them.
    fn push(
        &mut self,
        src: &RowSource,
        record: &[(String, String)],
        labels: Option<crate::verify::Notation>,
    ) -> Result<(), DatasetError> {
        if record.iter().all(|(_, v)| v.trim().is_empty()) {
            self.empty_rows.push(src.line);
            return Ok(());
        }
        if self.layout.is_none() {
            // A JSON file's names are its first record's keys, said as a CSV header's are.
            if src.csv.is_none() {
                let names: Vec<String> = record.iter().map(|(k, _)| k.clone()).collect();
                let holder = "the first record";
                if let Some(message) = header::header_problem(&names, self.columns, holder) {
                    return Err(src.err(None, message));
                }
            }
            let layout = detect_layout(record, self.columns).map_err(|m| src.err(None, m))?;
            self.dataset.format = layout.format;
            self.layout = Some(layout);
        }
        let Some(layout) = &self.layout else {
            return Ok(());
        };
        let row = self.dataset.items.len() + self.empty_rows.len();
        let (item, index) = item::build_item(src, layout, self.columns, record, row, labels)?;
        // An answer given as an option's text (CLIcK): then a number in the same file is a
        // text too ("2" among the options 1, 2, 3, 12), not an index.
        if index.is_none()
            && self.first_text_gold.is_none()
            && matches!(layout.options, OptionSource::List(_))
            && get(record, self.columns.answer_col()).is_some_and(listed::is_text_answer)
        {
            self.first_text_gold = Some(src.field_line(Some(self.columns.answer_col())));
        }
        if let Some(value) = index {
            self.pending.push(Pending {
                item: self.dataset.items.len(),
                value,
                count: item.choices.len(),
                line: src.field_line(Some(self.columns.answer_col())),
            });
        }
        let dataset = &mut self.dataset;
        if dataset.index.contains_key(&item.id) {
            dataset.duplicate_ids.push(item.id.clone());
        } else {
            dataset.index.insert(item.id.clone(), dataset.items.len());
        }
        dataset.items.push(item);
        Ok(())
    }

    fn finish(mut self) -> Result<Dataset, DatasetError> {
        if let Some(Layout {
            options: OptionSource::List(list),
            ..
        }) = &self.layout
        {
            let answer = self.columns.answer_col();
            let note = resolve_indexes(
                &mut self.dataset.items,
                &self.pending,
                (list, answer),
                self.first_text_gold,
            )
            .map_err(|(line, message)| DatasetError {
                path: self.path.to_path_buf(),
                line: Some(line),
                field: Some(answer.to_string()),
                message,
                unreadable: false,
            })?;
            if let Some(note) = note {
                let note = format!("{}: {note}", self.path.display());
                self.dataset.warnings.push(note);
            }
        }
        if let Some(Layout {
            options: OptionSource::Columns(_),
            ..
        }) = &self.layout
        {
            if let Some(note) = last_option_never_gold(&self.dataset.items) {
                let note = format!("{}: {note}", self.path.display());
                self.dataset.warnings.push(note);
            }
        }
        if let Some(first) = self.empty_rows.first() {
            let n = self.empty_rows.len();
            self.dataset.warnings.push(format!(
                "{}: skipped {n} row{} with every field empty (line {first}{}): cleared rows an Excel export keeps",
                self.path.display(),
                if n == 1 { "" } else { "s" },
                if n > 1 { ", …" } else { "" },
            ));
        }
        Ok(self.dataset)
    }
}

impl ColumnMap {
    fn question_col(&self) -> &str {
        self.question.as_deref().unwrap_or("question")
    }
    fn answer_col(&self) -> &str {
        self.answer.as_deref().unwrap_or("answer")
    }
    fn id_col(&self) -> &str {
        self.id.as_deref().unwrap_or("id")
    }
}

fn get<'a>(record: &'a [(String, String)], name: &str) -> Option<&'a str> {
    record
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}
#[cfg(test)]
mod tests;

/// Option columns whose answers never name the last option, over enough rows that a key
/// drawn at random would have: answers counting from 0 (0–3 for A–D) with no 0 among these
/// rows read as 1–4 shifted by one, every gold the option before the right one, and nothing
/// else shows it (trial 44: 0/15 for answers 10/15 right). A 0 is refused as it is read; a
/// file never reaching the last option is said.
fn last_option_never_gold(items: &[crate::types::Item]) -> Option<String> {
    const ENOUGH: usize = 12;
    let n = items.first()?.choices.len();
    if items.len() < ENOUGH || items.iter().any(|i| i.choices.len() != n) {
        return None;
    }
    if items.iter().any(|i| i.gold.position() == n) {
        return None;
    }
    Some(format!(
        "no row's answer is the last option ({n}) in {} rows: if the answers count from 0 (0–{}), each gold is read as the option before the right one; KMMLU's, as lm-eval reads them, count from 1",
        items.len(),
        n - 1
    ))
}
