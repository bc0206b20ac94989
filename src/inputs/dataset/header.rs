//! A dataset's header: its layout (KMMLU's, domain_eval's, another), the option columns of
//! KMMLU's layout, and its problems, said at line 1 with the columns found rather than at
//! the first row as a missing field.

use super::{get, ColumnMap, DatasetFormat};

/// What is wrong with a CSV header, said at line 1 with the columns found: a column named
/// twice (which one holds the answer?), or a required column missing (a capitalised name, a
/// TSV or `;`-separated file read as one column).
pub(super) fn header_problem(names: &[String], columns: &ColumnMap) -> Option<String> {
    for (i, n) in names.iter().enumerate() {
        if let Some(j) = names[i + 1..].iter().position(|m| m == n) {
            return Some(format!(
                "column `{n}` appears twice (columns {} and {}): which one is meant?",
                i + 1,
                i + j + 2
            ));
        }
    }
    let found = || {
        let shown: Vec<String> = names.iter().take(12).map(|n| format!("`{n}`")).collect();
        let more = if names.len() > 12 { ", …" } else { "" };
        format!("{}{more}", shown.join(", "))
    };
    let required = [
        ("question", columns.question.as_deref(), "--question-col"),
        ("answer", columns.answer.as_deref(), "--answer-col"),
        ("", columns.id.as_deref(), "--id-col"),
    ];
    for (default, given, flag) in required {
        let name = given.unwrap_or(default);
        if name.is_empty() {
            continue;
        }
        if names.iter().any(|n| n == name) {
            continue;
        }
        let hint = if names.len() == 1 && (names[0].contains('\t') || names[0].contains(';')) {
            " (the header reads as one column: the file is read as comma-separated, and this one looks tab- or semicolon-separated)".to_string()
        } else if let Some(close) = names.iter().find(|n| n.eq_ignore_ascii_case(name)) {
            format!(" (give {flag} {close})")
        } else {
            format!(" (name it with {flag})")
        };
        return Some(format!(
            "no column `{name}`: the header has {}{hint}",
            found()
        ));
    }
    None
}

pub(super) fn detect_format(names: &[&str], columns: &ColumnMap) -> DatasetFormat {
    let has = |n: &str| names.contains(&n);
    if columns.question.is_some() || columns.answer.is_some() {
        DatasetFormat::Generic
    } else if has("question")
        && has("answer")
        && ["A", "B", "C", "D"].iter().filter(|c| has(c)).count() >= 3
    {
        // KMMLU's shape with an option column missing is still KMMLU: the missing column is
        // then named ("field `D`: missing column"), not "no options found".
        DatasetFormat::Kmmlu
    } else if has("question") && has("answer") && has("domain") {
        DatasetFormat::DomainEval
    } else {
        DatasetFormat::Generic
    }
}

/// The option columns of KMMLU's layout, in order.
pub(super) const OPTION_COLUMNS: [&str; 10] = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"];

/// How many options a row in KMMLU's layout has: A–D, then each further letter column the
/// file has in turn (E, F, …; an empty cell past D ends them, as a shorter item's).
pub(super) fn kmmlu_options(record: &[(String, String)]) -> usize {
    4 + OPTION_COLUMNS[4..]
        .iter()
        .take_while(|c| get(record, c).is_some_and(|v| !v.trim().is_empty()))
        .count()
}
