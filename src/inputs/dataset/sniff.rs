//! Files given as a dataset that are not text: a spreadsheet or a Parquet file saved where
//! an export was meant, told apart by their first bytes and refused with how to export them
//! (rather than as a CSV header that is not UTF-8). Not a reader of those formats.

use super::DatasetError;
use std::path::Path;

/// The export advice every refusal gives.
const EXPORT: &str = "kgrade reads CSV (UTF-8) and JSON lines: export it (Excel: File → Save As → \"CSV UTF-8 (Comma delimited)\"; pandas: `df.to_csv(\"ds.csv\", index=False)` or `df.to_json(\"ds.jsonl\", orient=\"records\", lines=True, force_ascii=False)`";

/// What a file starting with `head` is, when it is a format kgrade does not read.
fn binary_kind(head: &[u8]) -> Option<(&'static str, &'static str)> {
    if head.starts_with(b"PK\x03\x04") {
        Some((
            "a ZIP archive, as an Excel workbook (.xlsx) is",
            ", after `df = pd.read_excel(\"ds.xlsx\")`)",
        ))
    } else if head.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        Some((
            "an Excel 97–2003 workbook (.xls)",
            ", after `df = pd.read_excel(\"ds.xls\")`)",
        ))
    } else if head.starts_with(b"PAR1") {
        Some((
            "a Parquet file",
            ", after `df = pd.read_parquet(\"ds.parquet\")`; a Hugging Face dataset: `ds.to_json(\"ds.jsonl\", force_ascii=False)`)",
        ))
    } else {
        None
    }
}

/// Refuse a file whose first bytes `head` say it is a spreadsheet or Parquet file (bad input
/// data, exit 3, as an undecodable CSV is).
pub(super) fn refuse_binary(path: &Path, head: &[u8]) -> Result<(), DatasetError> {
    match binary_kind(head) {
        Some((kind, how)) => Err(DatasetError {
            path: path.to_path_buf(),
            line: None,
            field: None,
            message: format!("the file is {kind}, not text: {EXPORT}{how}"),
            unreadable: false,
        }),
        None => Ok(()),
    }
}

/// For a folder with no dataset in it: the files it has that kgrade does not read, and how
/// to export them; empty when it has none.
pub(super) fn folder_hint(dir: &Path) -> String {
    let mut found: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let ext = ext.to_ascii_lowercase();
        if matches!(ext.as_str(), "xlsx" | "xls" | "parquet" | "txt") && !found.contains(&ext) {
            found.push(ext);
        }
    }
    found.sort();
    match found.is_empty() {
        true => String::new(),
        false => {
            let found: Vec<String> = found.iter().map(|e| format!(".{e}")).collect();
            format!(
                " (it has {} files, which are not read: {EXPORT}; .tsv files are read)",
                found.join(", ")
            )
        }
    }
}
