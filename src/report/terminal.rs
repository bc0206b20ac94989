//! The terminal summary printed after `grade`, `judge` and `report`: overall accuracy with its
//! interval, who decided, agreement, and one table of every grouping.

use super::markdown::{acc_cells, pct};
use super::metrics::Metrics;
use crate::types::JoinReport;
use std::fmt::Write as _;

/// Fit a terminal table to the width it is shown in: `COLUMNS` when it is set (as `ls` and
/// most tools read it), else the width of the terminal standard output is, and no limit when
/// standard output is a pipe or a file (whole cells, one row per line). Long cells wrap
/// inside their column; Korean text counts two columns a syllable.
pub(crate) fn fit_width(table: &mut comfy_table::Table) {
    use comfy_table::ContentArrangement;
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<u16>().ok())
        .filter(|&w| w >= 20);
    if let Some(w) = columns {
        table.set_width(w);
    } else if !table.is_tty() {
        return;
    }
    table.set_content_arrangement(ContentArrangement::Dynamic);
}

pub(super) fn terminal(m: &Metrics, join: Option<&JoinReport>, by: &[String]) -> String {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
    let mut out = String::new();
    let [c, a, ci] = acc_cells(&m.overall);
    let _ = writeln!(
        out,
        "accuracy {a} ({c} answers over {} items; undecided answers count as wrong), 95% CI {ci}{}",
        m.samples.items,
        m.overall.interval_basis()
    );
    if let (Some(acc), Some(norm)) = (&m.acc, &m.acc_norm) {
        let _ = writeln!(
            out,
            "loglikelihood: acc {}, acc_norm {}",
            pct(acc.accuracy),
            pct(norm.accuracy)
        );
    }
    if m.request_errors > 0 {
        let _ = writeln!(
            out,
            "failed requests: {} answers have no text (the request failed); counted as wrong, apart from model mistakes",
            m.request_errors
        );
    }
    if let Some(j) = join {
        for (task, scores) in &j.lm_eval {
            let shown: Vec<String> = scores
                .iter()
                .map(|(k, v)| format!("{k} {}", pct(*v)))
                .collect();
            let task = if task.is_empty() {
                String::new()
            } else {
                format!(" for {task}")
            };
            let _ = writeln!(out, "lm-eval's own scores{task}: {}", shown.join(", "));
        }
    }
    if let Some(c) = &m.circular {
        let _ = writeln!(
            out,
            "circular ({}, {} orderings at most, {} items with one): acc_origin {}, acc_circular {}, perf_circular {}",
            c.mode,
            c.orderings,
            c.single_ordering_items,
            if c.overall.origin_items == 0 {
                "n/a (no answer in the original ordering)".to_string()
            } else {
                pct(c.overall.acc_origin)
            },
            pct(c.overall.acc_circular),
            pct(c.overall.perf_circular)
        );
        if c.missing_orderings > 0 {
            let _ = writeln!(
                out,
                "circular: {} orderings of {} items have no answer (failed requests?): each counts as wrong",
                c.missing_orderings, c.items_missing_orderings
            );
        }
        if c.duplicate_answers > 0 {
            let _ = writeln!(
                out,
                "circular: {} answers repeat an ordering their item already had in the same sample (a file given twice, a retry beside its failure) and were not counted",
                c.duplicate_answers
            );
        }
    }
    let stages: Vec<String> = m.stages.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "decided by: {}", stages.join(", "));
    if let Some(j) = join {
        let _ = writeln!(out, "judge: {}", j.judge);
        if !j.judge_calls.is_empty() {
            let _ = writeln!(out, "judge calls: {}", j.judge_calls);
        }
    }
    if m.judge_reason_conflicts > 0 {
        let _ = writeln!(
            out,
            "judge replies whose reason names another option than their choice: {} (flagged reason_conflict)",
            m.judge_reason_conflicts
        );
    }
    if m.agreement.n > 0 {
        let _ = writeln!(
            out,
            "verifier-judge agreement on {} audited answers: {}, Cohen's kappa {:.3}",
            m.agreement.n,
            pct(m.agreement.percent.unwrap_or(0.0)),
            m.agreement.kappa.unwrap_or(0.0)
        );
    }
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    fit_width(&mut table);
    table.set_header(["group", "value", "correct", "accuracy", "95% CI"]);
    for col in by {
        let Some(g) = m.groups.get(col) else { continue };
        for (value, a) in &g.values {
            let [c, acc, ci] = acc_cells(a);
            table.add_row([col.as_str(), super::shown_value(value), &c, &acc, &ci]);
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
