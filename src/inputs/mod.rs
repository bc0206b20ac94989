//! Reading what users point kgrade at: datasets ([`dataset`]) and model generations
//! ([`generations`], one module per file shape). Streams and located errors (file, line,
//! field); nothing here grades or decides.

pub mod dataset;
pub mod generations;

use crate::types::RunInputs;
use dataset::ColumnMap;
use generations::GenerationsFormat;

/// The reading options of a run, as `run.json` records them.
pub fn run_inputs(
    columns: &ColumnMap,
    format: Option<GenerationsFormat>,
    id_pattern: Option<&regex::Regex>,
) -> RunInputs {
    RunInputs {
        id_pattern: id_pattern.map(|p| p.as_str().to_string()),
        id_col: columns.id.clone(),
        question_col: columns.question.clone(),
        answer_col: columns.answer.clone(),
        choices: columns.choices.as_ref().map(ToString::to_string),
        generations_format: format.map(|f| f.name().to_string()),
    }
}

/// The column map, generations shape and id pattern a run recorded in `run.json`.
pub fn reading_options(
    inputs: &RunInputs,
) -> (ColumnMap, Option<GenerationsFormat>, Option<regex::Regex>) {
    let columns = ColumnMap {
        id: inputs.id_col.clone(),
        question: inputs.question_col.clone(),
        answer: inputs.answer_col.clone(),
        choices: inputs.choices.as_deref().and_then(|c| c.parse().ok()),
    };
    let format = inputs
        .generations_format
        .as_deref()
        .and_then(|f| f.parse().ok());
    let id_pattern = inputs
        .id_pattern
        .as_deref()
        .and_then(|p| regex::Regex::new(p).ok());
    (columns, format, id_pattern)
}

/// An input's identity by content (blake3, hex): the file's bytes, or for a folder each of
/// its `files`' name (as given) and bytes, in the order given.
pub fn content_hash(
    path: &std::path::Path,
    files: Option<Vec<(String, std::path::PathBuf)>>,
) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    match files {
        Some(files) => {
            for (name, file) in files {
                hasher.update(name.as_bytes());
                hasher.update(&[0]);
                hasher.update_reader(std::fs::File::open(&file)?)?;
                hasher.update(&[0]);
            }
        }
        None => {
            hasher.update_reader(std::fs::File::open(path)?)?;
        }
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// The message for bytes that are not UTF-8 from byte `at`. Korean files exported from
/// Excel are CP949 (EUC-KR): when the bytes read as that, the message says so and how to
/// convert them.
pub fn invalid_utf8(bytes: &[u8], at: usize) -> String {
    // UTF-16 (Excel's "Unicode text", PowerShell's `>`): a byte-order mark, or every other
    // byte zero.
    let zeros = bytes.iter().filter(|&&b| b == 0).count();
    if bytes.starts_with(&[0xFF, 0xFE])
        || bytes.starts_with(&[0xFE, 0xFF])
        || zeros * 3 > bytes.len()
    {
        return format!(
            "invalid UTF-8 at byte {at}; the text is UTF-16 (as Excel's \"Unicode text\" and \
             PowerShell's `>` save it): convert the file to UTF-8, e.g. `iconv -f utf-16 -t utf-8 FILE > FILE.utf8`"
        );
    }
    let korean = encoding_rs::EUC_KR
        .decode_without_bom_handling_and_without_replacement(bytes)
        .is_some_and(|t| t.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)));
    if korean {
        format!(
            "invalid UTF-8 at byte {at}; the text reads as CP949/EUC-KR (as Excel saves Korean \
             CSV files): convert the file to UTF-8, e.g. `iconv -f cp949 -t utf-8 FILE > FILE.utf8`"
        )
    } else {
        format!("invalid UTF-8 at byte {at}")
    }
}

/// `bytes` as UTF-8, or the byte offset where it stops being valid. Checked with SIMD first
/// (several times faster than the standard library on Korean text, which every input line
/// is); the standard library only says where a bad line breaks.
pub fn utf8(bytes: &[u8]) -> Result<&str, usize> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => Err(std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |_| 0)),
    }
}

/// The longest line an input may have: far beyond any answer or lm-eval sample (a long
/// few-shot prompt is some hundred kilobytes), small enough that a file with no line breaks
/// (a binary file, `/dev/zero`, a preallocated log) is reported instead of filling memory.
pub const MAX_LINE: usize = 64 << 20;

/// The message for a line longer than [`MAX_LINE`].
pub fn line_too_long(bytes: u64) -> String {
    format!(
        "line longer than {} MiB ({bytes} bytes): not a line of JSON (a binary file, or one without line breaks?)",
        MAX_LINE >> 20
    )
}

/// Read one line (to and with its `\n`) onto `buf`, as `read_until` does, but keep at most
/// `max` bytes of it: a longer line is read to its end and dropped. Returns the bytes read
/// and whether the line was dropped for its length.
pub fn read_line_capped(
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let start = buf.len();
    let mut read = 0usize;
    let mut dropped = false;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        let (take, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if !dropped {
            if buf.len() - start + take > max {
                dropped = true;
                buf.truncate(start);
            } else {
                buf.extend_from_slice(&available[..take]);
            }
        }
        input.consume(take);
        read += take;
        if done {
            break;
        }
    }
    Ok((read, dropped))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_past_the_cap_is_read_to_its_end_and_dropped() {
        let text = b"short\nxxxxxxxxxxxxxxxxxxxx\nnext";
        let mut input = std::io::BufReader::with_capacity(4, &text[..]);
        let mut buf = Vec::new();
        assert_eq!(
            super::read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (6, false)
        );
        assert_eq!(buf, b"short\n");
        buf.clear();
        assert_eq!(
            super::read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (21, true)
        );
        assert!(buf.is_empty());
        assert_eq!(
            super::read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (4, false)
        );
        assert_eq!(buf, b"next");
        buf.clear();
        assert_eq!(
            super::read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (0, false)
        );
    }
}
