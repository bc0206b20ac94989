//! Options given as a list in one column (`choices`/`options`: Hugging Face's MMLU, CLIcK,
//! Inspect's samples) and the gold answer beside them: an index into the list, a letter, or
//! one option's text. An index's base (0 as Python, Hugging Face and lm-eval's
//! `doc_to_target` read it, or 1) is decided by the whole file, never guessed silently.
//! Not for option columns (`A`–`D`): [`super::item`] reads those.

use crate::types::Item;
use crate::verify::Choice;

/// The options of a list cell: a JSON list of texts (or numbers), as JSON lines hold it.
pub(super) fn parse_list(cell: &str, column: &str) -> Result<Vec<String>, String> {
    let values: Vec<serde_json::Value> = serde_json::from_str(cell.trim()).map_err(|_| {
        let shown: String = cell.chars().take(60).collect();
        format!(
            "`{shown}` is not a JSON list of options (a Python or NumPy list, as pandas' and Hugging Face's to_csv write a list column, is not read): write the dataset as JSON lines, e.g. `ds.to_json(\"ds.jsonl\", force_ascii=False)`, or give the options as columns (`{column}` → `A`, `B`, …)"
        )
    })?;
    values
        .into_iter()
        .map(|v| match v {
            serde_json::Value::String(s) => Ok(s.trim().replace('\n', " ")),
            serde_json::Value::Number(n) => Ok(n.to_string()),
            other => Err(format!("an option that is not text: {other}")),
        })
        .collect()
}

/// A gold answer beside a list of options.
pub(super) enum ListGold {
    /// The option it names.
    Choice(Choice),
    /// An integer index whose base the file decides ([`resolve_indexes`]).
    Index(usize),
}

/// Read `answer` against `options`: an integer is an index (base decided later), a letter
/// A–Z the option at its place, else the text of exactly one option.
pub(super) fn list_gold(answer: &str, options: &[String], list: &str) -> Result<ListGold, String> {
    let answer = answer.trim();
    if !answer.is_empty() && answer.bytes().all(|b| b.is_ascii_digit()) {
        return answer
            .parse()
            .map(ListGold::Index)
            .map_err(|_| format!("{answer:?} is not an index into `{list}`"));
    }
    let letter = answer
        .strip_prefix('(')
        .and_then(|a| a.strip_suffix(')'))
        .unwrap_or(answer);
    if let [b @ b'A'..=b'Z'] = letter.as_bytes() {
        let index = (b - b'A') as usize;
        if let Some(choice) = Choice::from_index(index).filter(|_| index < options.len()) {
            return Ok(ListGold::Choice(choice));
        }
    }
    let same: Vec<usize> = (0..options.len())
        .filter(|&i| options[i] == answer)
        .collect();
    match same.as_slice() {
        [i] => Choice::from_index(*i)
            .map(ListGold::Choice)
            .ok_or_else(|| format!("{answer:?} is option {} of `{list}`, too far", i + 1)),
        [] => Err(format!(
            "{answer:?} is neither an index into `{list}` (0–{}), a letter (A–{}), nor the text of one of its {} options",
            options.len() - 1,
            char::from(b'A' + (options.len() - 1).min(25) as u8),
            options.len()
        )),
        _ => Err(format!(
            "{answer:?} is the text of {} options of `{list}`: which one is meant?",
            same.len()
        )),
    }
}

/// Is a gold beside a list written as an option's text, not an index or a letter?
pub(super) fn is_text_answer(answer: &str) -> bool {
    let a = answer.trim();
    let letter = a
        .strip_prefix('(')
        .and_then(|a| a.strip_suffix(')'))
        .unwrap_or(a);
    !a.bytes().all(|b| b.is_ascii_digit()) && !matches!(letter.as_bytes(), [b'A'..=b'Z'])
}

/// A file that gives some answers as option texts (line `text_line`) and others as integers
/// is refused: an integer there may be an index or an option's text ("2" among the options
/// 1, 2, 3, 12), and either reading grades some file wrong without a word (trial 45 read
/// them as indexes, 50% for 100%; reading them as texts made trial 46's 0-based indexes one
/// off, 10% for 100%). An integer that can be no index, past its row's options whichever
/// base, and is the text of exactly one of them ("1945" among 1919, 1945, 1950, 1988) is
/// that text (trial 47: such files were refused).
fn as_texts(
    items: &mut [Item],
    pending: &[Pending],
    list: &str,
    text_line: u64,
) -> Result<(), (u64, String)> {
    for p in pending {
        let written = p.value.to_string();
        let text = items
            .get(p.item)
            .filter(|_| p.value > p.count)
            .and_then(|item| {
                let mut named = item.choices.choices().filter(|&c| {
                    item.choices
                        .option_text(c)
                        .is_some_and(|t| t.trim() == written)
                });
                named.next().filter(|_| named.next().is_none())
            });
        match (text, items.get_mut(p.item)) {
            (Some(choice), Some(item)) => item.gold = choice,
            _ => {
                return Err((
                    p.line,
                    format!(
                        "{} is a whole number, while line {text_line} gives its answer as the text of an option of `{list}`: an integer may be an index or an option's text, so give every answer one way (the option's text, or its letter)",
                        p.value
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// An item whose gold is an integer index into its list, waiting for the file's base.
pub(super) struct Pending {
    /// The item's place in the file's items.
    pub item: usize,
    pub value: usize,
    /// How many options the item's list has.
    pub count: usize,
    /// The line the answer is on.
    pub line: u64,
}

/// Set the gold of every pending item once the whole file is read. The base is 1 when some
/// answer equals its row's number of options and none is 0; 0 otherwise (an index into the
/// list, as Python, Hugging Face and lm-eval read it). Both 0 and the count present is an
/// error naming a line of each. Returns what to tell the user about the base chosen, when
/// no answer showed it. An error is the line and the message.
pub(super) fn resolve_indexes(
    items: &mut [Item],
    pending: &[Pending],
    (list, answer): (&str, &str),
    text_line: Option<u64>,
) -> Result<Option<String>, (u64, String)> {
    if let Some(line) = text_line {
        return as_texts(items, pending, list, line).map(|()| None);
    }
    let len = |p: &Pending| p.count;
    let zero = pending.iter().find(|p| p.value == 0);
    let count = pending.iter().find(|p| p.value == len(p));
    let base = match (zero, count) {
        (Some(z), Some(c)) => {
            return Err((
                z.line,
                format!(
                    "the integer answers beside `{list}` count both from 0 (this line: 0) and from 1 (line {}: {} with {} options): which is meant?",
                    c.line,
                    c.value,
                    len(c)
                ),
            ))
        }
        (None, Some(_)) => 1,
        _ => 0,
    };
    for p in pending {
        let n = len(p);
        let index = p.value.checked_sub(base).filter(|&i| i < n);
        let choice = index.and_then(Choice::from_index).ok_or_else(|| {
            (
                p.line,
                format!(
                    "{} is past the {n} options of `{list}` (the file's answers read as {base}-based)",
                    p.value
                ),
            )
        })?;
        let Some(item) = items.get_mut(p.item) else {
            continue;
        };
        if item
            .choices
            .option_text(choice)
            .is_some_and(|t| t.trim().is_empty())
        {
            return Err((
                p.line,
                format!(
                    "{} names option {}, whose text is empty",
                    p.value,
                    item.choices.label(choice)
                ),
            ));
        }
        item.gold = choice;
    }
    Ok(match (zero, count) {
        (None, Some(c)) => Some(format!(
            "the integer `{answer}`s beside `{list}` are read as 1-based: line {} has {} with {} options, and no answer is 0",
            c.line,
            c.value,
            len(c)
        )),
        (None, None) if !pending.is_empty() => Some(format!(
            "the integer `{answer}`s beside `{list}` are read as 0-based, an index into the list (as Hugging Face datasets and lm-eval's `doc_to_target` read them): no answer is 0 or its row's number of options, which would settle it"
        )),
        _ => None,
    })
}
