//! Dataset-controlled text in the reports (audit 28, F): group values, ids and model names
//! holding HTML are escaped in `report.md` and `leaderboard.md` (the HTML pages already
//! escaped them); an empty group value shows as `(empty)` and can be filtered on in
//! `report.html` (its option had the value of "all"); a grouping with more values than a radar
//! can show gets a note instead of 300 spokes; `leaderboard.html`'s subtitle shows the
//! dataset path without Markdown backticks.

mod support;

use std::fmt::Write as _;

#[test]
fn markup_in_data_is_escaped_empty_values_are_named_and_big_groupings_get_no_radar() {
    let tmp = tempfile::tempdir().unwrap();
    let mut csv = String::from("id,q,a,field,area\n");
    let mut gen = String::new();
    let fields = [
        "<script>alert('dom')</script>",
        "<img src=x onerror=alert(0)>",
        "",
    ];
    for i in 0..15 {
        let id = if i == 0 {
            "<b>id0</b>".to_string()
        } else {
            format!("q{i}")
        };
        let field = fields[i % 3];
        let _ = writeln!(csv, "{id},\"문제 {i}? ① 가 ② 나\",1,\"{field}\",area{i}");
        let response = if i % 2 == 0 {
            "정답은 ①"
        } else {
            "모르겠다"
        };
        let _ = writeln!(gen, "{{\"id\":\"{id}\",\"response\":\"{response}\"}}");
    }
    let dataset = support::write(tmp.path(), "d.csv", csv);
    let generations = support::write(tmp.path(), "g.jsonl", gen);
    let out = tmp.path().join("run");
    support::grade(
        &[
            "--id-col",
            "id",
            "--question-col",
            "q",
            "--answer-col",
            "a",
            "--by",
            "area,field",
        ],
        &dataset,
        &generations,
        &out,
    )
    .assert()
    .success();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("<script>") && !md.contains("<img"), "{md}");
    assert!(
        md.contains("| &lt;script&gt;alert('dom')&lt;/script&gt; |"),
        "{md}"
    );
    assert!(md.contains("| (empty) |"), "{md}");
    assert!(!md.contains("| <b>"), "{md}");

    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<option value=\"=\">(empty)</option>"),
        "empty value filter"
    );
    assert!(html.contains("<option value=\"\">all</option>"));
    assert!(html.contains("data-g1=\"=\""), "rows carry the empty value");
    assert!(
        html.contains("No radar chart: area has 15 values"),
        "radar note"
    );
    assert!(!html.contains("<figure id=\"radar\">"));

    let lb = tmp.path().join("lb");
    let second = tmp.path().join("run2");
    support::grade(
        &["--id-col", "id", "--question-col", "q", "--answer-col", "a"],
        &dataset,
        &generations,
        &second,
    )
    .assert()
    .success();
    support::kgrade()
        .arg("compare")
        .arg(&out)
        .arg(&second)
        .arg("--out")
        .arg(&lb)
        .assert()
        .success();
    let page = std::fs::read_to_string(lb.join("leaderboard.html")).unwrap();
    let path = dataset.canonicalize().unwrap().display().to_string();
    assert!(page.contains(&format!("items of {path}")), "{page}");
    assert!(!page.contains('`'), "no Markdown backticks in the page");
}
