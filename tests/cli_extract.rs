//! `kgrade extract` driven as a user would: files, stdin, malformed lines, exit codes, pipes.

mod support;

use predicates::prelude::*;
use std::io::Write;
use std::process::Stdio;
use support::kgrade;

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

/// Many batches verified across cores come back one line per input line, in input order,
/// with every unreadable line reported in order under its own line number, and each answer
/// decided as it is alone.
#[test]
fn parallel_batches_keep_input_order_and_line_numbers() {
    let answers = [
        "정답은 ③번입니다.",
        "긴 설명이 이어집니다. 따라서 답은 ②",
        "①",
        "잘 모르겠습니다",
    ];
    let mut input = Vec::new();
    let mut bad = Vec::new();
    for i in 0..30_000u64 {
        if i % 997 == 13 {
            input.extend_from_slice(b"{not json\n");
            bad.push(i + 1);
            continue;
        }
        let line = serde_json::json!({
            "id": i,
            "question": format!("문항 {i}: 옳은 것은? ① 가 ② 나 ③ 다 ④ 라"),
            "response": answers[i as usize % answers.len()],
        });
        input.extend_from_slice(line.to_string().as_bytes());
        input.push(b'\n');
    }
    let mut out = Vec::new();
    let mut reported = Vec::new();
    let summary = kgrade::stages::extract::run("many", input.as_slice(), &mut out, |e| {
        reported.push(e.line)
    })
    .unwrap();
    assert_eq!(summary.lines, 30_000);
    assert_eq!(summary.failed, bad.len() as u64);
    assert_eq!(reported, bad);
    let rows = lines(&out);
    assert_eq!(rows.len(), 30_000);
    let set: kgrade::verify::ChoiceSet = "circled:4".parse().unwrap();
    for (i, row) in rows.iter().enumerate() {
        if bad.contains(&(i as u64 + 1)) {
            assert_eq!(row["status"], "error");
            assert!(row["error"]
                .as_str()
                .unwrap()
                .starts_with(&format!("many:{}:", i + 1)));
            continue;
        }
        assert_eq!(row["id"], i as u64, "line {}", i + 1);
        let alone = kgrade::verify::verify(answers[i % answers.len()], &set);
        assert_eq!(row["status"], alone.status(), "line {}", i + 1);
        assert_eq!(row["rule"], alone.rule_name(), "line {}", i + 1);
    }
}

/// A read error part-way keeps every line read before it: they are verified and written
/// before the error is returned.
#[test]
fn read_error_keeps_what_was_read() {
    struct Failing {
        data: Vec<u8>,
        at: usize,
    }
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.at >= self.data.len() {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = buf.len().min(self.data.len() - self.at).min(4096);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }
    let mut data = Vec::new();
    for i in 0..20_000 {
        data.extend_from_slice(
            format!("{{\"id\":{i},\"question\":\"① 가 ② 나\",\"response\":\"②\"}}\n").as_bytes(),
        );
    }
    let reader = std::io::BufReader::new(Failing { data, at: 0 });
    let mut out = Vec::new();
    let err = kgrade::stages::extract::run("failing", reader, &mut out, |_| {}).unwrap_err();
    assert_eq!(err.to_string(), "disk gone");
    let rows = lines(&out);
    assert_eq!(rows.len(), 20_000);
    assert!(rows
        .iter()
        .enumerate()
        .all(|(i, r)| r["id"] == i as u64 && r["choice"] == "②"));
}

/// An empty input extracts nothing, and says so: exit 3, not a silent success.
#[test]
fn empty_input_is_not_a_success() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    kgrade()
        .arg("extract")
        .arg(&empty)
        .assert()
        .code(3)
        .stdout("")
        .stderr(predicate::str::contains("no lines to extract"));
    kgrade()
        .args(["extract", "-"])
        .write_stdin("")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("-: no lines to extract"));
}

/// Audit 19, message 13: an editor's trailing blank line was reported as an unreadable
/// line (exit 1). Blank lines at the end are not input; one between answers still is.
#[test]
fn trailing_blank_lines_are_not_input_lines() {
    let two = concat!(
        "{\"id\":1,\"question\":\"① a ② b ③ c\",\"response\":\"정답: ③\"}\n",
        "{\"id\":2,\"question\":\"① a ② b ③ c\",\"response\":\"①\"}\n",
    );
    for tail in ["\n", "\n\n  \r\n", " "] {
        let assert = kgrade()
            .args(["extract", "-"])
            .write_stdin(format!("{two}{tail}"))
            .assert()
            .success()
            .stderr(predicate::str::is_empty());
        let rows = lines(&assert.get_output().stdout);
        assert_eq!(rows.len(), 2, "{tail:?}");
    }
    kgrade()
        .args(["extract", "-"])
        .write_stdin("\n\n")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("no lines to extract"));
}
