//! Batch and server output shapes, each with the verdict it must give. The lines follow the
//! providers' documented formats: OpenAI Batch API output and error files (chat completions
//! with `n` choices, the Responses API), Ollama `/api/chat` replies, and vLLM chat replies
//! with reasoning kept apart (`reasoning_content`, `content: null`).

mod support;

use predicates::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use support::{grade, kgrade, root};

fn write_lines(dir: &Path, name: &str, lines: &[Value]) -> PathBuf {
    let p = dir.join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).unwrap();
    p
}

fn dataset(dir: &Path) -> PathBuf {
    let p = dir.join("d.csv");
    std::fs::write(
        &p,
        "id,question,answer,domain\nq1,\"기관은? ① 금융위원회 ② 기획재정부 ③ 국방부\",2,금융\nq2,\"기관은? ① 금융위원회 ② 기획재정부 ③ 국방부\",3,금융\n",
    )
    .unwrap();
    p
}

fn verdicts(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("verdicts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn grade_ok(dir: &Path, generations: &Path, extra: &[&str]) -> (Vec<Value>, Value) {
    let out = dir.join("out");
    grade(&[], &dataset(dir), generations, &out)
        .args(extra)
        .assert()
        .success();
    let report =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    (verdicts(&out), report)
}

fn chat(contents: &[&str]) -> Value {
    let choices: Vec<Value> = contents
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"index": i, "message": {"role": "assistant", "content": c}, "finish_reason": "stop"}))
        .collect();
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "m", "choices": choices})
}

#[test]
fn batch_output_with_n_choices_gives_every_choice_as_a_sample() {
    let tmp = tempfile::tempdir().unwrap();
    let g = write_lines(
        tmp.path(),
        "batch.jsonl",
        &[
            json!({"id": "batch_req_1", "custom_id": "q1", "response": {"status_code": 200, "request_id": "r1", "body": chat(&["정답은 ②", "①", "②번입니다"])}, "error": null}),
            json!({"id": "batch_req_2", "custom_id": "q2", "response": {"status_code": 200, "request_id": "r2", "body": chat(&["③"])}, "error": null}),
        ],
    );
    let (v, r) = grade_ok(tmp.path(), &g, &[]);
    assert_eq!(v.len(), 4);
    assert_eq!(
        v.iter()
            .map(|v| v["sample"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [0, 1, 2, 0]
    );
    assert_eq!(r["metrics"]["samples"]["max_samples_per_item"], 3);
    assert_eq!(r["metrics"]["overall"]["correct"], 3);
}

#[test]
fn failed_requests_are_request_errors_with_the_provider_s_message() {
    let tmp = tempfile::tempdir().unwrap();
    let g = write_lines(
        tmp.path(),
        "batch.jsonl",
        &[
            // Output file: a request that failed outright.
            json!({"id": "batch_req_1", "custom_id": "q1", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}),
            // Error file: the request reached the model API and was refused.
            json!({"id": "batch_req_2", "custom_id": "q2", "response": {"status_code": 400, "request_id": "r2", "body": {"error": {"message": "This model's maximum context length is 8192 tokens.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}}, "error": null}),
        ],
    );
    let out = tmp.path().join("out");
    // Only failed requests: nothing was graded (exit 3), and the verdicts are still written.
    grade(&[], &dataset(tmp.path()), &g, &out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "nothing was graded: every one of the 2 answers is a failed request",
        ));
    let v = verdicts(&out);
    assert!(v.iter().all(|v| v["status"] == "request_error"));
    assert!(v[0]["note"]
        .as_str()
        .unwrap()
        .contains("batch_expired: This request could not be executed"));
    assert!(v[1]["note"]
        .as_str()
        .unwrap()
        .contains("HTTP 400: context_length_exceeded: This model's maximum context length"));
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(r["metrics"]["request_errors"], 2);
    // Trial 38, defect 5: the join's count (run.json, report.json) stayed 0.
    assert_eq!(r["join"]["request_errors"], 2);
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["request_errors"], 2, "{run}");
}

#[test]
fn responses_api_batch_output_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let body = |text: &str| {
        json!({"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5", "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "①과 ②를 비교했다"}]},
            {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}
        ]})
    };
    let g = write_lines(
        tmp.path(),
        "responses.jsonl",
        &[
            json!({"id": "batch_req_1", "custom_id": "q1", "response": {"status_code": 200, "request_id": "r1", "body": body("정답은 ②입니다.")}, "error": null}),
            json!({"id": "batch_req_2", "custom_id": "q2", "response": {"status_code": 200, "request_id": "r2", "body": body("③")}, "error": null}),
        ],
    );
    let (v, _) = grade_ok(tmp.path(), &g, &[]);
    assert_eq!(v[0]["chosen"], "②");
    assert_eq!(v[1]["chosen"], "③");
    assert!(v.iter().all(|v| v["correct"] == true));
}

#[test]
fn custom_ids_map_to_dataset_ids_with_an_id_pattern() {
    let tmp = tempfile::tempdir().unwrap();
    let g = write_lines(
        tmp.path(),
        "batch.jsonl",
        &[
            json!({"custom_id": "kmmlu-finance-q1", "response": {"status_code": 200, "body": chat(&["②"])}, "error": null}),
            json!({"custom_id": "kmmlu-finance-q2", "response": {"status_code": 200, "body": chat(&["③"])}, "error": null}),
        ],
    );
    // Without a pattern: nothing matches, and the error shows both id shapes.
    grade(&[], &dataset(tmp.path()), &g, &tmp.path().join("none"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains("`kmmlu-finance-q1`"))
        .stderr(predicate::str::contains("`q1`"));
    let (v, r) = grade_ok(tmp.path(), &g, &["--id-pattern", "-(q\\d+)$"]);
    assert_eq!(v.len(), 2);
    assert_eq!(r["metrics"]["overall"]["correct"], 2);
    kgrade()
        .args([
            "grade",
            "--id-pattern",
            "no-group",
            "--dataset",
            "x",
            "--generations",
            "y",
            "--out",
            "z",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("capture group"));
}

#[test]
fn ollama_chat_lines_are_read_with_thinking_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let g = write_lines(
        tmp.path(),
        "ollama.jsonl",
        &[
            json!({"id": "q1", "model": "gpt-oss:20b", "created_at": "2025-08-05T00:00:00Z", "message": {"role": "assistant", "content": "정답은 ②", "thinking": "①은 아니고"}, "done": true, "done_reason": "stop", "eval_count": 12}),
            json!({"id": "q2", "model": "gpt-oss:20b", "message": {"role": "assistant", "content": "", "thinking": "③일까 ②일까"}, "done": true}),
        ],
    );
    let (v, _) = grade_ok(tmp.path(), &g, &[]);
    assert_eq!(v[0]["chosen"], "②");
    assert_eq!(v[1]["rule"], "reasoning_only");
    assert_eq!(v[1]["tail"], "③일까 ②일까");
}

#[test]
fn vllm_reasoning_with_null_content_shows_no_markers_kgrade_made_up() {
    let tmp = tempfile::tempdir().unwrap();
    let reply = |content: Value, reasoning: &str| json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "openai/gpt-oss-20b", "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "reasoning_content": reasoning}, "finish_reason": "stop"}]});
    let g = write_lines(
        tmp.path(),
        "vllm.jsonl",
        &[
            json!({"id": "q1", "response": reply(Value::Null, "We compare options. 정답은 ②")}),
            json!({"id": "q2", "response": reply(json!("③"), "thinking about it")}),
        ],
    );
    let (v, r) = grade_ok(tmp.path(), &g, &[]);
    assert_eq!(v[0]["status"], "no_answer");
    assert_eq!(v[0]["rule"], "reasoning_only");
    assert_eq!(v[0]["tail"], "We compare options. 정답은 ②");
    assert_eq!(v[1]["chosen"], "③");
    let audit = r["audit"].to_string();
    assert!(!audit.contains("<think>"), "{audit}");
}

#[test]
fn choices_is_honoured_for_kmmlu_datasets() {
    let tmp = tempfile::tempdir().unwrap();
    let kmmlu = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/kmmlu_sample.csv");
    let g = write_lines(
        tmp.path(),
        "letters.jsonl",
        &[
            json!({"id": "0", "response": "B"}),
            json!({"id": "1", "response": "정답은 A입니다"}),
        ],
    );
    let out = tmp.path().join("out");
    grade(&["--choices", "letter:4"], &kmmlu, &g, &out)
        .assert()
        .success();
    let v = verdicts(&out);
    assert_eq!(v[0]["choices"], "letter:4");
    assert_eq!(
        (v[0]["chosen"].clone(), v[0]["gold"].clone()),
        (json!("B"), json!("B"))
    );
    assert_eq!(v[1]["chosen"], "A");
    assert_eq!(v[0]["gold_index"], 2);

    // Audit 28, E3: the same sample with its answers written as letters (B for 2) is read
    // with --choices letter:4 (it said `unknown answer label "B" for choices letter:4`);
    // without it the message says what KMMLU's answer is.
    let mut reader = csv::Reader::from_path(&kmmlu).unwrap();
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(reader.headers().unwrap()).unwrap();
    for record in reader.records() {
        let mut cells: Vec<String> = record.unwrap().iter().map(String::from).collect();
        let position: u8 = cells[1].parse().unwrap();
        cells[1] = char::from(b'A' + position - 1).to_string();
        writer.write_record(&cells).unwrap();
    }
    let lettered = writer.into_inner().unwrap();
    let lettered = support::write(tmp.path(), "kmmlu_letters.csv", lettered);
    let out2 = tmp.path().join("out2");
    grade(&["--choices", "letter:4"], &lettered, &g, &out2)
        .assert()
        .success();
    let v2 = verdicts(&out2);
    assert_eq!(v2, v, "letters and positions give the same verdicts");
    grade(&[], &lettered, &g, &tmp.path().join("out3"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "kmmlu_letters.csv:2: field `answer`: \"B\" is not an option's 1-based position (1–4), which KMMLU's answer is; for letter answers give --choices letter:4",
        ));
    grade(
        &["--choices", "letter:4"],
        &kmmlu,
        &g,
        &tmp.path().join("out4"),
    )
    .assert()
    .success();
}

/// Audit 19, defect 2: with several samples per item and circular evaluation, draws were
/// made by line order, so shuffled batch output (OpenAI does not keep the input order) gave
/// another `perf_circular`. Item q1 (gold ②) in three rotations, two samples: sample 0 is
/// wrong in rotation [2,0,1] only, sample 1 in rotation [1,2,0] only, so neither draw is
/// right in every rotation: `perf_circular` 0. In the shuffled order each rotation's wrong
/// answer comes first, which by line order would make one perfect draw (0.5).
#[test]
fn circular_draws_follow_the_named_sample_not_the_line_order() {
    let rotations: [[u8; 3]; 3] = [[0, 1, 2], [2, 0, 1], [1, 2, 0]];
    let wrong = |sample: u32, r: usize| (sample, r) == (0, 1) || (sample, r) == (1, 2);
    // The label the model gives: where ② (original option 1) was shown, or the next one.
    let label = |sample: u32, r: usize| {
        let shown = rotations[r].iter().position(|&o| o == 1).unwrap();
        let pick = if wrong(sample, r) {
            (shown + 1) % 3
        } else {
            shown
        };
        ["①", "②", "③"][pick].to_string()
    };
    let order = |shuffled: bool| -> Vec<(u32, usize)> {
        if shuffled {
            vec![(0, 0), (0, 1), (1, 2), (1, 0), (1, 1), (0, 2)]
        } else {
            vec![(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
        }
    };
    let ordering = |r: usize| rotations[r].map(|o| o.to_string()).join(",");
    for shuffled in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let batch: Vec<Value> = order(shuffled)
            .into_iter()
            .map(|(s, r)| {
                // As `kgrade generate --write-batch` names them: no `#s=` for sample 0.
                let sample = if s == 0 {
                    String::new()
                } else {
                    format!("#s={s}")
                };
                json!({"id": "batch_req", "custom_id": format!("q1{sample}#o={}", ordering(r)),
                    "response": {"status_code": 200, "body": chat(&[&label(s, r)])}, "error": null})
            })
            .collect();
        let plain: Vec<Value> = order(shuffled)
            .into_iter()
            .map(|(s, r)| json!({"id": "q1", "sample": s, "ordering": rotations[r], "response": label(s, r)}))
            .collect();
        for (name, lines) in [("batch.jsonl", batch), ("plain.jsonl", plain)] {
            let file = write_lines(dir.path(), name, &lines);
            let (verdicts, report) = grade_ok(dir.path(), &file, &[]);
            let c = &report["metrics"]["circular"]["overall"];
            assert_eq!(
                (c["items"].as_u64(), c["answers"].as_u64()),
                (Some(2), Some(6))
            );
            assert_eq!(c["perf_circular"], 0.0, "{name}, shuffled {shuffled}: {c}");
            assert_eq!(c["more"]["more_2"], 1.0, "{name}, shuffled {shuffled}: {c}");
            let draws: Vec<u64> = verdicts
                .iter()
                .map(|v| v["draw"].as_u64().unwrap())
                .collect();
            let named: Vec<u64> = order(shuffled).iter().map(|(s, _)| u64::from(*s)).collect();
            assert_eq!(draws, named, "{name}");
        }
    }
}

/// Audit 28, E4: a bad answer after a question over several lines was named on the line the
/// row starts on, not the line an editor shows it on. The bundled sample (every question
/// spans lines) with fin-01's answer replaced by ⑦.
#[test]
fn a_bad_field_is_named_on_its_physical_line() {
    let tmp = tempfile::tempdir().unwrap();
    let sample = support::root().join("data/domain_eval_sample.csv");
    let text = std::fs::read_to_string(&sample).unwrap();
    let start = text.find("\nfin-01,").unwrap() + 1;
    let end = start + text[start..].find("\",").unwrap() + 2;
    let answer_end = end + text[end..].find(',').unwrap();
    let bad = format!("{}⑦{}", &text[..end], &text[answer_end..]);
    let row_line = text[..start].matches('\n').count() + 1;
    let answer_line = bad[..end].matches('\n').count() + 1;
    assert!(answer_line > row_line + 3, "the question spans lines");
    let dataset = support::write(tmp.path(), "bad.csv", &bad);
    let g = support::root().join("data/generations_terse.jsonl");
    grade(&[], &dataset, &g, &tmp.path().join("out"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!(
            "bad.csv:{answer_line}: field `answer`: unknown answer label \"⑦\" for choices circled:4"
        )));
}

/// Trial 38, defect 2: a batch output followed by the re-submission of a failed request (the
/// same custom_id, now answered) was graded as two samples with no word of it. Both are still
/// graded (nothing decides which to keep), and the run says which lines repeat.
#[test]
fn a_retry_beside_its_failure_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let ok = |custom_id: &str, text: &str| json!({"id": "batch_req", "custom_id": custom_id, "response": {"status_code": 200, "body": chat(&[text])}, "error": null});
    let g = write_lines(
        tmp.path(),
        "batch.jsonl",
        &[
            ok("q1", "정답은 ②입니다."),
            json!({"id": "batch_req_2", "custom_id": "q2", "response": null, "error": {"code": "server_error", "message": "The server had an error."}}),
            ok("q2", "정답은 ③입니다."),
        ],
    );
    let out = tmp.path().join("out");
    grade(&[], &dataset(tmp.path()), &g, &out)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "1 answer names a sample its item already had",
        ))
        .stderr(predicate::str::contains("batch.jsonl:3"));
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["repeated_samples"], 1);
    assert_eq!(verdicts(&out).len(), 3);
}

/// Trial 38, defect 8: a refusal (OpenAI's `message.refusal` in a batch output, `refusal` on
/// a line `kgrade generate` wrote) was graded as rule `empty` with the provider's words lost.
#[test]
fn refusals_keep_the_provider_s_words() {
    let tmp = tempfile::tempdir().unwrap();
    let refused = json!({"id": "chatcmpl-r", "object": "chat.completion", "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}}]});
    let g = write_lines(
        tmp.path(),
        "batch.jsonl",
        &[
            json!({"id": "batch_req_1", "custom_id": "q1", "response": {"status_code": 200, "body": refused}, "error": null}),
            json!({"id": "batch_req_2", "custom_id": "q2", "response": {"status_code": 200, "body": chat(&["정답은 ③입니다."])}, "error": null}),
        ],
    );
    let (v, _) = grade_ok(tmp.path(), &g, &[]);
    assert_eq!(
        (v[0]["status"].as_str(), v[0]["rule"].as_str()),
        (Some("no_answer"), Some("refusal"))
    );
    assert!(
        v[0]["note"]
            .as_str()
            .unwrap()
            .contains("I can't help with that."),
        "{}",
        v[0]
    );
    assert_eq!(v[1]["chosen"], "③");
    let plain = write_lines(
        tmp.path(),
        "gen.jsonl",
        &[
            json!({"id": "q1", "sample": 0, "response": "", "refusal": "content_filter", "finish_reason": "content_filter"}),
        ],
    );
    let out = tmp.path().join("plain");
    grade(&[], &dataset(tmp.path()), &plain, &out)
        .assert()
        .success();
    let v = verdicts(&out);
    assert_eq!(v[0]["rule"], "refusal");
    assert_eq!(v[0]["tail"], "content_filter");
}

/// Trial 38, defect 9: a reply saved as a JSON string (`json.dumps(reply)`) was read as prose
/// (every answer `not_found`, no hint), and an Ollama /api/generate reply nested in
/// `response` was refused. Both are replies; a model answer that is itself JSON is not one.
#[test]
fn replies_saved_as_json_strings_and_ollama_generate_replies_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let g = write_lines(
        tmp.path(),
        "saved.jsonl",
        &[
            json!({"id": "q1", "response": chat(&["정답은 ②입니다."]).to_string()}),
            json!({"id": "q2", "response": {"model": "qwen3:8b", "response": "③", "thinking": "①? 아니다", "done": true, "done_reason": "stop"}}),
            json!({"id": "q1", "response": "{\"answer\": \"②\"}"}),
        ],
    );
    let (v, _) = grade_ok(tmp.path(), &g, &[]);
    let chosen: Vec<&str> = v
        .iter()
        .map(|v| v["chosen"].as_str().unwrap_or("∅"))
        .collect();
    assert_eq!(chosen, ["②", "③", "②"], "{v:?}");
    assert!(v[0]["span"].is_array());
}

/// Trial 38, defect 11: `--write-batch` into a folder that does not exist said
/// "No such file or directory" twice (the I/O error was the message and its source).
#[test]
fn a_batch_file_that_cannot_be_made_is_named_once() {
    let tmp = tempfile::tempdir().unwrap();
    let o = kgrade()
        .current_dir(tmp.path())
        .arg("generate")
        .arg("--dataset")
        .arg(root().join("data/kmmlu_sample.csv"))
        .args(["--model", "m", "--write-batch", "missing/b.jsonl"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("missing/b.jsonl: "), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

/// Trial 40, D10: a plain line that also carries a `custom_id` of its own was read as a Batch
/// API line, and every line failed on `response.body`.
#[test]
fn a_plain_line_with_a_custom_id_is_plain() {
    let tmp = tempfile::tempdir().unwrap();
    let g = write_lines(
        tmp.path(),
        "g.jsonl",
        &[
            json!({"id": "q1", "custom_id": "req-0", "response": "정답은 ②입니다."}),
            json!({"id": "q2", "custom_id": "req-1", "response": "③"}),
        ],
    );
    let (v, _) = grade_ok(tmp.path(), &g, &[]);
    let chosen: Vec<&str> = v.iter().map(|v| v["chosen"].as_str().unwrap()).collect();
    assert_eq!(chosen, ["②", "③"]);
}

/// Trial 40, D2: a harness that shuffles the options once and logs its prompt. The labels
/// were the prompt's notation but mapped in the dataset's order, so an always-right model
/// scored 17%. Matched by their texts, the options are read in the order shown.
#[test]
fn a_prompt_with_the_options_shuffled_is_read_in_its_own_order() {
    let tmp = tempfile::tempdir().unwrap();
    let prompt = |order: [&str; 3]| {
        format!(
            "질문: 기관은?\nA. {}\nB. {}\nC. {}\n정답:",
            order[0], order[1], order[2]
        )
    };
    let g = write_lines(
        tmp.path(),
        "g.jsonl",
        &[
            // q1's answer is 기획재정부, shown third here; q2's is 국방부, shown first.
            json!({"id": "q1", "prompt": prompt(["국방부", "금융위원회", "기획재정부"]), "response": "정답은 C입니다."}),
            json!({"id": "q2", "prompt": prompt(["국방부", "기획재정부", "금융위원회"]), "response": "A"}),
            // A prompt in the dataset's own order is read as before.
            json!({"id": "q1", "prompt": prompt(["금융위원회", "기획재정부", "국방부"]), "response": "B"}),
            // A prompt whose texts are not all the item's says nothing of the order: the
            // dataset's is kept.
            json!({"id": "q2", "prompt": prompt(["금융위원회(금융위)", "기획재정부", "국방부"]), "response": "C"}),
        ],
    );
    let data = tmp.path().join("lines.csv");
    std::fs::write(
        &data,
        "id,question,answer\nq1,\"기관은?\n① 금융위원회\n② 기획재정부\n③ 국방부\",2\nq2,\"기관은?\n① 금융위원회\n② 기획재정부\n③ 국방부\",3\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = grade(&[], &data, &g, &out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = verdicts(&out);
    let correct: Vec<bool> = v.iter().map(|v| v["correct"].as_bool().unwrap()).collect();
    assert_eq!(correct, [true, true, true, true], "{v:?}");
    assert_eq!(v[0]["chosen"], "C");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "2 answers' prompts show the options in another order than the dataset (first: `"
        ),
        "{err}"
    );
}

/// Trial 42, defect 5: `generate --out` or `--write-batch` naming the dataset overwrote it
/// with answers or requests, exit 0. Both are refused before anything is written.
#[test]
fn an_output_that_is_the_dataset_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds.csv");
    std::fs::copy(root().join("data/kmmlu_sample.csv"), &ds).unwrap();
    let before = std::fs::read(&ds).unwrap();
    for flags in [
        vec!["--endpoint", "http://127.0.0.1:9/v1", "--out"],
        vec!["--write-batch"],
    ] {
        kgrade()
            .current_dir(dir.path())
            .args(["generate", "--dataset", "ds.csv", "--model", "m"])
            .args(&flags)
            .arg(dir.path().join("./ds.csv"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "is the --dataset file, which would be overwritten",
            ));
        assert_eq!(std::fs::read(&ds).unwrap(), before);
    }
}

/// Trial 42, defect 9: `run.json` recorded `CWD/../x`, so `kgrade judge DIR` could not find a
/// dataset that was still there once the folder it ran from was gone. Paths are resolved.
#[test]
fn recorded_paths_are_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    for f in ["domain_eval_sample.csv", "generations_terse.jsonl"] {
        std::fs::copy(root().join("data").join(f), data.join(f)).unwrap();
    }
    kgrade()
        .current_dir(&work)
        .args(["grade", "--dataset", "../data/domain_eval_sample.csv"])
        .args([
            "--generations",
            "../data/generations_terse.jsonl",
            "--out",
            "../run",
        ])
        .assert()
        .success();
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/run.json")).unwrap())
            .unwrap();
    for key in ["dataset", "generations"] {
        let p = run[key].as_str().unwrap();
        assert!(!p.contains(".."), "{key}: {p}");
        assert!(
            Path::new(p).is_absolute() && Path::new(p).exists(),
            "{key}: {p}"
        );
    }
}

/// Trial 42, defect 7: a `--tpm` below one request's estimate (prompt and --max-tokens) sent
/// one request a minute with no word, over the limit all the same. It is said at the start.
#[test]
fn a_tpm_below_one_request_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("one.csv");
    std::fs::write(&ds, "question,A,B,C,D,answer\n문1,가,나,다,라,1\n").unwrap();
    let o = kgrade()
        .args([
            "generate",
            "--model",
            "m",
            "--endpoint",
            "http://127.0.0.1:9/v1",
        ])
        .args(["--tpm", "100", "--max-tokens", "1024", "--max-retries", "0"])
        .arg("--dataset")
        .arg(&ds)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(dir.path().join("gen.jsonl"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--tpm 100 is below one request's estimate"),
        "{err}"
    );
}

#[test]
fn a_judge_tpm_below_one_request_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("one.csv");
    std::fs::write(&ds, "question,A,B,C,D,answer\n문1,가,나,다,라,1\n").unwrap();
    let gens = dir.path().join("gen.jsonl");
    std::fs::write(&gens, "{\"id\":\"0\",\"response\":\"잘 모르겠습니다\"}\n").unwrap();
    let judge = |tpm: &str| {
        let o = kgrade()
            .args(["grade", "--judge", "openai:http://127.0.0.1:9/v1#m"])
            .args([
                "--tpm",
                tpm,
                "--judge-max-tokens",
                "1024",
                "--max-retries",
                "0",
            ])
            .arg("--dataset")
            .arg(&ds)
            .arg("--generations")
            .arg(&gens)
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .arg("--out")
            .arg(dir.path().join(format!("out{tpm}")))
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let low = judge("500");
    assert!(
        low.contains("--tpm 500 is below one judge request's estimate"),
        "{low}"
    );
    let high = judge("100000");
    assert!(!high.contains("below one judge request"), "{high}");
}
