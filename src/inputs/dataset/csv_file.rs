//! Reading a CSV (or TSV) dataset file into rows: its header checked at line 1, each record's
//! fields as text, columns an Excel export left without a name ignored while empty. Not for
//! what a row means: [`super::item`] builds the item.

use super::header::header_problem;
use super::position::{record_text, LineCounter};
use super::{read_whole, CsvRow, DatasetError, RowSource, Rows};

/// Read the CSV file of `rows` (fields split at `delimiter`) row by row into `rows`.
pub(super) fn read(rows: &mut Rows, delimiter: u8) -> Result<(), DatasetError> {
    let path = rows.path;
    let at_line = |line: Option<u64>, message: String| DatasetError {
        path: path.to_path_buf(),
        line,
        field: None,
        message,
        unreadable: false,
    };
    // Datasets are held in memory as items anyway; reading the bytes whole lets errors name
    // the physical line a text editor shows (the csv crate's own line count is off on CRLF).
    let bytes = read_whole(path)?;
    let mut lines = LineCounter::new(&bytes);
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .delimiter(delimiter)
        .from_reader(bytes.as_slice());
    let headers = reader
        .byte_headers()
        .map_err(|e| at_line(None, format!("cannot read the header: {e}")))?
        .clone();
    let mut names = Vec::with_capacity(headers.len());
    for (i, h) in headers.iter().enumerate() {
        let h = std::str::from_utf8(h).map_err(|_| {
            at_line(
                Some(1),
                format!(
                    "column {} has an invalid UTF-8 name ({})",
                    i + 1,
                    crate::inputs::invalid_utf8(&bytes[..bytes.len().min(4096)], 0)
                ),
            )
        })?;
        names.push(h.trim_start_matches('\u{feff}').trim().to_string());
    }
    if let Some(message) = header_problem(&names, rows.columns, "the header") {
        return Err(at_line(Some(1), message));
    }
    // Columns with no name past the first (the first is pandas' index): a spreadsheet's
    // cleared columns, which Excel still exports. Ignored while empty; a value in one is
    // data with no column name, an error that names the column.
    let unnamed: Vec<usize> = (1..names.len()).filter(|&i| names[i].is_empty()).collect();
    let mut record = csv::ByteRecord::new();
    let mut row = 0u64;
    loop {
        let more = reader.read_byte_record(&mut record).map_err(|e| {
            let line = e.position().map(|p| lines.line_at(p.byte()));
            let message = match e.kind() {
                csv::ErrorKind::UnequalLengths {
                    expected_len, len, ..
                } => format!("{len} fields where the header has {expected_len}"),
                _ => e.to_string(),
            };
            at_line(line, message)
        })?;
        if !more {
            break;
        }
        let src = RowSource {
            path,
            line: record
                .position()
                .map_or(row + 2, |p| lines.line_at(p.byte())),
            csv: record.position().map(|p| CsvRow {
                rest: record_text(&bytes, p.byte()),
                names: &names,
                delimiter,
            }),
        };
        let mut fields = Vec::with_capacity(names.len());
        for (i, (name, value)) in names.iter().zip(record.iter()).enumerate() {
            let value = std::str::from_utf8(value).map_err(|e| {
                src.err(
                    Some(name),
                    crate::inputs::invalid_utf8(value, e.valid_up_to()),
                )
            })?;
            if unnamed.contains(&i) {
                if !value.trim().is_empty() {
                    return Err(src.err(
                        None,
                        format!(
                            "column {} has no name in the header but a value here ({:?}): name it in the header, or delete the column",
                            i + 1,
                            value.trim()
                        ),
                    ));
                }
                continue;
            }
            fields.push((name.clone(), value.to_string()));
        }
        rows.push(&src, &fields, None)?;
        row += 1;
    }
    Ok(())
}
