//! An endpoint URL with a query string (Azure OpenAI's `?api-version=…`) keeps its query: the
//! API path is joined to the URL's path, before the query (audit 28, E1: the server received
//! `POST /v1?api-version=2024-02-01/chat/completions`). A key passed in the query (`?key=…`)
//! is sent, but never printed or stored. A loopback server (axum on 127.0.0.1) records the
//! request target of every request and answers `/v1/chat/completions` only; when the query
//! holds a key it fails with a 500 that echoes the target, as a proxy's error page would.

mod support;

use axum::http::{StatusCode, Uri};
use axum::response::IntoResponse;
use axum::{Json, Router};
use serde_json::json;
use std::sync::{Arc, Mutex};

const SECRET: &str = "QUERYSECRET-4e7b91";

/// Start the recording server; returns `host:port` and the request targets it saw.
fn serve() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let app = Router::new().fallback(move |uri: Uri| {
        let log = log.clone();
        async move {
            log.lock().unwrap().push(uri.to_string());
            if uri.path() != "/v1/chat/completions" {
                return (StatusCode::NOT_FOUND, format!("no route for {uri}")).into_response();
            }
            if uri.query().unwrap_or("").contains("key=") {
                let page = format!("<html>upstream failed for {uri}</html>");
                return (StatusCode::INTERNAL_SERVER_ERROR, page).into_response();
            }
            Json(json!({"id": "x", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "정답은 ①입니다."}}]}))
            .into_response()
        }
    });
    (support::serve(app, 1).to_string(), seen)
}

fn generate(endpoint: &str, dir: &std::path::Path) -> std::process::Output {
    support::generate_once(endpoint, dir)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

#[test]
fn the_api_path_goes_before_the_query_and_the_query_is_kept() {
    let (addr, seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let output = generate(
        &format!("http://{addr}/v1/?api-version=2024-02-01"),
        dir.path(),
    );
    assert!(output.status.success(), "{output:?}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 60);
    assert!(
        seen.iter()
            .all(|t| t == "/v1/chat/completions?api-version=2024-02-01"),
        "{seen:?}"
    );
    let answers = std::fs::read_to_string(dir.path().join("gen.jsonl")).unwrap();
    assert_eq!(answers.lines().count(), 60);
}

#[test]
fn a_key_in_the_query_is_sent_but_never_printed_or_stored() {
    let (addr, seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let query = format!("api-version=2024-02-01&key={SECRET}");
    let output = generate(&format!("http://{addr}/v1?{query}"), dir.path());
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "http://{addr}/v1?api-version=2024-02-01&key=[redacted]: gave up after 1 attempt: HTTP 500"
        )),
        "{stderr}"
    );
    // Every request fails alike, so generate stops after its first few.
    let by_generate = seen.lock().unwrap().len();
    assert!(by_generate >= 5, "{by_generate}");

    let out = dir.path().join("run");
    let graded = support::grade_with_judge(
        &format!("http://{addr}/v1?{query}#judge-model"),
        &support::root().join("data/domain_eval_sample.csv"),
        &support::root().join("data/generations_terse.jsonl"),
        &out,
        dir.path(),
    )
    .env_remove("OPENAI_API_KEY")
    .output()
    .unwrap();
    assert!(graded.status.success(), "{graded:?}");
    let run = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(
        run.contains(&format!(
            "openai:http://{addr}/v1?api-version=2024-02-01&key=[redacted]#judge-model"
        )),
        "{run}"
    );
    // Both commands sent the key, to the right path.
    let seen = seen.lock().unwrap();
    assert!(seen.len() > by_generate, "{seen:?}");
    let want = format!("/v1/chat/completions?{query}");
    assert!(seen.iter().all(|t| *t == want), "{seen:?}");
    for output in [&output, &graded] {
        let printed = [&output.stdout[..], &output.stderr[..]].concat();
        assert!(!String::from_utf8_lossy(&printed).contains(SECRET));
    }
    for file in support::files_below(dir.path()) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(SECRET),
            "{} holds the key",
            file.display()
        );
    }
}
