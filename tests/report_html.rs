//! `report.html` as a user gets it: the bundled sample graded by the real binary, the page
//! checked as text (escaping, no external requests, every section and audit row), rebuilt
//! by `kgrade report`, and opened in headless Chromium (no console errors, the script ran,
//! a screenshot saved). The Chromium test says it was skipped when Chromium is absent;
//! install it with `apt-get install chromium`.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn kgrade() -> Command {
    Command::cargo_bin("kgrade").unwrap()
}

fn grade(out: &Path, generations: &str) {
    kgrade()
        .args(["grade", "--dataset", "data/domain_eval_sample.csv"])
        .args(["--generations", generations, "--out"])
        .arg(out)
        .assert()
        .success();
}

fn report_json(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// `src=` / `href=` / CSS `url(` pointing off the page.
fn external_references(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let mut found = Vec::new();
    for attr in ["src=", "href=", "url(", "@import"] {
        for (at, _) in lower.match_indices(attr) {
            let rest = lower[at + attr.len()..].trim_start_matches(['"', '\'', ' ']);
            if rest.starts_with("http:") || rest.starts_with("https:") || rest.starts_with("//") {
                found.push(lower[at..(at + 60).min(lower.len())].to_string());
            }
        }
    }
    found
}

#[test]
fn sample_report_html_has_every_section_and_escapes_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    grade(&out, "data/generations_reasoning.jsonl");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let m = &report_json(&out)["metrics"];

    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert_eq!(external_references(&html), Vec::<String>::new());
    for id in [
        "id=\"overall\"",
        "id=\"radar\"",
        "class=\"chart radar\"",
        "id=\"stage-chart\"",
        "id=\"groups\"",
        "id=\"agreement\"",
        "id=\"label-chart\"",
        "id=\"audit-table\"",
    ] {
        assert!(html.contains(id), "{id} missing");
    }
    // No circular metrics in this run, so no circular section.
    assert!(!html.contains("id=\"circular\""));
    let acc = m["overall"]["accuracy"].as_f64().unwrap();
    assert!(html.contains(&format!("{:.1}%", 100.0 * acc)));
    // One radar axis per domain.
    let domains = m["groups"]["domain"]["values"].as_object().unwrap();
    assert_eq!(html.matches("class=\"axis\"").count(), domains.len());
    for d in domains.keys() {
        assert!(html.contains(&format!(">{d}</text>")), "{d}");
    }
    // Without a judge the audit rows are exactly the report.json audit list.
    let audit = report_json(&out)["audit"].as_array().unwrap().len();
    assert!(audit > 0);
    assert_eq!(html.matches("<tr class=\"audit-row\"").count(), audit);
    assert_eq!(
        html.matches("data-outcome=\"undecided\"").count(),
        audit,
        "no judge ran"
    );
    // Answers carry gpt-oss channel markers and <think>: escaped, never markup.
    assert!(html.contains("&lt;|channel|&gt;"));
    assert!(!html.contains("<|channel|>") && !html.contains("<think>"));
    // Ambiguous answers have a span: it is marked.
    assert!(html.contains("<mark>"));
    // Exactly one script, the filter, and it is inline.
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.contains("<script>\n(function ()"));
}

#[test]
fn rebuilt_report_writes_html_from_the_stored_tails() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    grade(&out, "data/generations_terse.jsonl");
    let first = std::fs::read_to_string(out.join("report.html")).unwrap();
    std::fs::remove_file(out.join("report.html")).unwrap();
    kgrade()
        .arg("report")
        .arg(out.join("verdicts.jsonl"))
        .assert()
        .success()
        .stdout(predicates::str::contains("report.html"));
    let rebuilt = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(
        first.matches("audit-row").count(),
        rebuilt.matches("audit-row").count()
    );
    assert!(rebuilt.contains("end of the answer only"));
    assert!(!first.contains("end of the answer only"));
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Run headless Chromium on `page`; its stdout (the DOM after scripts ran, with
/// `--dump-dom`) and the console lines it logged.
fn headless(chrome: &Path, page: &Path, extra: &[&str]) -> (String, Vec<String>) {
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let console = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(str::to_string)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

#[test]
fn html_reports_open_in_headless_chromium_without_console_errors() {
    let Some(chrome) = chromium() else {
        eprintln!(
            "SKIPPED: Chromium not found in PATH (install it with `apt-get install chromium`)"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (r, t) = (tmp.path().join("r"), tmp.path().join("t"));
    grade(&r, "data/generations_reasoning.jsonl");
    grade(&t, "data/generations_terse.jsonl");
    let lb = tmp.path().join("lb");
    kgrade()
        .args(["compare", "--common-items", "--bootstrap", "200", "--out"])
        .arg(&lb)
        .arg(&r)
        .arg(&t)
        .assert()
        .success();

    let audit = report_json(&r)["audit"].as_array().unwrap().len();
    let (dom, console) = headless(&chrome, &r.join("report.html"), &["--dump-dom"]);
    assert!(console.is_empty(), "console: {console:?}");
    assert!(dom.contains("class=\"chart radar\"") && dom.contains("id=\"stage-chart\""));
    assert_eq!(dom.matches("class=\"audit-row\"").count(), audit);
    // The filter script ran: it writes how many rows are shown.
    assert!(
        dom.contains(&format!("{audit} of {audit} rows shown")),
        "the filter script did not run"
    );

    let (dom, console) = headless(&chrome, &lb.join("leaderboard.html"), &["--dump-dom"]);
    assert!(console.is_empty(), "console: {console:?}");
    assert_eq!(dom.matches("class=\"model\"").count(), 2);
    assert!(dom.contains("id=\"rating-chart\"") && dom.contains("class=\"dot\""));

    // Screenshots for a person to look at, kept under target/.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (page, name) in [
        (r.join("report.html"), "report-html.png"),
        (lb.join("leaderboard.html"), "leaderboard-html.png"),
    ] {
        let shot = shots.join(name);
        let _ = std::fs::remove_file(&shot);
        let (_, console) = headless(
            &chrome,
            &page,
            &[
                &format!("--screenshot={}", shot.display()),
                // Tall enough for the charts at the top and the audit table at the end.
                "--window-size=1280,4400",
            ],
        );
        assert!(console.is_empty(), "console: {console:?}");
        let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
        assert!(size > 10_000, "{} is {size} bytes", shot.display());
        eprintln!("screenshot: {}", shot.display());
    }
}
