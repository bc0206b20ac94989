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

use super::written_out::{mostly_new, opens_with_option, option_list, restates, restates_words};
use crate::verify::ChoiceSet;

/// A question written out in an answer after something else.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// Another question over these bytes, from its stem to its answer (or to the end of a
    /// text cut off before one): what it says answers that question, not this one.
    /// `cut_off` when it has no answer.
    Another {
        start: usize,
        end: usize,
        cut_off: bool,
    },
    /// This question, or one that may be it, is written out again at this byte and answered
    /// again: two attempts, which must agree.
    Again(usize),
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
            return cut_off_question(text, &lines, i, numbered, set).map(|start| Block::Another {
                start,
                end: text.len(),
                cut_off: true,
            });
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
        // A numbered list that the asking line opens ("1. 문제의 요구사항 파악: …것은?\n2. …")
        // is steps of reasons, not a question.
        if list.as_ref().is_some_and(|(at, _)| *at == 0) && opens_with_option(line(i)) {
            continue;
        }
        // Unknown words (a set built without its question) count as the same.
        let same_words = set.question().is_none_or(|q| restates_words(&stem, q));
        // A stem's lines above its asking line (a passage, "다음 글을 읽고 …") belong to it,
        // up to a blank line or a line that answers or is a bare label.
        let first = if heading {
            i
        } else {
            stem_start(text, &lines, i)
        };
        let answered_before = !text[..lines[first].0].trim().is_empty();
        // "문제: <this question>\n\n풀이:\n1. …\n2. …\n\n답: ①": this question restated
        // and solved; the numbered lines under the heading are its steps, not options.
        let solved = same_words && (i + 1..answer).any(|j| is_solution_heading(line(j)));
        let another = if solved {
            false
        } else if answered_before && !numbered_heading(line(i)) && !announced(text, &lines, first) {
            // Blanking it out could drop this question answered again, so only a question
            // plainly not this one: other words and options mostly new, in any order ("Q:
            // 그런가?\nA: 아니다." after an answer may be this question again).
            !same_words
                && list
                    .as_ref()
                    .is_some_and(|(_, listed)| mostly_new(listed, set))
        } else {
            // Nothing before it to drop, or a question numbered or announced as another:
            // anything but this question restated.
            match &list {
                Some((_, listed)) => !same_words || !restates(listed, set),
                None => {
                    heading && answer <= stem_end + 2 && !same_words && set.question().is_some()
                }
            }
        };
        if !another {
            // This question again (or one that may be it), answered again after an earlier
            // attempt.
            if answered_before {
                return Some(Block::Again(lines[first].0));
            }
            continue;
        }
        return Some(Block::Another {
            start: lines[first].0,
            end: lines[answer].1,
            cut_off: false,
        });
    }
    None
}

/// Is `line` a heading over a worked solution ("풀이:", "**해설**", "Solution:")?
fn is_solution_heading(line: &str) -> bool {
    let t = line
        .trim()
        .trim_matches(|c: char| matches!(c, '#' | '*' | '[' | ']' | ':' | ' ' | '<' | '>'));
    [
        "풀이",
        "해설",
        "풀이 과정",
        "해결 과정",
        "Solution",
        "Explanation",
        "Reasoning",
    ]
    .iter()
    .any(|h| t.eq_ignore_ascii_case(h))
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
    let listed = option_list(&rest).is_some_and(|(_, listed)| mostly_new(&listed, set));
    (numbered || asks_as_an_exam(line(i)) || listed).then_some(lines[i].0)
}

/// Is line `i` a made-up question's number after a lone answer: the text is a bare label
/// (the few-shot answer slot), a blank line, then "5. …" or "## 5. …"? A number of 2 or more
/// with no item before it: not the first of a list of reasons.
fn question_number(text: &str, lines: &[(usize, usize)], i: usize) -> bool {
    let line = |j: usize| &text[lines[j].0..lines[j].1];
    if i < 2 || !line(i - 1).trim().is_empty() {
        return false;
    }
    // One line before it, a bare label: stop at the second.
    let mut before = (0..i).map(line).filter(|l| !l.trim().is_empty());
    if !matches!((before.next(), before.next()), (Some(first), None) if is_bare_label(first)) {
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
    let first = (0..i)
        .rev()
        .take_while(|&j| {
            let above = text[lines[j].0..lines[j].1].trim();
            above.len() > 12 && !is_answer_line(above) && !mentions_answer(above)
        })
        .last()
        .unwrap_or(i);
    // The question's number on the line above ("### 4번", "4.", "[4]") heads it too.
    let numbered = first > 0 && {
        let above = text[lines[first - 1].0..lines[first - 1].1]
            .trim_matches(|c: char| c.is_whitespace() || matches!(c, '#' | '*' | '[' | ']'));
        let digits = above.bytes().take_while(u8::is_ascii_digit).count();
        (1..=3).contains(&digits)
            && matches!(&above[digits..], "" | "." | ")" | "번" | "번." | "번)")
    };
    if numbered {
        first - 1
    } else {
        first
    }
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
pub(super) fn lines(text: &str) -> Vec<(usize, usize)> {
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

/// Words that qualify a question heading: "유사 문제)", "다음 문제:", "Practice question:".
const QUALIFIERS: [&str; 11] = [
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
];

/// The nouns a question heading starts with ("Practice:" and "예제:" head a question too).
const QUESTION_NOUNS: [&str; 13] = [
    "문제",
    "질문",
    "문항",
    "Question",
    "question",
    "QUESTION",
    "Problem",
    "problem",
    "Q",
    "Practice",
    "Exercise",
    "예제",
    "연습문제",
];

/// What follows a question noun at the start of `t`, qualified or not ("다음 문제: …" →
/// ": …").
fn after_question_noun(t: &str) -> Option<&str> {
    let t = QUALIFIERS
        .iter()
        .find_map(|w| t.strip_prefix(w))
        .unwrap_or(t);
    QUESTION_NOUNS.iter().find_map(|w| t.strip_prefix(w))
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
            if after_question_noun(after).is_some() {
                after
            } else {
                t
            }
        }
        _ => t,
    };
    let rest = after_question_noun(undecorated(t))?;
    let rest = rest
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let after = rest
        .strip_prefix([':', '：', '.', ')', ']', '】', '*', '번'])
        .or(rest.is_empty().then_some(rest))?;
    Some(after.trim_start_matches([':', ']', '*', ' ', '.']))
}

/// Does a heading number its question ("문제 3.", "Q2:", "Question 4)")? A writer who
/// answers this question again does not give it another number.
fn numbered_heading(line: &str) -> bool {
    // The words after the heading are a suffix of the line; a digit before them numbers it.
    heading_rest(line).is_some_and(|rest| {
        line[..line.len() - rest.len()]
            .bytes()
            .any(|b| b.is_ascii_digit())
    })
}

/// Does the last line before line `first` announce another question ("비슷한 문제를 하나
/// 드릴게요", "Here's a similar question for practice")?
fn announced(text: &str, lines: &[(usize, usize)], first: usize) -> bool {
    (0..first)
        .rev()
        .map(|j| text[lines[j].0..lines[j].1].trim())
        .find(|l| !l.is_empty())
        .is_some_and(announces)
}

/// Does a line announce another question ("비슷한 문제를 하나 드릴게요", "유사 문제", "관련
/// 기출:", "Practice question")?
pub(super) fn announces(line: &str) -> bool {
    let l = line.to_lowercase();
    [
        "비슷한 문제",
        "유사 문제",
        "유사한 문제",
        "연습 문제",
        "다음 문제",
        "기출",
        "예제",
        "similar question",
        "practice question",
        "another question",
        "next question",
        "follow-up question",
    ]
    .iter()
    .any(|w| l.contains(w))
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
pub(super) fn is_answer_line(line: &str) -> bool {
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

/// Is a line of `text` only one of the set's labels (see `is_bare_label`): a letter on a
/// set of letters, a number or circled number on the others?
pub(crate) fn has_a_label_line(text: &str, set: &ChoiceSet) -> bool {
    let letters = set.notation() == crate::verify::Notation::Letter;
    text.lines().any(|line| {
        is_bare_label(line)
            && line
                .trim_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '*' | '.' | '_' | '(' | ')')
                })
                .starts_with(|c: char| c.is_ascii_uppercase() == letters)
    })
}

/// A line that is only a label: "④", "**D**", "(4)", "4.", "B".
pub(super) fn is_bare_label(line: &str) -> bool {
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
pub(super) fn mentions_answer(line: &str) -> bool {
    line.contains("정답")
        || line.contains("답은")
        || line.contains("답:")
        || line.to_ascii_lowercase().contains("answer")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> ChoiceSet {
        ChoiceSet::detect("민법상 용익물권인 것은?\n① 질권\n② 지역권\n③ 유치권\n④ 저당권").unwrap()
    }

    fn found(text: &str) -> Option<Block> {
        block(text, &set())
    }

    fn another(start: usize, end: usize, cut_off: bool) -> Option<Block> {
        Some(Block::Another {
            start,
            end,
            cut_off,
        })
    }

    #[test]
    fn finds_an_invented_next_question_from_stem_to_answer() {
        let t = "②\n\n문제: 다음 중 물권이 아닌 것은?\n① 소유권\n② 채권\n③ 지상권\n④ 전세권\n정답: ②\n\n최종 정답: ③";
        let end = t.find("\n\n최종").unwrap();
        assert_eq!(found(t), another(5, end, false));
        let t = "Answer: 2\n\nWhich of the following is a security right?\n1. Superficies\n2. Jeonse\n3. Lien\n4. Servitude\nAnswer: 3";
        assert_eq!(found(t), another(11, t.len(), false));
        // A passage above the asking line belongs to the stem.
        let t = "정답: ②\n\n다음 글을 읽고 물음에 답하시오.\n갑은 을에게 돈을 빌려주었다.\n갑의 권리로 옳은 것은?\nA. 물권\nB. 채권\nC. 형성권\nD. 항변권\n정답: B";
        assert_eq!(found(t), another("정답: ②\n\n".len(), t.len(), false));
        // Cut off before its answer: to the end.
        let t = "②\n\n문제: 다음 중 물권이 아닌 것은?\n① 소유권\n② 채권\n③ 지상권";
        assert_eq!(found(t), another(5, t.len(), true));
    }

    #[test]
    fn a_question_that_may_be_this_one_is_a_second_attempt() {
        // The same question restated, then answered: nothing before it.
        let t = "문제: 민법상 용익물권인 것은?\n1. 질권 - 담보물권\n2. 지역권 - 용익물권\n3. 유치권 - 담보물권\n4. 저당권 - 담보물권\n정답: 2";
        assert_eq!(found(t), None);
        // Options shared with this question, in another order, or no options at all: it may
        // be this question again.
        let t =
            "②\n\n문제: 다음 중 담보물권인 것은?\n① 지상권\n② 전세권\n③ 유치권\n④ 지역권\n정답: ③";
        assert_eq!(found(t), Some(Block::Again(5)));
        let t = "정답: ②\n\nQ: 그런가?\nA: 아니다.\n\n정답: ③";
        assert_eq!(found(t), Some(Block::Again("정답: ②\n\n".len())));
        // A question the writer asks in passing, then numbered reasoning.
        let t = "정답: ②\n\n다시 생각해 볼까?\n1. 정의를 확인한다\n2. 보기를 비교한다\n3. 결론을 내린다\n정답: ③";
        assert_eq!(found(t), None);
        // A heading followed by reasons is no made-up question.
        let t = "③\n\n질문: 정말 그럴까?\n다시 보니 ②가 맞습니다.";
        assert_eq!(found(t), None);
    }
}
