//! An answer that goes on into another question. A model given a few-shot prompt (lm-eval's
//! `문제 … 정답: B` examples, a base model with no stop sequence) often answers, then writes the
//! next question, its options and that question's answer: "②\n\n문제: 다음 중 담보물권인
//! 것은?\n① 지상권\n② 전세권\n③ 유치권\n④ 지역권\n정답: ③". Everything from that question on
//! answers a question nobody asked, so the final text ends where it begins.
//!
//! A block counts as another question when it has a stem (a heading such as `문제:`, `Q2.`,
//! `Question:`, or a line asking as an exam asks, "…것은?", "Which …?") and, after it, a line
//! that answers it (`정답:`, `Answer:`), and when it is not this question again:
//! - with an option list between them (any layout, "1 소득세" included), the list must not
//!   restate this question's options at their places, or the stem must not restate this
//!   question's words (a model may copy this question's options under a new stem);
//! - with no option list, the stem must be a heading, its answer must follow within two
//!   lines, and its words must not restate this question's: a question the writer asks in
//!   passing ("그렇다면 용익물권은 무엇인가?") is followed by reasons, not by a heading.
//!
//! A model that restates this question before answering it keeps its answer.

use crate::verify::ChoiceSet;

/// A question written out in an answer after something else.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// Another question begins at this byte: what follows answers it, not this one.
    Another(usize),
    /// This question is written out again at this byte and answered again: two attempts,
    /// which must agree.
    Again(usize),
}

/// Where, in `text`, another question begins that the text goes on to answer; `None` when
/// the text stays with its own question.
#[cfg(test)]
fn other_question_at(text: &str, set: &ChoiceSet) -> Option<usize> {
    match block(text, set) {
        Some(Block::Another(at)) => Some(at),
        _ => None,
    }
}

/// The first question written out in `text` with an answer after it (see the module's
/// doc). Called only on a text with a stem's cue (a question mark, 문제:, 질문, question:
/// `Family::Stem`).
pub(crate) fn block(text: &str, set: &ChoiceSet) -> Option<Block> {
    let lines = lines(text);
    let line = |j: usize| &text[lines[j].0..lines[j].1];
    for i in 0..lines.len() {
        let numbered = question_number(text, &lines, i);
        let heading = numbered || is_heading(line(i));
        if !heading && !asks_as_an_exam(line(i)) {
            continue;
        }
        // The answer: on a line of its own ("정답: ④", or a bare "④" after the options), or
        // after a heading's question on its line ("다음 문제: …하면? 정답: ④"); under a
        // heading, anywhere on a later line ("2. 정답: 2" among made-up options).
        let inline =
            heading && (answered_on_the_line(line(i)) || (numbered && asks_then_answers(line(i))));
        let Some(answer) = (if inline {
            Some(i)
        } else {
            (i + 1..lines.len()).find(|&j| {
                is_answer_line(line(j))
                    || (heading && mentions_answer(line(j)))
                    || (j > i + 1 && is_bare_label(line(j)))
            })
        }) else {
            // Cut off before its answer: a made-up question with nothing said after it
            // (" ③\n\n5. …", " (4)\n\nQuestion: …\n(1) …\n(2) …"). Otherwise no answer
            // after this stem, so none after any later one either.
            return cut_off_question(text, &lines, i, numbered, set).map(Block::Another);
        };
        let list = option_list(&(i..answer).map(line).collect::<Vec<_>>());
        let stem_end = list.as_ref().map_or(answer, |(at, _)| i + at);
        let stem: String = (i..stem_end.max(i + 1))
            .map(|j| {
                if j == i {
                    after_heading(line(j))
                } else {
                    line(j)
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        // Unknown words (a set built without its question) count as the same.
        let same_words = set.question().is_none_or(|q| restates_words(&stem, q));
        let another = match &list {
            Some((_, listed)) => !same_words || !restates(listed, set),
            None => heading && answer <= stem_end + 2 && !same_words && set.question().is_some(),
        };
        if !another {
            // This question again, answered again after an earlier attempt.
            let again = if heading {
                i
            } else {
                stem_start(text, &lines, i)
            };
            if answer > i && !text[..lines[again].0].trim().is_empty() {
                return Some(Block::Again(lines[again].0));
            }
            continue;
        }
        // A stem's lines above its asking line (a passage, "다음 글을 읽고 …") belong to it,
        // up to a blank line or a line that answers or is a bare label.
        let first = if heading {
            i
        } else {
            stem_start(text, &lines, i)
        };
        return Some(Block::Another(lines[first].0));
    }
    None
}

/// A made-up question at line `i` that the text ends in before answering it: a heading or
/// question number (" ③\n\n## 5. …") with words that are not this question's, asking as an
/// exam asks or followed by options that are not this question's. Nothing after it answers
/// anything (no answer word, see `block`), so cutting it loses no statement; a heading
/// followed by reasons ("질문: 정말 그럴까?\n다시 보니 ②가 맞습니다") is no such question.
fn cut_off_question(
    text: &str,
    lines: &[(usize, usize)],
    i: usize,
    numbered: bool,
    set: &ChoiceSet,
) -> Option<usize> {
    let line = |j: usize| &text[lines[j].0..lines[j].1];
    let stem = if numbered {
        line(i)
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '#' | ' ' | '.' | ')'))
    } else {
        after_heading(line(i))
    };
    let question = set.question()?;
    if stem.trim().chars().count() < 4 || mentions_answer(stem) || restates_words(stem, question) {
        return None;
    }
    let rest: Vec<&str> = (i + 1..lines.len()).map(line).collect();
    let listed = option_list(&rest).is_some_and(|(_, listed)| !restates(&listed, set));
    (numbered || asks_as_an_exam(line(i)) || listed).then_some(lines[i].0)
}

/// Is line `i` a made-up question's number after a lone answer: the text is a bare label
/// (the few-shot answer slot), a blank line, then "5. …" or "## 5. …"? A number of 2 or more
/// with no item before it: not the first of a list of reasons.
fn question_number(text: &str, lines: &[(usize, usize)], i: usize) -> bool {
    let line = |j: usize| &text[lines[j].0..lines[j].1];
    let before: Vec<&str> = (0..i).map(line).filter(|l| !l.trim().is_empty()).collect();
    if i < 2 || before.len() != 1 || !is_bare_label(before[0]) || !line(i - 1).trim().is_empty() {
        return false;
    }
    let t = line(i).trim_start_matches(['#', ' ']);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    (1..=3).contains(&digits)
        && t[..digits].parse::<u32>().is_ok_and(|n| n >= 2)
        && t[digits..].starts_with(['.', ')'])
        && t[digits + 1..].starts_with(' ')
        && !t[digits + 1..].trim().is_empty()
}

/// The first line of the stem whose asking line is `i`: the lines above it (a passage,
/// "다음 글을 읽고 …") belong to it, up to a blank line or a line that answers or is a bare
/// label.
fn stem_start(text: &str, lines: &[(usize, usize)], i: usize) -> usize {
    (0..i)
        .rev()
        .take_while(|&j| {
            let above = text[lines[j].0..lines[j].1].trim();
            above.len() > 12 && !is_answer_line(above) && !mentions_answer(above)
        })
        .last()
        .unwrap_or(i)
}

/// Does the text open with a line that is only a label and then a blank line (" ③\n\n…"),
/// the few-shot answer slot a made-up question may follow with no question mark? Reads the
/// first two lines only.
pub(crate) fn opens_with_a_lone_label(text: &str) -> bool {
    // A label line is short: look for its break in the first bytes only.
    let head = &text.as_bytes()[..text.len().min(16)];
    let Some(first) = memchr::memchr(b'\n', head) else {
        return false;
    };
    let rest = &text[first + 1..];
    let blank = rest.find('\n').is_some_and(|b| rest[..b].trim().is_empty());
    blank && is_bare_label(&text[..first])
}

/// The byte range of each line, without its line break.
fn lines(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        out.push((start, end));
        start = end + 1;
    }
    out.push((start, text.len()));
    out
}

/// Markdown decoration before a line's words: indentation, headings, bold, quotes, brackets.
fn undecorated(line: &str) -> &str {
    line.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '#' | '*' | '>' | '[' | '【' | '(' | '_')
    })
}

/// Does `t` start with a question noun (문제, 질문, Question…), qualified or not?
fn heading_word(t: &str) -> bool {
    [
        "문제",
        "질문",
        "문항",
        "Question",
        "question",
        "Problem",
        "Q",
        "다음 문제",
        "유사 문제",
    ]
    .iter()
    .any(|w| t.starts_with(w))
}

/// A question heading: "문제:", "문제 2.", "[질문 3]", "Q2:", "Question 4)", "Problem:".
fn is_heading(line: &str) -> bool {
    heading_rest(line).is_some()
}

/// The words of a line after its question heading ("문제 2. 다음 중 …" → "다음 중 …"), or
/// the line.
fn after_heading(line: &str) -> &str {
    heading_rest(line).unwrap_or(line)
}

fn heading_rest(line: &str) -> Option<&str> {
    let t = line.trim_start();
    // A bracketed remark before the heading: "(참고 예시) 문제:", "[연습] Question:".
    let t = match t.strip_prefix(['(', '[']) {
        Some(r) if r.find([')', ']']).is_some_and(|e| e < 40) => {
            let e = r.find([')', ']']).unwrap_or(0);
            let after = r[e + 1..].trim_start();
            if heading_word(after) {
                after
            } else {
                t
            }
        }
        _ => t,
    };
    let t = undecorated(t);
    // "유사 문제)", "다음 문제:", "Practice question:", "Follow-up question 2:".
    let t = [
        "다음 ",
        "유사 ",
        "비슷한 ",
        "연습 ",
        "추가 ",
        "Next ",
        "Practice ",
        "Similar ",
        "Another ",
        "Follow-up ",
        "Bonus ",
    ]
    .iter()
    .find_map(|w| t.strip_prefix(w))
    .unwrap_or(t);
    let rest = [
        "문제", "질문", "문항", "Question", "question", "QUESTION", "Problem", "problem", "Q",
    ]
    .iter()
    .find_map(|w| t.strip_prefix(w))?;
    let rest = rest
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let after = rest
        .strip_prefix([':', '：', '.', ')', ']', '】', '*', '번'])
        .or(rest.is_empty().then_some(rest))?;
    Some(after.trim_start_matches([':', ']', '*', ' ', '.']))
}

/// A line that asks as an exam question asks: "…것은?", "…몇 mm 인가?", "…pH는? (단, …)",
/// "Which of the following …?". Not a question the writer puts to themselves in passing
/// ("다시 생각해 볼까?", "왜일까요?").
fn asks_as_an_exam(line: &str) -> bool {
    // Byte search: '?' or the lead byte of '？' (EF BC 9F), rare in Korean text.
    let Some(q) = memchr::memchr2_iter(b'?', 0xEF, line.as_bytes())
        .find(|&at| line.as_bytes()[at] == b'?' || line[at..].starts_with('？'))
    else {
        return false;
    };
    // The line ends at its question ("…인가? (단, …)" keeps its conditions, "…것은? ① 질권 …"
    // its options); "이 문제는 …것은?을 묻습니다" only describes one.
    let after = line[q..].trim_start_matches(['?', '？']).trim();
    if !(after.is_empty()
        || after.starts_with(['(', '①'])
        || after.starts_with("A.")
        || after.starts_with("A)")
        || after.trim_start_matches(['*', '"', '\'']).is_empty())
    {
        return false;
    }
    let before = line[..q].trim_end();
    let english = undecorated(line)
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .is_some_and(|w| {
            [
                "Which", "What", "Who", "Whom", "Whose", "When", "Where", "How",
            ]
            .contains(&w)
        });
    english || before.ends_with(['은', '는', '가', '지'])
}

/// A line that gives an answer: "정답: ③", "답: B", "**정답** ③", "Answer: C", "The answer is
/// (B)".
fn is_answer_line(line: &str) -> bool {
    let t = undecorated(line);
    // A chat transcript's reply ("Assistant: 정답은 ①입니다"), a Q/A pair's answer ("A: B",
    // "A2. ④").
    let t = ["Assistant:", "assistant:", "AI:", "답변:"]
        .iter()
        .find_map(|w| t.strip_prefix(w))
        .map_or(t, str::trim_start);
    if let Some(rest) = t.strip_prefix('A') {
        let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        let numbered = after.len() < rest.len();
        // "A: B" but not an option "A: 사과" of a list written with colons.
        if (numbered && after.starts_with(['.', ':']))
            || after.strip_prefix(':').is_some_and(|a| a.trim().len() <= 4)
        {
            return true;
        }
    }
    [
        "정답",
        "답:",
        "답 :",
        "최종 답",
        "해답",
        "Answer",
        "ANSWER",
        "answer:",
    ]
    .iter()
    .any(|w| t.starts_with(w))
        || [
            "The answer",
            "The correct answer",
            "Correct answer",
            "Final answer",
        ]
        .iter()
        .any(|w| {
            t.len() >= w.len()
                && t.is_char_boundary(w.len())
                && t[..w.len()].eq_ignore_ascii_case(w)
        })
}

/// Does a heading's line answer its own question after it ("…사망하면? 정답: ④")?
fn answered_on_the_line(line: &str) -> bool {
    line.find(['?', '？'])
        .is_some_and(|q| is_answer_line(line[q..].trim_start_matches(['?', '？'])))
}

/// Does a numbered line ask something and then answer it ("5. … 무탄홀데가 … 정답: ④"): at
/// least eight characters before its answer word, not a step of reasons ("5. 따라서 정답은
/// ②")?
fn asks_then_answers(line: &str) -> bool {
    let at = ["정답", "답:", "Answer", "answer"]
        .iter()
        .filter_map(|w| line.find(w))
        .min();
    at.is_some_and(|at| {
        line[..at]
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '#' | ' ' | '.' | ')'))
            .chars()
            .filter(|c| !c.is_whitespace())
            .count()
            >= 8
    })
}

/// A line that is only a label: "④", "**D**", "(4)", "4.", "B".
fn is_bare_label(line: &str) -> bool {
    let t = line.trim_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '.' | '_'));
    let t = t
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(t);
    let t = t.strip_suffix('번').unwrap_or(t);
    let mut chars = t.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(c), None, _) => {
            crate::verify::choice::circled_value(c).is_some()
                || c.is_ascii_uppercase()
                || c.is_ascii_digit()
        }
        (Some(a), Some(b), None) => a.is_ascii_digit() && b.is_ascii_digit(),
        _ => false,
    }
}

/// Does a line name an answer anywhere ("따라서 정답은 ②", "so the answer is B")?
fn mentions_answer(line: &str) -> bool {
    line.contains("정답")
        || line.contains("답은")
        || line.contains("답:")
        || line.to_ascii_lowercase().contains("answer")
}

/// Do the listed options restate this question's, in its order (all of them but one, and at
/// least two, one text holding the other or both starting alike at the same place: "질권 -
/// 담보물권" restates "질권", a quote cut short with "…" restates its option)? Another
/// question from the same field may share an option or two, even at the same places.
fn restates(listed: &[String], set: &ChoiceSet) -> bool {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let same = listed
        .iter()
        .zip(set.options())
        .filter(|(l, o)| {
            let (l, o) = (squash(l), squash(o));
            !l.is_empty()
                && !o.is_empty()
                && (l.contains(o.as_str())
                    || o.contains(l.as_str())
                    || l.chars().zip(o.chars()).take_while(|(a, b)| a == b).count() >= 6)
        })
        .count();
    same >= 2 && same + 1 >= listed.len().min(set.len())
}

/// An option list among `lines` (the lines from a stem to its answer), in any layout a
/// model writes one: `① …`, `1. …`, `1) …`, `(1) …`, `1번 …`, `1 …`, `A. …`, `A …`, table
/// rows (`| ① | … |`), or `① … ② … ③ …` on one line; counting up from the first label,
/// with at least three options. Returns the line it starts on and the option texts.
fn option_list(lines: &[&str]) -> Option<(usize, Vec<String>)> {
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
/// `STOP_WORDS`) and
/// each pair of adjacent characters inside any other word, as numbers, sorted. (Pairs of
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
fn restates_words(stem: &str, question: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> ChoiceSet {
        ChoiceSet::detect("민법상 용익물권인 것은?\n① 질권\n② 지역권\n③ 유치권\n④ 저당권").unwrap()
    }

    fn kept(text: &str) -> &str {
        &text[..other_question_at(text, &set()).unwrap_or(text.len())]
    }

    #[test]
    fn cuts_at_an_invented_next_question() {
        let t =
            "②\n\n문제: 다음 중 담보물권인 것은?\n① 지상권\n② 전세권\n③ 유치권\n④ 지역권\n정답: ③";
        assert_eq!(kept(t), "②\n\n");
        let t = "Answer: 2\n\nWhich of the following is a security right?\n1. Superficies\n2. Jeonse\n3. Lien\n4. Servitude\nAnswer: 3";
        assert_eq!(kept(t), "Answer: 2\n\n");
        // A passage above the asking line belongs to the stem.
        let t = "정답: ②\n\n다음 글을 읽고 물음에 답하시오.\n갑은 을에게 돈을 빌려주었다.\n갑의 권리로 옳은 것은?\nA. 물권\nB. 채권\nC. 형성권\nD. 항변권\n정답: B";
        assert_eq!(kept(t), "정답: ②\n\n");
    }

    #[test]
    fn keeps_a_restated_question_and_reasoning() {
        // The same question restated, then answered.
        let t = "문제: 민법상 용익물권인 것은?\n1. 질권 - 담보물권\n2. 지역권 - 용익물권\n3. 유치권 - 담보물권\n4. 저당권 - 담보물권\n정답: 2";
        assert_eq!(kept(t), t);
        // A question the writer asks in passing, then numbered reasoning.
        let t = "정답: ②\n\n다시 생각해 볼까?\n1. 정의를 확인한다\n2. 보기를 비교한다\n3. 결론을 내린다\n정답: ③";
        assert_eq!(kept(t), t);
        // A made-up question cut off before its answer is cut all the same.
        let t = "②\n\n문제: 다음 중 담보물권인 것은?\n① 지상권\n② 전세권\n③ 유치권";
        assert_eq!(kept(t), "②\n\n");
        // A heading followed by reasons is no made-up question.
        let t = "③\n\n질문: 정말 그럴까?\n다시 보니 ②가 맞습니다.";
        assert_eq!(kept(t), t);
    }
}
