//! `report.html`: one self-contained page (inline CSS, inline SVG charts, a few lines of
//! vanilla JavaScript for filtering; no external requests, so it opens offline and prints).
//! It shows overall accuracy with its interval, a radar of per-group accuracy, a table per
//! grouping, who decided each answer, the verifier–judge confusion matrix, label
//! distributions, circular metrics when present, and an audit table of every undecided,
//! judged or disagreeing answer with its (escaped, capped) text and the deciding span marked.
//!
//! The page is written in three parts so the audit rows can be streamed from
//! [`super::ReportBuilder`]'s spill file: [`head`] (everything but the rows), [`row`] per
//! audit row, [`tail`]. Every piece of data goes through [`escape`]. Not for metrics: they
//! arrive computed.

use super::escape::{escape, escape_into};
use super::markdown::pct;
use super::metrics::Metrics;
use super::svg;
use crate::types::{JoinReport, Source, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Characters of an answer shown in an audit row, around the deciding span.
pub const SHOWN_CHARS: usize = 4000;

/// Does the verdict get a row in the HTML audit table? Every answer the verifier did not
/// decide, and every answer a judge looked at (escalated or audit sample, so agreeing and
/// disagreeing audit answers both show).
pub fn is_shown(v: &Verdict) -> bool {
    super::metrics::is_audited(v) || v.judge.is_some()
}

/// What an audit row shows of the answer: the text before, inside and after the deciding
/// span, each side cut to fit [`SHOWN_CHARS`].
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Excerpt {
    pub before: String,
    pub mark: String,
    pub after: String,
    /// Text was left out before `before` / after `after`.
    pub cut_start: bool,
    pub cut_end: bool,
    /// Only the stored end of the answer was available (`kgrade report` from verdicts).
    pub tail_only: bool,
}

impl Excerpt {
    /// The part of `answer` to show, centred on `span` (byte range) when it is valid.
    pub fn of(answer: &str, span: Option<[usize; 2]>) -> Excerpt {
        let (before, mark, after) = match span
            .and_then(|[a, b]| Some((answer.get(..a)?, answer.get(a..b)?, answer.get(b..)?)))
        {
            Some(parts) => parts,
            // No span (or one that does not fit this text): the end is where answers
            // conclude, so show the end.
            None => (answer, "", ""),
        };
        let mark_chars = mark.chars().count();
        let (mark, mark_cut) = if mark_chars > SHOWN_CHARS {
            (first_chars(mark, SHOWN_CHARS), true)
        } else {
            (mark, false)
        };
        let budget = SHOWN_CHARS.saturating_sub(mark_chars);
        let before_chars = before.chars().count();
        let after_chars = after.chars().count();
        // Reasoning leads up to the span, so most of the budget goes before it; whatever
        // one side does not need goes to the other.
        let take_after = after_chars.min(budget / 4);
        let take_before = before_chars.min(budget - take_after);
        let take_after = after_chars.min(budget - take_before);
        Excerpt {
            before: last_chars(before, take_before).to_string(),
            mark: mark.to_string(),
            after: if mark_cut {
                String::new()
            } else {
                first_chars(after, take_after).to_string()
            },
            cut_start: take_before < before_chars,
            cut_end: mark_cut || take_after < after_chars,
            tail_only: false,
        }
    }
}

fn first_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

fn last_chars(s: &str, n: usize) -> &str {
    if n == 0 {
        return "";
    }
    s.char_indices()
        .rev()
        .nth(n - 1)
        .map_or(s, |(i, _)| &s[i..])
}

/// One row of the audit table, as spilled to disk until the page is written.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AuditRow {
    pub id: String,
    pub sample: u32,
    pub line: u64,
    /// The value of each grouping column, in `by` order ("" when the item has none).
    pub groups: Vec<String>,
    /// `undecided`, `judge_failed`, `judged`, `cached`, `audit_agree`, `audit_disagree`,
    /// `audit_failed`.
    pub outcome: String,
    pub source: String,
    pub status: String,
    pub rule: String,
    pub chosen: Option<String>,
    pub gold: String,
    pub candidates: Option<Vec<String>>,
    pub judge_choice: Option<String>,
    pub judge_reason: Option<String>,
    pub judge_error: Option<String>,
    pub text: Excerpt,
}

/// The outcomes a row can have, in the order the filter lists them, with their labels.
const OUTCOMES: [(&str, &str); 7] = [
    ("undecided", "undecided (no judge)"),
    ("judge_failed", "judge failed"),
    ("judged", "decided by the judge"),
    ("cached", "decided by the cache"),
    ("audit_disagree", "audit: judge disagrees"),
    ("audit_agree", "audit: judge agrees"),
    ("audit_failed", "audit: judge failed"),
];

impl AuditRow {
    /// The row for `v`; `answer` is the full answer text when the stream still has it.
    pub fn of(v: &Verdict, answer: Option<&str>, by: &[String]) -> AuditRow {
        let outcome = match (&v.judge, v.source) {
            (Some(j), _) if j.audit => {
                if j.error.is_some() {
                    "audit_failed"
                } else if j.choice == v.chosen {
                    "audit_agree"
                } else {
                    "audit_disagree"
                }
            }
            (_, Source::Judge) => "judged",
            (_, Source::Cache) => "cached",
            (Some(j), _) if j.error.is_some() => "judge_failed",
            _ => "undecided",
        };
        let text = match answer {
            Some(a) => Excerpt::of(a, v.span),
            None => Excerpt {
                before: v.tail.clone().unwrap_or_default(),
                tail_only: true,
                ..Excerpt::default()
            },
        };
        AuditRow {
            id: v.id.clone(),
            sample: v.sample,
            line: v.line,
            groups: by
                .iter()
                .map(|c| v.fields.get(c).cloned().unwrap_or_default())
                .collect(),
            outcome: outcome.to_string(),
            source: v.source.name().to_string(),
            status: v.status.clone(),
            rule: v.rule.clone(),
            chosen: v.chosen.clone(),
            gold: v.gold.clone(),
            candidates: v.candidates.clone(),
            judge_choice: v.judge.as_ref().and_then(|j| j.choice.clone()),
            judge_reason: v.judge.as_ref().and_then(|j| j.reason.clone()),
            judge_error: v.judge.as_ref().and_then(|j| j.error.clone()),
            text,
        }
    }
}

const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans KR","NanumGothic","Apple SD Gothic Neo","Malgun Gothic",sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#222;line-height:1.45}
h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.meta{color:#666;font-size:.9rem}
.headline{display:flex;gap:2rem;align-items:baseline;flex-wrap:wrap;margin:1rem 0}
.big{font-size:3rem;font-weight:700;color:#0072B2}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:tabular-nums}
.grid{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}
.chart text{font-family:inherit}
figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}
td.diag{background:#e3f2e3;font-weight:600}
.ans{white-space:pre-wrap;word-break:break-word;max-height:14rem;overflow:auto;font-family:ui-monospace,monospace;font-size:.8rem;min-width:24rem}
mark{background:#ffe066;font-weight:700}
.cut{color:#999;font-style:italic}
.o{padding:0 .3rem;border-radius:3px;white-space:nowrap}
.o-undecided,.o-judge_failed,.o-audit_failed{background:#fde2e2}.o-audit_disagree{background:#ffe8cc}
.o-judged,.o-cached,.o-audit_agree{background:#e3f2e3}
.filters{margin:.6rem 0;display:flex;gap:1rem;flex-wrap:wrap}
@media print{.filters{display:none}.ans{max-height:none;overflow:visible}tr{break-inside:avoid}body{margin:0}}
"#;

/// Everything before the audit rows: the metrics sections and the audit table's header.
pub fn head(m: &Metrics, join: Option<&JoinReport>, by: &[String], shown_rows: u64) -> String {
    let mut s = String::with_capacity(64 * 1024);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"ko\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>kgrade report</title><style>{STYLE}</style></head><body>\n<h1>kgrade report</h1>\n"
    );
    let _ = write!(s, "<p class=\"meta\">kgrade {}", env!("CARGO_PKG_VERSION"));
    if let Some(j) = join {
        let _ = write!(
            s,
            " · dataset <code>{}</code> ({} items) · generations <code>{}</code> ({} answers) · judge: {}",
            escape(&j.dataset),
            j.items,
            escape(&j.generations),
            j.answers,
            escape(&j.judge)
        );
    }
    s.push_str("</p>\n");
    overall_section(&mut s, m);
    // The two charts people look at first sit side by side above the detail.
    s.push_str("<div class=\"grid\">");
    radar_figure(&mut s, m, by);
    stage_figure(&mut s, m);
    s.push_str("</div>\n");
    group_tables(&mut s, m, by);
    stage_tables(&mut s, m);
    agreement_section(&mut s, m);
    labels_section(&mut s, m);
    let metrics_value = serde_json::to_value(m).ok();
    s.push_str(&circular_section(
        metrics_value.as_ref().and_then(|v| v.get("circular")),
    ));
    if let Some(j) = join {
        join_section(&mut s, j);
    }
    audit_header(&mut s, m, by, shown_rows);
    s
}

fn overall_section(s: &mut String, m: &Metrics) {
    let o = &m.overall;
    let _ = writeln!(
        s,
        "<section id=\"overall\"><div class=\"headline\"><div><div class=\"big\">{}</div>accuracy</div><div>95% Wilson interval <b>{}–{}</b><br>{} of {} answers correct · {} items (up to {} answers each)<br>Undecided answers count as wrong.</div></div>",
        pct(o.accuracy),
        pct(o.ci_low),
        pct(o.ci_high),
        o.correct,
        o.n,
        m.samples.items,
        m.samples.max_samples_per_item
    );
    s.push_str("<table><tr><th>metric</th><th>value</th></tr>");
    let mut rows = vec![
        ("balanced accuracy", pct(m.balanced_accuracy)),
        ("macro-F1", format!("{:.3}", m.macro_f1)),
        ("MCC", format!("{:.3}", m.mcc)),
    ];
    if m.samples.max_samples_per_item > 1 {
        rows.push(("mean accuracy over items", pct(m.samples.mean_accuracy)));
        rows.push((
            "majority-vote accuracy",
            pct(m.samples.majority_vote_accuracy),
        ));
    }
    for (k, v) in rows {
        let _ = write!(s, "<tr><td>{k}</td><td class=\"n\">{v}</td></tr>");
    }
    s.push_str("</table></section>\n");
}

/// The grouping the radar shows: `domain`, else KMMLU's `Category`, else the first grouping
/// with three or more values, else the first one present.
pub fn radar_column<'a>(m: &Metrics, by: &'a [String]) -> Option<&'a String> {
    let present = |c: &&String| {
        m.groups
            .get(c.as_str())
            .is_some_and(|g| !g.values.is_empty())
    };
    by.iter()
        .find(|c| c.as_str() == "domain" && present(c))
        .or_else(|| by.iter().find(|c| c.as_str() == "Category" && present(c)))
        .or_else(|| {
            by.iter().find(|c| {
                m.groups
                    .get(c.as_str())
                    .is_some_and(|g| g.values.len() >= 3)
            })
        })
        .or_else(|| by.iter().find(present))
}

fn radar_figure(s: &mut String, m: &Metrics, by: &[String]) {
    let Some(radar_col) = radar_column(m, by) else {
        return;
    };
    if let Some(g) = m.groups.get(radar_col) {
        let axes: Vec<(String, f64)> = g
            .values
            .iter()
            .map(|(k, a)| (k.clone(), a.accuracy))
            .collect();
        let _ = write!(
            s,
            "<figure id=\"radar\"><figcaption>Accuracy by {}</figcaption>{}</figure>",
            escape(radar_col),
            svg::radar(&format!("Accuracy by {radar_col}"), &axes)
        );
    }
}

fn group_tables(s: &mut String, m: &Metrics, by: &[String]) {
    if !by.iter().any(|c| m.groups.contains_key(c)) {
        return;
    }
    s.push_str("<section id=\"groups\"><h2>Accuracy by group</h2><div class=\"grid\">");
    for col in by {
        let Some(g) = m.groups.get(col) else { continue };
        let col = escape(col);
        let _ = write!(
            s,
            "<table class=\"group\"><tr><th>{col}</th><th>correct</th><th>accuracy</th><th>95% CI</th></tr>"
        );
        for (value, a) in &g.values {
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"n\">{}/{}</td><td class=\"n\">{}</td><td class=\"n\">{}–{}</td></tr>",
                escape(value),
                a.correct,
                a.n,
                pct(a.accuracy),
                pct(a.ci_low),
                pct(a.ci_high)
            );
        }
        let _ = write!(
            s,
            "<tr><td><i>macro</i></td><td></td><td class=\"n\">{}</td><td></td></tr></table>",
            pct(g.macro_accuracy)
        );
    }
    s.push_str("</div></section>\n");
}

fn stage_figure(s: &mut String, m: &Metrics) {
    let total = m.overall.n.max(1) as f64;
    let mut rows: Vec<(String, f64, String)> = m
        .verifier_rules
        .iter()
        .map(|(rule, &n)| (format!("verifier: {rule}"), n as f64, String::new()))
        .collect();
    // Runs reported before `verifier_rules` existed: one verifier bar.
    if rows.is_empty() {
        if let Some(&n) = m.stages.get("verifier").filter(|&&n| n > 0) {
            rows.push(("verifier".to_string(), n as f64, String::new()));
        }
    }
    for stage in ["judge", "cache", "unresolved"] {
        let n = m.stages.get(stage).copied().unwrap_or(0);
        rows.push((stage.to_string(), n as f64, String::new()));
    }
    for r in &mut rows {
        r.2 = format!("{} ({})", r.1, pct(r.1 / total));
    }
    let _ = write!(
        s,
        "<figure id=\"stage-chart\"><figcaption>Who decided each answer</figcaption>{}</figure>",
        svg::bars("Answers by deciding stage and verifier rule", &rows, 0.0)
    );
}

fn stage_tables(s: &mut String, m: &Metrics) {
    s.push_str("<section id=\"stages\"><h2>Who decided</h2>");
    if m.judge_failures > 0 {
        let _ = write!(
            s,
            "<p>Judge failures (unresolved after every retry): {}.</p>",
            m.judge_failures
        );
    }
    s.push_str("<div class=\"grid\"><table><tr><th>verifier outcome</th><th>answers</th></tr>");
    for (status, n) in &m.statuses {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"n\">{n}</td></tr>",
            escape(status)
        );
    }
    s.push_str("</table><table><tr><th>rule / reason</th><th>answers</th></tr>");
    for (rule, n) in &m.rules {
        let _ = write!(
            s,
            "<tr><td><code>{}</code></td><td class=\"n\">{n}</td></tr>",
            escape(rule)
        );
    }
    s.push_str("</table></div></section>\n");
}

fn agreement_section(s: &mut String, m: &Metrics) {
    let a = &m.agreement;
    s.push_str("<section id=\"agreement\"><h2>Verifier–judge agreement</h2>");
    if a.n == 0 {
        s.push_str("<p>No judge looked at verifier-decided answers in this run (no audit sample), so there is no agreement to show.</p></section>\n");
        return;
    }
    let _ = write!(
        s,
        "<p>{} of {} audited answers agree ({}); Cohen's kappa <b>{:.3}</b>.</p>",
        a.agree,
        a.n,
        pct(a.percent.unwrap_or(0.0)),
        a.kappa.unwrap_or(0.0)
    );
    let mut judge_labels: Vec<&String> = a.confusion.values().flat_map(|r| r.keys()).collect();
    judge_labels.sort();
    judge_labels.dedup();
    s.push_str("<table id=\"confusion\"><tr><th>verifier ↓ / judge →</th>");
    for l in &judge_labels {
        let _ = write!(s, "<th>{}</th>", escape(l));
    }
    s.push_str("</tr>");
    for (v, row) in &a.confusion {
        let _ = write!(s, "<tr><th>{}</th>", escape(v));
        for l in &judge_labels {
            let n = row.get(*l).copied().unwrap_or(0);
            let class = if *l == v { "n diag" } else { "n" };
            let _ = write!(s, "<td class=\"{class}\">{n}</td>");
        }
        s.push_str("</tr>");
    }
    s.push_str("</table></section>\n");
}

fn labels_section(s: &mut String, m: &Metrics) {
    let mut labels: Vec<&String> = m
        .predicted_labels
        .keys()
        .chain(m.gold_labels.keys())
        .collect();
    labels.sort();
    labels.dedup();
    let count = |map: &BTreeMap<String, u64>, l: &String| map.get(l).copied().unwrap_or(0);
    let rows: Vec<(String, Vec<f64>, String)> = labels
        .iter()
        .map(|l| {
            let (p, g) = (count(&m.predicted_labels, l), count(&m.gold_labels, l));
            ((*l).clone(), vec![p as f64, g as f64], format!("{p} / {g}"))
        })
        .collect();
    let _ = writeln!(
        s,
        "<section id=\"labels\"><h2>Labels (position bias)</h2><p>Predicted (∅ = undecided) against gold label counts: a model that favours a position shows a longer predicted bar there.</p><figure id=\"label-chart\">{}</figure></section>",
        svg::grouped_bars("Predicted and gold labels", &["predicted", "gold"], &rows, 0.0)
    );
}

/// The circular-evaluation section (OpenCompass-style metrics over permuted option orders).
/// A hook: `metrics.circular` does not exist yet; when a run's metrics carry it, every
/// number in it is listed here, and nothing is shown otherwise.
pub fn circular_section(circular: Option<&serde_json::Value>) -> String {
    let Some(obj) = circular.and_then(serde_json::Value::as_object) else {
        return String::new();
    };
    let mut s = String::from(
        "<section id=\"circular\"><h2>Circular evaluation</h2><table><tr><th>metric</th><th>value</th></tr>",
    );
    for (k, v) in obj {
        let shown = match v {
            serde_json::Value::Number(n) => match n.as_f64() {
                Some(x) if n.is_f64() && (0.0..=1.0).contains(&x) => pct(x),
                _ => n.to_string(),
            },
            other => other.to_string(),
        };
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td></tr>",
            escape(k),
            escape(&shown)
        );
    }
    s.push_str("</table></section>\n");
    s
}

fn join_section(s: &mut String, j: &JoinReport) {
    let _ = writeln!(
        s,
        "<section id=\"join\"><h2>Join</h2><ul><li>items without generations: {}</li><li>generations for unknown ids: {}</li><li>duplicate dataset ids: {}</li><li>unreadable generation lines: {}</li></ul></section>",
        list(&j.items_without_generations, j.items_without_generations.len() as u64),
        list(&j.unknown_ids_listed, j.unknown_ids),
        list(&j.duplicate_dataset_ids, j.duplicate_dataset_ids.len() as u64),
        list(&j.unreadable_listed, j.unreadable_lines)
    );
}

fn list(ids: &[String], n: u64) -> String {
    if ids.is_empty() {
        return n.to_string();
    }
    let shown: Vec<String> = ids
        .iter()
        .take(20)
        .map(|i| format!("<code>{}</code>", escape(i)))
        .collect();
    let more = n.saturating_sub(shown.len() as u64);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{n} ({}{more})", shown.join(", "))
}

fn audit_header(s: &mut String, m: &Metrics, by: &[String], shown_rows: u64) {
    let _ = write!(
        s,
        "<section id=\"audit\"><h2>Audit</h2><p>Every answer the verifier did not decide, and every answer a judge looked at: {shown_rows} rows. Answer text is shown around the deciding span (<mark>marked</mark>), at most {SHOWN_CHARS} characters.</p><div class=\"filters\">"
    );
    for (i, col) in by.iter().enumerate() {
        let Some(g) = m.groups.get(col) else { continue };
        let _ = write!(
            s,
            "<label>{} <select class=\"flt\" data-key=\"g{i}\"><option value=\"\">all</option>",
            escape(col)
        );
        for value in g.values.keys() {
            let v = escape(value);
            let _ = write!(s, "<option value=\"{v}\">{v}</option>");
        }
        s.push_str("</select></label>");
    }
    s.push_str(
        "<label>outcome <select class=\"flt\" data-key=\"outcome\"><option value=\"\">all</option>",
    );
    for (value, label) in OUTCOMES {
        let _ = write!(s, "<option value=\"{value}\">{label}</option>");
    }
    s.push_str("</select></label> <span id=\"shown\"></span></div>\n<table id=\"audit-table\"><thead><tr><th>id</th><th>sample</th><th>group</th><th>outcome</th><th>verifier</th><th>chosen</th><th>gold</th><th>judge</th><th>answer</th></tr></thead><tbody>\n");
}

/// One audit row as a table row.
pub fn row(r: &AuditRow, by: &[String]) -> String {
    let mut s = String::with_capacity(r.text.before.len() + r.text.after.len() + 1024);
    s.push_str("<tr class=\"audit-row\"");
    for (i, value) in r.groups.iter().enumerate() {
        let _ = write!(s, " data-g{i}=\"{}\"", escape(value));
    }
    let _ = write!(s, " data-outcome=\"{}\">", escape(&r.outcome));
    let _ = write!(
        s,
        "<td><code>{}</code><br><small>line {}</small></td><td class=\"n\">{}</td><td>",
        escape(&r.id),
        r.line,
        r.sample
    );
    let groups: Vec<String> = by
        .iter()
        .zip(&r.groups)
        .filter(|(_, v)| !v.is_empty())
        .map(|(c, v)| format!("{}: {}", escape(c), escape(v)))
        .collect();
    s.push_str(&groups.join("<br>"));
    let label = OUTCOMES
        .iter()
        .find(|(k, _)| *k == r.outcome)
        .map_or(r.outcome.as_str(), |(_, l)| l);
    let _ = write!(
        s,
        "</td><td><span class=\"o o-{}\">{}</span><br><small>{}</small></td><td>{}<br><code>{}</code>",
        escape(&r.outcome),
        escape(label),
        escape(&r.source),
        escape(&r.status),
        escape(&r.rule)
    );
    if let Some(c) = &r.candidates {
        let _ = write!(s, "<br>candidates: {}", escape(&c.join(", ")));
    }
    let _ = write!(
        s,
        "</td><td>{}</td><td>{}</td><td>",
        escape(r.chosen.as_deref().unwrap_or("—")),
        escape(&r.gold)
    );
    if let Some(c) = &r.judge_choice {
        let _ = write!(s, "<b>{}</b>", escape(c));
    }
    if let Some(reason) = &r.judge_reason {
        let _ = write!(s, "<br><small>{}</small>", escape(reason));
    }
    if let Some(e) = &r.judge_error {
        let _ = write!(s, "<br><small>failed: {}</small>", escape(e));
    }
    s.push_str("</td><td><div class=\"ans\">");
    let t = &r.text;
    if t.tail_only {
        s.push_str("<span class=\"cut\">[end of the answer only: the report was rebuilt from verdicts]</span>\n");
    } else if t.cut_start {
        s.push_str("<span class=\"cut\">[… earlier text cut]</span>\n");
    }
    escape_into(&mut s, &t.before);
    if !t.mark.is_empty() {
        s.push_str("<mark>");
        escape_into(&mut s, &t.mark);
        s.push_str("</mark>");
    }
    escape_into(&mut s, &t.after);
    if t.cut_end {
        s.push_str("\n<span class=\"cut\">[later text cut …]</span>");
    }
    s.push_str("</div></td></tr>\n");
    s
}

const SCRIPT: &str = r#"
(function () {
  var selects = Array.prototype.slice.call(document.querySelectorAll('select.flt'));
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr.audit-row'));
  var shown = document.getElementById('shown');
  function apply() {
    var n = 0;
    rows.forEach(function (row) {
      var ok = selects.every(function (s) {
        return s.value === '' || row.getAttribute('data-' + s.getAttribute('data-key')) === s.value;
      });
      row.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = n + ' of ' + rows.length + ' rows shown';
  }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  apply();
})();
"#;

/// Everything after the audit rows.
pub fn tail(rows: u64) -> String {
    let empty = if rows == 0 {
        "<tr><td colspan=\"9\">None: the verifier decided every answer and no judge ran.</td></tr>"
    } else {
        ""
    };
    format!("{empty}</tbody></table></section>\n<script>{SCRIPT}</script>\n</body></html>\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::JudgeInfo;

    fn verdict() -> Verdict {
        Verdict {
            id: "x<1>".into(),
            sample: 0,
            status: "ambiguous".into(),
            rule: "conflicting_statements".into(),
            span: None,
            chosen: None,
            gold: "②".into(),
            correct: false,
            source: Source::Unresolved,
            choices: "circled:4".into(),
            fields: [("domain".to_string(), "금융 & \"보험\"".to_string())].into(),
            candidates: Some(vec!["①".into(), "②".into()]),
            tail: Some("…정답은 ② <end>".into()),
            note: None,
            line: 7,
            judge: None,
            ..Verdict::default()
        }
    }

    #[test]
    fn excerpt_marks_the_span_and_cuts_around_it() {
        let answer = "<think>abc</think>정답은 ③ & 끝";
        let start = answer.find('③').unwrap();
        let e = Excerpt::of(answer, Some([start, start + '③'.len_utf8()]));
        assert_eq!(e.mark, "③");
        assert_eq!(e.before, "<think>abc</think>정답은 ");
        assert_eq!(e.after, " & 끝");
        assert!(!e.cut_start && !e.cut_end);

        let long = format!("{}정답은 ③{}", "가".repeat(10_000), "나".repeat(10_000));
        let at = long.find('③').unwrap();
        let e = Excerpt::of(&long, Some([at, at + 3]));
        let shown = e.before.chars().count() + e.mark.chars().count() + e.after.chars().count();
        assert_eq!(shown, SHOWN_CHARS);
        assert!(e.cut_start && e.cut_end && e.before.ends_with("정답은 "));
        assert_eq!(e.after.chars().count(), (SHOWN_CHARS - 1) / 4);

        // No span: the end of the answer, cut at the start.
        let e = Excerpt::of(&long, None);
        assert!(e.cut_start && !e.cut_end && e.mark.is_empty());
        assert!(e.before.ends_with('나') && e.before.chars().count() == SHOWN_CHARS);
        // A span that is not on character boundaries of this text is ignored, not a panic.
        let e = Excerpt::of("정답", Some([1, 2]));
        assert_eq!((e.before.as_str(), e.mark.as_str()), ("정답", ""));
    }

    #[test]
    fn rows_escape_every_field_and_carry_filter_keys() {
        let by = vec!["domain".to_string()];
        let mut v = verdict();
        v.judge = Some(JudgeInfo {
            judge: "ollama:m".into(),
            rubric: "r@1".into(),
            choice: Some("②".into()),
            reason: Some("it says <b>②</b> & 'final'".into()),
            error: None,
            cached: false,
            audit: false,
        });
        v.source = Source::Judge;
        let answer = "<|channel|>final<|message|>정답은 ② <script>alert(1)</script>";
        let r = AuditRow::of(&v, Some(answer), &by);
        assert_eq!(r.outcome, "judged");
        let html = row(&r, &by);
        assert!(
            html.contains(r#"data-g0="금융 &amp; &quot;보험&quot;""#),
            "{html}"
        );
        assert!(html.contains(r#"data-outcome="judged""#));
        assert!(html.contains("&lt;|channel|&gt;final&lt;|message|&gt;"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("it says &lt;b&gt;②&lt;/b&gt; &amp; &#39;final&#39;"));
        assert!(html.contains("<code>x&lt;1&gt;</code>"));
        assert!(!html.contains("<script>") && !html.contains("says <b>"));

        // Without the answer (a rebuilt report), the stored tail is shown and says so.
        let r = AuditRow::of(&verdict(), None, &by);
        assert_eq!(r.outcome, "undecided");
        let html = row(&r, &by);
        assert!(html.contains("end of the answer only") && html.contains("&lt;end&gt;"));
    }

    #[test]
    fn outcomes_of_the_audit_sample() {
        let mut v = verdict();
        v.status = "answer".into();
        v.chosen = Some("①".into());
        v.source = Source::Verifier;
        assert!(!is_shown(&v));
        let info = |choice: Option<&str>, error: Option<&str>| JudgeInfo {
            judge: "j".into(),
            rubric: "r@1".into(),
            choice: choice.map(str::to_string),
            reason: None,
            error: error.map(str::to_string),
            cached: false,
            audit: true,
        };
        v.judge = Some(info(Some("①"), None));
        assert!(is_shown(&v));
        assert_eq!(AuditRow::of(&v, None, &[]).outcome, "audit_agree");
        v.judge = Some(info(Some("②"), None));
        assert_eq!(AuditRow::of(&v, None, &[]).outcome, "audit_disagree");
        v.judge = Some(info(None, Some("timeout")));
        assert_eq!(AuditRow::of(&v, None, &[]).outcome, "audit_failed");
    }

    #[test]
    fn circular_hook_renders_only_when_present() {
        assert_eq!(circular_section(None), "");
        let c = serde_json::json!({"acc_origin": 0.75, "acc_circular": 0.5, "more_4": 3});
        let s = circular_section(Some(&c));
        assert!(s.contains("acc_circular") && s.contains("50.0%") && s.contains(">3<"));
    }

    #[test]
    fn a_page_is_complete_and_makes_no_external_requests() {
        let m = Metrics::default();
        let page = format!("{}{}", head(&m, None, &[], 0), tail(0));
        assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
        for bad in ["src=\"http", "href=\"http", "@import", "url("] {
            assert!(!page.contains(bad), "{bad}");
        }
        assert!(page.contains("id=\"stage-chart\""));
    }
}
