//! `kgrade generate` against a loopback server that declines some questions, as hosted APIs
//! do: OpenAI's structured refusal (`content: null`, `message.refusal`) and a content filter
//! (`content: null`, `finish_reason: "content_filter"`, as Azure OpenAI replies). A refusal
//! is a final answer: it is recorded, never retried, and `grade` abstains on it.

mod support;

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use support::{kgrade, write};

const DATASET: &str = "id,question,answer,domain\nok,\"관할 기관은? ① 금융위 ② 기재부\",①,x\nrefuse,\"위험한 질문? ① 예 ② 아니오\",①,x\nfilter,\"차단될 질문? ① 예 ② 아니오\",②,x\n";

/// Answers `①` unless the question is one it declines.
fn serve(requests: Arc<AtomicU64>) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let requests = requests.clone();
            async move {
                requests.fetch_add(1, Ordering::SeqCst);
                let prompt = body["messages"].to_string();
                let (message, finish) = if prompt.contains("위험한") {
                    (json!({"role": "assistant", "content": null, "refusal": "I'm sorry, I can't help with that."}), "stop")
                } else if prompt.contains("차단될") {
                    (json!({"role": "assistant", "content": null}), "content_filter")
                } else {
                    (json!({"role": "assistant", "content": "정답은 ①"}), "stop")
                };
                Json(json!({"id": "chatcmpl-x", "object": "chat.completion", "model": "m",
                    "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                    "usage": {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23}}))
            }
        }),
    );
    format!("http://{}/v1", support::serve(app, 1))
}

/// Audit 28, C1: both were "malformed reply", retried, exit 4, and asked again on every rerun.
#[test]
fn refusals_are_recorded_once_and_graded_as_no_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let data = write(tmp.path(), "d.csv", DATASET);
    let requests = Arc::new(AtomicU64::new(0));
    let endpoint = serve(requests.clone());
    let out = tmp.path().join("gen.jsonl");
    let run = || {
        kgrade()
            .arg("generate")
            .arg("--dataset")
            .arg(&data)
            .args(["--model", "m", "--max-retries", "3", "--backoff-ms", "5"])
            .args(["--endpoint", &endpoint])
            .arg("--out")
            .arg(&out)
            .arg("--cache")
            .arg(tmp.path().join("cache"))
            .env_remove("OPENAI_API_KEY")
            .assert()
            .success();
    };
    run();
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "one request each, no retry"
    );
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let line = |id: &str| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    assert_eq!(line("refuse")["response"], "");
    assert_eq!(
        line("refuse")["refusal"],
        "I'm sorry, I can't help with that."
    );
    assert_eq!(line("filter")["response"], "");
    assert_eq!(line("filter")["finish_reason"], "content_filter");
    assert_eq!(line("filter")["refusal"], "content_filter");
    assert!(line("ok").get("refusal").is_none());
    // A rerun finds every answer in the cache.
    run();
    assert_eq!(requests.load(Ordering::SeqCst), 3);
    // grade abstains on the refusals instead of guessing.
    let graded = tmp.path().join("graded");
    support::grade(&[], &data, &out, &graded).assert().success();
    let verdicts: Vec<Value> = std::fs::read_to_string(graded.join("verdicts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for v in &verdicts {
        let decided = v["id"] == "ok";
        assert_eq!(v["status"] == "answer", decided, "{v}");
        assert_eq!(v["correct"], decided, "{v}");
    }
}
