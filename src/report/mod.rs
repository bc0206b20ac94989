//! Reports from a verdicts file: `report.json` (versioned schema, documented in the README),
//! `report.md`, and a terminal summary. Built by streaming `verdicts.jsonl` twice (metrics,
//! then the audit list), so `kgrade report` and `kgrade grade` share one path and memory
//! stays flat. Not for deciding anything: verdicts are final when they reach here.

pub mod metrics;

use crate::pipeline::{JoinReport, Verdict};
use metrics::{is_audited, Accumulator, Metrics};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// The `schema` value of `report.json`; bump `REPORT_VERSION` on any incompatible change.
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
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Stream the verdicts in `path`, calling `f` on each.
pub fn for_each_verdict(
    path: &Path,
    mut f: impl FnMut(Verdict) -> io::Result<()>,
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
            message: format!("not a verdict: {e}"),
        })?;
        f(v).map_err(io_err(path))?;
    }
}

#[derive(Serialize)]
struct Head<'a> {
    schema: &'static str,
    version: u32,
    generated_by: String,
    verdicts: String,
    group_by: &'a [String],
    judge: &'a str,
    join: Option<&'a JoinReport>,
    metrics: &'a Metrics,
}

/// One entry of the audit list.
#[derive(Serialize)]
struct AuditEntry<'a> {
    id: &'a str,
    sample: u32,
    line: u64,
    status: &'a str,
    reason: &'a str,
    gold: &'a str,
    candidates: &'a Option<Vec<String>>,
    tail: &'a Option<String>,
    note: &'a Option<String>,
}

/// What `build` wrote, for the terminal.
pub struct Built {
    pub metrics: Metrics,
    pub summary: String,
}

/// Build `report.json` and `report.md` in `out_dir` from `verdicts`, grouping by `by`.
pub fn build(
    verdicts: &Path,
    out_dir: &Path,
    by: &[String],
    join: Option<&JoinReport>,
) -> Result<Built, ReportError> {
    let mut acc = Accumulator::new(by);
    for_each_verdict(verdicts, |v| {
        acc.add(&v);
        Ok(())
    })?;
    let metrics = acc.finish();
    let judge = join.map_or("not configured", |j| j.judge.as_str());
    let head = Head {
        schema: REPORT_SCHEMA,
        version: REPORT_VERSION,
        generated_by: format!("kgrade {}", env!("CARGO_PKG_VERSION")),
        verdicts: verdicts.display().to_string(),
        group_by: by,
        judge,
        join,
        metrics: &metrics,
    };

    let json_path = out_dir.join("report.json");
    let md_path = out_dir.join("report.md");
    let mut json =
        io::BufWriter::new(std::fs::File::create(&json_path).map_err(io_err(&json_path))?);
    let mut md = io::BufWriter::new(std::fs::File::create(&md_path).map_err(io_err(&md_path))?);

    let head_text =
        serde_json::to_string_pretty(&head).map_err(|e| io_err(&json_path)(io::Error::other(e)))?;
    let open = head_text
        .trim_end()
        .strip_suffix('}')
        .unwrap_or(&head_text)
        .trim_end();
    write!(json, "{open},\n  \"audit\": [").map_err(io_err(&json_path))?;
    md.write_all(markdown(&metrics, join, by).as_bytes())
        .map_err(io_err(&md_path))?;
    writeln!(md, "\n## Audit: every answer the verifier did not decide\n")
        .map_err(io_err(&md_path))?;
    if metrics.audit_count == 0 {
        writeln!(md, "None.").map_err(io_err(&md_path))?;
    } else {
        writeln!(md, "| id | sample | status | reason | gold | candidates | end of answer |\n|---|---|---|---|---|---|---|")
            .map_err(io_err(&md_path))?;
    }
    let mut first = true;
    for_each_verdict(verdicts, |v| {
        if !is_audited(&v) {
            return Ok(());
        }
        let entry = AuditEntry {
            id: &v.id,
            sample: v.sample,
            line: v.line,
            status: &v.status,
            reason: &v.rule,
            gold: &v.gold,
            candidates: &v.candidates,
            tail: &v.tail,
            note: &v.note,
        };
        json.write_all(if first { b"\n    " } else { b",\n    " })?;
        first = false;
        serde_json::to_writer(&mut json, &entry).map_err(io::Error::other)?;
        writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            md_cell(&v.id),
            v.sample,
            v.status,
            v.rule,
            v.gold,
            v.candidates
                .as_ref()
                .map(|c| c.join(", "))
                .unwrap_or_default(),
            md_cell(v.tail.as_deref().unwrap_or(""))
        )
    })?;
    write!(json, "{}]\n}}\n", if first { "" } else { "\n  " }).map_err(io_err(&json_path))?;
    json.flush().map_err(io_err(&json_path))?;
    md.flush().map_err(io_err(&md_path))?;
    let summary = terminal(&metrics, join, by);
    Ok(Built { metrics, summary })
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn acc_cells(a: &metrics::Accuracy) -> [String; 3] {
    [
        format!("{}/{}", a.correct, a.n),
        pct(a.accuracy),
        format!("{}–{}", pct(a.ci_low), pct(a.ci_high)),
    ]
}

/// Markdown cells: one line, pipes escaped, trimmed.
fn md_cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        .trim()
        .to_string()
}

fn markdown(m: &Metrics, join: Option<&JoinReport>, by: &[String]) -> String {
    let mut s = String::new();
    let o = &m.overall;
    let _ = writeln!(s, "# kgrade report\n");
    let [c, a, ci] = acc_cells(o);
    let _ = writeln!(s, "**Accuracy: {a}** ({c} answers; 95% Wilson interval {ci}). Undecided answers count as wrong.\n");
    let _ = writeln!(s, "| metric | value |\n|---|---|");
    let _ = writeln!(s, "| balanced accuracy | {} |", pct(m.balanced_accuracy));
    let _ = writeln!(s, "| macro-F1 | {:.3} |", m.macro_f1);
    let _ = writeln!(s, "| MCC | {:.3} |", m.mcc);
    if m.samples.max_samples_per_item > 1 {
        let _ = writeln!(
            s,
            "| mean accuracy over items | {} |",
            pct(m.samples.mean_accuracy)
        );
        let _ = writeln!(
            s,
            "| majority-vote accuracy | {} |",
            pct(m.samples.majority_vote_accuracy)
        );
    }
    let _ = writeln!(
        s,
        "| items | {} (up to {} answers each) |",
        m.samples.items, m.samples.max_samples_per_item
    );
    let _ = writeln!(s, "\n## Who decided\n\n| stage | answers |\n|---|---|");
    for (stage, n) in &m.stages {
        let _ = writeln!(s, "| {stage} | {n} |");
    }
    if let Some(j) = join {
        let _ = writeln!(s, "\nJudge: {}.", j.judge);
    }
    if m.judge_failures > 0 {
        let _ = writeln!(
            s,
            "\nJudge failures (unresolved after every retry): {}.",
            m.judge_failures
        );
    }
    let a = &m.agreement;
    if a.n > 0 {
        let _ = writeln!(
            s,
            "\n## Verifier–judge agreement (audit sample)\n\n{} of {} agree ({}); Cohen's kappa {:.3}.\n",
            a.agree, a.n, pct(a.percent), a.kappa
        );
        let mut judge_labels: Vec<&String> = a.confusion.values().flat_map(|r| r.keys()).collect();
        judge_labels.sort();
        judge_labels.dedup();
        let header: Vec<String> = judge_labels.iter().map(|l| format!("judge {l}")).collect();
        let _ = writeln!(
            s,
            "| verifier | {} |\n|---|{}",
            header.join(" | "),
            "---|".repeat(judge_labels.len())
        );
        for (v, row) in &a.confusion {
            let cells: Vec<String> = judge_labels
                .iter()
                .map(|l| row.get(*l).copied().unwrap_or(0).to_string())
                .collect();
            let _ = writeln!(s, "| {v} | {} |", cells.join(" | "));
        }
        if !a.disagreements.is_empty() {
            let _ = writeln!(s, "\n| id | sample | verifier | rule | judge | judge's reason |\n|---|---|---|---|---|---|");
            for d in &a.disagreements {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} |",
                    md_cell(&d.id),
                    d.sample,
                    d.verifier,
                    d.verifier_rule,
                    d.judge,
                    md_cell(d.judge_reason.as_deref().unwrap_or(""))
                );
            }
        }
    }
    let _ = writeln!(s, "\n| verifier outcome | answers |\n|---|---|");
    for (status, n) in &m.statuses {
        let _ = writeln!(s, "| {status} | {n} |");
    }
    let _ = writeln!(s, "\n| rule / reason | answers |\n|---|---|");
    for (rule, n) in &m.rules {
        let _ = writeln!(s, "| `{rule}` | {n} |");
    }
    for col in by {
        let Some(g) = m.groups.get(col) else { continue };
        let _ = writeln!(
            s,
            "\n## By {col}\n\n| {col} | correct | accuracy | 95% CI |\n|---|---|---|---|"
        );
        for (value, a) in &g.values {
            let [c, acc, ci] = acc_cells(a);
            let _ = writeln!(s, "| {} | {c} | {acc} | {ci} |", md_cell(value));
        }
        let _ = writeln!(s, "| *macro* | | {} | |", pct(g.macro_accuracy));
    }
    let _ = writeln!(
        s,
        "\n## Labels (position bias)\n\n| label | predicted | gold |\n|---|---|---|"
    );
    let mut labels: Vec<&String> = m
        .predicted_labels
        .keys()
        .chain(m.gold_labels.keys())
        .collect();
    labels.sort();
    labels.dedup();
    for l in labels {
        let _ = writeln!(
            s,
            "| {l} | {} | {} |",
            m.predicted_labels.get(l).copied().unwrap_or(0),
            m.gold_labels.get(l).copied().unwrap_or(0)
        );
    }
    if let Some(j) = join {
        let _ = writeln!(s, "\n## Join\n");
        let _ = writeln!(
            s,
            "- dataset `{}`: {} items; generations `{}`: {} answers",
            j.dataset, j.items, j.generations, j.answers
        );
        let counts: [(&str, u64, &[String]); 4] = [
            (
                "items without generations",
                j.items_without_generations.len() as u64,
                &j.items_without_generations,
            ),
            (
                "generations for unknown ids",
                j.unknown_ids,
                &j.unknown_ids_listed,
            ),
            (
                "duplicate dataset ids",
                j.duplicate_dataset_ids.len() as u64,
                &j.duplicate_dataset_ids,
            ),
            (
                "unreadable generation lines",
                j.unreadable_lines,
                &j.unreadable_listed,
            ),
        ];
        for (what, n, listed) in counts {
            let _ = writeln!(s, "- {what}: {n}{}", list(listed));
        }
    }
    s
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = ids
        .iter()
        .take(20)
        .map(|i| format!("`{}`", md_cell(i)))
        .collect();
    let more = if ids.len() > 20 {
        format!(" and {} more", ids.len() - 20)
    } else {
        String::new()
    };
    format!(" ({}{more})", shown.join(", "))
}

fn terminal(m: &Metrics, join: Option<&JoinReport>, by: &[String]) -> String {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
    let mut out = String::new();
    let [c, a, ci] = acc_cells(&m.overall);
    let _ = writeln!(out, "accuracy {a} ({c}), 95% CI {ci}");
    let stages: Vec<String> = m.stages.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "decided by: {}", stages.join(", "));
    if let Some(j) = join {
        let _ = writeln!(out, "judge: {}", j.judge);
    }
    if m.agreement.n > 0 {
        let _ = writeln!(
            out,
            "verifier-judge agreement on {} audited answers: {}, Cohen's kappa {:.3}",
            m.agreement.n,
            pct(m.agreement.percent),
            m.agreement.kappa
        );
    }
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(["group", "value", "correct", "accuracy", "95% CI"]);
    for col in by {
        let Some(g) = m.groups.get(col) else { continue };
        for (value, a) in &g.values {
            let [c, acc, ci] = acc_cells(a);
            table.add_row([col.as_str(), value.as_str(), &c, &acc, &ci]);
        }
        table.add_row([col.as_str(), "(macro)", "", &pct(g.macro_accuracy), ""]);
    }
    if !m.groups.is_empty() {
        let _ = writeln!(out, "{table}");
    }
    let _ = writeln!(
        out,
        "audit: {} answers the verifier did not decide",
        m.audit_count
    );
    out
}
