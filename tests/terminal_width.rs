//! The terminal tables fit the width they are shown in (audit 28: with `COLUMNS=60`, long
//! Korean group values made 200-column rows). `COLUMNS` sets the width; a pipe without it
//! keeps whole cells on one line, so a log or `grep` still sees each value whole.

mod support;

use std::fmt::Write as _;
use std::path::Path;

/// Display columns of a line: Hangul, CJK and full-width forms take two, the rest one.
fn columns(line: &str) -> usize {
    line.chars()
        .map(|c| match c {
            '\u{1100}'..='\u{115F}'
            | '\u{2E80}'..='\u{303E}'
            | '\u{3041}'..='\u{33FF}'
            | '\u{3400}'..='\u{4DBF}'
            | '\u{4E00}'..='\u{9FFF}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{FF00}'..='\u{FF60}' => 2,
            _ => 1,
        })
        .sum()
}

const LONG: &str = "금융감독원 전자금융거래 안전성 확보 및 이용자 보호를 위한 세부 시행 기준 해설";

/// Two graded runs of 12 items grouped by a column with long Korean values.
fn runs(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut csv = String::from("id,q,a,area\n");
    let mut first = String::new();
    let mut second = String::new();
    for i in 0..12 {
        let _ = writeln!(csv, "q{i},\"문제 {i}? ① 가 ② 나\",1,\"{LONG} {}\"", i % 3);
        let (a, b) = if i % 2 == 0 {
            ("①", "②")
        } else {
            ("②", "①")
        };
        let _ = writeln!(first, "{{\"id\":\"q{i}\",\"response\":\"정답은 {a}\"}}");
        let _ = writeln!(second, "{{\"id\":\"q{i}\",\"response\":\"정답은 {b}\"}}");
    }
    let dataset = support::write(dir, "d.csv", csv);
    let flags = [
        "--id-col",
        "id",
        "--question-col",
        "q",
        "--answer-col",
        "a",
        "--by",
        "area",
    ];
    let mut outs = Vec::new();
    for (name, gen) in [("one", first), ("two", second)] {
        let generations = support::write(dir, &format!("{name}.jsonl"), gen);
        let out = dir.join(name);
        support::grade(&flags, &dataset, &generations, &out)
            .env_remove("COLUMNS")
            .assert()
            .success();
        outs.push(out);
    }
    (outs.remove(0), outs.remove(0))
}

fn table_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with(['│', '┌', '├', '└', '╞', '╭', '╰', '+', '|']))
        .collect()
}

#[test]
fn tables_fit_columns_and_a_pipe_keeps_whole_cells() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = runs(tmp.path());

    let report = |columns: Option<&str>| {
        let mut cmd = support::kgrade();
        cmd.arg("report").arg(&one).arg("--by").arg("area");
        match columns {
            Some(c) => cmd.env("COLUMNS", c),
            None => cmd.env_remove("COLUMNS"),
        };
        let out = cmd.assert().success().get_output().stdout.clone();
        String::from_utf8(out).unwrap()
    };

    // No COLUMNS and a pipe: one row per value, the value whole, wider than 60 columns.
    let piped = report(None);
    let rows = table_lines(&piped);
    assert!(
        rows.iter().any(|l| l.contains(&format!("{LONG} 0"))),
        "{piped}"
    );
    assert!(rows.iter().any(|l| columns(l) > 100), "{piped}");

    // COLUMNS=60: every table line fits, and the value's words are all still there.
    let fitted = report(Some("60"));
    let rows = table_lines(&fitted);
    assert!(!rows.is_empty(), "{fitted}");
    for l in &rows {
        assert!(columns(l) <= 60, "{} columns: {l}\n{fitted}", columns(l));
    }
    for word in LONG.split(' ') {
        assert!(fitted.contains(word), "{word} lost:\n{fitted}");
    }
    assert_eq!(
        fitted.matches("50.0%").count(),
        piped.matches("50.0%").count(),
        "the same cells:\n{piped}\n{fitted}"
    );

    // The leaderboard too.
    let lb = tmp.path().join("lb");
    let out = support::kgrade()
        .env("COLUMNS", "50")
        .arg("compare")
        .arg(&one)
        .arg(&two)
        .arg("--out")
        .arg(&lb)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let board = String::from_utf8(out).unwrap();
    let rows = table_lines(&board);
    assert!(!rows.is_empty(), "{board}");
    for l in &rows {
        assert!(columns(l) <= 50, "{} columns: {l}\n{board}", columns(l));
    }
}
