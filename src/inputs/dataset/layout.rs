//! Where a dataset's options are, found from its columns and first row: option columns
//! (`A`–`D` as KMMLU has them, `a`–`d`, `보기1`…, `선택지1`…, `option1`/`option_1`/`opt1`…,
//! `choice1`/`choice_1`…, or `1`…`N` when no other set is there), one column holding a list
//! (`choices`/`options`, as Hugging Face's MMLU and CLIcK write it), or the question's text.
//! Not for reading a row: [`super::item`] does.

use super::{get, ColumnMap, DatasetFormat};

/// How a dataset file's rows are laid out.
pub(super) struct Layout {
    pub format: DatasetFormat,
    pub options: OptionSource,
    /// Option-like columns not read as options (`보기2`–`보기4` with no `보기1`, a `choices`
    /// that holds no list), named when a row shows no options.
    pub unused: Vec<String>,
    /// Option columns gave way to the options the first row's question shows.
    pub gave_way: bool,
}

/// Where a row's options are.
pub(super) enum OptionSource {
    /// In the question's text (the verifier finds them), or as `--choices` fixes them.
    Inline,
    /// One column per option, in order (how many a row has: [`option_count`]).
    Columns(Vec<String>),
    /// One column holding the options as a JSON list.
    List(String),
}

/// The names a column holding a list of options goes by.
const LIST_COLUMNS: [&str; 2] = ["choices", "options"];

/// The option family a column name belongs to and its number in it: `C` is (`A`, 2), `보기3`
/// and `보기_3` are (`보기`, 3), `option 2` is (`option`, 2), `4` is (`#`, 4). Letters count
/// from 0; a numbered family counts from 0 when it has a column 0 (`option0`–`option3`, as
/// pandas' `add_prefix` names a list's columns), else from 1 ([`first_number`]).
fn option_family(name: &str) -> Option<(&'static str, usize)> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_ascii_uppercase() {
            return Some(("A", (c as u8 - b'A') as usize));
        }
        if c.is_ascii_lowercase() {
            return Some(("a", (c as u8 - b'a') as usize));
        }
    }
    let lower = name.to_lowercase();
    let at = lower.find(|c: char| c.is_ascii_digit())?;
    let (prefix, number) = lower.split_at(at);
    if number.len() > 2 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: usize = number.parse().ok()?;
    let family = match prefix.trim_end_matches([' ', '_', '-', '.']) {
        "" => "#",
        "보기" => "보기",
        "선택지" => "선택지",
        "선지" => "선지",
        "option" | "options" | "opt" => "option",
        "choice" | "choices" => "choice",
        _ => return None,
    };
    Some((family, n))
}

/// The number a numbered option column's family starts from: 0 for `option0`–`option3`,
/// else 1; letters' places are already 0-based.
fn first_number(family: &str, numbers: impl Iterator<Item = usize>) -> usize {
    match family {
        "A" | "a" => 0,
        _ => numbers.min().map_or(1, |n| n.min(1)),
    }
}

/// Whether option columns `run` are numbered from 0 (`option0`, …): an integer answer then
/// names its column's number, a 0-based index.
pub(super) fn numbered_from_zero(run: &[String]) -> bool {
    run.first()
        .and_then(|c| option_family(c))
        .is_some_and(|(family, n)| family != "A" && family != "a" && n == 0)
}

/// The layout of a file whose first row is `record` (its columns in order, with values).
pub(super) fn detect_layout(
    record: &[(String, String)],
    columns: &ColumnMap,
) -> Result<Layout, String> {
    let taken = [
        columns.question_col(),
        columns.answer_col(),
        columns.id_col(),
    ];
    // The options a first row's question shows itself (①–④, `A. …`), a list of option texts:
    // KMMLU's "옳은 것(○)과 옳지 않은 것(×)을 바르게 연결한 것은?" reads as an O/X question
    // but lists no options, and its A–D columns are its options.
    let shown: Option<Vec<String>> = get(record, columns.question_col()).and_then(|q| {
        crate::verify::ChoiceSet::detect(q)
            .filter(|set| {
                set.notation() != crate::verify::Notation::Ox
                    && set
                        .options()
                        .iter()
                        .filter(|t| !t.trim().is_empty())
                        .count()
                        >= 2
            })
            .map(|set| set.options().to_vec())
    });
    let shows_options = shown.is_some();
    let mut members: Vec<(&str, usize, &str)> = Vec::new();
    for (name, _) in record {
        if taken.contains(&name.as_str()) {
            continue;
        }
        if let Some((family, number)) = option_family(name) {
            members.push((family, number, name));
        }
    }
    // Numbers to 0-based places, each family from its first number.
    let firsts: Vec<(&str, usize)> = members
        .iter()
        .map(|m| {
            let numbers = members.iter().filter(|o| o.0 == m.0).map(|o| o.1);
            (m.0, first_number(m.0, numbers))
        })
        .collect();
    for (m, (_, first)) in members.iter_mut().zip(firsts) {
        m.1 -= first.min(m.1);
    }
    let mut runs: Vec<(&str, Vec<String>)> = Vec::new();
    let mut families: Vec<&str> = members.iter().map(|m| m.0).collect();
    families.dedup();
    families.sort_unstable();
    families.dedup();
    for family in families {
        let named = |place: usize| {
            members
                .iter()
                .find(|m| m.0 == family && m.1 == place)
                .map(|m| m.2.to_string())
        };
        let mut run: Vec<String> = Vec::new();
        if family == "A" || family == "a" {
            // KMMLU's shape with a column missing is still its shape: the missing column is
            // then named ("field `D`: missing column"), not "no options found".
            if (0..4).filter(|&p| named(p).is_some()).count() >= 3 {
                let base = family.as_bytes()[0];
                run = (0..4)
                    .map(|p| named(p).unwrap_or_else(|| char::from(base + p as u8).to_string()))
                    .collect();
            }
        }
        while let Some(name) = named(run.len()) {
            run.push(name);
        }
        // `보기1`, `보기2`, `보기4`: one option missing, not a shorter item (trial 45: two-option
        // items, `보기4` a grouping field). A column further on (`보기10` after `보기1`–`보기4`,
        // a flag `X` after `A`–`D`) is another column, and numbered columns with a gap are
        // no options at all (trial 46).
        let past: Vec<&str> = (members.iter())
            .filter(|m| m.0 == family && m.1 > run.len())
            .map(|m| m.2)
            .collect();
        let one_missing = (members.iter()).any(|m| m.0 == family && m.1 == run.len() + 1);
        let named_family = !matches!(family, "#" | "A" | "a");
        if let (Some(first), true) = (past.first(), named_family && one_missing && run.len() >= 2) {
            return Err(format!(
                "option columns `{}`–`{}` then `{first}`: the option between is missing (add its column, or rename the columns in order)",
                run[0],
                run[run.len() - 1]
            ));
        }
        if run.len() >= 2 && (past.is_empty() || family != "#") {
            runs.push((family, run));
        }
    }
    // Beside a question that shows its options, columns that merely look like options are
    // not them (trial 45: selection rates in `1`–`4`, rater flags `A`/`B`, option columns
    // repeating the shown texts replaced the options the model was shown): numbered columns,
    // runs shorter than three and runs holding the shown texts give way to the question. A
    // full set of other texts (A–D beside a stem that lists `1. 2. 3.`) is still the options
    // (trial 46), but not a set with a column missing (rater flags `A`–`C`) nor one of
    // figures no option list holds, as many as the options shown: decimals or repeated
    // numbers (selection rates, 0/1 flags; trial 47: read as the options, 3/6 for 6/6).
    // Counts `1`–`4` (옳은 것의 개수) stay options.
    let before = runs.len();
    if let Some(shown) = &shown {
        runs.retain(|(family, run)| {
            let texts: Option<Vec<&str>> =
                run.iter().map(|c| get(record, c).map(str::trim)).collect();
            let Some(texts) = texts else {
                return false;
            };
            let repeats =
                texts.len() == shown.len() && texts.iter().zip(shown).all(|(t, s)| *t == s.trim());
            *family != "#"
                && run.len() >= 3
                && !repeats
                && !(texts.len() == shown.len() && figures(&texts))
        });
    }
    let gave_way = runs.len() < before;
    // Columns named 1, 2, … are options only when no other set is there.
    if runs.len() > 1 {
        runs.retain(|(family, _)| *family != "#");
    }
    if runs.len() > 1 {
        let sets: Vec<String> = runs
            .iter()
            .map(|(_, run)| format!("`{}`–`{}`", run[0], run[run.len() - 1]))
            .collect();
        return Err(format!(
            "two sets of option columns ({}): rename or drop the one that does not hold the options",
            sets.join(" and ")
        ));
    }
    // A list beside a question that shows its options is only a copy of them (HAE-RAE's
    // `options` string; a JSON list of the same texts); without them a list that is not
    // JSON is refused at its field as the options that cannot be read.
    let list = LIST_COLUMNS.iter().find(|name| {
        !shows_options && !taken.contains(name) && get(record, name).is_some_and(is_list)
    });
    let options = match (runs.pop(), list) {
        (Some((_, run)), _) => OptionSource::Columns(run),
        (None, Some(name)) => OptionSource::List(name.to_string()),
        (None, None) => OptionSource::Inline,
    };
    let used = |name: &str| match &options {
        OptionSource::Columns(run) => run.iter().any(|c| c == name),
        OptionSource::List(list) => list == name,
        OptionSource::Inline => false,
    };
    let unused = record
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !taken.contains(name) && !used(name))
        .filter(|name| LIST_COLUMNS.contains(name) || members.iter().any(|m| m.2 == *name))
        .map(str::to_string)
        .collect();
    let has = |name: &str| get(record, name).is_some();
    let format = match options {
        OptionSource::Columns(_) => DatasetFormat::Kmmlu,
        OptionSource::List(_) => DatasetFormat::Listed,
        OptionSource::Inline if columns.question.is_some() || columns.answer.is_some() => {
            DatasetFormat::Generic
        }
        OptionSource::Inline if has("question") && has("answer") && has("domain") => {
            DatasetFormat::DomainEval
        }
        OptionSource::Inline => DatasetFormat::Generic,
    };
    Ok(Layout {
        format,
        options,
        unused,
        gave_way,
    })
}

/// Are these cells figures rather than option texts: every one a number, and some a decimal
/// or two the same (selection rates, 0/1 flags), which distinct whole numbers (counts) are
/// not?
fn figures(cells: &[&str]) -> bool {
    let numbers: Option<Vec<f64>> = cells.iter().map(|c| c.parse::<f64>().ok()).collect();
    let Some(numbers) = numbers else {
        return false;
    };
    let decimal = numbers.iter().any(|n| n.fract() != 0.0);
    let repeated = (1..numbers.len()).any(|i| numbers[..i].contains(&numbers[i]));
    decimal || repeated
}

/// Does a cell of a `choices`/`options` column hold a list (JSON, or a Python repr)?
pub(super) fn is_list_cell(name: &str, value: &str) -> bool {
    LIST_COLUMNS.contains(&name) && is_list(value)
}

fn is_list(value: &str) -> bool {
    value.trim_start().starts_with('[')
}

/// How many options a row with option columns `run` has: the first four (a missing one is
/// named as missing), then each further column in turn while it is filled (an empty cell
/// past them ends the row's options, as a shorter item's).
pub(super) fn option_count(run: &[String], record: &[(String, String)]) -> usize {
    let required = run.len().min(4);
    required
        + run[required..]
            .iter()
            .take_while(|c| get(record, c).is_some_and(|v| !v.trim().is_empty()))
            .count()
}
