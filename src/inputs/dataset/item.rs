//! One dataset row into an [`Item`]: its id, question, choice set (from the question's text,
//! option columns or a list of options) and gold answer, its other columns as grouping
//! fields. Not for reading files: [`super::csv_file`] and [`super::json`] give the rows.

use super::layout::{is_list_cell, option_count, Layout, OptionSource};
use super::listed::{list_gold, parse_list, ListGold};
use super::{get, ColumnMap, DatasetError, DatasetFormat, RowSource, UNCLASSIFIED};
use crate::types::Item;
use crate::verify::{Choice, ChoiceSet, Notation};

/// The item of one row, and for a gold that is an integer index into a list of options its
/// value (the item's gold is set once the file's base is known).
pub(super) fn build_item(
    src: &RowSource,
    layout: &Layout,
    columns: &ColumnMap,
    record: &[(String, String)],
    row: usize,
    labels: Option<Notation>,
) -> Result<(Item, Option<usize>), DatasetError> {
    let question_col = columns.question_col();
    let answer_col = columns.answer_col();
    let id_col = columns.id_col();
    let required =
        |name: &str| get(record, name).ok_or_else(|| src.err(Some(name), "missing column"));
    let question_raw = required(question_col)?;
    let answer = required(answer_col)?.trim();
    if answer.is_empty() {
        return Err(src.err(Some(answer_col), "empty answer"));
    }
    let id = match get(record, id_col) {
        // `--id-col @row`: the row numbers, whatever id column the file has.
        _ if id_col == super::ROW_IDS => row.to_string(),
        Some(v) if !v.trim().is_empty() => v.trim().to_string(),
        Some(_) => return Err(src.err(Some(id_col), "empty id")),
        None if columns.id.is_some() => return Err(src.err(Some(id_col), "missing column")),
        None => row.to_string(),
    };
    let mut index = None;
    let (question, choices, gold) = match &layout.options {
        OptionSource::Columns(run) => {
            // Shown as (1)–(4) unless --choices says how the model saw them (lm-eval's
            // kmmlu tasks show `A. …`–`D. …`).
            let notation = columns
                .choices
                .as_ref()
                .map_or(Notation::Number, ChoiceSet::notation);
            let n = option_count(run, record);
            let mut options = Vec::with_capacity(n);
            for col in &run[..n] {
                options.push(required(col)?.trim().replace('\n', " "));
            }
            let (question, set) = shown(src, question_raw, notation, options)?;
            let gold = column_gold(src, answer, answer_col, &set, run)?;
            (question, set, gold)
        }
        OptionSource::List(list) => {
            let options = parse_list(required(list)?, list).map_err(|m| src.err(Some(list), m))?;
            // Letters, as lm-eval, MMLU and Inspect show a list's options, unless --choices
            // says how the model saw them or the row labels them itself (ARC's `1`–`4`;
            // a prompt with the answer shows which, and is read first).
            let notation = (columns.choices.as_ref().map(ChoiceSet::notation))
                .or(labels)
                .unwrap_or(Notation::Letter);
            let (question, set) = shown(src, question_raw, notation, options)?;
            // An answer naming its row's own label (checked as the record was read) is read
            // in that label's notation, whatever the row is shown in.
            let own = labels
                .and_then(|n| ChoiceSet::new(n, u8::try_from(set.len()).ok()?).ok())
                .and_then(|own| own.parse_label(answer))
                .and_then(|c| set.at_position(c.position()))
                .map(ListGold::Choice);
            let gold = match own.map_or_else(|| list_gold(answer, set.options(), list), Ok) {
                Ok(ListGold::Choice(choice)) => choice,
                Ok(ListGold::Index(value)) => {
                    index = Some(value);
                    set.at_position(1)
                        .ok_or_else(|| src.err(Some(list), "no options"))?
                }
                Err(message) => return Err(src.err(Some(answer_col), message)),
            };
            (question, set, gold)
        }
        OptionSource::Inline => {
            let set = inline_set(src, layout, columns, question_raw, answer)?;
            let gold = set.parse_label(answer).ok_or_else(|| {
                src.err(
                    Some(answer_col),
                    format!("unknown answer label {answer:?} for choices {set}"),
                )
            })?;
            (question_raw.to_string(), set, gold)
        }
    };
    // A key pointing at an option with no text (a blank D in a sheet) grades every answer
    // against nothing: the row is wrong, not the model.
    if index.is_none()
        && choices
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
    let excluded = |k: &str, v: &str| {
        k == question_col
            || k == answer_col
            || k == id_col
            || (id_col == super::ROW_IDS && k == "id")
            || match &layout.options {
                OptionSource::Columns(run) => {
                    run.iter().any(|c| c == k)
                        || (layout.format == DatasetFormat::Kmmlu && k == "Human Accuracy")
                }
                OptionSource::List(list) => list == k,
                // A copy of the options the question shows is no group either.
                OptionSource::Inline => is_list_cell(k, v),
            }
    };
    let fields = record
        .iter()
        .filter(|(k, v)| !excluded(k, v))
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
    let item = Item {
        id,
        question,
        choices,
        gold,
        fields,
    };
    Ok((item, index))
}

/// The question with its options appended as the model is shown them (`(1) …` for numbers,
/// `A. …` otherwise), and their choice set.
fn shown(
    src: &RowSource,
    question: &str,
    notation: Notation,
    options: Vec<String>,
) -> Result<(String, ChoiceSet), DatasetError> {
    let count = u8::try_from(options.len()).unwrap_or(u8::MAX);
    let set = ChoiceSet::new(notation, count)
        .map_err(|e| src.err(None, format!("{} options: {e}", options.len())))?;
    let mut q = question.to_string();
    for (choice, text) in set.choices().zip(&options) {
        let label = set.label(choice);
        match notation {
            Notation::Number => q.push_str(&format!("\n({label}) {text}")),
            _ => q.push_str(&format!("\n{label}. {text}")),
        }
    }
    Ok((q, set.with_options(options).with_question(question)))
}

/// The gold of a row with option columns `run`: the 1-based position of the right column,
/// whatever notation the options are shown in (KMMLU's answer); with `--choices letter:N`
/// the column's letter too.
fn column_gold(
    src: &RowSource,
    answer: &str,
    answer_col: &str,
    set: &ChoiceSet,
    run: &[String],
) -> Result<Choice, DatasetError> {
    let letters = set.notation() == Notation::Letter;
    // Columns numbered from 0 (`option0`–`option3`): the answer is the right column's
    // number (trial 47: read 1-based, `option0` was dropped and every gold shifted, 0/9).
    let from_zero = super::layout::numbered_from_zero(run);
    let gold = answer
        .parse::<usize>()
        .ok()
        .and_then(|p| set.at_position(p + usize::from(from_zero)))
        .or_else(|| {
            (letters && answer.len() == 1)
                .then(|| set.parse_label(answer))
                .flatten()
        });
    gold.ok_or_else(|| {
        let last = &run[set.len() - 1];
        let reason = if letters {
            format!(
                "{answer:?} is neither an option's 1-based position (1–{}) nor its letter (A–{})",
                set.len(),
                crate::verify::label_in(Notation::Letter, set.len() - 1)
            )
        } else {
            let which = if run[0] == "A" {
                ", which KMMLU's answer is".to_string()
            } else {
                format!("; the options are the columns `{}`–`{last}`", run[0])
            };
            let (base, from) = match from_zero {
                true => ("0-based", 0),
                false => ("1-based", 1),
            };
            format!(
                "{answer:?} is not an option's {base} position ({from}–{}){which}{}",
                set.len() - 1 + from,
                if run[..set.len()].iter().any(|c| c == answer) {
                    format!("; for letter answers give --choices letter:{}", set.len())
                } else {
                    String::new()
                }
            )
        };
        src.err(Some(answer_col), reason)
    })
}

/// The choice set of a row whose options are in its question (or fixed by `--choices`).
fn inline_set(
    src: &RowSource,
    layout: &Layout,
    columns: &ColumnMap,
    question: &str,
    answer: &str,
) -> Result<ChoiceSet, DatasetError> {
    let question_col = columns.question_col();
    let set = if let Some(set) = &columns.choices {
        ChoiceSet::for_question(question, Some(set))
    } else if looks_ox(answer) {
        // An O/X key makes an O/X item only when the question shows no other options:
        // on a question with ①–④ it is a wrong key (reported like ⑤ would be).
        match ChoiceSet::detect(question) {
            Some(shown) if shown.notation() != Notation::Ox => Some(shown),
            _ => ChoiceSet::new(Notation::Ox, 2)
                .ok()
                .map(|set| set.with_question(question)),
        }
    } else {
        ChoiceSet::detect(question)
    };
    let set = set.ok_or_else(|| {
        let unused = match layout.unused.as_slice() {
            [] => String::new(),
            names if layout.gave_way => format!(
                "; the columns {} were not read as options because the first row's question shows its own (the layout is read from the first row): if they are the options, put first a row whose question shows none",
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            ),
            names => format!(
                "; the columns {} look like options but are not read as them (option columns run from the first: `A`–`D`, `a`–`d`, `보기1`…, `선택지1`…, `option1`…, `choice1`…; `choices`/`options` as a JSON list)",
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            ),
        };
        src.err(
            Some(question_col),
            format!("no options found (①…, (1)…, 1. …, 1) …, 1번 - …, A. …, | ① | … |, O/X){unused}; give --choices"),
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
    Ok(set)
}

fn looks_ox(answer: &str) -> bool {
    matches!(
        answer,
        "O" | "X" | "o" | "x" | "○" | "×" | "◯" | "✕" | "Ｏ" | "Ｘ"
    )
}
