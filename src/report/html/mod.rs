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

use super::escape::escape;
use super::markdown::pct;
use super::metrics::Metrics;
use super::svg;
use crate::types::JoinReport;
use std::collections::BTreeMap;
use std::fmt::Write as _;

mod audit;
use audit::audit_header;
pub use audit::{is_shown, row, tail, AuditRow};

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
.o-judged,.o-audit_agree{background:#e3f2e3}
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
    s.push_str(&circular_section(m.circular.as_ref()));
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
        "<section id=\"overall\"><div class=\"headline\"><div><div class=\"big\">{}</div>accuracy</div><div>95% Wilson interval <b>{}–{}</b>{}<br>{} of {} answers correct · {} items (up to {} answers each)<br>Undecided answers count as wrong.</div></div>",
        pct(o.accuracy),
        pct(o.ci_low),
        pct(o.ci_high),
        o.interval_basis(),
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

/// The most values a radar chart shows: beyond this its spokes and labels run together.
const RADAR_MAX_AXES: usize = 12;

fn radar_figure(s: &mut String, m: &Metrics, by: &[String]) {
    let Some(radar_col) = radar_column(m, by) else {
        return;
    };
    if let Some(g) = m.groups.get(radar_col) {
        if g.values.len() > RADAR_MAX_AXES {
            let _ = write!(
                s,
                "<p class=\"note\">No radar chart: {} has {} values, more than {RADAR_MAX_AXES} spokes can show; see its table below.</p>",
                escape(radar_col),
                g.values.len()
            );
            return;
        }
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
                escape(crate::report::shown_value(value)),
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
    for stage in ["judge", "unresolved"] {
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

/// The circular-evaluation section (OpenCompass's metrics over permuted option orders):
/// overall, then one row per group value; nothing when the run has no orderings.
pub fn circular_section(circular: Option<&super::circular::CircularMetrics>) -> String {
    let Some(c) = circular else {
        return String::new();
    };
    let more = super::circular::more_keys(&c.overall.more);
    let mut s = format!(
        "<section id=\"circular\"><h2>Circular evaluation</h2><p>Mode <code>{}</code>: up to {} orderings per item; {} items kept their one original ordering. <code>perf_circular</code> counts an item only when every ordering of it was answered right.",
        escape(&c.mode),
        c.orderings,
        c.single_ordering_items
    );
    for note in super::circular::notes(c) {
        let _ = write!(s, " {note}");
    }
    s.push_str("</p><table><tr><th>group</th><th>items</th><th>acc_origin</th><th>acc_circular</th><th>perf_circular</th>");
    for k in &more {
        let _ = write!(s, "<th>{}</th>", escape(k));
    }
    s.push_str("</tr>");
    let mut row = |name: &str, x: &super::circular::CircularScores| {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            escape(name),
            x.items,
            if x.origin_items == 0 {
                "n/a".to_string()
            } else {
                pct(x.acc_origin)
            },
            pct(x.acc_circular),
            pct(x.perf_circular)
        );
        for k in &more {
            let _ = write!(
                s,
                "<td class=\"n\">{}</td>",
                pct(x.more.get(*k).copied().unwrap_or(0.0))
            );
        }
        s.push_str("</tr>");
    };
    row("overall", &c.overall);
    for (col, values) in &c.groups {
        for (value, x) in values {
            row(&format!("{col}: {}", crate::report::shown_value(value)), x);
        }
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

#[cfg(test)]
mod tests;
