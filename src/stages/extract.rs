//! `kgrade extract`: run the verifier over a JSONL stream of answers and write one JSON line
//! per input line, in order. Streams: memory stays flat however long the input is. Not for
//! joining with datasets or grading: that is `grade`.

use crate::verify::{verify, ChoiceSet, Extraction};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::io::{self, BufRead, Write};

/// One input line: `{"id", "question", "response", "choices"?}`.
#[derive(Deserialize)]
struct Input<'a> {
    #[serde(default)]
    id: serde_json::Value,
    #[serde(default, borrow)]
    question: Option<Cow<'a, str>>,
    #[serde(borrow)]
    response: Cow<'a, str>,
    #[serde(default, borrow)]
    choices: Option<Cow<'a, str>>,
}

/// One output line. Field meanings are documented in the README.
#[derive(Serialize)]
pub struct Output<'a> {
    pub id: &'a serde_json::Value,
    pub status: &'static str,
    pub choice: Option<String>,
    pub index: Option<usize>,
    pub rule: Option<&'static str>,
    pub span: Option<[usize; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl<'a> Output<'a> {
    /// The output line for an extraction on `set`.
    pub fn new(id: &'a serde_json::Value, set: &ChoiceSet, e: &Extraction) -> Output<'a> {
        let choice = e.choice();
        Output {
            id,
            status: e.status(),
            choice: choice.map(|c| set.label(c)),
            index: choice.map(|c| c.position()),
            rule: Some(e.rule_name()),
            span: e.span().map(|s| [s.start, s.end]),
            candidates: match e {
                Extraction::Ambiguous { candidates, .. } => {
                    Some(candidates.iter().map(|&c| set.label(c)).collect())
                }
                _ => None,
            },
            text: match e {
                Extraction::Invalid { text, .. } => Some(text.clone()),
                _ => None,
            },
            error: None,
        }
    }

    fn error(id: &'a serde_json::Value, message: String) -> Output<'a> {
        Output {
            id,
            status: "error",
            choice: None,
            index: None,
            rule: None,
            span: None,
            candidates: None,
            text: None,
            error: Some(message),
        }
    }
}

/// A line that could not be read; the stream goes on past it.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}:{line}: {message}")]
pub struct LineError {
    pub source_name: String,
    pub line: u64,
    pub message: String,
}

/// What a run of `extract` did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub lines: u64,
    pub failed: u64,
}

/// The choice set for one input: the explicit spec (with option texts from the question
/// when they agree), else what the question shows.
pub fn choice_set_for(question: Option<&str>, spec: Option<&str>) -> Result<ChoiceSet, String> {
    let spec = match spec {
        Some(s) => Some(
            s.parse::<ChoiceSet>()
                .map_err(|e| format!("field `choices`: {e}"))?,
        ),
        None => None,
    };
    ChoiceSet::for_question(question.unwrap_or(""), spec.as_ref()).ok_or_else(|| {
        "field `question`: no options found (①…, (1)…, A.…, O/X); give `choices` such as \"circled:4\""
            .to_string()
    })
}

/// The top-level entry point for `kgrade extract`: read JSONL from `input`, write one JSON
/// line per input line to `out`, report unreadable lines to `on_error` and go on.
/// Returns an I/O error only for the streams themselves (including a closed output pipe).
pub fn run<R: BufRead, W: Write>(
    source_name: &str,
    mut input: R,
    out: W,
    mut on_error: impl FnMut(&LineError),
) -> io::Result<Summary> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut summary = Summary::default();
    let null = serde_json::Value::Null;
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        summary.lines += 1;
        let line_no = summary.lines;
        let raw = trim_line_end(&buf);
        if raw.iter().all(u8::is_ascii_whitespace) {
            // A blank line carries no answer: report it like any malformed line so the
            // output stays one line per input line.
            summary.failed += 1;
            let err = LineError {
                source_name: source_name.to_string(),
                line: line_no,
                message: "empty line".to_string(),
            };
            on_error(&err);
            write_line(&mut out, &Output::error(&null, err.to_string()))?;
            continue;
        }
        let result = std::str::from_utf8(raw)
            .map_err(|e| format!("invalid UTF-8 at byte {}", e.valid_up_to()))
            .and_then(|text| {
                serde_json::from_str::<Input>(text).map_err(|e| format!("invalid JSON: {e}"))
            });
        let (id, decided) = match result {
            Ok(rec) => {
                let decided = choice_set_for(rec.question.as_deref(), rec.choices.as_deref())
                    .map(|set| (verify(&rec.response, &set), set));
                (rec.id, decided)
            }
            Err(message) => (serde_json::Value::Null, Err(message)),
        };
        match decided {
            Ok((e, set)) => write_line(&mut out, &Output::new(&id, &set, &e))?,
            Err(message) => {
                summary.failed += 1;
                let err = LineError {
                    source_name: source_name.to_string(),
                    line: line_no,
                    message,
                };
                on_error(&err);
                write_line(&mut out, &Output::error(&id, err.to_string()))?;
            }
        }
    }
    out.flush()?;
    Ok(summary)
}

fn trim_line_end(buf: &[u8]) -> &[u8] {
    let mut end = buf.len();
    while end > 0 && matches!(buf[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    // A UTF-8 byte-order mark on the first line is not part of the JSON.
    let start = if buf.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else {
        0
    };
    &buf[start.min(end)..end]
}

fn write_line<W: Write>(out: &mut W, value: &Output) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(|e| match e.io_error_kind() {
        // Keep the kind, so that a closed pipe is recognised as one.
        Some(kind) => io::Error::from(kind),
        None => io::Error::other(e),
    })?;
    out.write_all(b"\n")
}

/// A human-readable account of one decision, for `kgrade extract --question Q --text T`.
pub fn explain(question: &str, text: &str, spec: Option<&str>) -> Result<String, String> {
    use std::fmt::Write as _;
    let set = choice_set_for(Some(question), spec)?;
    let e = verify(text, &set);
    let mut s = String::new();
    let source = if spec.is_some() { "given" } else { "detected" };
    let _ = writeln!(s, "choices : {set} ({source})");
    for c in set.choices() {
        if let Some(t) = set.option_text(c) {
            let _ = writeln!(s, "          {} {}", set.label(c), t);
        }
    }
    let _ = writeln!(s, "status  : {}", e.status());
    if let Some(c) = e.choice() {
        let _ = writeln!(s, "choice  : {} (index {})", set.label(c), c.position());
    }
    if let Extraction::Ambiguous { candidates, .. } = &e {
        let labels: Vec<String> = candidates.iter().map(|&c| set.label(c)).collect();
        let _ = writeln!(s, "between : {}", labels.join(", "));
    }
    let _ = writeln!(
        s,
        "rule    : {} — {}",
        e.rule_name(),
        describe_rule(e.rule_name())
    );
    if let Some(span) = e.span() {
        let _ = writeln!(
            s,
            "span    : bytes {}..{}: {:?}",
            span.start,
            span.end,
            text.get(span.clone()).unwrap_or("")
        );
    }
    Ok(s)
}

/// One line on what each rule name means (also the README's table).
pub fn describe_rule(name: &str) -> &'static str {
    match name {
        "statement" => "an explicit answer statement (정답은 ③, Answer: C, ③을 선택)",
        "corrected_statement" => "a later statement after a self-correction or marked final",
        "boxed" => "a \\boxed{…} answer",
        "weak_statement" => "a weaker claim (③이 맞다, ②로 보인다) with no other choice named",
        "bare" => "the whole final text is one label, optionally with its option text",
        "leading_bare" => "the first line is one label and nothing after names another",
        "last_line" => "the last line is a lone label after prose",
        "option_text" => "the answer names exactly one option's text",
        "ox_word" => "O/X item answered in words (옳다 → ○, 틀리다 → ×)",
        "conflicting_statements" => "statements name different choices and none is final",
        "alternatives" => "one statement names several choices (① 또는 ②)",
        "label_text_mismatch" => "a label written with another option's text",
        "multiple_option_texts" => "several option texts named and no label",
        "ox_word_conflict" => "O/X words of both kinds with no final one",
        "empty" => "nothing but whitespace or markup",
        "truncated_reasoning" => "reasoning that never reached a final answer",
        "refusal" => "the model declined or said it cannot tell",
        "not_found" => "text, but no statement of a choice",
        _ => "",
    }
}
