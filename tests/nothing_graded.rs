//! A run that grades nothing is not a 0% model: `grade` and `report` exit 3 (README, exit
//! codes) when there is no answer to grade, with a message that says why.

mod support;

use predicates::prelude::*;
use support::{grade, kgrade, write};

const DATASET: &str = "id,question,answer,domain\nq0,\"관할 기관은? ① 금융위 ② 기재부\",①,x\nq1,\"관할 기관은? ① 금융위 ② 기재부\",②,y\n";

/// An OpenAI Batch API error file, in the shape the Batch API writes it (`response: null`,
/// `error.code` / `error.message`) for requests that expired.
fn batch_error_line(id: &str) -> String {
    format!(
        "{{\"id\":\"batch_req_{id}\",\"custom_id\":\"{id}\",\"response\":null,\"error\":{{\"code\":\"batch_expired\",\"message\":\"This request could not be executed before the completion window expired.\"}}}}\n"
    )
}

/// Audit 28, B2: an error file graded as "accuracy 0.0%" with exit 0.
#[test]
fn grade_of_only_failed_requests_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let data = write(tmp.path(), "d.csv", DATASET);
    let errors = write(
        tmp.path(),
        "batch_errors.jsonl",
        batch_error_line("q0") + &batch_error_line("q1"),
    );
    let out = tmp.path().join("out");
    grade(&[], &data, &errors, &out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "nothing was graded: every one of the 2 answers is a failed request",
        ));
    // The reports are still written, as for every other run that graded nothing.
    assert!(out.join("report.json").exists());
    // `report` on the same verdicts says the same.
    kgrade()
        .arg("report")
        .arg(&out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("every one of the 2 answers"));
    // One real answer among the failures is a graded run.
    let mixed = write(
        tmp.path(),
        "mixed.jsonl",
        batch_error_line("q0")
            + "{\"id\":\"batch_req_q1\",\"custom_id\":\"q1\",\"error\":null,\"response\":{\"status_code\":200,\"body\":{\"choices\":[{\"index\":0,\"finish_reason\":\"stop\",\"message\":{\"role\":\"assistant\",\"content\":\"정답은 ②\"}}]}}}\n",
    );
    grade(&[], &data, &mixed, &tmp.path().join("mixed"))
        .assert()
        .success();
}

/// Audit 28, B1: `report` on an empty verdicts file printed "accuracy 0.0%" and exited 0.
#[test]
fn report_of_an_empty_verdicts_file_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    std::fs::create_dir(&run).unwrap();
    write(&run, "verdicts.jsonl", "");
    kgrade()
        .arg("report")
        .arg(&run)
        .assert()
        .code(3)
        .stdout(predicate::str::contains("accuracy").not())
        .stderr(predicate::str::contains(
            "verdicts.jsonl: nothing was graded: no verdicts",
        ));
}

/// Trial 40, D7: a run that graded nothing (the wrong generations file) replaced a good run
/// in the same `--out`, leaving an empty verdicts.jsonl and accuracy 0.
#[test]
fn a_run_that_grades_nothing_leaves_an_earlier_run_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let data = write(tmp.path(), "d.csv", DATASET);
    let good = write(
        tmp.path(),
        "good.jsonl",
        "{\"id\":\"q0\",\"response\":\"정답은 ①\"}\n{\"id\":\"q1\",\"response\":\"정답은 ①\"}\n",
    );
    let out = tmp.path().join("out");
    grade(&[], &data, &good, &out).assert().success();
    let before: Vec<Vec<u8>> = ["verdicts.jsonl", "report.json", "run.json"]
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    let wrong = write(
        tmp.path(),
        "wrong.jsonl",
        "{\"id\":\"x9\",\"response\":\"①\"}\n",
    );
    let errors = write(tmp.path(), "errors.jsonl", batch_error_line("q0"));
    for gens in [&wrong, &errors] {
        grade(&[], &data, gens, &out)
            .assert()
            .code(3)
            .stderr(predicate::str::contains("nothing was graded"))
            .stderr(predicate::str::contains("the earlier run in"));
        let after: Vec<Vec<u8>> = ["verdicts.jsonl", "report.json", "run.json"]
            .iter()
            .map(|f| std::fs::read(out.join(f)).unwrap())
            .collect();
        assert_eq!(before, after, "{}", gens.display());
    }
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Walkthrough 50, F5: batch ids such as `kmmlu-q0` beside a dataset whose ids are `0`, `1`:
/// the message said to give --id-col; the fix is --id-pattern, which it now names.
#[test]
fn ids_ending_in_the_dataset_s_name_id_pattern() {
    let tmp = tempfile::tempdir().unwrap();
    let data = write(
        tmp.path(),
        "d.csv",
        "id,question,answer\n0,\"관할 기관은? ① 금융위 ② 기재부\",①\n1,\"관할 기관은? ① 금융위 ② 기재부\",②\n",
    );
    let gens = write(
        tmp.path(),
        "g.jsonl",
        "{\"id\":\"kmmlu-ps-0\",\"response\":\"①\"}\n{\"id\":\"kmmlu-ps-1\",\"response\":\"②\"}\n",
    );
    let out = tmp.path().join("out");
    grade(&[], &data, &gens, &out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("give --id-pattern '(\\d+)$'"));
    grade(&["--id-pattern", "(\\d+)$"], &data, &gens, &out)
        .assert()
        .success();
}
