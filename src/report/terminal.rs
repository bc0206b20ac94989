//! The terminal summary printed after `grade`, `judge` and `report`: overall accuracy with its
//! interval, who decided, agreement, and one table of every grouping.

use super::markdown::{acc_cells, pct};
use super::metrics::Metrics;
use crate::types::JoinReport;
use std::fmt::Write as _;

pub(super) fn terminal(m: &Metrics, join: Option<&JoinReport>, by: &[String]) -> String {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
    let mut out = String::new();
    let [c, a, ci] = acc_cells(&m.overall);
    let _ = writeln!(
        out,
        "accuracy {a} ({c} answers over {} items; undecided answers count as wrong), 95% CI {ci}",
        m.samples.items
    );
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
            pct(m.agreement.percent.unwrap_or(0.0)),
            m.agreement.kappa.unwrap_or(0.0)
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
