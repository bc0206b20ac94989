//! The audit part of `report.html`: which answers get a row, the excerpt of each answer
//! around its deciding span, the rows themselves (streamed from the report's spill file), the
//! filter controls and the little script that filters them.

use crate::report::escape::{escape, escape_into};
use crate::report::metrics::Metrics;
use crate::types::{Source, Verdict};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Characters of an answer shown in an audit row, around the deciding span.
pub const SHOWN_CHARS: usize = 4000;

/// Does the verdict get a row in the HTML audit table? Every answer the verifier did not
/// decide, and every answer a judge looked at (escalated or audit sample, so agreeing and
/// disagreeing audit answers both show).
pub fn is_shown(v: &Verdict) -> bool {
    crate::report::metrics::is_audited(v) || v.judge.is_some()
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
    /// `undecided`, `judge_failed`, `judged`, `audit_agree`, `audit_disagree`,
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
const OUTCOMES: [(&str, &str); 6] = [
    ("undecided", "undecided (no judge)"),
    ("judge_failed", "judge failed"),
    ("judged", "decided by the judge"),
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

pub(super) fn audit_header(s: &mut String, m: &Metrics, by: &[String], shown_rows: u64) {
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
        // Values are matched with a leading `=`, so that an empty value is not "all" (`""`).
        for value in g.values.keys() {
            let _ = write!(
                s,
                "<option value=\"={}\">{}</option>",
                escape(value),
                escape(crate::report::shown_value(value))
            );
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
        let _ = write!(s, " data-g{i}=\"={}\"", escape(value));
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
