//! `kgrade extract` driven as a user would: files, stdin, malformed lines, exit codes, pipes.

use assert_cmd::Command;
use predicates::prelude::*;
use std::io::Write;
use std::process::Stdio;

fn kgrade() -> Command {
    Command::cargo_bin("kgrade").unwrap()
}

fn lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn bundled_sample_reads_in_order() {
    let out = kgrade()
        .args(["extract", "data/sample_answers.jsonl"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = lines(&out);
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[0]["id"], "gov-1");
    assert_eq!(rows[0]["status"], "answer");
    assert_eq!(rows[0]["choice"], "①");
    assert_eq!(rows[0]["index"], 1);
    assert_eq!(rows[0]["rule"], "statement");
    assert_eq!(rows[2]["rule"], "truncated_reasoning");
    assert_eq!(rows[3]["status"], "ambiguous");
    assert_eq!(rows[6]["choice"], "×");
    assert_eq!(rows[6]["index"], 2);
    assert_eq!(rows[10]["status"], "invalid");
    assert_eq!(rows[11]["rule"], "refusal");
}

#[test]
fn malformed_lines_are_reported_and_the_rest_processed() {
    let input = concat!(
        "{\"id\":1,\"question\":\"① a ② b ③ c\",\"response\":\"정답: ③\"}\n",
        "{\"id\":2,\"question\":\"① a ② b\",\"respo\n",
        "\n",
        "{\"id\":3,\"question\":\"no options here\",\"response\":\"③\"}\n",
        "{\"id\":4,\"question\":\"q\",\"response\":\"B\",\"choices\":\"roman:4\"}\n",
        "{\"id\":5,\"question\":\"q\"}\n",
        "{\"id\":6,\"response\":\"B\",\"choices\":\"letter:4\"}\r\n",
    );
    let assert = kgrade()
        .args(["extract", "-"])
        .write_stdin(input)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("<stdin>:2: invalid JSON"))
        .stderr(predicate::str::contains("<stdin>:3: empty line"))
        .stderr(predicate::str::contains("<stdin>:4: field `question`"))
        .stderr(predicate::str::contains("<stdin>:5: field `choices`"))
        .stderr(predicate::str::contains(
            "<stdin>:6: invalid JSON: missing field `response`",
        ))
        .stderr(predicate::str::contains("5 of 7 lines could not be read"));
    let rows = lines(&assert.get_output().stdout);
    assert_eq!(rows.len(), 7, "one output line per input line");
    assert_eq!(rows[0]["choice"], "③");
    assert_eq!(rows[1]["status"], "error");
    assert_eq!(rows[3]["id"], 3);
    assert_eq!(rows[3]["status"], "error");
    assert_eq!(rows[6]["choice"], "B");
}

#[test]
fn invalid_utf8_is_an_error_line_not_a_crash() {
    let mut input = b"{\"id\":1,\"choices\":\"circled:4\",\"response\":\"".to_vec();
    input.extend_from_slice(&[0xff, 0xfe]);
    input.extend_from_slice(b"\"}\n{\"id\":2,\"choices\":\"circled:4\",\"response\":\"2\"}\n");
    let assert = kgrade()
        .args(["extract"])
        .write_stdin(input)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("<stdin>:1: invalid UTF-8"));
    let rows = lines(&assert.get_output().stdout);
    assert_eq!(rows[1]["choice"], "②");
}

#[test]
fn missing_file_is_exit_2_with_the_path() {
    kgrade()
        .args(["extract", "no/such/file.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no/such/file.jsonl"));
}

#[test]
fn explains_one_decision() {
    kgrade()
        .args([
            "extract",
            "--question",
            "금융정책 총괄 기관은? ① 금융위원회 ② 기획재정부 ③ 국방부",
            "--text",
            "처음엔 ②로 봤지만 다시 보니 ①이 맞다",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("choices : circled:3 (detected)"))
        .stdout(predicate::str::contains("choice  : ① (index 1)"))
        .stdout(predicate::str::contains("rule    : corrected_statement"))
        .stdout(predicate::str::contains("\"①이 맞다\""));
    kgrade()
        .args(["extract", "--question", "무엇?", "--text", "③"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no options found"));
}

#[test]
fn closed_output_pipe_ends_quietly() {
    // Many lines into a reader that takes one line and closes: no error, exit 0.
    let bin = assert_cmd::cargo::cargo_bin("kgrade");
    let mut child = std::process::Command::new(bin)
        .args(["extract", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line = "{\"id\":1,\"choices\":\"circled:5\",\"response\":\"정답은 ③번입니다\"}\n";
        for _ in 0..200_000 {
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "exit {:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
