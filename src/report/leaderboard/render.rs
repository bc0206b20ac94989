//! The leaderboard as Markdown (`leaderboard.md`), a self-contained HTML page
//! (`leaderboard.html`, inline SVG, no external requests) and a terminal table. Pure: a
//! [`Leaderboard`] in, text out.

use super::super::escape::escape;
use super::super::markdown::{md_cell, pct};
use super::super::svg;
use super::{DatasetIdentity, Leaderboard};
use comfy_table::{presets::UTF8_FULL, Table};
use std::fmt::Write as _;

fn p_value(p: f64) -> String {
    if p < 0.0001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// A rating and its interval, `[lo, hi]` so that negative ratings read plainly (`[-113, -55]`,
/// not `-113–-55`); `—` without an interval (`--bootstrap 0`).
fn rating(r: f64, lo: Option<f64>, hi: Option<f64>) -> (String, String) {
    let ci = match (lo, hi) {
        (Some(lo), Some(hi)) => format!("[{lo:.0}, {hi:.0}]"),
        _ => "—".to_string(),
    };
    (format!("{r:.0}"), ci)
}

fn bootstrap_note(b: &Leaderboard) -> String {
    if b.bootstrap == 0 {
        "no intervals (--bootstrap 0)".to_string()
    } else {
        format!(
            "95% bootstrap intervals over items ({} resamples, seed {})",
            b.bootstrap, b.seed
        )
    }
}

/// The leaderboard's first line; `path` writes the dataset's path (a code span in Markdown and
/// the terminal, plain in HTML).
fn intro(b: &Leaderboard, path: fn(&str) -> String) -> String {
    let mut s = format!("{} runs on {} items of ", b.models.len(), b.items);
    if b.dataset.is_empty() {
        s.push_str("a dataset no run records");
    } else {
        s.push_str(&path(&b.dataset));
    }
    if b.dataset_identity == DatasetIdentity::Items {
        let _ = write!(
            s,
            " (no run.json in {}: {}; the runs agree on every item's gold answer and columns, \
             which is all that was checked)",
            b.runs_without_run_json.join(", "),
            if b.dataset.is_empty() {
                "the dataset cannot be established"
            } else {
                "its dataset is not recorded"
            }
        );
    }
    s.push('.');
    for (run, n) in &b.dropped_items {
        let _ = write!(s, " Left out by --common-items: {n} of {run}'s items.");
    }
    s
}

/// The leaderboard in Markdown.
pub fn markdown(b: &Leaderboard) -> String {
    let mut s = String::new();
    let elo = b.models.iter().any(|m| m.elo.is_some());
    let _ = writeln!(
        s,
        "# kgrade leaderboard\n\n{}\n",
        md_cell(&intro(b, |p| format!("`{p}`")))
    );
    let _ = writeln!(
        s,
        "Each run's answers to an item count as one right or wrong (the outcome column: one answer; a majority vote over samples; for a circular run, right in every ordering or in the original one). Accuracy is the share of items right, with a 95% Wilson interval. Ratings are Bradley–Terry on per-item head-to-head outcomes (ties skipped), Elo-scaled (mean 1000), with {}.\n",
        bootstrap_note(b)
    );
    let _ = writeln!(
        s,
        "| rank | model | outcome | accuracy | 95% CI | BT rating | 95% CI |{}\n|---|---|---|---|---|---|---|{}",
        if elo { " online Elo |" } else { "" },
        if elo { "---|" } else { "" }
    );
    for m in &b.models {
        let (r, ci) = rating(m.bt_rating, m.bt_ci_low, m.bt_ci_high);
        let _ = write!(
            s,
            "| {} | {} | {} | {} | {}–{} | {r} | {ci} |",
            m.rank,
            md_cell(&m.model),
            m.outcome.describe(m.answers_per_item),
            pct(m.accuracy),
            pct(m.ci_low),
            pct(m.ci_high)
        );
        if let Some(e) = m.elo {
            let _ = write!(s, " {e:.0} |");
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "\n## Head to head\n\n| a | b | a only | b only | ties | McNemar p |\n|---|---|---|---|---|---|"
    );
    for p in &b.pairs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            md_cell(&p.a),
            md_cell(&p.b),
            p.a_only,
            p.b_only,
            p.ties,
            p_value(p.mcnemar_p)
        );
    }
    for col in &b.group_by {
        let values = group_values(b, col);
        if values.is_empty() {
            continue;
        }
        let names: Vec<String> = b.models.iter().map(|m| md_cell(&m.model)).collect();
        let _ = writeln!(
            s,
            "\n## By {col}\n\n| {col} | {} |\n|---|{}",
            names.join(" | "),
            "---|".repeat(names.len())
        );
        for v in values {
            let cells: Vec<String> = b
                .models
                .iter()
                .map(|m| {
                    m.groups
                        .get(col)
                        .and_then(|g| g.get(&v))
                        .map_or_else(String::new, |a| pct(*a))
                })
                .collect();
            let _ = writeln!(s, "| {} | {} |", md_cell(&v), cells.join(" | "));
        }
    }
    s
}

fn group_values(b: &Leaderboard, col: &str) -> Vec<String> {
    let mut values: Vec<String> = b
        .models
        .iter()
        .filter_map(|m| m.groups.get(col))
        .flat_map(|g| g.keys().cloned())
        .collect();
    values.sort();
    values.dedup();
    values
}

/// The leaderboard as one self-contained HTML page.
pub fn html(b: &Leaderboard) -> String {
    let mut s = String::with_capacity(32 * 1024);
    s.push_str("<!DOCTYPE html>\n<html lang=\"ko\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>kgrade leaderboard</title><style>");
    s.push_str(r#"body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans KR","NanumGothic","Apple SD Gothic Neo","Malgun Gothic",sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#222;line-height:1.45}
h2{margin-top:2rem;border-bottom:1px solid #ddd}table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left}th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:.5rem 0}figcaption{font-weight:600}.meta{color:#666}@media print{body{margin:0}}"#);
    s.push_str("</style></head><body>\n<h1>kgrade leaderboard</h1>\n");
    let _ = writeln!(
        s,
        "<p class=\"meta\">{}</p>",
        escape(&intro(b, str::to_string))
    );
    let elo = b.models.iter().any(|m| m.elo.is_some());
    s.push_str("<table id=\"leaderboard\"><tr><th>rank</th><th>model</th><th>outcome</th><th>accuracy</th><th>95% CI</th><th>BT rating</th><th>95% CI</th>");
    if elo {
        s.push_str("<th>online Elo</th>");
    }
    s.push_str("<th>run</th></tr>");
    for m in &b.models {
        let (r, ci) = rating(m.bt_rating, m.bt_ci_low, m.bt_ci_high);
        let _ = write!(
            s,
            "<tr class=\"model\"><td class=\"n\">{}</td><td><b>{}</b></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}–{}</td><td class=\"n\">{r}</td><td class=\"n\">{ci}</td>",
            m.rank,
            escape(&m.model),
            m.outcome.describe(m.answers_per_item),
            pct(m.accuracy),
            pct(m.ci_low),
            pct(m.ci_high)
        );
        if let Some(e) = m.elo {
            let _ = write!(s, "<td class=\"n\">{e:.0}</td>");
        }
        let _ = write!(s, "<td><code>{}</code></td></tr>", escape(&m.run));
    }
    s.push_str("</table>\n");
    let ratings: Vec<(String, f64, f64, f64)> = b
        .models
        .iter()
        .map(|m| {
            let (lo, hi) = (m.bt_ci_low, m.bt_ci_high);
            let r = m.bt_rating;
            (m.model.clone(), r, lo.unwrap_or(r), hi.unwrap_or(r))
        })
        .collect();
    let accuracies: Vec<(String, f64, f64, f64)> = b
        .models
        .iter()
        .map(|m| (m.model.clone(), m.accuracy, m.ci_low, m.ci_high))
        .collect();
    let _ = writeln!(
        s,
        "<figure id=\"rating-chart\"><figcaption>Bradley–Terry rating, {}</figcaption>{}</figure><figure id=\"accuracy-chart\"><figcaption>Accuracy with 95% Wilson interval</figcaption>{}</figure>",
        bootstrap_note(b),
        svg::intervals("Bradley–Terry ratings", &ratings),
        svg::intervals("Accuracy", &accuracies)
    );
    s.push_str("<h2>Head to head</h2><table id=\"pairs\"><tr><th>a</th><th>b</th><th>a only</th><th>b only</th><th>ties</th><th>McNemar p</th></tr>");
    for p in &b.pairs {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&p.a),
            escape(&p.b),
            p.a_only,
            p.b_only,
            p.ties,
            p_value(p.mcnemar_p)
        );
    }
    s.push_str("</table>\n");
    for col in &b.group_by {
        let values = group_values(b, col);
        if values.is_empty() {
            continue;
        }
        let _ = write!(
            s,
            "<h2>By {}</h2><table class=\"group\"><tr><th>{}</th>",
            escape(col),
            escape(col)
        );
        for m in &b.models {
            let _ = write!(s, "<th>{}</th>", escape(&m.model));
        }
        s.push_str("</tr>");
        for v in values {
            let _ = write!(s, "<tr><td>{}</td>", escape(&v));
            for m in &b.models {
                let cell = m
                    .groups
                    .get(col)
                    .and_then(|g| g.get(&v))
                    .map_or_else(String::new, |a| pct(*a));
                let _ = write!(s, "<td class=\"n\">{cell}</td>");
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>\n");
    }
    s.push_str("</body></html>\n");
    s
}

/// The leaderboard as a terminal table.
pub fn terminal(b: &Leaderboard) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL);
    crate::report::terminal::fit_width(&mut t);
    let elo = b.models.iter().any(|m| m.elo.is_some());
    let mut header = vec![
        "rank",
        "model",
        "outcome",
        "accuracy",
        "95% CI",
        "BT rating",
        "95% CI",
    ];
    if elo {
        header.push("online Elo");
    }
    t.set_header(header);
    for m in &b.models {
        let (r, ci) = rating(m.bt_rating, m.bt_ci_low, m.bt_ci_high);
        let mut row = vec![
            m.rank.to_string(),
            m.model.clone(),
            m.outcome.describe(m.answers_per_item),
            pct(m.accuracy),
            format!("{}–{}", pct(m.ci_low), pct(m.ci_high)),
            r,
            ci,
        ];
        if let Some(e) = m.elo {
            row.push(format!("{e:.0}"));
        }
        t.add_row(row);
    }
    let mut s = format!("{}\n{t}\n", intro(b, |p| format!("`{p}`")));
    for p in &b.pairs {
        let _ = writeln!(
            s,
            "{} vs {}: {} only {}, {} only {}, McNemar p = {}",
            p.a,
            p.b,
            p.a,
            p.a_only,
            p.b,
            p.b_only,
            p_value(p.mcnemar_p)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::rating;

    #[test]
    fn rating_intervals_read_plainly_when_negative_or_absent() {
        assert_eq!(
            rating(-84.4, Some(-113.2), Some(-55.0)),
            ("-84".to_string(), "[-113, -55]".to_string())
        );
        assert_eq!(rating(1000.0, None, None).1, "—");
    }
}
