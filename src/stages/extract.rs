//! `kgrade extract`: run the verifier over a JSONL stream of answers and write one JSON line
//! per input line, in order. Streams: memory stays flat however long the input is. Not for
//! joining with datasets or grading: that is `grade`.

use crate::verify::{verify, ChoiceSet, Extraction};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::mpsc;

/// One input line: `{"id", "question", "response", "choices"?}`. The id is kept as written.
#[derive(Deserialize)]
struct Input<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
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
    pub id: Option<&'a RawValue>,
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
    pub fn new(id: Option<&'a RawValue>, set: &ChoiceSet, e: &Extraction) -> Output<'a> {
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

    fn error(id: Option<&'a RawValue>, message: String) -> Output<'a> {
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

/// Lines are read in batches of about this many bytes (or [`BATCH_LINES`] lines), and a
/// batch is verified in chunks of [`CHUNK_LINES`] lines across cores while the next batch is
/// read and the previous one written: at most three batches are held, however long the input.
const BATCH_BYTES: usize = 1 << 21;
const BATCH_LINES: usize = 8192;
const CHUNK_LINES: usize = 64;

/// Lines read from the input, and the 1-based number of the first.
struct Batch {
    buf: Vec<u8>,
    /// Where each line ends in `buf`.
    ends: Vec<usize>,
    first_line: u64,
    /// Lines longer than `inputs::MAX_LINE` (kept empty in `buf`), with their length.
    long: Vec<(usize, u64)>,
}

impl Batch {
    fn line(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.buf[start..self.ends[i]]
    }
}

/// A batch's chunks, or what went wrong verifying it.
type Verified = Result<Vec<Chunk>, String>;

/// A verified chunk of lines: their output, and the lines that could not be read.
struct Chunk {
    out: Vec<u8>,
    errors: Vec<LineError>,
}

/// Read the next batch; a read error ends the batch early, with the lines read before it
/// (a part-read line is dropped) and the error.
fn read_batch<R: BufRead>(input: &mut R, first_line: u64) -> (Batch, Option<io::Error>) {
    let mut batch = Batch {
        buf: Vec::with_capacity(BATCH_BYTES + (1 << 16)),
        ends: Vec::new(),
        first_line,
        long: Vec::new(),
    };
    while batch.buf.len() < BATCH_BYTES && batch.ends.len() < BATCH_LINES {
        match crate::inputs::read_line_capped(input, &mut batch.buf, crate::inputs::MAX_LINE) {
            Ok((n, true)) => {
                batch.long.push((batch.ends.len(), n as u64));
                batch.ends.push(batch.buf.len());
            }
            Ok((0, _)) => {
                // Blank lines at the very end (an editor's trailing newline) are not lines
                // of input; a blank line between answers still is, and is reported.
                while batch.ends.last().is_some_and(|_| {
                    let last = batch.ends.len() - 1;
                    !batch.long.iter().any(|(at, _)| *at == last)
                        && batch.line(last).iter().all(u8::is_ascii_whitespace)
                }) {
                    batch.ends.pop();
                }
                batch.buf.truncate(batch.ends.last().copied().unwrap_or(0));
                break;
            }
            Ok(_) => batch.ends.push(batch.buf.len()),
            Err(e) => {
                batch.buf.truncate(batch.ends.last().copied().unwrap_or(0));
                return (batch, Some(e));
            }
        }
    }
    (batch, None)
}

/// Verify a batch across cores; the chunks come back in input order.
fn verify_batch(source_name: &str, batch: &Batch) -> Vec<Chunk> {
    let starts: Vec<usize> = (0..batch.ends.len()).step_by(CHUNK_LINES).collect();
    starts
        .par_iter()
        .map(|&first| {
            let mut chunk = Chunk {
                out: Vec::with_capacity(CHUNK_LINES * 160),
                errors: Vec::new(),
            };
            let mut sets = SetCache::default();
            for i in first..batch.ends.len().min(first + CHUNK_LINES) {
                let line_no = batch.first_line + i as u64;
                let output = match batch.long.iter().find(|(at, _)| *at == i) {
                    Some(&(_, bytes)) => Err((None, crate::inputs::line_too_long(bytes))),
                    None => extract_line(batch.line(i), &mut sets, &mut chunk.out),
                };
                if let Err((id, message)) = output {
                    let err = LineError {
                        source_name: source_name.to_string(),
                        line: line_no,
                        message,
                    };
                    write_line(&mut chunk.out, &Output::error(id, err.to_string()))
                        .expect("writing to memory");
                    chunk.errors.push(err);
                }
            }
            chunk
        })
        .collect()
}

/// Choice sets of recently seen questions: answers to one question usually come together
/// (samples, orderings), and detecting a set reads the whole question.
type SetOrError = Result<ChoiceSet, String>;

#[derive(Default)]
struct SetCache {
    /// Each question's slot in `entries` (foldhash: a question is hashed once per line, and
    /// SipHash cost as much as detecting a set on long questions).
    slots: HashMap<String, usize, foldhash::fast::RandomState>,
    /// By slot, the sets for each `choices` spec.
    entries: Vec<Vec<(Option<String>, SetOrError)>>,
}

impl SetCache {
    const CAPACITY: usize = 256;

    fn get(&mut self, question: Option<&str>, spec: Option<&str>) -> &Result<ChoiceSet, String> {
        let q = question.unwrap_or("");
        let slot = match self.slots.get(q) {
            Some(&slot) => slot,
            None => {
                if self.entries.len() >= Self::CAPACITY {
                    self.slots.clear();
                    self.entries.clear();
                }
                self.entries.push(Vec::new());
                self.slots.insert(q.to_string(), self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        let specs = &mut self.entries[slot];
        let at = match specs.iter().position(|(s, _)| s.as_deref() == spec) {
            Some(at) => at,
            None => {
                specs.push((spec.map(str::to_string), choice_set_for(question, spec)));
                specs.len() - 1
            }
        };
        &specs[at].1
    }
}

/// Verify one input line and append its output line to `out`; a line that cannot be read
/// is an error message with the id (when the line was JSON), and nothing is written.
fn extract_line<'a>(
    raw: &'a [u8],
    sets: &mut SetCache,
    out: &mut Vec<u8>,
) -> Result<(), (Option<&'a RawValue>, String)> {
    let raw = trim_line_end(raw);
    if raw.iter().all(u8::is_ascii_whitespace) {
        // A blank line carries no answer: report it like any malformed line so the output
        // stays one line per input line.
        return Err((None, "empty line".to_string()));
    }
    let text =
        crate::inputs::utf8(raw).map_err(|at| (None, format!("invalid UTF-8 at byte {at}")))?;
    let rec: Input = serde_json::from_str(text).map_err(|e| {
        (
            None,
            format!("invalid JSON: {}", crate::types::json::line_error(&e)),
        )
    })?;
    match sets.get(rec.question.as_deref(), rec.choices.as_deref()) {
        Ok(set) => {
            let e = verify(&rec.response, set);
            write_line(out, &Output::new(rec.id, set, &e)).expect("writing to memory");
            Ok(())
        }
        Err(message) => Err((rec.id, message.clone())),
    }
}

/// The top-level entry point for `kgrade extract`: read JSONL from `input`, write one JSON
/// line per input line to `out` in input order, report unreadable lines to `on_error` (in
/// order) and go on. Lines are verified on every core (rayon's pool).
/// Returns an I/O error only for the streams themselves (including a closed output pipe);
/// what was verified before a read error is still written.
pub fn run<R: BufRead, W: Write>(
    source_name: &str,
    mut input: R,
    out: W,
    mut on_error: impl FnMut(&LineError),
) -> io::Result<Summary> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let mut summary = Summary::default();
    let mut in_flight: Option<mpsc::Receiver<Verified>> = None;
    let received = |rx: mpsc::Receiver<Verified>| -> io::Result<Vec<Chunk>> {
        rx.recv()
            .map_err(|_| io::Error::other("a verifying task ended without a result"))?
            .map_err(io::Error::other)
    };
    loop {
        let (batch, read_error) = read_batch(&mut input, summary.lines + 1);
        let done = in_flight.take().map(received).transpose()?;
        let more = !batch.ends.is_empty();
        if more {
            summary.lines += batch.ends.len() as u64;
            let (tx, rx) = mpsc::sync_channel(1);
            let name = source_name.to_string();
            rayon::spawn(move || {
                // A panic in a pool task would abort the process: catch it and let the reading
                // thread report it with the lines it concerns.
                let first = batch.first_line;
                let last = first + batch.ends.len() as u64 - 1;
                let chunks = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    verify_batch(&name, &batch)
                }))
                .map_err(|_| format!("internal error verifying lines {first}–{last}"));
                // The receiver is gone only when writing failed; nothing to report then.
                let _ = tx.send(chunks);
            });
            in_flight = Some(rx);
        }
        for chunk in done.into_iter().flatten() {
            out.write_all(&chunk.out)?;
            for err in &chunk.errors {
                summary.failed += 1;
                on_error(err);
            }
        }
        if let Some(e) = read_error {
            // What was read before the error is still verified and written.
            if let Some(rx) = in_flight.take() {
                for chunk in received(rx)? {
                    out.write_all(&chunk.out)?;
                    chunk.errors.iter().for_each(&mut on_error);
                }
            }
            out.flush()?;
            return Err(e);
        }
        if !more {
            break;
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
        "weak_statement" => {
            "a weaker claim (③이 맞다, ②로 보인다, …입니다. 2번.) with no other choice named"
        }
        "ask_echo" => "the answer echoes the question's ask (적절하지 않은 것은 ③)",
        "singled_out" => "one option singled out against the others, which are rejected",
        "bare" => "the whole final text is one label, optionally with its option text",
        "leading_bare" => {
            "the first line is one label, and every other choice named after it is rejected"
        }
        "last_line" => "the last line is a lone label after prose",
        "option_text" => "the answer names exactly one option's text",
        "ox_word" => "O/X item answered in words (옳다 → ○, 틀리다 → ×)",
        "conflicting_statements" => "statements name different choices and none is final",
        "alternatives" => "one statement names several choices (① 또는 ②)",
        "label_text_mismatch" => "a label written with another option's text",
        "multiple_option_texts" => "several option texts named and no label",
        "ox_word_conflict" => "O/X words of both kinds with no final one",
        "verdict_list" => "a list of every option, one marked ✔ and the others ✘",
        "leaked_turn" => "an end-of-turn token leaked mid-answer, and the text before it states another choice than the text read through it, refuses, or cannot decide",
        "empty" => "nothing but whitespace or markup",
        "truncated_reasoning" => "reasoning that never reached a final answer",
        "refusal" => "the model declined or said it cannot tell",
        "not_found" => "text, but no statement of a choice",
        "restated_options" => "an answer marker followed by a copy of the option list",
        "other_question" => "only the answer to another question the text goes on to write",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::describe_rule;
    use crate::verify::{NoAnswerReason, Rule};

    /// Every rule and reason, by a match the compiler checks for exhaustiveness: a new one
    /// must be added here, and so gets a description.
    fn every_name() -> Vec<&'static str> {
        let rule = |r: Rule| match r {
            Rule::Statement
            | Rule::CorrectedStatement
            | Rule::Boxed
            | Rule::WeakStatement
            | Rule::AskEcho
            | Rule::SingledOut
            | Rule::Bare
            | Rule::LeadingBare
            | Rule::LastLine
            | Rule::OptionText
            | Rule::OxWord
            | Rule::ConflictingStatements
            | Rule::Alternatives
            | Rule::LabelTextMismatch
            | Rule::MultipleOptionTexts
            | Rule::OxWordConflict
            | Rule::VerdictList
            | Rule::LeakedTurn => r.name(),
        };
        let reason = |n: NoAnswerReason| match n {
            NoAnswerReason::Empty
            | NoAnswerReason::TruncatedReasoning
            | NoAnswerReason::Refusal
            | NoAnswerReason::NotFound
            | NoAnswerReason::RestatedOptions
            | NoAnswerReason::OtherQuestion => n.name(),
        };
        let mut names: Vec<&str> = [
            Rule::Statement,
            Rule::CorrectedStatement,
            Rule::Boxed,
            Rule::WeakStatement,
            Rule::AskEcho,
            Rule::SingledOut,
            Rule::Bare,
            Rule::LeadingBare,
            Rule::LastLine,
            Rule::OptionText,
            Rule::OxWord,
            Rule::ConflictingStatements,
            Rule::Alternatives,
            Rule::LabelTextMismatch,
            Rule::MultipleOptionTexts,
            Rule::OxWordConflict,
            Rule::VerdictList,
            Rule::LeakedTurn,
        ]
        .into_iter()
        .map(rule)
        .collect();
        names.extend(
            [
                NoAnswerReason::Empty,
                NoAnswerReason::TruncatedReasoning,
                NoAnswerReason::Refusal,
                NoAnswerReason::NotFound,
                NoAnswerReason::RestatedOptions,
                NoAnswerReason::OtherQuestion,
            ]
            .into_iter()
            .map(reason),
        );
        names
    }

    #[test]
    fn every_rule_and_reason_is_described() {
        for name in every_name() {
            assert!(!describe_rule(name).is_empty(), "no description for {name}");
        }
    }
}
