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

/// `kgrade generate` of `data` against `endpoint` into `dir/gen.jsonl`, with its cache in
/// `dir`, `retries` retries 5 ms apart, and no API key.
fn generate(
    data: &std::path::Path,
    endpoint: &str,
    dir: &std::path::Path,
    retries: &str,
) -> assert_cmd::Command {
    let mut cmd = kgrade();
    cmd.arg("generate")
        .arg("--dataset")
        .arg(data)
        .args([
            "--model",
            "m",
            "--max-retries",
            retries,
            "--backoff-ms",
            "5",
        ])
        .args(["--endpoint", endpoint])
        .arg("--out")
        .arg(dir.join("gen.jsonl"))
        .arg("--cache")
        .arg(dir.join("cache"))
        .env_remove("OPENAI_API_KEY");
    cmd
}

/// The line of the JSON-lines file `path` whose `id` is `id`.
fn line_of(path: &std::path::Path, id: &str) -> Value {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line for {id} in {}", path.display()))
}

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
        generate(&data, &endpoint, tmp.path(), "3")
            .assert()
            .success();
    };
    run();
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "one request each, no retry"
    );
    let line = |id: &str| line_of(&out, id);
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

/// Trial 43, D2, D4 and D10: OpenRouter reports an upstream failure after the reply began
/// inside a 200 (`finish_reason: "error"` and an `error` in the choice): it was saved as the
/// model's empty answer, exit 0, and never asked again. A 200 body that is an error
/// (LM Studio's `{"error": "…"}`) lost its words ("no choices[0]"). Mistral's content as a
/// list of parts was "no content". Now the first two are failed requests with the
/// provider's words, asked again on a rerun, and the parts are the answer.
#[test]
fn provider_errors_inside_a_200_are_failed_requests_with_their_words() {
    const DATA: &str = "id,question,answer,domain\nparts,\"관할 기관은? ① 금융위 ② 기재부\",①,x\nupstream,\"중단될 질문? ① 예 ② 아니오\",①,x\ncrash,\"멈출 질문? ① 예 ② 아니오\",②,x\n";
    let tmp = tempfile::tempdir().unwrap();
    let data = write(tmp.path(), "d.csv", DATA);
    let healthy = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let requests = Arc::new(AtomicU64::new(0));
    let (h, r) = (healthy.clone(), requests.clone());
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let (healthy, requests) = (h.clone(), r.clone());
            async move {
                requests.fetch_add(1, Ordering::SeqCst);
                let prompt = body["messages"].to_string();
                let ok = healthy.load(Ordering::SeqCst);
                let choice = if prompt.contains("중단될") && !ok {
                    json!({"index": 0, "finish_reason": "error", "native_finish_reason": "error",
                        "message": {"role": "assistant", "content": ""},
                        "error": {"code": 502, "message": "Upstream idle timeout"}})
                } else if prompt.contains("멈출") && !ok {
                    return Json(json!({"error": "Model has crashed without additional information. (Exit code: null)"}));
                } else {
                    json!({"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                        "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "②일까?"}]},
                                    {"type": "text", "text": "정답은 ①입니다."}]}})
                };
                Json(json!({"id": "gen-1", "object": "chat.completion", "model": "m", "choices": [choice]}))
            }
        }),
    );
    let endpoint = format!("http://{}/v1", support::serve(app, 1));
    let out = tmp.path().join("gen.jsonl");
    let run = || generate(&data, &endpoint, tmp.path(), "0").assert();
    run()
        .code(4)
        .stderr(predicates::str::contains("Upstream idle timeout"))
        .stderr(predicates::str::contains("Model has crashed"));
    let line = |id: &str| line_of(&out, id);
    assert_eq!(line("parts")["response"], "정답은 ①입니다.");
    assert!(line("upstream")["error"]
        .as_str()
        .unwrap()
        .contains("the provider failed mid-reply: 502: Upstream idle timeout"));
    assert!(line("crash")["error"]
        .as_str()
        .unwrap()
        .contains("the server says Model has crashed"));
    // The provider recovers: a rerun asks for the two failures only.
    healthy.store(true, Ordering::SeqCst);
    let before = requests.load(Ordering::SeqCst);
    run().success();
    assert_eq!(requests.load(Ordering::SeqCst), before + 2);
}

/// Trial 43, D6: a gateway that gzips its replies (the OpenAI SDK asks for and decodes gzip)
/// gave "reply is not JSON" with the compressed bytes in every message and file, and every
/// item retried. The reply is decoded now.
#[test]
fn a_gzipped_reply_is_read() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let data = write(
        tmp.path(),
        "d.csv",
        "id,question,answer,domain\nok,\"관할 기관은? ① 금융위 ② 기재부\",①,x\n",
    );
    let app = Router::new().route(
        "/v1/chat/completions",
        post(|| async {
            let body = json!({"id": "c", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "정답은 ①"}}]});
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(body.to_string().as_bytes()).unwrap();
            (
                [
                    (axum::http::header::CONTENT_TYPE, "application/json"),
                    (axum::http::header::CONTENT_ENCODING, "gzip"),
                ],
                gz.finish().unwrap(),
            )
        }),
    );
    let endpoint = format!("http://{}/v1", support::serve(app, 1));
    let out = tmp.path().join("gen.jsonl");
    generate(&data, &endpoint, tmp.path(), "0")
        .assert()
        .success();
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(line["response"], "정답은 ①");
}

/// Trial 43, D7: Azure's prompt filter answers 400 with the code `content_filter`: it was a
/// request error, asked again on every rerun, so `generate` could never exit 0. It is a
/// refusal now, recorded once and graded as no answer; other 400s stay failures.
#[test]
fn a_prompt_the_provider_filters_is_a_refusal() {
    let tmp = tempfile::tempdir().unwrap();
    let data = write(
        tmp.path(),
        "d.csv",
        "id,question,answer,domain\nok,\"관할 기관은? ① 금융위 ② 기재부\",①,x\nfilter,\"차단될 질문? ① 예 ② 아니오\",②,x\n",
    );
    let requests = Arc::new(AtomicU64::new(0));
    let counted = requests.clone();
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                if body["messages"].to_string().contains("차단될") {
                    let error = json!({"error": {"message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
                        "type": null, "param": "prompt", "code": "content_filter", "status": 400,
                        "innererror": {"code": "ResponsibleAIPolicyViolation"}}});
                    return (axum::http::StatusCode::BAD_REQUEST, Json(error));
                }
                (axum::http::StatusCode::OK, Json(json!({"id": "c", "object": "chat.completion", "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "정답은 ①"}}]})))
            }
        }),
    );
    let endpoint = format!("http://{}/v1", support::serve(app, 1));
    let out = tmp.path().join("gen.jsonl");
    let run = || {
        generate(&data, &endpoint, tmp.path(), "2")
            .assert()
            .success();
    };
    run();
    assert_eq!(requests.load(Ordering::SeqCst), 2, "one request each");
    let filtered = line_of(&out, "filter");
    assert_eq!(filtered["response"], "");
    assert!(filtered["refusal"]
        .as_str()
        .unwrap()
        .contains("content_filter: The response was filtered"));
    run();
    assert_eq!(requests.load(Ordering::SeqCst), 2, "a rerun asks nothing");
    let graded = tmp.path().join("graded");
    support::grade(&[], &data, &out, &graded).assert().success();
    let v = line_of(&graded.join("verdicts.jsonl"), "filter");
    assert_eq!(
        (v["status"].as_str(), v["rule"].as_str()),
        (Some("no_answer"), Some("refusal"))
    );
}
