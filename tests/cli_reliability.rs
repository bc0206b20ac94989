//! Reliability as a new user meets it: no hangs, no silent zeros, every numeric flag checked,
//! the judge and its cache working from any directory, and clear words for mistakes. Each
//! test drives the real binary with a time limit, so a hang is a failure, not a stuck CI.

mod support;

use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{grade, kgrade, read_json, root, write};

/// A judge spec nobody answers at (port 9, discard, is closed on loopback).
const DEAD_JUDGE: &str = "openai:http://127.0.0.1:9/v1#none";

/// A two-item dataset whose two answers the verifier decides on its own.
fn decided_run(dir: &Path) -> (PathBuf, PathBuf) {
    let data = write(
        dir,
        "d.csv",
        "id,question,answer,domain\na,\"기관은? ① 금융위 ② 기재부\",1,x\nb,\"기관은? ① 금융위 ② 기재부\",2,y\n",
    );
    let gens = write(
        dir,
        "g.jsonl",
        "{\"id\":\"a\",\"response\":\"정답은 ①\"}\n{\"id\":\"b\",\"response\":\"①\"}\n",
    );
    (data, gens)
}

#[test]
fn a_judge_stage_with_nothing_to_judge_ends_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    grade(
        &["--judge", DEAD_JUDGE, "--max-retries", "0"],
        &data,
        &gens,
        &out,
    )
    .arg("--cache")
    .arg(&cache)
    .assert()
    .success()
    .stdout(predicate::str::contains("0 escalated"));
    kgrade()
        .args(["judge", "--judge", DEAD_JUDGE, "--cache"])
        .arg(&cache)
        .arg(&out)
        .assert()
        .success();
}

/// Trial 39, defect 1: `kgrade judge DIR` re-read whatever file was then at the run's
/// generations path. Cut short, it rewrote the run over fewer answers (exit 0); emptied, it
/// replaced 60 verdicts with "0.0% (0/0)". A file changed since the run is refused, and
/// the run's files stay as they were.
#[test]
fn judging_a_run_whose_inputs_changed_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let out = tmp.path().join("out");
    grade(&[], &data, &gens, &out).assert().success();
    let verdicts = std::fs::read(out.join("verdicts.jsonl")).unwrap();
    let judge_cmd = || {
        let mut c = kgrade();
        c.args([
            "judge",
            "--judge",
            DEAD_JUDGE,
            "--max-retries",
            "0",
            "--cache",
        ])
        .arg(tmp.path().join("cache"))
        .arg(&out);
        c
    };
    let judge = |expect: &str| {
        judge_cmd()
            .assert()
            .failure()
            .stderr(predicate::str::contains(expect.to_string()));
        assert_eq!(std::fs::read(out.join("verdicts.jsonl")).unwrap(), verdicts);
    };
    let text = std::fs::read_to_string(&gens).unwrap();
    std::fs::write(&gens, text.lines().next().unwrap()).unwrap();
    judge("generations");
    std::fs::write(&gens, "").unwrap();
    judge("changed since the run was graded");
    std::fs::write(&gens, &text).unwrap();
    let csv = std::fs::read_to_string(&data).unwrap();
    std::fs::write(&data, csv.replace(",1,x", ",2,x")).unwrap();
    judge("the run's dataset");
    // Put back as they were, the run is judged again.
    std::fs::write(&data, &csv).unwrap();
    judge_cmd().assert().success();
}

/// Trial 40, D8: a file with no line breaks (`/dev/zero`, a binary file) was read into
/// memory whole and aborted on allocation (exit 134, a backtrace). A line past 64 MiB is an
/// unreadable line, named, and the rest is graded; `extract` says the same.
#[test]
fn a_line_past_the_length_cap_is_named_not_read_into_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, _) = decided_run(tmp.path());
    let mut text = b"{\"id\":\"a\",\"response\":\"\xe2\x91\xa0\"}\n".to_vec();
    text.extend(std::iter::repeat_n(0u8, (64 << 20) + 10));
    text.extend_from_slice(b"\n{\"id\":\"b\",\"response\":\"\xe2\x91\xa1\"}\n");
    let gens = write(tmp.path(), "g.jsonl", &text);
    // Exit 3, as for any unreadable line, with the rest graded and the reports written.
    grade(&[], &data, &gens, &tmp.path().join("out"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "g.jsonl:2: line longer than 64 MiB (67108875 bytes)",
        ));
    let r = read_json(&tmp.path().join("out/report.json"));
    assert_eq!(r["metrics"]["overall"]["n"], 2);
    kgrade()
        .arg("extract")
        .arg(&gens)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "g.jsonl:2: line longer than 64 MiB",
        ));
}

/// Trial 39, defect 13: `--audit-rate` without `--judge` did nothing, silently; `generate` on
/// a header-only dataset wrote nothing and exited 0, where `grade` exits 3.
#[test]
fn flags_and_inputs_that_would_do_nothing_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    grade(
        &["--audit-rate", "0.5"],
        &data,
        &gens,
        &tmp.path().join("out"),
    )
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "--audit-rate 0.5: an audit sample is judged, so it needs --judge",
    ));
    let empty = write(tmp.path(), "empty.csv", "id,question,answer\n");
    kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(&empty)
        .args([
            "--model",
            "m",
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--out",
        ])
        .arg(tmp.path().join("g.jsonl"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "the dataset has no rows; nothing to ask for",
        ));
}

#[test]
fn bad_numeric_flags_are_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    for (flag, value) in [
        ("--rps", "0"),
        ("--rps", "-1"),
        ("--rps", "nan"),
        ("--rps", "1e12"),
        ("--rps", "1e-30"),
        ("--timeout", "1e30"),
        ("--timeout", "0"),
        ("--max-concurrency", "0"),
        ("--burst", "0"),
        ("--tpm", "0"),
        ("--audit-rate", "1.5"),
        ("--max-retries", "1000"),
    ] {
        let out = tmp.path().join("never");
        grade(
            &["--judge", DEAD_JUDGE, &format!("{flag}={value}")],
            &data,
            &gens,
            &out,
        )
        .assert()
        .code(2)
        .stderr(predicate::str::contains(flag));
        assert!(!out.exists(), "{flag} {value}: work was done");
    }
}

#[test]
fn a_directory_or_unreadable_input_ends_at_once_with_one_message() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, _) = decided_run(tmp.path());
    let out = grade(&[], &data, tmp.path(), &tmp.path().join("out"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("a folder with no samples_"), "{stderr}");
    kgrade()
        .arg("extract")
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Is a directory"));
}

#[test]
fn a_run_that_grades_nothing_is_an_error_that_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let empty = write(tmp.path(), "empty.jsonl", "");
    let header_only = write(tmp.path(), "h.csv", "id,question,answer,domain\n");
    let strangers = write(
        tmp.path(),
        "s.jsonl",
        "{\"id\":\"q-1\",\"response\":\"①\"}\n{\"id\":\"q-2\",\"response\":\"②\"}\n",
    );
    let kmmlu = root().join("data/kmmlu_sample.csv");
    let domain_gens = root().join("data/generations_terse.jsonl");
    for (dataset, generations, says) in [
        (&data, &empty, "has no answers"),
        (&header_only, &gens, "has no rows"),
        (&data, &strangers, "`q-1`"),
        (&kmmlu, &domain_gens, "row numbers"),
    ] {
        grade(&[], dataset, generations, &tmp.path().join("out"))
            .assert()
            .code(3)
            .stderr(predicate::str::contains("nothing was graded"))
            .stderr(predicate::str::contains(says));
    }
    // Some unknown ids: graded, but said plainly even without --strict.
    let mixed = write(
        tmp.path(),
        "m.jsonl",
        "{\"id\":\"a\",\"response\":\"①\"}\n{\"id\":\"zz\",\"response\":\"②\"}\n",
    );
    grade(&[], &data, &mixed, &tmp.path().join("out2"))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "1 of 2 generations name ids the dataset does not have (first: `zz`)",
        ))
        .stderr(predicate::str::contains("1 of 2 items have no generation"));
}

#[test]
fn by_must_name_existing_columns_and_group_by_lists_only_those() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("k");
    kgrade()
        .args(["grade", "--dataset", "data/kmmlu_sample.csv"])
        .args(["--generations", "data/kmmlu_lm_eval_samples.jsonl", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        read_json(&out.join("report.json"))["group_by"],
        serde_json::json!(["Category"])
    );
    kgrade()
        .args(["grade", "--dataset", "data/kmmlu_sample.csv"])
        .args(["--generations", "data/kmmlu_lm_eval_samples.jsonl"])
        .args(["--by", "domain", "--out"])
        .arg(tmp.path().join("k2"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no column domain"))
        .stderr(predicate::str::contains("Category"));
    kgrade()
        .arg("report")
        .arg(out.join("verdicts.jsonl"))
        .args(["--by", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no verdict has the column nope"));
}

#[test]
fn crlf_dataset_errors_name_the_line_an_editor_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let data = write(
        tmp.path(),
        "crlf.csv",
        "id,question,answer,domain\r\na,\"① x\r\n② y\",1,p\r\nb,\"① x ② y\",7,p\r\n",
    );
    let (_, gens) = decided_run(tmp.path());
    grade(&[], &data, &gens, &tmp.path().join("out"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains("crlf.csv:4: field `answer`"));
}

#[test]
fn the_summary_counts_answers_and_items_and_reports_are_byte_reproducible() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("s");
    let run = || {
        kgrade()
            .args(["grade", "--dataset", "data/domain_eval_sample.csv"])
            .args(["--generations", "data/generations_reasoning.jsonl", "--out"])
            .arg(&out)
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "(36/69 answers over 59 items; undecided answers count as wrong)",
            ));
        (
            std::fs::read(out.join("report.json")).unwrap(),
            std::fs::read(out.join("report.md")).unwrap(),
        )
    };
    let first = run();
    for _ in 0..3 {
        assert!(
            run() == first,
            "report.json or report.md changed between identical runs"
        );
    }
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["metrics"]["agreement"]["percent"], Value::Null);
    assert_eq!(r["metrics"]["agreement"]["kappa"], Value::Null);
    let md = String::from_utf8(first.1).unwrap();
    assert!(
        md.contains(&format!("| items | {} in the dataset", r["join"]["items"])),
        "{md}"
    );
}

#[test]
fn the_judge_works_from_another_directory_with_its_built_in_rubric_and_user_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let xdg = tmp.path().join("xdg");
    let out = tmp.path().join("out");
    let assert = grade(
        &["--judge", DEAD_JUDGE, "--max-retries", "0"],
        &root().join("data/domain_eval_sample.csv"),
        &root().join("data/generations_reasoning.jsonl"),
        &out,
    )
    .current_dir(elsewhere.path())
    .env_remove("KGRADE_CACHE")
    .env("XDG_CACHE_HOME", &xdg)
    .assert()
    .code(4);
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains(&xdg.join("kgrade").display().to_string()),
        "{stdout}"
    );
    assert!(xdg.join("kgrade").exists());
    assert!(!elsewhere.path().join(".kgrade").exists());
    let v = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    assert!(v.contains("judge_error: gave up after 1 attempt: could not connect"));
    // run.json holds absolute paths: judging again from yet another directory works.
    let run = read_json(&out.join("run.json"));
    assert!(Path::new(run["dataset"].as_str().unwrap()).is_absolute());
    let cache = tmp.path().join("own-cache");
    kgrade()
        .current_dir(tmp.path())
        .env("KGRADE_CACHE", &cache)
        .args(["judge", "--judge", DEAD_JUDGE, "--max-retries", "0"])
        .arg(&out)
        .assert()
        .code(4)
        .stdout(predicate::str::contains(cache.display().to_string()));
}

#[test]
fn judging_a_run_whose_inputs_moved_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let out = tmp.path().join("out");
    grade(&[], &data, &gens, &out).assert().success();
    std::fs::remove_file(&gens).unwrap();
    kgrade()
        .args(["judge", "--judge", DEAD_JUDGE, "--cache"])
        .arg(tmp.path().join("c"))
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is no longer there"));
}

#[test]
fn a_cache_in_use_by_another_process_fails_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let cache = tmp.path().join("cache");
    let held = kgrade::cache::Cache::open(&cache).unwrap();
    let out = tmp.path().join("out");
    grade(&["--judge", DEAD_JUDGE], &data, &gens, &out)
        .arg("--cache")
        .arg(&cache)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "another kgrade process is using this cache",
        ));
    assert!(!out.join("verdicts.jsonl").exists());
    drop(held);
}

#[test]
fn inspecting_a_cache_that_does_not_exist_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let typo = tmp.path().join("typo");
    for action in ["stats", "export", "clear"] {
        kgrade()
            .args(["cache", action, "--cache"])
            .arg(&typo)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("no kgrade cache here"));
    }
    assert!(!typo.exists());
}

/// Run kgrade with its standard output a pipe whose reader has already gone (as in
/// `kgrade grade … | head -0`); returns the output (stdout empty) after it ends.
fn with_closed_stdout(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kgrade"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader closes before kgrade has read its inputs, so its first print meets a
    // closed pipe.
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// Audit 19, defect 7: `grade … | head -1` and `compare … | head -1` panicked (exit 101).
#[test]
fn a_closed_output_pipe_ends_every_command_quietly_and_keeps_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let os = |s: &Path| s.as_os_str().to_owned();
    let grade_into = |out: &Path| {
        vec![
            "grade".into(),
            "--dataset".into(),
            os(&data),
            "--generations".into(),
            os(&gens),
            "--out".into(),
            os(out),
        ]
    };
    let board = tmp.path().join("board");
    let batch = tmp.path().join("batch.jsonl");
    let runs: Vec<Vec<std::ffi::OsString>> = vec![
        grade_into(&a),
        grade_into(&b),
        vec!["report".into(), os(&a.join("verdicts.jsonl"))],
        vec!["compare".into(), os(&a), os(&b), "--out".into(), os(&board)],
        vec![
            "generate".into(),
            "--dataset".into(),
            os(&data),
            "--model".into(),
            "m".into(),
            "--write-batch".into(),
            os(&batch),
        ],
    ];
    for args in &runs {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_os_str()).collect();
        let o = with_closed_stdout(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // Every file was written in full before the printing.
    for dir in [&a, &b] {
        let verdicts = std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap();
        assert_eq!(verdicts.lines().count(), 2);
        assert_eq!(
            read_json(&dir.join("report.json"))["metrics"]["overall"]["n"],
            2
        );
    }
    assert!(board.join("leaderboard.json").is_file());
    assert_eq!(std::fs::read_to_string(&batch).unwrap().lines().count(), 2);
    // A failing run keeps its exit code: a closed pipe hides nothing.
    let bad = write(
        tmp.path(),
        "bad.jsonl",
        "{\"id\":\"a\",\"response\":\"①\"}\nnot json\n",
    );
    let mut args = grade_into(&tmp.path().join("c"));
    args[4] = os(&bad);
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_os_str()).collect();
    let o = with_closed_stdout(&args);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.jsonl:2"));
}

/// Trial 38, defect 4: with stderr closed (`kgrade extract … 2>&1 | head`, or only stderr
/// into a pipe that closes), the first message panicked: exit 101, and `extract` stopped its
/// output at the line it was on. Messages are now lost, never the run.
#[test]
fn a_closed_stderr_loses_messages_not_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let lines: String = (0..2000)
        .map(|i| {
            if i % 2 == 1 {
                "not json\n".to_string()
            } else {
                format!("{{\"id\":{i},\"question\":\"옳은 것은? ① 가 ② 나\",\"response\":\"정답은 ①\"}}\n")
            }
        })
        .collect();
    let input = write(tmp.path(), "in.jsonl", &lines);
    let out = tmp.path().join("out.jsonl");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kgrade"))
        .arg("extract")
        .arg(&input)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    // 1: some lines were not JSON, as with stderr open.
    assert_eq!(status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2000);
}

/// Every file of a run folder, by name, with its bytes.
fn folder(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// Audit 19, defect 5: a re-grade killed (or failing) midway truncated `verdicts.jsonl` while
/// the previous run's reports stayed, so the folder contradicted itself. Now a run's files are
/// renamed into place only when it completes.
#[test]
fn an_interrupted_regrade_leaves_the_previous_run_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let out = tmp.path().join("out");
    grade(&[], &data, &gens, &out).assert().success();
    let before = folder(&out);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        [
            "report.html",
            "report.json",
            "report.md",
            "results.json",
            "run.json",
            "verdicts.jsonl"
        ]
    );

    // A run that fails after reading every line: its answers' prompts name another
    // question than the dataset's, so they belong to another dataset (a circular ordering
    // that does not fit its item, used here before, is now an unreadable line).
    let mut lines = String::new();
    for _ in 0..3000 {
        lines.push_str(
            "{\"id\":\"a\",\"response\":\"①\",\"prompt\":\"다음 중 국세가 아닌 것은? ① 소득세 ② 취득세\"}\n",
        );
    }
    let stops = write(tmp.path(), "stops.jsonl", lines);
    grade(&[], &data, &stops, &out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("nothing was written"));
    assert_eq!(
        folder(&out),
        before,
        "a failed run changed the previous run's files"
    );

    // A run killed while it writes its verdicts.
    let mut big = String::new();
    for _ in 0..400_000 {
        big.push_str("{\"id\":\"b\",\"response\":\"정답은 ①입니다\"}\n");
    }
    let big = write(tmp.path(), "big.jsonl", big);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kgrade"))
        .arg("grade")
        .arg("--dataset")
        .arg(&data)
        .arg("--generations")
        .arg(&big)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let partial = out.join(".verdicts.jsonl.partial");
    let started = std::time::Instant::now();
    while std::fs::metadata(&partial).map_or(0, |m| m.len()) == 0 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let after: std::collections::BTreeMap<_, _> = folder(&out)
        .into_iter()
        .filter(|(name, _)| !name.ends_with(".partial"))
        .collect();
    assert_eq!(
        after, before,
        "a killed run changed the previous run's files"
    );
    // The next complete run replaces them all, and leaves no temporary file behind.
    grade(&[], &data, &gens, &out).assert().success();
    assert_eq!(folder(&out).len(), 6);
}

/// Audit 19, message 8: `--endpoint notaurl` was retried for half a minute and reported as a
/// connection failure (exit 4). It is an argument error, at once.
#[test]
fn an_endpoint_that_is_not_a_url_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, _) = decided_run(tmp.path());
    for endpoint in ["notaurl", "127.0.0.1:8000/v1", "http://", "http:///v1"] {
        let out = tmp.path().join("never.jsonl");
        kgrade()
            .arg("generate")
            .arg("--dataset")
            .arg(&data)
            .args(["--model", "m", "--endpoint", endpoint])
            .arg("--out")
            .arg(&out)
            .arg("--cache")
            .arg(tmp.path().join("cache"))
            .timeout(std::time::Duration::from_secs(10))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--endpoint"))
            .stderr(predicate::str::contains("is not an http(s) URL"));
        assert!(
            !out.exists() && !tmp.path().join("cache").exists(),
            "{endpoint}"
        );
    }
}

/// Audit 19, message 9: a missing dataset file exited 3 ("bad data") while a missing
/// generations file exited 2. Both are files that cannot be read: 2, as the README's table
/// says; a dataset folder with no dataset in it likewise, as an empty generations folder.
#[test]
fn an_unreadable_dataset_is_exit_2_like_any_unreadable_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = tmp.path().join("out");
    for (dataset, generations, message) in [
        (
            tmp.path().join("nope.csv"),
            gens.clone(),
            "nope.csv: cannot open",
        ),
        (
            empty.clone(),
            gens.clone(),
            "a folder with no .csv or .jsonl dataset",
        ),
        (data.clone(), tmp.path().join("nope.jsonl"), "nope.jsonl"),
        (data.clone(), empty.clone(), "a folder with no samples_"),
    ] {
        grade(&[], &dataset, &generations, &out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    // Audit 28: run from another folder, both inputs are missing, and both are named.
    grade(
        &[],
        &tmp.path().join("nope.csv"),
        &tmp.path().join("nope.jsonl"),
        &out,
    )
    .assert()
    .code(2)
    .stderr(predicate::str::contains("nope.csv: cannot open"))
    .stderr(predicate::str::contains("nope.jsonl: cannot open"))
    .stderr(predicate::str::contains("both paths are read from"));
    kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(tmp.path().join("nope.csv"))
        .args(["--model", "m", "--write-batch"])
        .arg(tmp.path().join("b.jsonl"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nope.csv: cannot open"));
    assert!(!out.exists());
}

/// Audit 19, message 10: a KMMLU file without its `D` column was read as another shape and
/// reported as "no options found"; the missing column is named, as a missing `answer` is.
#[test]
fn a_kmmlu_file_missing_an_option_column_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let data = write(
        tmp.path(),
        "no_d.csv",
        "question,answer,A,B,C,Category\n과태료는?,2,50만원,100만원,150만원,Public Safety\n",
    );
    let gens = write(tmp.path(), "g.jsonl", "{\"id\":0,\"response\":\"(2)\"}\n");
    grade(&[], &data, &gens, &tmp.path().join("out"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "no_d.csv:2: field `D`: missing column",
        ));
}

/// Audit 19, message 12: `--api-key-env` naming an unset variable (a typo) sent requests
/// with no key and said nothing. A variable the user names must be set.
#[test]
fn an_api_key_variable_that_is_not_set_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let message =
        "--api-key-env KGRADE_TYPO_KEY: the environment variable KGRADE_TYPO_KEY is not set";
    kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(&data)
        .args(["--model", "m", "--endpoint", "http://127.0.0.1:9/v1"])
        .args(["--api-key-env", "KGRADE_TYPO_KEY"])
        .arg("--out")
        .arg(tmp.path().join("g.jsonl"))
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .env_remove("KGRADE_TYPO_KEY")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(message));
    let out = tmp.path().join("out");
    grade(
        &["--judge", DEAD_JUDGE, "--api-key-env", "KGRADE_TYPO_KEY"],
        &data,
        &gens,
        &out,
    )
    .env("KGRADE_TYPO_KEY", "")
    .assert()
    .code(2)
    .stderr(predicate::str::contains(message));
    assert!(!out.exists() && !tmp.path().join("cache").exists());
}

/// Audit 19, item 18 (cosmetic): grade named four of the six files it writes; generate read
/// the dataset (and announced its requests) before saying a flag was missing; `compare R R`
/// compared a run with itself; results.json counted answers as lm-eval's documents and listed
/// acc_norm for a generation task.
#[test]
fn small_words_are_right() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, gens) = decided_run(tmp.path());
    let twice = write(
        tmp.path(),
        "twice.jsonl",
        std::fs::read_to_string(&gens).unwrap().repeat(2),
    );
    let out = tmp.path().join("out");
    grade(&[], &data, &twice, &out)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "verdicts.jsonl, run.json, report.json, report.md, report.html, results.json",
        ));
    let results = read_json(&out.join("results.json"));
    let task = results["n-samples"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!(
        (&task["original"], &task["effective"]),
        (&2.into(), &2.into())
    );
    for higher in results["higher_is_better"].as_object().unwrap().values() {
        assert!(higher.get("acc_norm").is_none(), "{higher}");
    }
    let stderr = kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(&data)
        .args(["--model", "m", "--endpoint", "http://127.0.0.1:9/v1"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert_eq!(
        String::from_utf8(stderr).unwrap(),
        "kgrade: --out is needed unless --write-batch is given\n"
    );
    kgrade()
        .arg("compare")
        .arg(&out)
        .arg(tmp.path().join("out/."))
        .arg("--out")
        .arg(tmp.path().join("lb"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("are the same run"));
}

/// Trial 38, defect 10: one line whose circular ordering does not fit its item stopped the
/// whole grade (exit 3, no reports, the message twice). It is now an unreadable line: named
/// once, counted, and the rest graded.
#[test]
fn an_ordering_that_does_not_fit_is_one_unreadable_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, _) = decided_run(tmp.path());
    let gens = write(
        tmp.path(),
        "circ.jsonl",
        "{\"id\":\"a\",\"response\":\"①\",\"ordering\":[0,1]}\n{\"id\":\"b\",\"response\":\"①\",\"ordering\":[7,7]}\n{\"id\":\"b\",\"response\":\"①\",\"ordering\":[1,0]}\n",
    );
    let out = tmp.path().join("out");
    let o = grade(&[], &data, &gens, &out).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert_eq!(stderr.matches("circ.jsonl:2").count(), 1, "{stderr}");
    assert!(stderr.contains("does not fit item `b`"), "{stderr}");
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    assert_eq!(verdicts.lines().count(), 2);
    assert_eq!(read_json(&out.join("run.json"))["unreadable_lines"], 1);
}
