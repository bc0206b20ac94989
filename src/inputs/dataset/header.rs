//! A CSV dataset's header problems, said at line 1 with the columns found rather than at
//! the first row as a missing field. Its layout is [`super::layout`]'s.

use super::ColumnMap;

/// What is wrong with a CSV header, said at line 1 with the columns found: a column named
/// twice (which one holds the answer?), or a required column missing (a capitalised name, a
/// TSV or `;`-separated file read as one column). `holder` says what has the names: a CSV's
/// header, a JSON file's first record.
pub(super) fn header_problem(
    names: &[String],
    columns: &ColumnMap,
    holder: &str,
) -> Option<String> {
    for (i, n) in names.iter().enumerate() {
        // Columns with no name are a spreadsheet's cleared columns, read apart.
        if n.is_empty() {
            continue;
        }
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
        if name.is_empty() || name == super::ROW_IDS {
            continue;
        }
        if names.iter().any(|n| n == name) {
            continue;
        }
        let hint = if names.len() == 1 && (names[0].contains('\t') || names[0].contains(';')) {
            " (the header reads as one column: the file is read as comma-separated, and this one looks tab- or semicolon-separated)".to_string()
        } else if let Some(close) = (names.iter().find(|n| n.eq_ignore_ascii_case(name)))
            .or_else(|| names.iter().find(|n| known_alias(default, given, n)))
        {
            format!(" (give {flag} {close})")
        } else if given.is_some() {
            format!(" (the column {flag} names)")
        } else {
            format!(" (name it with {flag})")
        };
        return Some(format!(
            "no column `{name}`: {holder} has {}{hint}",
            found()
        ));
    }
    None
}

/// Is `name` what a well-known dataset calls the column kgrade calls `default`: ARC's and
/// OpenBookQA's `answerKey`, Inspect's `target`, lm-eval's `gold`, MMLU-Pro's `answer_index`,
/// a prompt's `input`? Only said when the column was not named (`given` is none).
fn known_alias(default: &str, given: Option<&str>, name: &str) -> bool {
    let aliases: &[&str] = match (default, given) {
        ("answer", None) => &[
            "answerKey",
            "answer_key",
            "answer_index",
            "answer_idx",
            "target",
            "gold",
            "label",
            "correct_answer",
        ],
        ("question", None) => &[
            "question_stem",
            "input",
            "prompt",
            "query",
            "stem",
            "problem",
        ],
        _ => &[],
    };
    aliases.contains(&name)
}
