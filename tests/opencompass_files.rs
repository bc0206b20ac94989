//! kgrade on prediction files OpenCompass wrote itself. Every file under
//! `tests/fixtures/opencompass/runs/` was written by OpenCompass 0.5.4's own CLI
//! (`opencompass CONFIG -w DIR`) with its `OpenAISDK` model class pointed at a fake
//! OpenAI-compatible server on 127.0.0.1 that gives canned answers, on the bundled
//! `data/kmmlu_sample.csv` (with a letter answer column added, as OpenCompass's circular
//! datasets need); `tests/fixtures/opencompass/README.md` says how and
//! `tests/fixtures/opencompass/recipe/` holds the configs and the script. Only the work
//! folders' `predictions/` and `summary/` were kept; nothing was edited.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fixture run's work folder (`runs/<run>/<timestamp>`).
fn work(run: &str) -> PathBuf {
    let dir = root().join("tests/fixtures/opencompass/runs").join(run);
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap()
}

/// The one predictions document of a fixture run.
fn predictions(run: &str) -> PathBuf {
    let dir = work(run).join("predictions");
    let model = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::read_dir(model)
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap()
}

/// The summary CSV OpenCompass wrote for a run.
fn summary_csv(run: &str) -> PathBuf {
    std::fs::read_dir(work(run).join("summary"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "csv"))
        .unwrap()
}

/// OpenCompass's own accuracy for a run, from its summary CSV (percent).
fn opencompass_accuracy(run: &str) -> f64 {
    let csv = summary_csv(run);
    let text = std::fs::read_to_string(csv).unwrap();
    let row = text.lines().nth(1).unwrap();
    row.rsplit(',').next().unwrap().parse().unwrap()
}

fn grade(generations: &Path, out: &Path) -> assert_cmd::assert::Assert {
    Command::cargo_bin("kgrade")
        .unwrap()
        .args(["grade", "--dataset"])
        .arg(root().join("data/kmmlu_sample.csv"))
        .arg("--generations")
        .arg(generations)
        .arg("--out")
        .arg(out)
        .assert()
}

fn report(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// A plain run's predictions, given as the file, as the model's folder or as the whole work
/// folder, with the prompt as messages or as a text: every row graded once, with the
/// accuracy OpenCompass computed itself (its answers, read by kgrade's verifier, happen to be
/// right on the same rows as OpenCompass's first-option extraction).
#[test]
fn a_plain_run_is_graded_as_opencompass_graded_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = predictions("plain");
    let model = file.parent().unwrap().to_path_buf();
    for (i, generations) in [file, model, work("plain"), predictions("plain_nometa")]
        .iter()
        .enumerate()
    {
        let out = dir.path().join(format!("out{i}"));
        grade(generations, &out).success();
        let r = report(&out);
        let m = &r["metrics"]["overall"];
        assert_eq!(m["n"], 12, "{}", generations.display());
        let accuracy = m["accuracy"].as_f64().unwrap() * 100.0;
        assert!(
            (accuracy - opencompass_accuracy("plain")).abs() < 0.01,
            "{accuracy} vs OpenCompass's {}",
            opencompass_accuracy("plain")
        );
        let run: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["unknown_ids"], 0);
        assert_eq!(run["unreadable_lines"], 0);
        // The prompt was carried: every answer's question was checked against its row.
        assert_eq!(run["questions_compared"], 12);
        assert_eq!(run["tasks"][0], "kmmlu_sample");
    }
}

/// A run with three samples per question keys its entries past the dataset's rows (key k
/// is row k % 12, sample k / 12): every sample is graded, and the accuracy over them is
/// OpenCompass's "accuracy (3 runs average)" (graded as is, before, only the first sample
/// was, with a hint to add an id column).
#[test]
fn a_run_with_several_samples_per_question_grades_every_sample() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("n3");
    grade(&predictions("n3"), &out).success();
    let r = report(&out);
    assert_eq!(r["metrics"]["overall"]["n"], 36);
    assert_eq!(r["metrics"]["samples"]["max_samples_per_item"], 3);
    let accuracy = r["metrics"]["overall"]["accuracy"].as_f64().unwrap() * 100.0;
    assert!(
        (accuracy - opencompass_accuracy("n3")).abs() < 0.01,
        "{accuracy}"
    );
}

/// OpenCompass's metric values from a run's summary CSV, by metric name (percent).
fn opencompass_metrics(run: &str) -> std::collections::HashMap<String, f64> {
    let csv = summary_csv(run);
    std::fs::read_to_string(csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].to_string(), f[4].parse().unwrap())
        })
        .collect()
}

/// A circular run keys its entries one per ordering (key g is row g / 4, in the ordering its
/// prompt shows): graded as a circular run, every metric OpenCompass's CircularEvaluator
/// reports equals kgrade's (before: refused, and before that the first 12 entries were
/// graded as the 12 rows).
#[test]
fn a_circular_run_is_graded_as_opencompass_graded_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("circular");
    grade(&predictions("circular"), &out).success();
    let r = report(&out);
    let c = &r["metrics"]["circular"]["overall"];
    assert_eq!(
        (c["items"].as_u64(), c["answers"].as_u64()),
        (Some(12), Some(48))
    );
    let theirs = opencompass_metrics("circular");
    for (mine, name) in [
        (&c["acc_origin"], "acc_origin"),
        (&c["acc_circular"], "acc_circular"),
        (&c["perf_circular"], "perf_circular"),
        (&c["more"]["more_1"], "more_1_circular"),
        (&c["more"]["more_2"], "more_2_circular"),
        (&c["more"]["more_3"], "more_3_circular"),
    ] {
        let mine = mine.as_f64().unwrap() * 100.0;
        assert!(
            (mine - theirs[name]).abs() < 0.01,
            "{name}: {mine} vs {}",
            theirs[name]
        );
    }
}

/// A document of one entry (nothing after key 0 to show the layout) is one row.
#[test]
fn a_document_of_one_entry_is_one_row() {
    let dir = tempfile::tempdir().unwrap();
    let doc: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(predictions("plain")).unwrap()).unwrap();
    let one: serde_json::Map<String, Value> = doc.into_iter().take(1).collect();
    let path = dir.path().join("kmmlu_sample.json");
    std::fs::write(&path, serde_json::to_string_pretty(&one).unwrap()).unwrap();
    let out = dir.path().join("out");
    grade(&path, &out).success();
    assert_eq!(report(&out)["metrics"]["overall"]["n"], 1);
}

/// A dataset OpenCompass split into parts is read as one, its parts in order, each part's
/// keys moved on past the ones before; a part given alone and a folder of two models'
/// predictions are refused. (The parts here are the plain run's document split where
/// OpenCompass would split it, at the half, and renumbered from 0 as it numbers them.)
#[test]
fn parts_are_read_in_order_and_mixtures_refused() {
    let dir = tempfile::tempdir().unwrap();
    let doc: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(predictions("plain")).unwrap()).unwrap();
    let parts = dir.path().join("predictions/m");
    std::fs::create_dir_all(&parts).unwrap();
    for part in 0..2 {
        let half: serde_json::Map<String, Value> = (0..6)
            .map(|k| (k.to_string(), doc[&(part * 6 + k).to_string()].clone()))
            .collect();
        let text = serde_json::to_string_pretty(&half).unwrap();
        std::fs::write(parts.join(format!("kmmlu_sample_{part}.json")), text).unwrap();
    }
    let out = dir.path().join("out");
    grade(&parts, &out).success();
    let whole = dir.path().join("whole");
    grade(&predictions("plain"), &whole).success();
    let verdicts = |out: &Path| {
        std::fs::read_to_string(out.join("verdicts.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (v["id"].clone(), v["chosen"].clone(), v["correct"].clone())
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&out), verdicts(&whole));

    let a = grade(&parts.join("kmmlu_sample_1.json"), &dir.path().join("lone")).code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("part 1 of the predictions for `kmmlu_sample`"),
        "{err}"
    );

    let other = dir.path().join("predictions/other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(predictions("plain"), other.join("kmmlu_sample.json")).unwrap();
    let a = grade(&dir.path().join("predictions"), &dir.path().join("two")).code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("OpenCompass predictions of 2 models"), "{err}");
}

/// Trial 48: a predictions document with a byte order mark is read; one that breaks off in
/// its first entry graded nothing, and leaves the run already in OUT as it was (it had
/// replaced it with an empty one).
#[test]
fn a_bom_is_read_and_a_document_broken_in_its_first_entry_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(predictions("plain")).unwrap();
    let bom = dir.path().join("kmmlu_sample.json");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let out = dir.path().join("out");
    grade(&bom, &out).success();
    let before = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    assert_eq!(before.lines().count(), 12);
    let cut = dir.path().join("cut").join("kmmlu_sample.json");
    std::fs::create_dir_all(cut.parent().unwrap()).unwrap();
    let at = (0..=200).rev().find(|&i| text.is_char_boundary(i)).unwrap();
    std::fs::write(&cut, &text[..at]).unwrap();
    let a = grade(&cut, &out).code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("invalid JSON") && err.contains("line"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap(),
        before
    );
}

/// Trial 48: folders that would put answers on the wrong rows are refused, naming why: a
/// split dataset with a part missing, a dataset's whole document beside an older run's
/// parts, and two datasets' predictions against one dataset file. (Built from the plain
/// run's document: split, renamed and copied as OpenCompass would lay them out.)
#[test]
fn folders_that_would_misplace_rows_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(predictions("plain")).unwrap();
    let doc: serde_json::Map<String, Value> = serde_json::from_str(&text).unwrap();
    let part = |k: usize| {
        let half: serde_json::Map<String, Value> = (0..4)
            .map(|i| (i.to_string(), doc[&(k * 4 + i).to_string()].clone()))
            .collect();
        serde_json::to_string_pretty(&half).unwrap()
    };
    let case = |name: &str, files: &[(&str, String)], says: &str| {
        let folder = dir.path().join(name).join("predictions/m");
        std::fs::create_dir_all(&folder).unwrap();
        for (file, body) in files {
            std::fs::write(folder.join(file), body).unwrap();
        }
        let a = grade(&folder, &dir.path().join(name).join("out")).code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert!(err.contains(says), "{name}: {err}");
    };
    case(
        "gap",
        &[
            ("kmmlu_sample_0.json", part(0)),
            ("kmmlu_sample_2.json", part(2)),
        ],
        "but not part 1 of `kmmlu_sample`",
    );
    case(
        "beside",
        &[
            ("kmmlu_sample.json", text.clone()),
            ("kmmlu_sample_0.json", part(0)),
        ],
        "which OpenCompass passes over",
    );
    case(
        "two",
        &[
            ("kmmlu_sample.json", text.clone()),
            ("other.json", text.clone()),
        ],
        "predictions of 2 datasets",
    );
}
