//! Telling a question written out in an answer from this one: an option list in the
//! layouts models write, and how much of this question's options and words it restates
//! (see `continuation.rs`).

use crate::verify::ChoiceSet;

/// Letters and digits, lower-cased: what option texts are compared on.
fn alnum(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Do a listed option and one of this question's (both `alnum`) name one option: one text
/// holding the other, or both starting alike ("질권 - 담보물권" is "질권", a quote cut short
/// with "…" is its option)?
fn same_option(listed: &str, own: &str) -> bool {
    !listed.is_empty()
        && !own.is_empty()
        && (listed.contains(own)
            || own.contains(listed)
            || listed
                .chars()
                .zip(own.chars())
                .take_while(|(a, b)| a == b)
                .count()
                >= 6)
}

/// Do the listed options restate this question's, in its order (all of them but one, and at
/// least two, at the same place; see `same_option`)? Another question from the same field
/// may share an option or two, even at the same places.
pub(super) fn restates(listed: &[String], set: &ChoiceSet) -> bool {
    let same = listed
        .iter()
        .zip(set.options())
        .filter(|(l, o)| same_option(&alnum(l), &alnum(o)))
        .count();
    same >= 2 && same + 1 >= listed.len().min(set.len())
}

/// Are most of the listed options (all but fewer than half) none of this question's, at any
/// place? A made-up question from the same field may share one; this question restated,
/// even reordered, shares them all. A set without option texts tells nothing, so then they
/// are not.
pub(super) fn mostly_new(listed: &[String], set: &ChoiceSet) -> bool {
    let own: Vec<String> = set.options().iter().map(|o| alnum(o)).collect();
    let shared = listed
        .iter()
        .filter(|l| {
            let l = alnum(l);
            own.iter().any(|o| same_option(&l, o))
        })
        .count();
    !own.is_empty() && listed.len() >= 3 && 2 * shared < listed.len()
}

/// An option list among `lines` (the lines from a stem to its answer), in any layout a
/// model writes one: `① …`, `1. …`, `1) …`, `(1) …`, `1번 …`, `1 …`, `A. …`, `A …`, table
/// rows (`| ① | … |`), or `① … ② … ③ …` on one line; counting up from the first label,
/// with at least three options. Returns the line it starts on and the option texts.
pub(super) fn option_list(lines: &[&str]) -> Option<(usize, Vec<String>)> {
    for (i, line) in lines.iter().enumerate() {
        // Inline circled options, after the stem or on a line of their own.
        let inline: Vec<(usize, char)> = line
            .char_indices()
            .filter(|&(_, c)| ('①'..='⑳').contains(&c))
            .collect();
        if inline.len() >= 3
            && inline
                .iter()
                .enumerate()
                .all(|(k, &(_, c))| c as usize == '①' as usize + k)
        {
            let texts = inline
                .iter()
                .enumerate()
                .map(|(k, &(at, c))| {
                    let end = inline.get(k + 1).map_or(line.len(), |&(e, _)| e);
                    clean(&line[at + c.len_utf8()..end])
                })
                .collect();
            return Some((i, texts));
        }
        let Some((1, kind, text)) = line_label(line) else {
            continue;
        };
        let mut texts = vec![clean(text)];
        for next in &lines[i + 1..] {
            match line_label(next) {
                Some((n, k, text)) if k == kind && n == texts.len() + 1 => texts.push(clean(text)),
                _ => {}
            }
        }
        if texts.len() >= 3 {
            return Some((i, texts));
        }
    }
    None
}

/// Does `line` open with an option's label and its text ("④ 흙", "D. 30배")?
pub(super) fn opens_with_option(line: &str) -> bool {
    line_label(line).is_some()
}

/// `lines` as an option list with one option a line and nothing else: labels of one kind
/// counting up from the first, each with a text. Returns the texts.
pub(super) fn listed_lines(lines: &[&str]) -> Option<Vec<String>> {
    let mut kind = None;
    let mut texts = Vec::with_capacity(lines.len());
    for line in lines {
        let (n, k, text) = line_label(line)?;
        if n != texts.len() + 1 || kind.is_some_and(|kind| kind != k) {
            return None;
        }
        kind = Some(k);
        texts.push(clean(text));
    }
    texts.iter().all(|t| !t.is_empty()).then_some(texts)
}

/// The label a line starts with: its 1-based value, its kind (0 digits, 1 letters, 2
/// circled) and the text after it.
fn line_label(line: &str) -> Option<(usize, u8, &str)> {
    let t = line.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '|' | '*' | '-' | '•' | '>')
    });
    let (inner, paren) = match t.strip_prefix('(') {
        Some(r) => (r, true),
        None => (t, false),
    };
    let first = inner.chars().next()?;
    let (value, kind, rest) = if let Some(n) = crate::verify::choice::circled_value(first) {
        (n as usize, 2, &inner[first.len_utf8()..])
    } else if first.is_ascii_uppercase() {
        ((first as u8 - b'A') as usize + 1, 1, &inner[1..])
    } else {
        let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
        if !(1..=2).contains(&digits) {
            return None;
        }
        (inner[..digits].parse().ok()?, 0, &inner[digits..])
    };
    let rest = if paren { rest.strip_prefix(')')? } else { rest };
    let rest = rest.strip_prefix('번').unwrap_or(rest);
    // A separator after the label; a circled label needs none.
    let text = match rest.chars().next() {
        Some('.' | ')' | ':' | ' ' | '|' | '\t') => &rest[1..],
        _ if kind == 2 || paren => rest,
        _ => return None,
    };
    (!text.trim().is_empty()).then_some((value, kind, text))
}

/// An option's text without the separators and table pipes around it.
fn clean(text: &str) -> String {
    text.split('|')
        .map(|c| c.trim_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '-' | '.' | ',')))
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// English words every question has, which say nothing about which question it is.
const STOP_WORDS: [&str; 18] = [
    "the",
    "a",
    "an",
    "of",
    "is",
    "are",
    "was",
    "which",
    "what",
    "who",
    "following",
    "to",
    "in",
    "for",
    "and",
    "or",
    "not",
    "be",
];

/// What two wordings of a question are compared on: each English word (lower-cased, less
/// `STOP_WORDS`) and each pair of adjacent characters inside any other word, as numbers, sorted. (Pairs of
/// letters would make any two English sentences look alike.)
fn units(s: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for word in s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if word.is_ascii() {
            if STOP_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word)) {
                continue;
            }
            // FNV-1a over the lower-cased word.
            let h = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x100_0000_01b3)
            });
            out.push(h | 1 << 63);
        } else {
            let chars: Vec<char> = word.chars().collect();
            if chars.len() == 1 {
                out.push(u64::from(chars[0]));
            }
            out.extend(
                chars
                    .windows(2)
                    .map(|w| u64::from(w[0]) << 32 | u64::from(w[1])),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Does a stem restate this question's words? Either 80% of the stem's units (see `units`)
/// are in the question, or 70% of the question's stem (up to its first question mark, or its
/// longest line: an O/X question's statement) is in the stem ("문제를 다시 정리하면 다음 중
/// 옳은 것은?"). A question from the same field shares some ("것은", "법원이 행하는 재판의
/// 종류는"), seldom that many; a made-up O/X statement about the same subject shares most of
/// its words but differs in its premise (71% in audit 30's probe).
pub(super) fn restates_words(stem: &str, question: &str) -> bool {
    let share = |a: &[u64], b: &[u64], tenths: usize| -> bool {
        !a.is_empty()
            && 10 * a.iter().filter(|x| b.binary_search(x).is_ok()).count() >= tenths * a.len()
    };
    let own_stem = match question.find(['?', '？']) {
        Some(q) => &question[..q],
        None => question
            .lines()
            .max_by_key(|l| l.trim().len())
            .unwrap_or(""),
    };
    let (s, q, own) = (units(stem), units(question), units(own_stem));
    share(&s, &q, 8) || share(&own, &s, 7)
}
