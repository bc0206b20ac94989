//! Grader-addressed masking: text that talks to whoever grades the answer ("[SYSTEM: …]",
//! "Ignore previous instructions …", "채점자님, …") is data, so its tokens state nothing;
//! nor does a quoted example of the answer format, nor a search the writer runs ("검색어: …
//! ③ 답", `web.search("… answer C")`).
//! Also the sentence splitter the other rules share.

use super::words::lower;
use crate::verify::scan::{Kind, Tok};
use std::ops::Range;

/// Mark tokens inside text that addresses a grader, so that it states nothing.
pub(super) fn grader_addressed(text: &str, toks: &[Tok]) -> Vec<bool> {
    let mut masked = vec![false; toks.len()];
    // Words that address whoever grades the answer. "시스템"/"system" count only as a
    // speaker tag ("SYSTEM:", "시스템:"), since "펜실베니아 시스템" is ordinary exam text.
    let is_cue = |k: usize| {
        let t = &toks[k];
        let tagged = toks.get(k + 1).is_some_and(|n| n.is_punct(':'));
        match t.kind {
            Kind::Hangul => {
                let w = t.text(text);
                let next_ignores = toks
                    .get(k + 1)
                    .is_some_and(|n| n.kind == Kind::Hangul && n.text(text).starts_with("무시"));
                ["채점", "평가자", "프롬프트"]
                    .iter()
                    .any(|p| w.starts_with(p))
                    || (w.starts_with("지시") && next_ignores)
                    || (w == "시스템" && tagged)
            }
            Kind::Latin => match lower(t.text(text)).as_str() {
                "grader" | "grading" | "evaluator" | "instruction" | "instructions" => true,
                "system" => tagged || t.text(text) == "SYSTEM",
                "ignore" => toks.get(k + 1).is_some_and(|n| {
                    n.kind == Kind::Latin
                        && matches!(
                            lower(n.text(text)).as_str(),
                            "previous" | "all" | "the" | "above" | "prior"
                        )
                }),
                _ => false,
            },
            _ => false,
        }
    };
    format_examples(text, toks, &mut masked);
    searches(text, toks, &mut masked);
    if !(0..toks.len()).any(is_cue) {
        return masked;
    }
    // A bracketed group with a cue, and a sentence with a cue, are masked whole.
    let mut k = 0;
    while k < toks.len() {
        if matches!(toks[k].kind, Kind::Punct('[' | '<' | '(')) {
            let close = match toks[k].kind {
                Kind::Punct('[') => ']',
                Kind::Punct('<') => '>',
                _ => ')',
            };
            if let Some(len) = toks[k + 1..].iter().position(|t| t.is_punct(close)) {
                let group = k..=k + 1 + len;
                if group.clone().any(is_cue) {
                    group.for_each(|g| masked[g] = true);
                }
                k += len + 2;
                continue;
            }
        }
        k += 1;
    }
    for sentence in sentences(toks) {
        if sentence.clone().any(is_cue) {
            sentence.for_each(|g| masked[g] = true);
        }
    }
    masked
}

/// Mark quoted text on a line that gives an answer format or an example of one ("> 답변
/// 예시: '정답은 ①입니다'와 같은 형식으로 답하세요", "예를 들어 「정답은 4번입니다」처럼",
/// "Use the format \"The answer is (A)\""):
/// the quoted answer is the prompt's, not the model's. Only the quotes are marked, so the
/// line's own statement ("형식에 맞춰 답하면 정답은 ③입니다") still counts.
/// Mask a search the writer runs: a line headed 검색어: or 쿼리: (the query itself) to its end;
/// a quoted query after 검색:, 검색 중:, Search:, Searching: or a JSON `"query":`; a search
/// call's brackets (`web.search(…)`, `web_search(…)`). Not "Search results confirm: 정답은
/// ③", "검색 결과:", nor a line that only mentions a query.
fn searches(text: &str, toks: &[Tok], masked: &mut [bool]) {
    // Compared in place, in any case: this reads every word of a text with a cue.
    let is = |k: usize, words: &[&str]| {
        toks.get(k)
            .is_some_and(|t| words.iter().any(|w| t.text(text).eq_ignore_ascii_case(w)))
    };
    let is_quote = |k: usize| {
        toks.get(k)
            .is_some_and(|t| matches!(t.text(text), "\"" | "“" | "'" | "‘" | "「"))
    };
    let punct = |k: usize, p: char| toks.get(k).is_some_and(|t| t.is_punct(p));
    // Mask from `from` to the first token at or after `from + 1` that `closes`, or to the end
    // of the line.
    let mut mask = |from: usize, closes: &dyn Fn(usize) -> bool| {
        for j in from..toks.len() {
            if toks[j].kind == Kind::Break {
                break;
            }
            masked[j] = true;
            if j > from && closes(j) {
                break;
            }
        }
    };
    let mut line_head = true;
    for (k, t) in toks.iter().enumerate() {
        if t.kind == Kind::Break {
            line_head = true;
            continue;
        }
        if !matches!(t.kind, Kind::Hangul | Kind::Latin) {
            continue;
        }
        let head = std::mem::replace(&mut line_head, false);
        if head && is(k, &["검색어", "쿼리"]) && punct(k + 1, ':') {
            mask(k, &|_| false);
        } else if head && is(k, &["검색", "검색중", "search", "searching"]) {
            // "검색 중:" (the tokeniser splits words at '_', so "web_search" is "search").
            let colon = if is(k, &["검색"]) && is(k + 1, &["중"]) {
                k + 2
            } else {
                k + 1
            };
            if punct(colon, ':') && is_quote(colon + 1) {
                mask(colon + 1, &is_quote);
            }
        } else if t.kind == Kind::Latin && is(k, &["search"]) && punct(k + 1, '(') {
            mask(k + 1, &|j| punct(j, ')'));
        } else if is(k, &["query"]) {
            let colon = if is_quote(k + 1) { k + 2 } else { k + 1 };
            if punct(colon, ':') && is_quote(colon + 1) {
                mask(colon + 1, &is_quote);
            }
        }
    }
}

fn format_examples(text: &str, toks: &[Tok], masked: &mut [bool]) {
    let is_cue = |t: &Tok| match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            w.starts_with("예시") || w.starts_with("형식") || w == "예를"
        }
        Kind::Latin => matches!(lower(t.text(text)).as_str(), "example" | "format"),
        _ => false,
    };
    let is_quote = |t: &Tok| {
        matches!(
            t.text(text),
            "'" | "\""
                | "\u{2018}"
                | "\u{2019}"
                | "\u{201C}"
                | "\u{201D}"
                | "「"
                | "」"
                | "『"
                | "』"
        )
    };
    let mut line = 0;
    for end in (0..=toks.len()).filter(|&k| k == toks.len() || toks[k].kind == Kind::Break) {
        // "답변 예시: 정답은 ②입니다.", "예시) 정답: ②", "Example: The answer is B.": a line
        // headed as an example, masked after its head.
        let head = toks[line..end]
            .iter()
            .take(3)
            .position(|t| t.is_punct(':') || t.is_punct(')'))
            .map(|p| line + p);
        if let Some(h) = head.filter(|&h| toks[line..h].iter().any(is_cue)) {
            (h..end).for_each(|g| masked[g] = true);
        }
        if toks[line..end].iter().any(is_cue) {
            let mut open = None;
            // Not the apostrophe of "I'd", "that's".
            let contraction = |k: usize| {
                k > 0
                    && toks[k - 1].kind == Kind::Latin
                    && toks[k - 1].end == toks[k].start
                    && toks
                        .get(k + 1)
                        .is_some_and(|n| n.kind == Kind::Latin && n.start == toks[k].end)
            };
            for (k, t) in toks.iter().enumerate().take(end).skip(line) {
                if is_quote(t) && !contraction(k) {
                    match open.take() {
                        Some(o) => (o..=k).for_each(|g| masked[g] = true),
                        None => open = Some(k),
                    }
                }
            }
        }
        line = end + 1;
    }
}

/// Token ranges of sentences (split at . ! ? and line breaks).
pub(super) fn sentences(toks: &[Tok]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, t) in toks.iter().enumerate() {
        if t.is_sentence_end() {
            if k > start {
                out.push(start..k);
            }
            start = k + 1;
        }
    }
    if start < toks.len() {
        out.push(start..toks.len());
    }
    out
}
