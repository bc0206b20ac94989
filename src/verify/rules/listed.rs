//! An answer right under an option list that is not this question's, with no stem the
//! continuation cue finds: a base model's made-up question ("다음 중 옳은 것\n①. 가\n②. 나\n
//! ③. 다\n④. 라\n정답: ④"), read as another question or a second attempt (see
//! `continuation.rs` for questions with a stem).

use super::continuation::{
    announces, is_answer_line, is_bare_label, lines, mentions_answer, Block,
};
use super::written_out::{listed_lines, mostly_new, opens_with_option, restates, restates_words};
use crate::verify::ChoiceSet;

/// An answer at byte `at` on a line right under an option list that is not this question's,
/// whose stem (if any) the cue did not find: "다음 중 옳은 것\n①. 가\n②. 나\n③. 다\n④.
/// 라\n정답: ④", a base model's "2.2.1 부동성 소화기\nA. 이리\nB. 8배\n…\n정답: A". The list
/// has one option a line, as many as this question has, does not restate this question's at
/// their places, and judges none (a walk through the options, "A. 틀림\nB. 맞음", answers
/// this question); a list right under an answer word ("정답:\n(1) …") restates options.
/// After something said (`said` reads what stands before its stem) it may be this question
/// in other words, so the two are two attempts, which must agree, unless its stem heads a
/// second look ("다시 보면"). With nothing said before, it is another question when its stem
/// asks as an exam does ("다음 중 옳은 것") or announces one ("관련 기출:"), and its words or
/// most of its options are not this question's.
pub(crate) fn listed_block(
    text: &str,
    set: &ChoiceSet,
    at: usize,
    said: impl Fn(&str) -> bool,
) -> Option<Block> {
    // Most answers are on no such line: two byte searches rule them out.
    let bytes = text.as_bytes();
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |b| b + 1);
    let end = memchr::memchr(b'\n', &bytes[at..]).map_or(text.len(), |b| at + b);
    if start == 0 || !(is_answer_line(&text[start..end]) || is_bare_label(&text[start..end])) {
        return None;
    }
    let above = text[..start - 1].trim_end();
    let above = &above[memchr::memrchr(b'\n', above.as_bytes()).map_or(0, |b| b + 1)..];
    if !opens_with_option(above) {
        return None;
    }
    let lines = lines(text);
    let line = |j: usize| &text[lines[j].0..lines[j].1];
    let answer = lines.iter().position(|&(s, e)| s <= at && at <= e)?;
    // The option lines right above it (blank lines between them allowed), then its stem's.
    let mut bottom = answer;
    while bottom > 0 && line(bottom - 1).trim().is_empty() {
        bottom -= 1;
    }
    let top = bottom.saturating_sub(set.len());
    let options = listed_lines(&(top..bottom).map(line).collect::<Vec<_>>())?;
    if options.len() != set.len() || restates(&options, set) || options.iter().any(|o| judges(o)) {
        return None;
    }
    let first = (0..top)
        .rev()
        .take_while(|&j| {
            let l = line(j).trim();
            !l.is_empty() && !is_answer_line(l) && !mentions_answer(l) && !is_bare_label(l)
        })
        .last()
        .unwrap_or(top);
    if top > 0 && first == top && mentions_answer(line(top - 1)) {
        return None;
    }
    let stem = (first..top).map(line).collect::<Vec<_>>().join(" ");
    // A list headed as a second look ("다시 보면", "Let me re-check") reads this question again:
    // a correction after it is the writer's.
    let lower = stem.to_lowercase();
    if [
        "다시",
        "재검토",
        "정정",
        "수정",
        "again",
        "re-check",
        "recheck",
        "actually",
        "wait",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        return None;
    }
    let t = stem.trim().trim_end_matches(['.', ':', '*']);
    // A stem that announces another question ("관련 기출:", "유사 문제").
    let announces = announces(t);
    let other = || Block::Another {
        start: lines[first].0,
        end: lines[answer].1,
        cut_off: false,
    };
    if said(&text[..lines[first].0]) {
        return Some(if announces {
            other()
        } else {
            Block::Again(lines[first].0)
        });
    }
    // With nothing said before, only a stem that asks as an exam does ("다음 중 옳은 것"):
    // steps of reasons ("풀이 순서\n1. 매출액 산출 …"), notes, a table or a translation of the
    // options, answered after, are this question's.
    let same_words = set.question().is_none_or(|q| restates_words(&stem, q));
    let stem_asks = announces
        || t.starts_with("다음 중")
        || ["것", "것은", "것을 고르시오", "고르시오", "고르면"]
            .iter()
            .any(|e| t.ends_with(e));
    (stem_asks && (!same_words || !mostly_new(&options, set))).then(other)
}

/// Does a listed option's text judge it ("틀림", "맞습니다", "✅", "→ 해당 없음", "correct")
/// rather than state it? Then the list walks through this question's options.
fn judges(option: &str) -> bool {
    const WORDS: [&str; 24] = [
        "맞", "틀", "옳", "정답", "오답", "아니", "않", "해당", "적절", "✅", "❌", "✓", "✗", "✔",
        "✘", "⭕", "→", "->", "=>", "때문", "므로", "correct", "wrong", "true",
    ];
    let lower = option.to_lowercase();
    WORDS.iter().any(|w| lower.contains(w))
        || ["false", "right", "because", " o", " x"]
            .iter()
            .any(|w| lower.contains(w))
        || matches!(lower.trim(), "o" | "x")
        || option.contains(" - ")
        || option.contains(": ")
}
