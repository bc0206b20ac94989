//! `kgrade compare` driven as a user would: the bundled sample graded from its two
//! generation files, compared. The reasoning file has no answer for `fin-21`, so the plain
//! comparison is refused (naming the id) and `--common-items` compares the 59 shared items;
//! a copy of the terse file without `fin-21` gives two runs over the same items, whose
//! leaderboard accuracies must equal each run's own report.

mod support;

use serde_json::Value;
use std::path::Path;
use support::{kgrade, read_json};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Grade `generations` into `cwd/out` (run directories named relatively, so the
/// leaderboard's `run` fields do not depend on where the test runs).
fn grade(cwd: &Path, out: &str, generations: &Path) {
    kgrade()
        .current_dir(cwd)
        .args(["grade", "--dataset"])
        .arg(Path::new(ROOT).join("data/domain_eval_sample.csv"))
        .arg("--generations")
        .arg(generations)
        .args(["--out", out])
        .assert()
        .success();
}

/// Exact two-sided McNemar by hand: 2 · Σ_{k ≤ min} C(n, k) / 2^n, in integers.
fn mcnemar_by_hand(b: u64, c: u64) -> f64 {
    let n = b + c;
    let mut binom: u128 = 1;
    let mut tail: u128 = 0;
    for k in 0..=b.min(c) {
        if k > 0 {
            binom = binom * u128::from(n - k + 1) / u128::from(k);
        }
        tail += binom;
    }
    (2.0 * tail as f64 / 2f64.powi(n as i32)).min(1.0)
}

/// Floats to 6 decimals, so the snapshot does not hang on the last bits of libm.
fn rounded(v: Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or_default();
            Value::from((x * 1e6).round() / 1e6)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(rounded).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, rounded(v))).collect()),
        other => other,
    }
}

struct Sample {
    dir: tempfile::TempDir,
}

/// r: reasoning run (59 items, some with two samples); t: terse run (60 items);
/// t59: terse without fin-21 (59 items, the same as r).
fn sample() -> Sample {
    let dir = tempfile::tempdir().unwrap();
    grade(
        dir.path(),
        "r",
        &Path::new(ROOT).join("data/generations_reasoning.jsonl"),
    );
    grade(
        dir.path(),
        "t",
        &Path::new(ROOT).join("data/generations_terse.jsonl"),
    );
    let terse =
        std::fs::read_to_string(Path::new(ROOT).join("data/generations_terse.jsonl")).unwrap();
    let without: String = terse
        .lines()
        .filter(|l| !l.contains("\"fin-21\""))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(without.lines().count(), terse.lines().count() - 1);
    let t59 = dir.path().join("terse59.jsonl");
    std::fs::write(&t59, without).unwrap();
    grade(dir.path(), "t59", &t59);
    Sample { dir }
}

#[test]
fn leaderboard_of_the_bundled_runs() {
    let s = sample();
    let cwd = s.dir.path();

    // Different item sets are refused, naming counts and ids.
    kgrade()
        .current_dir(cwd)
        .args(["compare", "r", "t", "--out", "lb"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "r has 59 items, t has 60; 1 only in t (`fin-21`)",
        ));
    assert!(!cwd.join("lb").exists());

    // The same items: the leaderboard's accuracies are the reports' own.
    kgrade()
        .current_dir(cwd)
        .args([
            "compare",
            "r",
            "t59",
            "--out",
            "lb",
            "--bootstrap",
            "300",
            "--seed",
            "7",
            "--elo",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("McNemar p"));
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    let models = board["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    assert_eq!(board["items"], 59);
    for m in models {
        let run = m["run"].as_str().unwrap();
        let metrics = &read_json(&cwd.join(run).join("report.json"))["metrics"];
        // Each item is one outcome: with one sample per item this is the overall accuracy,
        // with several the report's majority vote (`samples.majority_vote_accuracy`).
        let want = metrics["samples"]["majority_vote_accuracy"]
            .as_f64()
            .unwrap();
        let got = m["accuracy"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-12, "{run}: {got} vs {want}");
        if metrics["samples"]["max_samples_per_item"] == 1 {
            let overall = &metrics["overall"];
            assert!((got - overall["accuracy"].as_f64().unwrap()).abs() < 1e-12);
            assert!(
                (m["ci_low"].as_f64().unwrap() - overall["ci_low"].as_f64().unwrap()).abs() < 1e-12
            );
            for (value, acc) in metrics["groups"]["domain"]["values"].as_object().unwrap() {
                let lb = m["groups"]["domain"][value].as_f64().unwrap();
                assert!(
                    (lb - acc["accuracy"].as_f64().unwrap()).abs() < 1e-12,
                    "{value}"
                );
            }
        }
        let (lo, r, hi) = (
            m["bt_ci_low"].as_f64().unwrap(),
            m["bt_rating"].as_f64().unwrap(),
            m["bt_ci_high"].as_f64().unwrap(),
        );
        assert!(lo <= r && r <= hi, "{lo} {r} {hi}");
        assert!(m["elo"].as_f64().is_some());
    }
    // Ratings centre on 1000 and the order agrees with the head-to-head counts.
    let r0 = models[0]["bt_rating"].as_f64().unwrap();
    let r1 = models[1]["bt_rating"].as_f64().unwrap();
    assert!(((r0 + r1) / 2.0 - 1000.0).abs() < 1e-9);
    let pair = &board["pairs"][0];
    assert_eq!(pair["a"], models[0]["model"]);
    let (a_only, b_only) = (
        pair["a_only"].as_u64().unwrap(),
        pair["b_only"].as_u64().unwrap(),
    );
    assert!(r0 > r1 && a_only > b_only, "{r0} {r1} {a_only} {b_only}");
    assert_eq!(models[0]["model"], "t59");
    // Two runs: p_a / p_b = (a_only + 0.1) / (b_only + 0.1) exactly.
    let gap = 400.0 * ((a_only as f64 + 0.1) / (b_only as f64 + 0.1)).log10();
    assert!((r0 - r1 - gap).abs() < 1e-6);
    // McNemar against the hand computation, and the value measured on this sample.
    let p = pair["mcnemar_p"].as_f64().unwrap();
    assert!((p - mcnemar_by_hand(a_only, b_only)).abs() < 1e-12, "{p}");
    // An item whose undecided answers outvote its one right answer is not right by majority
    // vote (23 and 9 when undecided answers had no vote).
    assert_eq!((a_only, b_only), (24, 8));
    // 2 · Σ_{k≤8} C(32, k) / 2^32 = 2 · 15_033_173 / 4_294_967_296.
    assert!(
        (p - 2.0 * 15_033_173.0 / 4_294_967_296.0).abs() < 1e-15,
        "{p}"
    );

    let md = std::fs::read_to_string(cwd.join("lb/leaderboard.md")).unwrap();
    let md = md.replace(
        &Path::new(ROOT).join("data").display().to_string(),
        "[data]",
    );
    insta::assert_snapshot!("leaderboard_md", md);
    let mut board = rounded(board);
    board["dataset"] = Value::from("[data]/domain_eval_sample.csv");
    insta::assert_json_snapshot!("leaderboard_json", board);

    let html = std::fs::read_to_string(cwd.join("lb/leaderboard.html")).unwrap();
    assert!(html.contains("id=\"rating-chart\"") && !html.contains("src=\"http"));
    assert!(!html.contains("href=\"http"));
}

#[test]
fn common_items_and_refusals() {
    let s = sample();
    let cwd = s.dir.path();
    kgrade()
        .current_dir(cwd)
        .args([
            "compare",
            "r",
            "t",
            "--common-items",
            "--bootstrap",
            "0",
            "--out",
            "lb",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "Left out by --common-items: 1 of t's items",
        ));
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    assert_eq!(board["items"], 59);
    assert_eq!(board["dropped_items"]["t"], 1);
    // No bootstrap: no interval (not a zero-width one that reads as certainty).
    let m = &board["models"][0];
    assert!(m["bt_ci_low"].is_null() && m["bt_ci_high"].is_null(), "{m}");

    // A run over another dataset (another path and another content) is refused, naming both.
    let run_json = cwd.join("t59/run.json");
    let mut run = read_json(&run_json);
    run["dataset"] = Value::from("other.csv");
    run["dataset_blake3"] = Value::from("0".repeat(64));
    std::fs::write(&run_json, run.to_string()).unwrap();
    kgrade()
        .current_dir(cwd)
        .args(["compare", "r", "t59", "--out", "lb2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("different datasets"))
        .stderr(predicates::str::contains("`other.csv`"));
    // One run is not a comparison; a directory without verdicts is not a run.
    kgrade()
        .current_dir(cwd)
        .args(["compare", "r", "--out", "lb3"])
        .assert()
        .code(2);
    std::fs::create_dir(cwd.join("nothing")).unwrap();
    kgrade()
        .current_dir(cwd)
        .args(["compare", "r", "nothing", "--out", "lb3"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nothing: no verdicts.jsonl here"));
}

/// Audit 19, message 11: compare told datasets apart by path, so a copy of the dataset (a
/// moved checkout, another machine) could not be compared, while a dataset edited in place
/// under the same path passed. Runs now record the dataset's content hash.
#[test]
fn datasets_are_the_same_by_content_not_by_path() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let original =
        std::fs::read_to_string(Path::new(ROOT).join("data/domain_eval_sample.csv")).unwrap();
    let copy = cwd.join("copy.csv");
    std::fs::write(&copy, &original).unwrap();
    let terse = Path::new(ROOT).join("data/generations_terse.jsonl");
    let grade_with = |dataset: &Path, out: &str| {
        kgrade()
            .current_dir(cwd)
            .args(["grade", "--dataset"])
            .arg(dataset)
            .arg("--generations")
            .arg(&terse)
            .args(["--out", out])
            .assert()
            .success();
    };
    grade(cwd, "a", &terse);
    grade_with(&copy, "b");
    kgrade()
        .current_dir(cwd)
        .args(["compare", "a", "b", "--out", "lb"])
        .assert()
        .success();
    // The copy edited in place (one domain renamed): same path, other content.
    grade_with(&copy, "c");
    std::fs::write(&copy, original.replacen(",공공,", ",공공기관,", 1)).unwrap();
    grade_with(&copy, "d");
    kgrade()
        .current_dir(cwd)
        .args(["compare", "c", "d", "--out", "lb2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "(the same path, but its content changed between the runs)",
        ));
}
