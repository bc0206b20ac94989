//! Finding a question's option list and its texts, in the ways real prompts write it: inline
//! circled options (`① … ② …`), one option per line (`1번 - …`, `1. …`, `1) …`, `(1) …`,
//! `① …`, `A. …`, `(A) …`), Markdown table rows (`| ① | … |`), optionally after a `선택지:`
//! / `보기:` / `Options:` header, and parenthesised labels inline (`(1) … (2) …`).
//!
//! Numbers in a question's stem (years, article numbers, "다음 중 두 개를", a numbered list
//! of conditions) must not become options: a run must count up from 1 in one written style,
//! a run after an options header wins, and otherwise the last run wins, since prompts put
//! the options after the stem. Not for reading answers: that is the rules' job.

use super::choice::{circled_value, Notation};

/// An option list found in a question.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub notation: Notation,
    pub options: Vec<String>,
    /// How many options the question shows, when more than `notation` can hold.
    pub truncated_from: Option<usize>,
}

/// The option list of `q`, if it shows one.
pub(crate) fn find(q: &str) -> Option<Found> {
    if let Some(found) = find_circled(q) {
        return Some(found);
    }
    // Numbered and lettered lines: the run after a header, else the later one, since a stem
    // may number its conditions ("1. …") above lettered options or the other way round.
    let lines = [Notation::Number, Notation::Letter]
        .into_iter()
        .filter_map(|n| find_line_runs(q, n))
        .max_by_key(|&(_, after_header, start)| (after_header, start));
    if let Some((found, _, _)) = lines {
        return Some(found);
    }
    find_parenthesised(q, Notation::Number).or_else(|| find_parenthesised(q, Notation::Letter))
}

fn clean_option(text: &str) -> String {
    let t =
        text.trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '|' | '·' | '*'));
    // A table row's cells read as one text: "| ① | 서울 | 수도 |" → "서울 수도".
    if t.contains('|') {
        return t
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
    }
    t.to_string()
}

/// Keep at most `notation.max_choices()` marks, remembering how many the question shows.
fn limit(
    notation: Notation,
    mut marks: Vec<(usize, usize)>,
) -> (Vec<(usize, usize)>, Option<usize>) {
    let max = notation.max_choices() as usize;
    if marks.len() > max {
        let shown = marks.len();
        marks.truncate(max);
        (marks, Some(shown))
    } else {
        (marks, None)
    }
}

/// Circled options in order of appearance: ① first, then the first ② after it, and so on.
fn find_circled(q: &str) -> Option<Found> {
    let found = circled_marks(q);
    if found.len() < 2 {
        return None;
    }
    let options = option_texts(q, &found);
    Some(Found {
        notation: Notation::Circled,
        options,
        truncated_from: None,
    })
}

/// The byte ranges of ①, then the first ② after it, and so on. Every circled form is
/// U+2460…U+24FF or U+2776…U+2793, three bytes led by E2: only those characters are decoded.
fn circled_marks(q: &str) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut want = 1u8;
    for i in memchr::memchr_iter(0xE2, q.as_bytes()) {
        let Some(c) = q[i..].chars().next() else {
            continue;
        };
        if circled_value(c) == Some(want) && found.last().is_none_or(|&(_, e)| i >= e) {
            found.push((i, i + c.len_utf8()));
            want += 1;
        }
    }
    found
}

/// The text after each marker up to the next one; the last option stops at its line's end.
fn option_texts(q: &str, marks: &[(usize, usize)]) -> Vec<String> {
    marks
        .iter()
        .enumerate()
        .map(|(k, &(_, end))| {
            let stop = match marks.get(k + 1) {
                Some(&(next, _)) => next,
                None => q[end..].find('\n').map_or(q.len(), |p| end + p),
            };
            clean_option(&q[end..stop].replace('\n', " "))
        })
        .collect()
}

/// The label of `notation` at 0-based `k`: "1", "A".
fn label(notation: Notation, k: usize) -> String {
    match notation {
        Notation::Letter => char::from(b'A' + (k as u8).min(25)).to_string(),
        _ => (k + 1).to_string(),
    }
}

/// Parenthesised markers anywhere, in order: "(1) … (2) …", "(A) … (B) …".
fn find_parenthesised(q: &str, notation: Notation) -> Option<Found> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    for k in 0..=notation.max_choices() as usize {
        let needle = format!("({})", label(notation, k));
        match q[from..].find(&needle) {
            Some(p) => {
                let start = from + p;
                found.push((start, start + needle.len()));
                from = start + needle.len();
            }
            None => break,
        }
    }
    if found.len() < 2 {
        return None;
    }
    let (found, truncated_from) = limit(notation, found);
    Some(Found {
        notation,
        options: option_texts(q, &found),
        truncated_from,
    })
}

/// How a line writes its label: the wrapper and the separator, so that a numbered list of
/// conditions ("1. …") and the options ("1) …") form different runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Style {
    paren: bool,
    beon: bool,
    sep: char,
}

/// The label at the start of `line` in `notation`: its 1-based value, style and the byte
/// offset where the option text begins.
fn line_label(line: &str, notation: Notation) -> Option<(usize, Style, usize)> {
    // Markdown decoration before the label: indentation, table pipes, bullets, bold.
    let lead = line.len()
        - line
            .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '|' | '*' | '>' | '•'))
            .len();
    let mut rest = &line[lead..];
    if let Some(r) = rest.strip_prefix("- ") {
        rest = r.trim_start();
    }
    let paren = rest.starts_with('(');
    let inner = if paren { &rest[1..] } else { rest };
    let (value, after) = match notation {
        Notation::Letter => {
            let c = inner.chars().next()?;
            if !c.is_ascii_uppercase() {
                return None;
            }
            ((c as u8 - b'A') as usize + 1, &inner[1..])
        }
        _ => {
            let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
            if !(1..=2).contains(&digits) {
                return None;
            }
            (inner[..digits].parse().ok()?, &inner[digits..])
        }
    };
    let mut after = after;
    if paren {
        after = after.strip_prefix(')')?;
    }
    let beon = notation == Notation::Number && after.starts_with('번');
    if beon {
        after = &after['번'.len_utf8()..];
    }
    if paren {
        // "(1) 텍스트": the brackets are the separator, whatever the text starts with.
        let style = Style {
            paren,
            beon,
            sep: ' ',
        };
        return Some((value, style, line.len() - after.len()));
    }
    let spaced = after.trim_start_matches([' ', '\t', '*']);
    let sep = match spaced.chars().next() {
        // "1.5배" is a number; "1. 텍스트" and "1." are labels. A letter is never part of a
        // number: lm-eval's KMMLU chain-of-thought prompts write "A.50만원".
        Some('.') => {
            if notation != Notation::Letter && spaced[1..].starts_with(|c: char| c.is_ascii_digit())
            {
                return None;
            }
            '.'
        }
        Some(c @ (')' | ':' | '：' | '-' | '–' | '—' | '|')) => c,
        _ => return None,
    };
    // "1번 - 텍스트" needs its separator; "1 - 텍스트" is a subtraction unless in a table.
    if !beon && matches!(sep, '-' | '–' | '—') {
        return None;
    }
    let text_start = line.len() - spaced.len() + sep.len_utf8();
    Some((value, Style { paren, beon, sep }, text_start))
}

/// Is `line` an options header: "선택지:", "보기", "Options:", "Choices", "답지:"?
fn is_header(line: &str) -> bool {
    let t = line
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '#' | '[' | ']' | '<' | '>' | '【' | '】'))
        .trim_end_matches([':', '：'])
        .trim();
    matches!(
        t.to_ascii_lowercase().as_str(),
        "선택지" | "보기" | "답지" | "options" | "choices" | "answer choices" | "선택 항목"
    )
}

/// Options written one per line, counting up from 1 (or A) in one style; with whether the
/// run follows an options header and where it starts.
fn find_line_runs(q: &str, notation: Notation) -> Option<(Found, bool, usize)> {
    struct Run {
        style: Style,
        /// (line start offset, text start offset) of each label line.
        marks: Vec<(usize, usize)>,
        after_header: bool,
    }
    let mut runs: Vec<Run> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut header_seen = false;
    let mut offset = 0;
    for line in q.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if is_header(body) {
            header_seen = true;
            open.clear();
        } else if let Some((value, style, text_at)) = line_label(body, notation) {
            let at = (offset, offset + text_at);
            if value == 1 {
                runs.push(Run {
                    style,
                    marks: vec![at],
                    after_header: header_seen,
                });
                open.retain(|&r| runs[r].style != style);
                open.push(runs.len() - 1);
            } else if let Some(&r) = open
                .iter()
                .find(|&&r| runs[r].style == style && runs[r].marks.len() + 1 == value)
            {
                runs[r].marks.push(at);
            }
        }
        offset += line.len();
    }
    runs.retain(|r| r.marks.len() >= 2);
    let best = runs
        .iter()
        .rev()
        .find(|r| r.after_header)
        .or_else(|| runs.last())?;
    // Each option's text runs from its label to the next label's line.
    let (marks, truncated_from) = limit(notation, best.marks.clone());
    let options = option_texts(q, &marks);
    let found = Found {
        notation,
        options,
        truncated_from,
    };
    Some((found, best.after_header, best.marks[0].0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(q: &str) -> (Notation, Vec<String>) {
        let f = find(q).unwrap_or_else(|| panic!("no options in {q:?}"));
        (f.notation, f.options)
    }

    #[rustfmt::skip]
    const STYLES: &[(&str, Notation)] = &[
        ("다음 중 옳은 것은?\n1번 - 서울\n2번 - 부산\n3번 - 대구\n4번 - 광주", Notation::Number),
        ("다음 중 옳은 것은?\n1. 서울\n2. 부산\n3. 대구\n4. 광주", Notation::Number),
        ("다음 중 옳은 것은?\n1) 서울\n2) 부산\n3) 대구\n4) 광주", Notation::Number),
        ("다음 중 옳은 것은?\n(1) 서울\n(2) 부산\n(3) 대구\n(4) 광주", Notation::Number),
        ("다음 중 옳은 것은?\n① 서울\n② 부산\n③ 대구\n④ 광주", Notation::Circled),
        ("Which one?\nA. 서울\nB. 부산\nC. 대구\nD. 광주", Notation::Letter),
        // lm-eval's KMMLU chain-of-thought prompts put no space after the letter.
        ("Which one?\nA.서울\nB.부산\nC.대구\nD.광주", Notation::Letter),
        ("Which one?\n(A) 서울\n(B) 부산\n(C) 대구\n(D) 광주", Notation::Letter),
        ("다음 중 옳은 것은?\n| 번호 | 내용 |\n|---|---|\n| ① | 서울 |\n| ② | 부산 |\n| ③ | 대구 |\n| ④ | 광주 |", Notation::Circled),
        ("다음 중 옳은 것은?\n| 번호 | 내용 |\n|---|---|\n| 1 | 서울 |\n| 2 | 부산 |\n| 3 | 대구 |\n| 4 | 광주 |", Notation::Number),
        ("다음 중 옳은 것은?\n선택지:\n1번: 서울\n2번: 부산\n3번: 대구\n4번: 광주", Notation::Number),
        ("Pick one.\nOptions:\n- A) 서울\n- B) 부산\n- C) 대구\n- D) 광주", Notation::Letter),
        ("다음 중 옳은 것은?\n**1.** 서울\n**2.** 부산\n**3.** 대구\n**4.** 광주", Notation::Number),
    ];

    #[test]
    fn reads_every_common_option_style_with_texts() {
        for &(q, notation) in STYLES {
            assert_eq!(
                texts(q),
                (
                    notation,
                    ["서울", "부산", "대구", "광주"].map(String::from).to_vec()
                ),
                "{q}"
            );
        }
    }

    #[test]
    fn numbers_in_the_stem_are_not_options() {
        for q in [
            "2019년에 개정된 법 제3조에 따르면?\n1번 - 과태료\n2번 - 벌금\n3번 - 징역",
            "다음 조건을 읽으시오.\n1. 두 개를 고른다\n2. 합을 구한다\n보기:\n1) 과태료\n2) 벌금\n3) 징역",
            "1. 다음 중 두 개를 고르면?\n1) 과태료\n2) 벌금\n3) 징역",
            "다음 중 1.5배가 되는 것은?\n1번 - 과태료\n2번 - 벌금\n3번 - 징역",
        ] {
            assert_eq!(
                texts(q),
                (Notation::Number, ["과태료", "벌금", "징역"].map(String::from).to_vec()),
                "{q}"
            );
        }
        for q in [
            "2019년 제3조 1항에 따라 다음 중 두 개를 고르시오.",
            "1.5배와 2.5배 중 무엇이 큰가?",
            "10 - 3 = ?\n1 - 1 = ?",
        ] {
            assert_eq!(find(q), None, "{q}");
        }
    }

    #[test]
    fn long_lists_are_kept_and_truncation_is_reported() {
        let q: String = (0..12)
            .map(|k| format!("\n{}. option {k}", char::from(b'A' + k)))
            .collect();
        let f = find(&format!("Which?{q}")).unwrap();
        assert_eq!(
            (f.notation, f.options.len(), f.truncated_from),
            (Notation::Letter, 12, None)
        );
        let q: String = (1..=22).map(|k| format!("\n({k}) 보기{k}")).collect();
        let f = find(&format!("고르시오.{q}")).unwrap();
        assert_eq!((f.options.len(), f.truncated_from), (20, Some(22)));
    }

    use proptest::prelude::*;

    /// The plain reading the fast one must agree with: every character decoded.
    fn circled_marks_by_chars(q: &str) -> Vec<(usize, usize)> {
        let mut found: Vec<(usize, usize)> = Vec::new();
        let mut want = 1u8;
        for (i, c) in q.char_indices() {
            if circled_value(c) == Some(want) && found.last().is_none_or(|&(_, e)| i >= e) {
                found.push((i, i + c.len_utf8()));
                want += 1;
            }
        }
        found
    }

    /// Pieces that make and break option marks.
    const PIECES: &[&str] = &[
        "①",
        "②",
        "③",
        "④",
        "⑤",
        "⑩",
        "⑪",
        "⑳",
        "❶",
        "❷",
        "➀",
        "➁",
        "⓫",
        "⓬",
        "—",
        "…",
        "→",
        "※",
        ")",
        ")?",
        " ",
        "\n",
        "?",
        "1.",
        "A.",
        "(1)",
        "국방부",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The option marks found by byte search are the ones a reading of every character
        /// finds.
        #[test]
        fn fast_option_readings_agree_with_the_plain_ones(
            picks in proptest::collection::vec(0usize..1000, 0..30)
        ) {
            let q: String = picks.iter().map(|&i| PIECES[i % PIECES.len()]).collect();
            prop_assert_eq!(circled_marks(&q), circled_marks_by_chars(&q), "{:?}", q);
        }
    }
}
