//! kgrade on files lm-evaluation-harness wrote itself. The fixtures under
//! `tests/fixtures/lm_eval/runs/` were made by lm-eval 0.4.13's own CLI (`lm-eval run …
//! --log_samples --output_path …`) with a weightless deterministic model class
//! (`--model canned`, `tests/fixtures/lm_eval/recipe/canned_model.py`) on task YAMLs that
//! include lm-eval's shipped KMMLU configs and point them at the KMMLU test CSVs in
//! `../shared/data/kmmlu/`; `tests/fixtures/lm_eval/recipe/make_fixtures.sh` remakes them
//! and `tests/fixtures/lm_eval/README.md` describes every file. Nothing in them was edited
//! by hand. The datasets are read from `../shared` at test time, never copied in.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn kmmlu(name: &str) -> PathBuf {
    root().join("../shared/data/kmmlu").join(name)
}

/// A dataset folder in `dir` holding (links to) these KMMLU test files, as a user points
/// `--dataset` at the files behind an lm-eval output folder.
fn kmmlu_folder(dir: &Path, names: &[&str]) -> PathBuf {
    let data = dir.join("kmmlu");
    std::fs::create_dir(&data).unwrap();
    for name in names {
        std::os::unix::fs::symlink(kmmlu(name), data.join(name)).unwrap();
    }
    data
}

/// The samples file of a fixture run (its name carries lm-eval's timestamp).
fn samples(run: &str) -> PathBuf {
    fixture_file(run, "samples_")
}

/// The file of a fixture run whose name starts with `prefix` (`samples_`, `results_`).
fn fixture_file(run: &str, prefix: &str) -> PathBuf {
    model_file(run, "canned-kmmlu", prefix)
}

/// The file in a fixture run's folder for `model` whose name starts with `prefix`.
fn model_file(run: &str, model: &str, prefix: &str) -> PathBuf {
    let dir = root()
        .join("tests/fixtures/lm_eval/runs")
        .join(run)
        .join(model);
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(prefix))
        .unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `kgrade grade --dataset D --generations G --out OUT`, with a time limit.
fn grade_cmd(dataset: &Path, generations: &Path, out: &Path) -> Command {
    let mut c = Command::cargo_bin("kgrade").unwrap();
    c.timeout(Duration::from_secs(60))
        .arg("grade")
        .arg("--dataset")
        .arg(dataset)
        .arg("--generations")
        .arg(generations)
        .arg("--out")
        .arg(out);
    c
}

fn grade(dataset: &Path, generations: &Path, out: &Path, extra: &[&str]) -> Value {
    grade_cmd(dataset, generations, out)
        .args(extra)
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn kmmlu_direct_letters_are_read_in_the_notation_the_prompt_showed() {
    let tmp = tempfile::tempdir().unwrap();
    let file = samples("1_direct_public_safety");
    let r = grade(&kmmlu("Public-Safety-test.csv"), &file, tmp.path(), &[]);
    let verdicts = lines(&tmp.path().join("verdicts.jsonl"));
    assert_eq!(verdicts.len(), 10);
    for (v, line) in verdicts.iter().zip(lines(&file)) {
        assert_eq!(v["choices"], "letter:4", "{v}");
        assert_eq!(v["gold"], line["target"], "gold in lm-eval's notation");
        // Whatever lm-eval's exact_match accepted, kgrade reads the same way.
        if line["exact_match"] == 1.0 {
            assert_eq!(v["correct"], true, "{v}");
        }
    }
    // lm-eval's exact_match needs a bare letter (3 of 10); kgrade also reads
    // "정답은 (B)입니다" and "따라서 답은 C입니다" and abstains on "잘 모르겠습니다".
    assert_eq!(r["metrics"]["overall"]["correct"], 7);
    assert_eq!(r["metrics"]["stages"]["unresolved"], 3);
    assert_eq!(
        r["join"]["lm_eval"]["kmmlu_direct_public_safety"]["exact_match,none"],
        0.3
    );
    assert_eq!(
        r["metrics"]["groups"]["task"]["values"]["kmmlu_direct_public_safety"]["n"],
        10
    );
}

#[test]
fn chain_of_thought_answers_are_read_after_few_shot_prompts() {
    let tmp = tempfile::tempdir().unwrap();
    let file = samples("2_cot_hard_public_safety");
    let r = grade(&kmmlu("Public-Safety-test.csv"), &file, tmp.path(), &[]);
    let verdicts = lines(&tmp.path().join("verdicts.jsonl"));
    let chosen: Vec<&str> = verdicts
        .iter()
        .map(|v| v["chosen"].as_str().unwrap_or("∅"))
        .collect();
    // Each answer's last stated letter (the five-shot prompt's examples decide nothing).
    assert_eq!(chosen, ["D", "A", "D", "B", "C", "C"]);
    assert_eq!(r["metrics"]["overall"]["correct"], 4);
    assert_eq!(
        r["join"]["lm_eval"]["kmmlu_cot_hard_public_safety"]["exact_match,get-answer"],
        serde_json::json!(2.0 / 6.0)
    );
}

#[test]
fn repeats_are_samples_and_two_filters_are_read_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = samples("3_maj3_public_safety");
    assert_eq!(lines(&file).len(), 16, "8 documents × 2 filters");
    let r = grade(&kmmlu("Public-Safety-test.csv"), &file, tmp.path(), &[]);
    let m = &r["metrics"];
    assert_eq!(m["overall"]["n"], 24, "8 documents × 3 repeats, once each");
    assert_eq!(m["samples"]["items"], 8);
    assert_eq!(m["samples"]["max_samples_per_item"], 3);
    // lm-eval's own per-filter scores, beside kgrade's, equal its results file.
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(
            file.with_file_name(
                std::fs::read_dir(file.parent().unwrap())
                    .unwrap()
                    .map(|e| e.unwrap().file_name().into_string().unwrap())
                    .find(|n| n.starts_with("results_"))
                    .unwrap(),
            ),
        )
        .unwrap(),
    )
    .unwrap();
    let task = "kmmlu_direct_maj3_public_safety";
    for key in ["exact_match,strict-match", "exact_match,maj@3"] {
        assert_eq!(
            r["join"]["lm_eval"][task][key], results["results"][task][key],
            "{key}"
        );
    }
    let md = std::fs::read_to_string(tmp.path().join("report.md")).unwrap();
    assert!(md.contains("`exact_match,maj@3`"), "{md}");
}

fn check_loglikelihood(run: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let file = samples(run);
    let r = grade(&kmmlu("Public-Safety-test.csv"), &file, tmp.path(), &[]);
    let verdicts = lines(&tmp.path().join("verdicts.jsonl"));
    let source = lines(&file);
    assert_eq!(verdicts.len(), source.len());
    let (mut acc, mut acc_norm) = (0.0, 0.0);
    for (v, line) in verdicts.iter().zip(&source) {
        assert_eq!(v["status"], "loglikelihood");
        // Each document: kgrade's acc and acc_norm equal lm-eval's own per-line values.
        assert_eq!(v["correct"].as_bool().unwrap(), line["acc"] == 1.0, "{v}");
        assert_eq!(
            v["acc_norm"]["correct"].as_bool().unwrap(),
            line["acc_norm"] == 1.0,
            "{v}"
        );
        acc += line["acc"].as_f64().unwrap();
        acc_norm += line["acc_norm"].as_f64().unwrap();
    }
    let n = source.len() as f64;
    let m = &r["metrics"];
    assert!((m["acc"]["accuracy"].as_f64().unwrap() - acc / n).abs() < 1e-12);
    assert!((m["acc_norm"]["accuracy"].as_f64().unwrap() - acc_norm / n).abs() < 1e-12);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("results.json")).unwrap())
            .unwrap();
    let task = results["results"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert!((task["acc,none"].as_f64().unwrap() - acc / n).abs() < 1e-12);
    assert!((task["acc_norm,none"].as_f64().unwrap() - acc_norm / n).abs() < 1e-12);
}

#[test]
fn loglikelihood_tasks_score_acc_and_acc_norm_as_lm_eval_does() {
    check_loglikelihood("4_loglik_public_safety");
    // Option texts as choices: here acc and acc_norm disagree on some documents.
    check_loglikelihood("4b_loglik_optiontext");
}

#[test]
fn an_output_folder_with_two_subtasks_grades_against_a_folder_of_datasets() {
    let tmp = tempfile::tempdir().unwrap();
    let data = kmmlu_folder(tmp.path(), &["Accounting-test.csv", "Taxation-test.csv"]);
    let out = tmp.path().join("out");
    let folder = root().join("tests/fixtures/lm_eval/runs/5_group_accounting_taxation");
    let r = grade(&data, &folder, &out, &[]);
    let m = &r["metrics"];
    assert_eq!(m["overall"]["n"], 16);
    let tasks = &m["groups"]["task"]["values"];
    assert_eq!(tasks["kmmlu_direct_accounting"]["n"], 8);
    assert_eq!(tasks["kmmlu_direct_taxation"]["n"], 8);
    assert_eq!(r["join"]["unknown_ids"], 0);
    let subjects = &m["groups"]["subject"]["values"];
    assert_eq!(subjects["Accounting"]["n"], 8);
    let verdicts = lines(&out.join("verdicts.jsonl"));
    assert!(verdicts.iter().any(|v| v["id"] == "taxation/0"));
    // results.json: one entry per task and the group over both.
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    for task in ["kmmlu_direct_accounting", "kmmlu_direct_taxation", "kgrade"] {
        assert!(results["results"][task]["acc,none"].is_number(), "{task}");
    }
    assert_eq!(
        results["group_subtasks"]["kgrade"],
        serde_json::json!(["kmmlu_direct_accounting", "kmmlu_direct_taxation"])
    );
    // Trial 41, defect 7: grouped by another column, results.json had one pseudo-task named
    // after the dataset folder. Its tasks are the run's whatever the reports group by, and
    // the reports show only the groups asked for.
    let by_subject = tmp.path().join("by_subject");
    let r = grade(&data, &folder, &by_subject, &["--by", "subject"]);
    assert!(r["metrics"]["groups"].get("task").is_none(), "{r}");
    let again: Value =
        serde_json::from_str(&std::fs::read_to_string(by_subject.join("results.json")).unwrap())
            .unwrap();
    for key in ["kmmlu_direct_accounting", "kmmlu_direct_taxation"] {
        assert_eq!(again["results"][key], results["results"][key]);
    }
    for key in ["acc,none", "acc_stderr,none", "sample_len"] {
        assert_eq!(
            again["results"]["kgrade"][key],
            results["results"]["kgrade"][key]
        );
    }
    assert_eq!(again["n-samples"], results["n-samples"]);
    assert_eq!(again["group_subtasks"], results["group_subtasks"]);
}

#[test]
fn the_bundled_kmmlu_sample_is_lm_eval_output_and_results_json_names_groups() {
    let tmp = tempfile::tempdir().unwrap();
    let r = grade(
        &root().join("data/kmmlu_sample.csv"),
        &root().join("data/kmmlu_lm_eval_samples.jsonl"),
        tmp.path(),
        &[],
    );
    assert_eq!(r["metrics"]["overall"]["n"], 12);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("results.json")).unwrap())
            .unwrap();
    let entry = &results["results"]["kmmlu_sample"];
    assert_eq!(entry["acc,none"], r["metrics"]["overall"]["accuracy"]);
    assert!(
        entry["acc_category_public_safety,none"].is_number(),
        "{entry}"
    );
    assert!(entry["acc_stderr,none"].is_number());
    assert_eq!(results["n-samples"]["kmmlu_sample"]["effective"], 12);
    // The file is not named samples_<task>_<date>.jsonl: lm-eval's scores are the dataset's
    // task, as results.json names it, not a blank one (walkthrough 50, F4).
    assert!(
        r["join"]["lm_eval"]["kmmlu_sample"]["exact_match,none"].is_number(),
        "{}",
        r["join"]
    );
}

/// Audit 19, defect 1: lm-eval's Public Safety samples given with the Accounting dataset
/// were joined by `doc_id` alone and graded against Accounting's gold labels (exit 0, a
/// plausible 30%). Every line carries its `doc.question`: the run now refuses, naming the
/// file, line, id and both questions.
#[test]
fn samples_joined_to_another_subjects_dataset_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = samples("1_direct_public_safety");
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    grade_cmd(&kmmlu("Accounting-test.csv"), &file, tmp.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains(format!(
            "{name}:1: id `0`: the line's question \"화재 또는 구조ㆍ구급이 필요한 상황을 허위로 1회 알린 자에게 부과하는 …\" is not the dataset's \"(주)대한의 기초재고자산과 기말 재고자산은 각각 ￦400, 유동부채는 ￦…\""
        )))
        .stderr(predicates::str::contains("10 of 10 answers"));
    // Refused before anything is written: a previous run in OUT would stay as it was.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// Walkthrough 50, F1: lm-eval's group of two subjects (Accounting and Taxation, each from
/// doc 0) graded against Accounting's file alone joined Taxation's answers to Accounting's
/// rows as second samples: 5/16 at exit 0, half the questions differing, just short of the
/// refusal above. Each task is weighed on its own now; the folder of both files grades.
#[test]
fn a_run_of_two_subjects_against_one_subject_s_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let run = root().join("tests/fixtures/lm_eval/runs/5_group_accounting_taxation");
    grade_cmd(&kmmlu("Accounting-test.csv"), &run, tmp.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains(
            "8 of 8 answers of task `kmmlu_direct_taxation` that carry their question",
        ))
        .stderr(predicates::str::contains(
            "give a folder holding one file per task",
        ));
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    let data = kmmlu_folder(tmp.path(), &["Accounting-test.csv", "Taxation-test.csv"]);
    let out = tmp.path().join("out");
    let r = grade(&data, &run, &out, &[]);
    assert_eq!(r["metrics"]["overall"]["n"], 16, "{r}");
}

/// A dataset with one of the joined rows edited since the samples were made still grades:
/// a warning names the row, and `--strict` makes it an error.
#[test]
fn one_edited_dataset_row_is_a_warning_not_a_refusal() {
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(kmmlu("Public-Safety-test.csv")).unwrap();
    let edited = original.replacen(
        "화재 또는 구조ㆍ구급이 필요한 상황을 허위로 1회 알린 자에게 부과하는 과태료는?",
        "소방기본법상 소방활동 종사 명령에 따르지 않은 자에 대한 벌칙은?",
        1,
    );
    assert_ne!(edited, original);
    let dataset = tmp.path().join("Public-Safety-edited.csv");
    std::fs::write(&dataset, edited).unwrap();
    let file = samples("1_direct_public_safety");
    let run = |extra: &[&str]| {
        grade_cmd(&dataset, &file, &tmp.path().join("out"))
            .args(extra)
            .assert()
    };
    run(&[]).success().stderr(predicates::str::contains(
        "warning: 1 of 10 answers that carry their question name another question than their dataset row",
    ));
    run(&["--strict"]).code(3).stderr(predicates::str::contains(
        "1 answers whose question differs from their dataset row",
    ));
}

/// Audit 19, message 15: lm-eval's `results_*.json` given as `--generations` printed one
/// "invalid JSON" error per line of the pretty-printed file (127 of them). One message says
/// what the file is and what to give instead.
#[test]
fn a_results_file_given_as_generations_is_named_as_such_once() {
    let tmp = tempfile::tempdir().unwrap();
    let results = fixture_file("1_direct_public_safety", "results_");
    let out = grade_cmd(
        &kmmlu("Public-Safety-test.csv"),
        &results,
        &tmp.path().join("out"),
    )
    .assert()
    .code(2)
    .get_output()
    .stderr
    .clone();
    let stderr = String::from_utf8(out).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("an lm-eval results file (scores, no answers): give the samples_<task>_<date>.jsonl file beside it"),
        "{stderr}"
    );
}

/// Trial 37, defect 1: lm-eval's own API chat client (`--model local-chat-completions
/// --apply_chat_template`, the usual way to run it against vLLM or llama.cpp) logs each
/// prompt as its chat messages, a list holding one JSON string, not as text. kgrade read no
/// prompt, fell back to the dataset's (1)–(4) and graded every letter answer `invalid`: 0/16,
/// exit 0. Run 7 was written by lm-eval 0.4.13 against the real llama.cpp server with
/// SmolLM2-135M-Instruct that the other tests start (`make_fixtures.sh`, step 8).
#[test]
fn chat_api_runs_are_read_in_the_notation_their_messages_showed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = kmmlu_folder(tmp.path(), &["Criminal-Law-test.csv", "Law-test.csv"]);
    let out = tmp.path().join("out");
    let run = root().join("tests/fixtures/lm_eval/runs/7_chat_api_law");
    let r = grade(&data, &run, &out, &[]);
    let dir = run.join("SmolLM2-135M-Instruct-Q4_1");
    // (task, line) for every line lm-eval wrote; the task is in the file's name.
    let mut source: Vec<(String, Value)> = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if let Some(rest) = name.strip_prefix("samples_") {
            let task = rest[..rest.rfind('_').unwrap()].to_string();
            source.extend(lines(&p).into_iter().map(|l| (task.clone(), l)));
        }
    }
    // The prompt is messages, as lm-eval wrote them.
    let arg = &source[0].1["arguments"]["gen_args_0"]["arg_0"];
    assert!(arg[0].as_str().unwrap().starts_with("[{\"role\""), "{arg}");
    let verdicts = lines(&out.join("verdicts.jsonl"));
    assert_eq!(verdicts.len(), 16);
    for v in &verdicts {
        assert_eq!(v["choices"], "letter:4", "{v}");
        let doc = v["id"].as_str().unwrap().split_once('/').unwrap().1;
        let (_, line) = source
            .iter()
            .find(|(task, l)| {
                l["doc_id"] == doc.parse::<u64>().unwrap() && v["fields"]["task"] == *task
            })
            .unwrap();
        assert_eq!(
            v["gold"], line["target"],
            "gold in the notation the model saw"
        );
        if line["exact_match"] == 1.0 {
            assert_eq!(v["correct"], true, "{v}");
        }
    }
    // Criminal law: "A", "B", "A" answers lm-eval's exact_match read (2 of 8), and doc 0's
    // echoed question followed by its letter on the last line.
    let tasks = &r["metrics"]["groups"]["task"]["values"];
    assert_eq!(tasks["kmmlu_direct_criminal_law"]["correct"], 3);
    assert_eq!(tasks["kmmlu_direct_law"]["n"], 8);
    let invalid = verdicts.iter().filter(|v| v["status"] == "invalid").count();
    assert!(invalid <= 1, "{invalid} answers read outside A–D");
}

/// Trial 37, defects 2 and 4: in one lm-eval run of a loglikelihood task and a generation
/// task, `results.json` gave the group the loglikelihood task's `acc` (0.0 over 8 documents)
/// labelled with all 16, put `acc_norm` on the generation task, and counted `original` as
/// the documents graded (8) rather than the dataset's rows. Run 8 was written by lm-eval
/// 0.4.13 with the canned model (`make_fixtures.sh`).
#[test]
fn a_run_mixing_loglikelihood_and_generation_tasks_reports_each_in_its_place() {
    let tmp = tempfile::tempdir().unwrap();
    let data = kmmlu_folder(
        tmp.path(),
        &["Public-Safety-test.csv", "Accounting-test.csv"],
    );
    let out = tmp.path().join("out");
    let run = root().join("tests/fixtures/lm_eval/runs/8_mixed_loglik_generation");
    let r = grade(&data, &run, &out, &[]);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let theirs: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture_file("8_mixed_loglik_generation", "results_")).unwrap(),
    )
    .unwrap();
    let overall = &r["metrics"]["overall"];
    assert_eq!(overall["n"], 16);
    let group = &results["results"]["kgrade"];
    assert_eq!(group["acc,none"], overall["accuracy"], "{group}");
    assert_eq!(group["sample_len"], 16);
    assert!(group.get("acc_norm,none").is_none(), "{group}");
    let (ll, gen) = ("kmmlu_public_safety", "kmmlu_direct_accounting");
    // The loglikelihood task's acc and acc_norm are lm-eval's own.
    for key in ["acc,none", "acc_norm,none"] {
        assert_eq!(
            results["results"][ll][key], theirs["results"][ll][key],
            "{key}"
        );
    }
    assert!(results["results"][gen].get("acc_norm,none").is_none());
    assert_eq!(
        results["higher_is_better"][gen],
        serde_json::json!({"acc": true})
    );
    assert_eq!(
        results["higher_is_better"][ll],
        serde_json::json!({"acc": true, "acc_norm": true})
    );
    for task in [ll, gen] {
        assert_eq!(
            results["n-samples"][task], theirs["n-samples"][task],
            "{task}"
        );
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("16 with answers (one answer each)"), "{md}");
}

/// Trial 37, defect 6: lm-eval writes a rerun into the same `--output_path`, each run's files
/// stamped with its start time. The folder is refused, naming every samples file of the task
/// (it named one "and another" and asked for "one run's folder", which does not exist). The
/// folder here holds run 1's real samples file under two runs' time stamps.
#[test]
fn a_folder_holding_two_runs_of_a_task_names_both_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("runs/canned-kmmlu");
    std::fs::create_dir_all(&dir).unwrap();
    let first = "samples_kmmlu_direct_public_safety_2026-11-23T08-27-47.304648.jsonl";
    let second = "samples_kmmlu_direct_public_safety_2026-11-24T09-10-11.123456.jsonl";
    for name in [first, second] {
        std::fs::copy(samples("1_direct_public_safety"), dir.join(name)).unwrap();
    }
    let out = grade_cmd(
        &kmmlu("Public-Safety-test.csv"),
        &tmp.path().join("runs"),
        &tmp.path().join("out"),
    )
    .assert()
    .code(2)
    .get_output()
    .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 samples files for task `kmmlu_direct_public_safety`"),
        "{err}"
    );
    assert!(err.contains(first) && err.contains(second), "{err}");
    assert!(!tmp.path().join("out/report.json").exists());
}

/// Trial 40, D1: two samples files of one task concatenated (a resumed run, two seeds) kept
/// the first line of each document and dropped the rest without a word, so the score
/// depended on the order of the files. A document under a filter it already had is another
/// run: its answers are read again and named as repeated samples. The file is lm-eval's own,
/// given twice as a user's `cat` would.
#[test]
fn a_samples_file_given_twice_is_read_twice_and_named() {
    let tmp = tempfile::tempdir().unwrap();
    let file = samples("3_maj3_public_safety");
    let text = std::fs::read_to_string(&file).unwrap();
    let twice = tmp
        .path()
        .join("samples_kmmlu_direct_maj3_public_safety_twice.jsonl");
    std::fs::write(&twice, format!("{text}{text}")).unwrap();
    let once = grade(
        &kmmlu("Public-Safety-test.csv"),
        &file,
        &tmp.path().join("once"),
        &[],
    );
    let out = tmp.path().join("twice");
    let o = grade_cmd(&kmmlu("Public-Safety-test.csv"), &twice, &out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("24 answers name a sample their item already had")
            && err.contains("_twice.jsonl:17`"),
        "{err}"
    );
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    // 8 documents × 3 repeats × 2 runs; the second filter's lines still read once per run.
    assert_eq!(r["metrics"]["overall"]["n"], 48);
    assert_eq!(
        r["metrics"]["overall"]["accuracy"],
        once["metrics"]["overall"]["accuracy"]
    );
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["repeated_samples"], 24);
}

/// Trial 40, D12: a `.jsonl` that is not a samples file (a user's own generations dropped
/// into lm-eval's --output_path) was skipped without a word. It is still not read (its ids
/// are another file's), but the run names it, in `run.json` too; a folder with only such
/// files names them in its error.
#[test]
fn other_jsonl_files_in_an_output_folder_are_named_as_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("runs/canned-kmmlu");
    std::fs::create_dir_all(&dir).unwrap();
    let name = "samples_kmmlu_direct_public_safety_2026-11-23T08-27-47.304648.jsonl";
    std::fs::copy(samples("1_direct_public_safety"), dir.join(name)).unwrap();
    std::fs::write(dir.join("my_gens.jsonl"), "{\"id\":0,\"response\":\"A\"}\n").unwrap();
    let dataset = kmmlu("Public-Safety-test.csv");
    let out = tmp.path().join("out");
    let done = grade_cmd(&dataset, &tmp.path().join("runs"), &out)
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(
        err.contains("my_gens.jsonl is not an lm-eval samples file") && err.contains("not read"),
        "{err}"
    );
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let listed = run["files_not_read"].as_array().unwrap();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].as_str().unwrap().ends_with("my_gens.jsonl"));
    // Without the samples file, the folder's error names what it holds.
    std::fs::remove_file(dir.join(name)).unwrap();
    let failed = grade_cmd(&dataset, &tmp.path().join("runs"), &tmp.path().join("out2"))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(
        err.contains("it holds") && err.contains("my_gens.jsonl"),
        "{err}"
    );
}

/// lm-eval's shipped `arc_challenge_chat` on an ARC file whose rows 1 and 3 are labelled 1–4
/// (run `9_arc_chat_local`, on `tests/fixtures/datasets/arc.jsonl`): lm-eval shows every row
/// as A–D, in a prompt whose line breaks reach the model as a backslash and an `n` (the
/// shipped YAML quotes it in single quotes). kgrade read those rows as numbers, 2/5 for
/// lm-eval's 4/5; it now reads the letters the prompt showed. Keyed by doc_id against a
/// dataset with ids of its own, the error says to give `--id-col @row`.
#[test]
fn arc_chat_rows_labelled_by_number_are_read_in_the_letters_the_prompt_showed() {
    let tmp = tempfile::tempdir().unwrap();
    let file = model_file("9_arc_chat_local", "canned-arc", "samples_");
    let dataset = root().join("tests/fixtures/datasets/arc.jsonl");
    let refused = grade_cmd(&dataset, &file, tmp.path())
        .args(["--answer-col", "answerKey"])
        .assert()
        .code(3);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("give --id-col @row"), "{stderr}");
    let r = grade(
        &dataset,
        &file,
        tmp.path(),
        &["--answer-col", "answerKey", "--id-col", "@row"],
    );
    let verdicts = lines(&tmp.path().join("verdicts.jsonl"));
    assert_eq!(verdicts.len(), 5);
    for (v, line) in verdicts.iter().zip(lines(&file)) {
        assert_eq!(v["choices"], "letter:4", "{v}");
        assert_eq!(v["gold"], line["target"], "{v}");
        assert_eq!(v["correct"], line["exact_match"] == 1.0, "{v}\n{line}");
    }
    assert_eq!(r["metrics"]["overall"]["correct"], 4);
    assert_eq!(
        r["join"]["lm_eval"]["arc_challenge_chat_local"]["exact_match,remove_whitespace"],
        0.8
    );
}
