//! `kgrade compare` on runs that differ in how they were made (audit 28): circular against
//! plain runs, runs without `run.json`, model names, bootstrap counts and ties. Every run is
//! a real `kgrade grade` output directory: prompts come from `kgrade generate --write-batch`
//! over the bundled KMMLU sample (12 items, ids 0–11), and the batch output lines answer them
//! as a model would (`정답은 (N)입니다.`), so `grade` reads them through its OpenAI batch shape.

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use support::{kgrade, read_json, root};

fn kmmlu() -> PathBuf {
    root().join("data/kmmlu_sample.csv")
}

/// The gold answer (1-based, as the CSV has it) of each item of the KMMLU sample.
fn golds() -> Vec<usize> {
    let mut r = csv::Reader::from_path(kmmlu()).unwrap();
    let answer = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "answer")
        .unwrap();
    r.records()
        .map(|rec| rec.unwrap()[answer].parse().unwrap())
        .collect()
}

/// `kgrade generate --write-batch` for the KMMLU sample (`extra`: `--circular circular`,
/// `--n 3`), then a batch output answering each request with `answer(item, ordering, sample,
/// gold position shown)`, graded into `cwd/out`. `model` goes into each reply's body.
fn batch_run(
    cwd: &Path,
    out: &str,
    extra: &[&str],
    model: &str,
    answer: impl Fn(usize, &[usize], u32, usize) -> usize,
) {
    let requests = cwd.join(format!("{out}.requests.jsonl"));
    kgrade()
        .args(["generate", "--dataset"])
        .arg(kmmlu())
        .args(["--model", model, "--write-batch"])
        .arg(&requests)
        .args(extra)
        .assert()
        .success();
    let golds = golds();
    let lines: String = std::fs::read_to_string(&requests)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(k, line)| {
            let req: Value = serde_json::from_str(line).unwrap();
            let custom_id = req["custom_id"].as_str().unwrap();
            let (head, ordering) = match custom_id.split_once("#o=") {
                Some((h, o)) => (h, o.split(',').map(|x| x.parse().unwrap()).collect()),
                None => (custom_id, vec![0, 1, 2, 3]),
            };
            let (id, sample) = match head.split_once("#s=") {
                Some((i, s)) => (i, s.parse().unwrap()),
                None => (head, 0),
            };
            let item: usize = id.parse().unwrap();
            let shown = ordering.iter().position(|&o| o == golds[item] - 1).unwrap() + 1;
            let a = answer(item, &ordering, sample, shown);
            let body = json!({"id": format!("chatcmpl-{k}"), "object": "chat.completion",
                "model": model, "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": format!("정답은 ({a})입니다.")}}]});
            format!(
                "{}\n",
                json!({"id": format!("batch_req_{k}"), "custom_id": custom_id,
                    "response": {"status_code": 200, "body": body}, "error": null})
            )
        })
        .collect();
    let output = cwd.join(format!("{out}.output.jsonl"));
    std::fs::write(&output, lines).unwrap();
    kgrade()
        .current_dir(cwd)
        .args(["grade", "--dataset"])
        .arg(kmmlu())
        .arg("--generations")
        .arg(&output)
        .args(["--out", out])
        .assert()
        .success();
}

/// Another shown position than `shown` (a wrong answer).
fn other(shown: usize) -> usize {
    shown % 4 + 1
}

fn compare(cwd: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    kgrade().current_dir(cwd).arg("compare").args(args).assert()
}

fn model<'a>(board: &'a Value, run: &str) -> &'a Value {
    board["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["run"] == run)
        .unwrap()
}

/// Audit 28, A2: a circular run beside a plain one was scored as its mean over orderings,
/// and Bradley–Terry and McNemar counted an item at 1/4 as beating an item at 0, which
/// ranked the run with the lower accuracy first. Now the mix is refused; with
/// `--circular-outcome original` the circular run is ranked on its original ordering
/// (its report's `acc_origin`), and circular runs among themselves on all orderings
/// (`perf_circular`), each row saying which.
#[test]
fn circular_runs_are_compared_like_for_like() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    // Plain: right on 9 of 12 items.
    batch_run(cwd, "plain", &[], "m-plain", |i, _, _, shown| {
        if i % 4 == 3 {
            other(shown)
        } else {
            shown
        }
    });
    // Circular: items 0, 3, 6, 9 right in every ordering; the rest right only as shown
    // originally (acc_origin 100%, perf_circular 33%, acc_circular 50%).
    batch_run(
        cwd,
        "circ",
        &["--circular", "circular"],
        "m-circ",
        |i, o, _, shown| {
            if i % 3 == 0 || o[0] == 0 {
                shown
            } else {
                other(shown)
            }
        },
    );
    // A second circular run: every even item right in every ordering.
    batch_run(
        cwd,
        "circ2",
        &["--circular", "circular"],
        "m-circ2",
        |i, _, _, shown| {
            if i % 2 == 0 {
                shown
            } else {
                other(shown)
            }
        },
    );
    let circular = |run: &str| {
        read_json(&cwd.join(run).join("report.json"))["metrics"]["circular"]["overall"].clone()
    };
    assert_eq!(circular("circ")["acc_circular"], 0.5);

    compare(cwd, &["plain", "circ", "--out", "lb"])
        .code(2)
        .stderr(predicates::str::contains(
            "circ is a circular run (items shown in up to 4 orderings",
        ))
        .stderr(predicates::str::contains("--circular-outcome original"));
    assert!(!cwd.join("lb").exists());

    compare(
        cwd,
        &[
            "plain",
            "circ",
            "--circular-outcome",
            "original",
            "--out",
            "lb",
        ],
    )
    .success()
    .stdout(predicates::str::contains("original ordering only"));
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    let (p, c) = (model(&board, "plain"), model(&board, "circ"));
    assert_eq!(
        (p["outcome"].as_str(), c["outcome"].as_str()),
        (Some("answer"), Some("original_ordering"))
    );
    assert_eq!(c["accuracy"], circular("circ")["acc_origin"]);
    assert_eq!(p["accuracy"], 0.75);
    assert_eq!(board["models"][0]["run"], "circ");
    // Whole items: the circular run is right on the 3 items the plain run got wrong.
    let pair = &board["pairs"][0];
    assert_eq!(
        (
            pair["a_only"].as_u64(),
            pair["b_only"].as_u64(),
            pair["ties"].as_u64()
        ),
        (Some(3), Some(0), Some(9))
    );

    compare(cwd, &["circ", "circ2", "--out", "lb2"])
        .success()
        .stdout(predicates::str::contains(
            "right in all (up to 4) orderings",
        ));
    let board = read_json(&cwd.join("lb2/leaderboard.json"));
    for run in ["circ", "circ2"] {
        let m = model(&board, run);
        assert_eq!(m["outcome"], "all_orderings");
        assert_eq!(m["accuracy"], circular(run)["perf_circular"], "{run}");
    }
    let md = std::fs::read_to_string(cwd.join("lb2/leaderboard.md")).unwrap();
    assert!(md.contains("| outcome |"), "{md}");

    // Trial 38, defect 3: all 24 permutations against 4 rotations were ranked as if alike
    // (the same model, right in the rotations only, scored 100% against 0%).
    batch_run(
        cwd,
        "perm",
        &["--circular", "all_possible"],
        "m-perm",
        |i, _, _, shown| {
            if i % 2 == 0 {
                shown
            } else {
                other(shown)
            }
        },
    );
    compare(cwd, &["circ2", "perm", "--out", "lb3"])
        .code(2)
        .stderr(predicates::str::contains(
            "circ2 shows items in up to 4 orderings and perm in up to 24",
        ));
    assert!(!cwd.join("lb3").exists());
    compare(
        cwd,
        &[
            "circ2",
            "perm",
            "--circular-outcome",
            "original",
            "--out",
            "lb3",
        ],
    )
    .success();
}

/// Several samples per item are one outcome each: the majority vote, as the report's
/// `samples.majority_vote_accuracy`; McNemar counts whole items.
#[test]
fn samples_are_reduced_by_majority_vote() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    // Three samples: items 0–5 right in 2 of 3 (majority right), 6–11 in 1 of 3 (wrong).
    batch_run(cwd, "n3", &["--n", "3"], "m3", |i, _, s, shown| {
        let right = if i < 6 { s < 2 } else { s == 0 };
        if right {
            shown
        } else {
            other(shown)
        }
    });
    batch_run(cwd, "one", &[], "m1", |i, _, _, shown| {
        if i < 3 {
            shown
        } else {
            other(shown)
        }
    });
    compare(cwd, &["n3", "one", "--out", "lb"]).success();
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    let m = model(&board, "n3");
    let samples = &read_json(&cwd.join("n3/report.json"))["metrics"]["samples"];
    assert_eq!(m["outcome"], "majority_vote");
    assert_eq!(m["answers_per_item"], 3);
    assert_eq!(m["accuracy"], samples["majority_vote_accuracy"]);
    assert_eq!(m["accuracy"], 0.5);
    let pair = &board["pairs"][0];
    assert_eq!(
        (pair["a_only"].as_u64(), pair["b_only"].as_u64()),
        (Some(3), Some(0))
    );
}

/// Grade plain generations (`{"id", "response"}`, one answer per item: `answers[i]` for item
/// `i`) against `dataset` into `cwd/out`.
fn plain_run(cwd: &Path, out: &str, dataset: &Path, answers: &[usize]) {
    let lines: String = answers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            format!(
                "{}\n",
                json!({"id": i, "response": format!("정답은 ({a})입니다.")})
            )
        })
        .collect();
    let generations = cwd.join(format!("{out}.jsonl"));
    std::fs::write(&generations, lines).unwrap();
    kgrade()
        .current_dir(cwd)
        .args(["grade", "--dataset"])
        .arg(dataset)
        .arg("--generations")
        .arg(&generations)
        .args(["--out", out])
        .assert()
        .success();
}

/// Audit 28, A3: two directories holding only `verdicts.jsonl`, one graded against one KMMLU
/// subject and one against another (both numbering items 0–11), were compared as "2 runs on
/// 12 items of ``". Without run.json the items themselves (gold answers, columns) must agree,
/// and the leaderboard says the dataset could not be established.
#[test]
fn runs_without_run_json_are_checked_by_their_items() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    // Another subject with the same ids: other answers and another Category.
    let mut other = csv::Writer::from_path(cwd.join("other.csv")).unwrap();
    let mut r = csv::Reader::from_path(kmmlu()).unwrap();
    let headers = r.headers().unwrap().clone();
    other.write_record(&headers).unwrap();
    for rec in r.records() {
        let rec = rec.unwrap();
        let row: Vec<String> = headers
            .iter()
            .zip(rec.iter())
            .map(|(h, x)| match h {
                "answer" => (x.parse::<usize>().unwrap() % 4 + 1).to_string(),
                "Category" => "Law".to_string(),
                _ => x.to_string(),
            })
            .collect();
        other.write_record(&row).unwrap();
    }
    other.flush().unwrap();
    let answers: Vec<usize> = golds();
    plain_run(cwd, "a", &kmmlu(), &answers);
    plain_run(cwd, "b", &kmmlu(), &vec![1; answers.len()]);
    plain_run(cwd, "law", &cwd.join("other.csv"), &answers);
    for run in ["a", "b", "law"] {
        std::fs::remove_file(cwd.join(run).join("run.json")).unwrap();
    }
    compare(cwd, &["a", "law", "--out", "lb"])
        .code(2)
        .stderr(predicates::str::contains(
            "the runs are over different datasets: 12 of the 12 items they share differ between a and law",
        ))
        .stderr(predicates::str::contains("first `0`:"));
    assert!(!cwd.join("lb").exists());

    compare(cwd, &["a", "b", "--out", "lb"])
        .success()
        .stdout(predicates::str::contains(
            "2 runs on 12 items of a dataset no run records (no run.json in a, b: the dataset cannot be established",
        ));
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    assert_eq!(board["dataset_identity"], "items");
    assert_eq!(board["runs_without_run_json"], json!(["a", "b"]));
}

/// Audit 28, E5: `compare` took only run directories ("…/verdicts.jsonl: no verdicts.jsonl
/// here") and a bad verdict line exited 2, where `report` takes either and exits 3 naming the
/// file and line.
#[test]
fn runs_are_given_as_report_takes_them() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let answers = golds();
    plain_run(cwd, "a", &kmmlu(), &answers);
    plain_run(cwd, "b", &kmmlu(), &vec![1; answers.len()]);
    compare(
        cwd,
        &["a/verdicts.jsonl", "b/verdicts.jsonl", "--out", "lb"],
    )
    .success();
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    assert_eq!(board["models"][0]["run"], "a");
    assert_eq!(board["models"][0]["model"], "a");
    // The same run, once as a directory and once as its file, is still the same run.
    compare(cwd, &["a", "a/verdicts.jsonl", "--out", "lb2"])
        .code(2)
        .stderr(predicates::str::contains("are the same run"));
    compare(cwd, &["a", "b/nothing.jsonl", "--out", "lb2"])
        .code(2)
        .stderr(predicates::str::contains(
            "b/nothing.jsonl: no such run directory or verdicts file",
        ));

    // One verdict line cut short: the same exit code and message as `report`.
    let verdicts = cwd.join("b/verdicts.jsonl");
    let text = std::fs::read_to_string(&verdicts).unwrap();
    let cut: Vec<&str> = text.lines().collect();
    let broken = format!("{}\n{}\n", cut[..4].join("\n"), &cut[4][..cut[4].len() / 2]);
    std::fs::write(&verdicts, broken).unwrap();
    let report = kgrade()
        .current_dir(cwd)
        .args(["report", "b", "--out", "rb"])
        .assert()
        .code(3);
    let message = String::from_utf8_lossy(&report.get_output().stderr).into_owned();
    assert!(
        message.contains("b/verdicts.jsonl:5: not a verdict"),
        "{message}"
    );
    compare(cwd, &["a", "b", "--out", "lb3"])
        .code(3)
        .stderr(predicates::str::contains(message.trim()));
}

/// Audit 28, E6: every line `kgrade generate` writes names its `model`, but `grade` did not
/// record it, so the leaderboard always showed directory names. run.json now has `model`
/// (or `models` when the lines name several, which `grade` warns about), read from plain
/// lines and from batch output bodies alike.
#[test]
fn the_leaderboard_names_the_models() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let golds = golds();
    // As `kgrade generate` writes them: one model on every line.
    let lines = |model: &dyn Fn(usize) -> &'static str| -> String {
        golds
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let line = json!({"id": i.to_string(), "sample": 0, "response": format!("정답은 ({g})입니다."),
                    "finish_reason": "stop", "model": model(i)});
                format!("{line}\n")
            })
            .collect()
    };
    std::fs::write(
        cwd.join("qwen.jsonl"),
        lines(&|_| "Qwen/Qwen2.5-7B-Instruct"),
    )
    .unwrap();
    std::fs::write(
        cwd.join("mixed.jsonl"),
        lines(&|i| if i < 6 { "llama-a" } else { "llama-b" }),
    )
    .unwrap();
    for (out, generations) in [("r1", "qwen.jsonl"), ("r2", "mixed.jsonl")] {
        let assert = kgrade()
            .current_dir(cwd)
            .args(["grade", "--dataset"])
            .arg(kmmlu())
            .args(["--generations", generations, "--out", out])
            .assert()
            .success();
        if out == "r2" {
            let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
            assert!(
                stderr.contains("the generations name 2 models: llama-a, llama-b"),
                "{stderr}"
            );
        }
    }
    let r1 = read_json(&cwd.join("r1/run.json"));
    assert_eq!(r1["model"], "Qwen/Qwen2.5-7B-Instruct");
    let r2 = read_json(&cwd.join("r2/run.json"));
    assert!(r2.get("model").is_none());
    assert_eq!(r2["models"], json!(["llama-a", "llama-b"]));
    // Batch output: the model in each response body.
    batch_run(cwd, "r3", &[], "gpt-4o-mini-2024-07-18", |_, _, _, _| 1);
    compare(cwd, &["r1", "r2", "r3", "--out", "lb"])
        .success()
        .stdout(predicates::str::contains("Qwen/Qwen2.5-7B-Instruct"))
        .stdout(predicates::str::contains("llama-a, llama-b (2 models)"));
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    assert_eq!(model(&board, "r3")["model"], "gpt-4o-mini-2024-07-18");
    assert_eq!(model(&board, "r1")["model"], "Qwen/Qwen2.5-7B-Instruct");
}

/// Audit 28, E2 and F: `--bootstrap 0` printed a zero-width interval, `--bootstrap 1` one
/// that need not hold the estimate, and there was no upper bound; identical runs got ranks 2
/// and 3.
#[test]
fn bootstrap_counts_are_bounded_and_ties_share_a_rank() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let golds = golds();
    plain_run(cwd, "best", &kmmlu(), &golds);
    let half: Vec<usize> = golds
        .iter()
        .enumerate()
        .map(|(i, &g)| if i % 2 == 0 { g } else { g % 4 + 1 })
        .collect();
    plain_run(cwd, "twin1", &kmmlu(), &half);
    plain_run(cwd, "twin2", &kmmlu(), &half);
    for n in ["1", "99", "100001"] {
        compare(cwd, &["best", "twin1", "--bootstrap", n, "--out", "lb"])
            .code(2)
            .stderr(predicates::str::contains(format!(
                "--bootstrap {n}: give 0 (no rating intervals) or 100 to 100000 resamples"
            )));
    }
    compare(
        cwd,
        &["twin1", "best", "twin2", "--bootstrap", "0", "--out", "lb"],
    )
    .success()
    .stdout(predicates::str::contains("—"));
    let board = read_json(&cwd.join("lb/leaderboard.json"));
    let ranks: Vec<(String, u64)> = board["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["run"].as_str().unwrap().to_string(),
                m["rank"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ranks,
        [("best".into(), 1), ("twin1".into(), 2), ("twin2".into(), 2)]
    );
    assert!(board["models"][1]["bt_ci_low"].is_null());
    let md = std::fs::read_to_string(cwd.join("lb/leaderboard.md")).unwrap();
    assert!(md.contains("no intervals (--bootstrap 0)"), "{md}");
    assert_eq!(md.matches("| 2 | twin").count(), 2, "{md}");

    compare(
        cwd,
        &["best", "twin1", "--bootstrap", "100", "--out", "lb2"],
    )
    .success();
    let board = read_json(&cwd.join("lb2/leaderboard.json"));
    for m in board["models"].as_array().unwrap() {
        let (lo, r, hi) = (
            m["bt_ci_low"].as_f64().unwrap(),
            m["bt_rating"].as_f64().unwrap(),
            m["bt_ci_high"].as_f64().unwrap(),
        );
        assert!(lo <= r && r <= hi, "{lo} {r} {hi}");
    }
    let md = std::fs::read_to_string(cwd.join("lb2/leaderboard.md")).unwrap();
    assert!(
        md.contains(&format!(
            "[{:.0}, {:.0}]",
            board["models"][0]["bt_ci_low"].as_f64().unwrap(),
            board["models"][0]["bt_ci_high"].as_f64().unwrap()
        )),
        "{md}"
    );
}
