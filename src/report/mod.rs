//! Reports from a stream of verdicts: `report.json` (versioned schema, documented in the
//! README), `report.md`, `report.html`, and a terminal summary. A [`ReportBuilder`] takes verdicts one at a
//! time, as the grading stream finalises them or as `kgrade report` reads them from a file,
//! so memory stays flat: metrics are counters, and the audit list (every undecided answer) is
//! spilled to an anonymous temporary file and read back once by each renderer. Not for
//! deciding anything: verdicts are final when they reach here.

pub mod accuracy;
pub mod circular;
pub mod escape;
mod html;
pub mod leaderboard;
mod markdown;
pub mod metrics;
pub mod results;
pub mod staging;
pub mod svg;
mod terminal;
mod votes;

use crate::types::{JoinReport, Verdict};
use metrics::{is_audited, Accumulator, Metrics};
use serde::{Deserialize, Serialize};
use staging::Staging;
use std::io::{self, BufRead, BufReader, Seek, Write};
use std::path::{Path, PathBuf};

/// The `schema` value of `report.json`; bump `REPORT_VERSION` on any incompatible change.
/// A group value as reports show it: an empty value is `(empty)`, not a blank cell.
pub fn shown_value(value: &str) -> &str {
    if value.is_empty() {
        "(empty)"
    } else {
        value
    }
}

pub const REPORT_SCHEMA: &str = "kgrade.report";
pub const REPORT_VERSION: u32 = 1;

/// A verdicts file problem, located.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}:{line}: {message}")]
    BadLine {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    /// The verdicts hold no graded answer (the reports were still written).
    #[error("{path}: nothing was graded: {message}")]
    NothingGraded { path: PathBuf, message: String },
    /// `--by` names columns no verdict has.
    #[error("--by: no verdict has the column {} (columns present: {})", .unknown.join(", "), .available.join(", "))]
    UnknownColumns {
        unknown: Vec<String>,
        available: Vec<String>,
    },
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> ReportError + '_ {
    move |error| ReportError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Stream the verdicts in `path`, calling `f` on each with its line number.
pub fn for_each_verdict(
    path: &Path,
    mut f: impl FnMut(u64, Verdict) -> Result<(), ReportError>,
) -> Result<u64, ReportError> {
    let file = std::fs::File::open(path).map_err(io_err(path))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buf = String::new();
    let mut line = 0u64;
    loop {
        buf.clear();
        let n = reader.read_line(&mut buf).map_err(|e| {
            if e.kind() == io::ErrorKind::InvalidData {
                ReportError::BadLine {
                    path: path.to_path_buf(),
                    line: line + 1,
                    message: "invalid UTF-8".to_string(),
                }
            } else {
                io_err(path)(e)
            }
        })?;
        if n == 0 {
            return Ok(line);
        }
        line += 1;
        if buf.trim().is_empty() {
            continue;
        }
        let v: Verdict = serde_json::from_str(&buf).map_err(|e| ReportError::BadLine {
            path: path.to_path_buf(),
            line,
            message: format!("not a verdict: {}", crate::types::json::line_error(&e)),
        })?;
        f(line, v)?;
    }
}

#[derive(Serialize)]
struct Head<'a> {
    schema: &'static str,
    version: u32,
    generated_by: String,
    verdicts: &'a str,
    group_by: &'a [String],
    judge: &'a str,
    join: Option<&'a JoinReport>,
    metrics: &'a Metrics,
}

/// One entry of the audit list: an answer the verifier did not decide.
#[derive(Serialize, Deserialize)]
struct AuditEntry {
    id: String,
    sample: u32,
    line: u64,
    status: String,
    reason: String,
    gold: String,
    candidates: Option<Vec<String>>,
    tail: Option<String>,
    note: Option<String>,
}

impl AuditEntry {
    fn of(v: &Verdict) -> AuditEntry {
        AuditEntry {
            id: v.id.clone(),
            sample: v.sample,
            line: v.line,
            status: v.status.clone(),
            reason: v.rule.clone(),
            gold: v.gold.clone(),
            candidates: v.candidates.clone(),
            tail: v.tail.clone(),
            note: v.note.clone(),
        }
    }
}

/// One spilled record: the audit entry of `report.json`/`report.md` (when the answer is in
/// that list) and the row of `report.html`'s audit table (a superset: judged answers too).
#[derive(Serialize)]
struct Spilled {
    listed: Option<AuditEntry>,
    row: html::AuditRow,
}

/// A spilled record read for `report.json`/`report.md` only (the row is skipped unread).
#[derive(Deserialize)]
struct SpilledEntry {
    listed: Option<AuditEntry>,
}

/// A spilled record read for `report.html` only.
#[derive(Deserialize)]
struct SpilledRow {
    row: html::AuditRow,
}

/// What a finished report wrote, for the terminal.
pub struct Built {
    pub metrics: Metrics,
    pub summary: String,
}

/// Builds the reports one verdict at a time.
pub struct ReportBuilder {
    out_dir: PathBuf,
    by: Vec<String>,
    acc: Accumulator,
    /// Audit entries as JSON lines, in verdict order.
    audit: io::BufWriter<std::fs::File>,
}

impl ReportBuilder {
    /// Reports into `out_dir`, grouped by the columns `by`.
    pub fn new(out_dir: &Path, by: &[String]) -> Result<ReportBuilder, ReportError> {
        let spill = tempfile::tempfile_in(out_dir)
            .or_else(|_| tempfile::tempfile())
            .map_err(io_err(out_dir))?;
        // Always by task too, for results.json's tasks, whatever the reports group by
        // (trial 41, defect 7: `--by subject` filed a two-task run under one pseudo-task).
        let mut counted = by.to_vec();
        if !counted.iter().any(|c| c == "task") {
            counted.push("task".to_string());
        }
        Ok(ReportBuilder {
            out_dir: out_dir.to_path_buf(),
            by: by.to_vec(),
            acc: Accumulator::new(&counted),
            audit: io::BufWriter::with_capacity(1 << 16, spill),
        })
    }

    /// Does the report want the full text of the answer behind `v`? (For the HTML audit
    /// table; a stream can drop every other answer.)
    pub fn wants_answer(v: &Verdict) -> bool {
        html::is_shown(v)
    }

    /// Count one final verdict; `answer` is its full text when the caller still has it
    /// (shown, cut around the deciding span, in `report.html`'s audit table).
    pub fn add(&mut self, v: &Verdict, answer: Option<&str>) -> Result<(), ReportError> {
        self.acc.add(v);
        if is_audited(v) || html::is_shown(v) {
            let record = Spilled {
                listed: is_audited(v).then(|| AuditEntry::of(v)),
                row: html::AuditRow::of(v, answer, &self.by),
            };
            serde_json::to_writer(&mut self.audit, &record)
                .map_err(|e| io_err(&self.out_dir)(io::Error::other(e)))?;
            self.audit.write_all(b"\n").map_err(io_err(&self.out_dir))?;
        }
        Ok(())
    }

    /// Write `report.json`, `report.md`, `results.json` and `report.html` under `staging`'s
    /// temporary names (the caller commits them with the rest of its files); `verdicts`
    /// names the verdicts file in the report.
    pub fn finish(
        self,
        verdicts: &str,
        join: Option<&JoinReport>,
        staging: &mut Staging,
    ) -> Result<Built, ReportError> {
        let ReportBuilder {
            out_dir,
            by,
            acc,
            audit,
        } = self;
        let mut spill = audit
            .into_inner()
            .map_err(|e| io_err(&out_dir)(e.into_error()))?;
        let mut metrics = acc.finish();
        let task = join
            .and_then(|j| Path::new(&j.dataset).file_stem())
            .and_then(|s| s.to_str())
            .unwrap_or("kgrade");
        let results_doc = results::results(&metrics, join, task);
        // The task grouping counted for results.json alone is not shown.
        if !by.iter().any(|c| c == "task") {
            metrics.groups.remove("task");
            if let Some(c) = metrics.circular.as_mut() {
                c.groups.remove("task");
            }
        }
        // Only the columns that exist are named as groupings.
        let by: Vec<String> = by
            .into_iter()
            .filter(|c| metrics.groups.contains_key(c))
            .collect();
        let judge = join.map_or("not configured", |j| j.judge.as_str());
        // The judge's calls (cache hits, requests) are the run's, in run.json and on the
        // terminal: a rerun from the cache writes the same report.json.
        let reported_join = join.map(|j| JoinReport {
            judge_calls: String::new(),
            ..j.clone()
        });
        let join_shown = reported_join.as_ref();
        let head = Head {
            schema: REPORT_SCHEMA,
            version: REPORT_VERSION,
            generated_by: format!("kgrade {}", env!("CARGO_PKG_VERSION")),
            verdicts,
            group_by: &by,
            judge,
            join: join_shown,
            metrics: &metrics,
        };

        let json_path = staging.path("report.json");
        let md_path = staging.path("report.md");
        let mut json =
            io::BufWriter::new(std::fs::File::create(&json_path).map_err(io_err(&json_path))?);
        let mut md = io::BufWriter::new(std::fs::File::create(&md_path).map_err(io_err(&md_path))?);

        let head_text = serde_json::to_string_pretty(&head)
            .map_err(|e| io_err(&json_path)(io::Error::other(e)))?;
        let open = head_text
            .trim_end()
            .strip_suffix('}')
            .unwrap_or(&head_text)
            .trim_end();
        write!(json, "{open},\n  \"audit\": [").map_err(io_err(&json_path))?;
        md.write_all(markdown::markdown(&metrics, join, &by).as_bytes())
            .map_err(io_err(&md_path))?;
        writeln!(md, "\n## Audit: every answer the verifier did not decide\n")
            .map_err(io_err(&md_path))?;
        if metrics.audit_count == 0 {
            writeln!(md, "None.").map_err(io_err(&md_path))?;
        } else {
            writeln!(md, "| id | sample | status | reason | gold | candidates | end of answer |\n|---|---|---|---|---|---|---|")
                .map_err(io_err(&md_path))?;
        }
        spill
            .seek(io::SeekFrom::Start(0))
            .map_err(io_err(&out_dir))?;
        let mut first = true;
        let mut html_rows = 0u64;
        let mut spilled = BufReader::new(&mut spill);
        let mut line = Vec::new();
        while read_spilled(&mut spilled, &mut line, &out_dir)? {
            let record: SpilledEntry =
                serde_json::from_slice(&line).map_err(|e| io_err(&out_dir)(io::Error::other(e)))?;
            html_rows += 1;
            let Some(entry) = record.listed else { continue };
            json.write_all(if first { b"\n    " } else { b",\n    " })
                .map_err(io_err(&json_path))?;
            first = false;
            serde_json::to_writer(&mut json, &entry)
                .map_err(|e| io_err(&json_path)(io::Error::other(e)))?;
            writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                markdown::md_cell(&entry.id),
                entry.sample,
                entry.status,
                entry.reason,
                entry.gold,
                entry
                    .candidates
                    .as_ref()
                    .map(|c| c.join(", "))
                    .unwrap_or_default(),
                markdown::md_code(entry.tail.as_deref().unwrap_or(""))
            )
            .map_err(io_err(&md_path))?;
        }
        write!(json, "{}]\n}}\n", if first { "" } else { "\n  " }).map_err(io_err(&json_path))?;
        json.flush().map_err(io_err(&json_path))?;
        md.flush().map_err(io_err(&md_path))?;
        let results_path = staging.path("results.json");
        let text = serde_json::to_string_pretty(&results_doc)
            .map_err(|e| io_err(&results_path)(io::Error::other(e)))?;
        std::fs::write(&results_path, text + "\n").map_err(io_err(&results_path))?;

        // report.html: a second pass over the spill, so no renderer holds the audit list.
        let html_path = staging.path("report.html");
        let mut page =
            io::BufWriter::new(std::fs::File::create(&html_path).map_err(io_err(&html_path))?);
        page.write_all(html::head(&metrics, join, &by, html_rows).as_bytes())
            .map_err(io_err(&html_path))?;
        spill
            .seek(io::SeekFrom::Start(0))
            .map_err(io_err(&out_dir))?;
        let mut spilled = BufReader::new(&mut spill);
        while read_spilled(&mut spilled, &mut line, &out_dir)? {
            let record: SpilledRow =
                serde_json::from_slice(&line).map_err(|e| io_err(&out_dir)(io::Error::other(e)))?;
            page.write_all(html::row(&record.row, &by).as_bytes())
                .map_err(io_err(&html_path))?;
        }
        page.write_all(html::tail(html_rows).as_bytes())
            .map_err(io_err(&html_path))?;
        page.flush().map_err(io_err(&html_path))?;
        let summary = terminal::terminal(&metrics, join, &by);
        Ok(Built { metrics, summary })
    }
}

/// Read the next spilled line into `line`; false at the end.
fn read_spilled(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    out_dir: &Path,
) -> Result<bool, ReportError> {
    line.clear();
    Ok(reader.read_until(b'\n', line).map_err(io_err(out_dir))? > 0)
}

/// Build `report.json`, `report.md`, `results.json` and `report.html` in `out_dir` from the
/// verdicts file `verdicts` (`kgrade report`), grouping by `by`, every one of which must be a
/// column of the verdicts; by default, by `default` columns wherever the verdicts have them.
pub fn build(
    verdicts: &Path,
    out_dir: &Path,
    by: Option<&[String]>,
    default: &[String],
    join: Option<&JoinReport>,
) -> Result<Built, ReportError> {
    let mut staging = Staging::new(out_dir);
    let mut builder = ReportBuilder::new(out_dir, by.unwrap_or(default))?;
    let mut columns: Vec<String> = Vec::new();
    for_each_verdict(verdicts, |_, v| {
        for k in v.fields.keys() {
            if !columns.contains(k) {
                columns.push(k.clone());
            }
        }
        builder.add(&v, None)
    })?;
    if let Some(by) = by {
        let unknown: Vec<String> = by
            .iter()
            .filter(|c| !columns.contains(c))
            .cloned()
            .collect();
        if !unknown.is_empty() {
            return Err(ReportError::UnknownColumns {
                unknown,
                available: columns,
            });
        }
    }
    let built = builder.finish(&verdicts.display().to_string(), join, &mut staging)?;
    staging.commit().map_err(io_err(out_dir))?;
    if let Some(message) = nothing_graded(&built.metrics) {
        return Err(ReportError::NothingGraded {
            path: verdicts.to_path_buf(),
            message,
        });
    }
    Ok(built)
}

/// Why a run with these metrics graded nothing, if it did: no answers at all, or only
/// failed requests (an OpenAI batch error file, every request expired), which have no
/// answer to grade. Such a run is not a 0% model, so `grade` and `report` fail on it.
pub fn nothing_graded(m: &Metrics) -> Option<String> {
    let n = m.overall.n;
    if n == 0 {
        Some("no verdicts".to_string())
    } else if m.request_errors == n {
        Some(format!(
            "every one of the {n} answers is a failed request (request_error: no answer was given; the provider's messages are in the audit of report.md)"
        ))
    } else {
        None
    }
}
