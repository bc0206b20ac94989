//! Unit tests of the parent module.
use super::audit::*;
use super::*;
use crate::types::{JudgeInfo, Source, Verdict};

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
        reason_conflict: false,
    });
    v.source = Source::Judge;
    let answer = "<|channel|>final<|message|>정답은 ② <script>alert(1)</script>";
    let r = AuditRow::of(&v, Some(answer), &by);
    assert_eq!(r.outcome, "judged");
    let html = row(&r, &by);
    assert!(
        html.contains(r#"data-g0="=금융 &amp; &quot;보험&quot;""#),
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
        reason_conflict: false,
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
    let mut c = crate::report::circular::CircularMetrics::default();
    c.overall.items = 3;
    c.overall.acc_circular = 0.5;
    c.overall.more.insert("more_3".into(), 0.75);
    let s = circular_section(Some(&c));
    assert!(s.contains("acc_circular") && s.contains("50.0%") && s.contains("75.0%"));
    // No answer in the original ordering: acc_origin has no denominator (as report.md says).
    assert!(s.contains("<td class=\"n\">n/a</td>"), "{s}");
    c.overall.origin_items = 1;
    c.missing_orderings = 2;
    c.items_missing_orderings = 1;
    let s = circular_section(Some(&c));
    assert!(!s.contains("n/a") && s.contains("2 orderings of 1 items have no answer"));
}

/// Trial 38: `more_N` columns sorted as text (more_1, more_10, more_11, …, more_2).
#[test]
fn more_columns_follow_their_number() {
    let mut c = crate::report::circular::CircularMetrics::default();
    for n in [1, 2, 10, 11, 3] {
        c.overall.more.insert(format!("more_{n}"), 0.5);
    }
    let s = circular_section(Some(&c));
    let at = |k: &str| s.find(&format!("<th>{k}</th>")).unwrap();
    assert!(
        at("more_1") < at("more_2")
            && at("more_3") < at("more_10")
            && at("more_10") < at("more_11")
    );
    let json = serde_json::to_string(&c.overall).unwrap();
    let at = |k: &str| json.find(&format!("\"{k}\"")).unwrap();
    assert!(at("more_3") < at("more_10"), "{json}");
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
