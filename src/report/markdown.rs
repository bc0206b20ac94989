//! `report.md`: the metrics as Markdown tables, for a pull request or a wiki page. The audit
//! rows are appended by [`super::ReportBuilder`] as it reads them back.

use super::metrics::{self, Metrics};
use crate::types::JoinReport;
use std::fmt::Write as _;

pub(super) fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

pub(super) fn acc_cells(a: &metrics::Accuracy) -> [String; 3] {
    [
        format!("{}/{}", a.correct, a.n),
        pct(a.accuracy),
        format!("{}–{}", pct(a.ci_low), pct(a.ci_high)),
    ]
}

/// Markdown cells: one line, pipes escaped, trimmed, and `& < >` written as entities, so that
/// HTML in a group value, id or model name (`<img onerror=…>`) shows as text.
pub(super) fn md_cell(s: &str) -> String {
    md_line(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One line, pipes escaped, trimmed (inside a code span entities would show as written).
fn md_line(s: &str) -> String {
    s.replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        .trim()
        .to_string()
}

/// Untrusted text (a model's answer, a judge's reason) as a Markdown table cell: a code span,
/// so that HTML and Markdown in it (`<script>`, links, `**bold**`) show as written instead of
/// being rendered by whatever displays the file; one line, pipes escaped.
pub(super) fn md_code(s: &str) -> String {
    let cell = md_line(s);
    if cell.is_empty() {
        return cell;
    }
    // A code span's fence is longer than any run of backticks inside it.
    let longest = cell.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    format!("{fence} {cell} {fence}")
}

pub(super) fn markdown(m: &Metrics, join: Option<&JoinReport>, by: &[String]) -> String {
    let mut s = String::new();
    let o = &m.overall;
    let _ = writeln!(s, "# kgrade report\n");
    let [c, a, ci] = acc_cells(o);
    let _ = writeln!(
        s,
        "**Accuracy: {a}** ({c} answers over {} items; 95% Wilson interval {ci}{}). Undecided answers count as wrong.\n",
        m.samples.items,
        o.interval_basis()
    );
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
    // "one answer each", or "up to 3 answers each".
    let each = match m.samples.max_samples_per_item {
        1 => "one answer each".to_string(),
        k => format!("up to {k} answers each"),
    };
    let _ = match join {
        Some(j) => writeln!(
            s,
            "| items | {} in the dataset, {} with answers ({each}) |",
            j.items, m.samples.items
        ),
        None => writeln!(s, "| items | {} with answers ({each}) |", m.samples.items),
    };
    if let (Some(acc), Some(norm)) = (&m.acc, &m.acc_norm) {
        let _ = writeln!(s, "| acc (loglikelihood) | {} |", pct(acc.accuracy));
        let _ = writeln!(s, "| acc_norm (loglikelihood) | {} |", pct(norm.accuracy));
    }
    if m.request_errors > 0 {
        let _ = writeln!(
            s,
            "| failed requests (no answer; counted as wrong, apart from model mistakes) | {} |",
            m.request_errors
        );
    }
    let _ = writeln!(s, "\n## Who decided\n\n| stage | answers |\n|---|---|");
    for (stage, n) in &m.stages {
        let _ = writeln!(s, "| {stage} | {n} |");
    }
    if let Some(j) = join {
        let _ = writeln!(s, "\nJudge: {}.", j.judge);
    }
    if m.judge_reason_conflicts > 0 {
        let _ = writeln!(
            s,
            "\nJudge replies whose reason names another option than their choice (flagged `reason_conflict` in the verdicts): {}.",
            m.judge_reason_conflicts
        );
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
            a.agree, a.n, pct(a.percent.unwrap_or(0.0)), a.kappa.unwrap_or(0.0)
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
                    md_code(d.judge_reason.as_deref().unwrap_or(""))
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
            let shown = md_cell(super::shown_value(value));
            let _ = writeln!(s, "| {shown} | {c} | {acc} | {ci} |");
        }
        let _ = writeln!(s, "| *macro* | | {} | |", pct(g.macro_accuracy));
    }
    if let Some(c) = &m.circular {
        circular_section(&mut s, c);
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
    if let Some(j) = join.filter(|j| !j.lm_eval.is_empty()) {
        let _ = writeln!(
            s,
            "\n## lm-eval's own scores beside kgrade's\n\nlm-eval's per-filter figures are read from its samples files; kgrade extracts every answer itself.\n\n| task | lm-eval metric,filter | lm-eval | kgrade accuracy |\n|---|---|---|---|"
        );
        for (task, scores) in &j.lm_eval {
            let kgrade = m
                .groups
                .get("task")
                .and_then(|g| g.values.get(task))
                .unwrap_or(&m.overall);
            for (key, value) in scores {
                let _ = writeln!(
                    s,
                    "| {} | `{key}` | {} | {} |",
                    md_cell(task),
                    pct(*value),
                    pct(kgrade.accuracy)
                );
            }
        }
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
    let shown: Vec<String> = ids.iter().take(20).map(|i| md_code(i)).collect();
    let more = if ids.len() > 20 {
        format!(" and {} more", ids.len() - 20)
    } else {
        String::new()
    };
    format!(" ({}{more})", shown.join(", "))
}

/// OpenCompass's circular metrics: overall, then one row per group value.
fn circular_section(s: &mut String, c: &super::circular::CircularMetrics) {
    let more = super::circular::more_keys(&c.overall.more);
    let _ = writeln!(
        s,
        "\n## Circular evaluation\n\nMode `{}`: up to {} orderings per item; {} items kept their one original ordering.",
        c.mode, c.orderings, c.single_ordering_items
    );
    for note in super::circular::notes(c) {
        let _ = writeln!(s, "{note}");
    }
    let _ = writeln!(s);
    let head: Vec<String> = more.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(
        s,
        "| group | items | acc_origin | acc_circular | perf_circular |{}\n|---|---|---|---|---|{}",
        head.iter().map(|h| format!(" {h} |")).collect::<String>(),
        "---|".repeat(head.len())
    );
    let mut row = |name: &str, x: &super::circular::CircularScores| {
        let cells: String = more
            .iter()
            .map(|k| format!(" {} |", pct(x.more.get(*k).copied().unwrap_or(0.0))))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |{cells}",
            md_cell(name),
            x.items,
            if x.origin_items == 0 {
                "n/a".to_string()
            } else {
                pct(x.acc_origin)
            },
            pct(x.acc_circular),
            pct(x.perf_circular)
        );
    };
    row("*overall*", &c.overall);
    for (col, values) in &c.groups {
        for (value, x) in values {
            row(&format!("{col}: {}", super::shown_value(value)), x);
        }
    }
}
