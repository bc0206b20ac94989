//! A reply that is not JSON (a proxy's HTML error page sent with 200 or with its own 502, or a
//! streamed SSE reply to a request that did not ask for streaming) is reported with its
//! status, content type and the start of its body, scrubbed of the key, by `generate` and by the judge (audit
//! 28, E7: only "expected value at line 1 column 1" was shown). A loopback server (axum on
//! 127.0.0.1) sends the reply the test names.

mod support;

use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;

const KEY: &str = "sk-NONJSON-1234567890abcdef";

/// The HTML page a gateway sends; it quotes the request's bearer key.
fn page(auth: &str) -> String {
    format!(
        "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>upstream unavailable ({auth}){}</body></html>",
        " ".repeat(300)
    )
}

/// Start a server answering every chat request with `kind` (`html` or `sse`); returns its
/// base URL.
fn serve(kind: &'static str) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |headers: HeaderMap| async move {
            let auth = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            if kind == "html" {
                ([(CONTENT_TYPE, "text/html; charset=utf-8")], page(&auth)).into_response()
            } else if kind == "html502" {
                let html = [(CONTENT_TYPE, "text/html")];
                (axum::http::StatusCode::BAD_GATEWAY, html, page(&auth)).into_response()
            } else {
                let chunk = r#"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"정답"}}]}"#;
                (
                    [(CONTENT_TYPE, "text/event-stream")],
                    format!("data: {chunk}\n\ndata: [DONE]\n\n"),
                )
                    .into_response()
            }
        }),
    );
    format!("http://{}/v1", support::serve(app, 1))
}

fn generate(base: &str, dir: &std::path::Path) -> String {
    let output = support::generate_once(base, dir)
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn generate_shows_the_status_content_type_and_start_of_an_html_or_sse_reply() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = generate(&serve("html"), dir.path());
    assert!(
        stderr.contains("reply is not JSON (HTTP 200 OK, text/html; charset=utf-8; expected value at line 1 column 1); body: <html> <head><title>502 Bad Gateway</title></head> <body>upstream unavailable (Bearer [redacted])"),
        "{stderr}"
    );
    assert!(!stderr.contains(KEY), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("502 Bad Gateway"))
        .unwrap();
    assert!(line.chars().count() < 400, "the body is cut: {line}");

    // The page with its own status (walkthrough 50, F3: the content type was left out).
    let dir = tempfile::tempdir().unwrap();
    let stderr = generate(&serve("html502"), dir.path());
    assert!(
        stderr.contains(
            "HTTP 502 Bad Gateway (text/html): <html> <head><title>502 Bad Gateway</title></head>"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains(KEY), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let stderr = generate(&serve("sse"), dir.path());
    assert!(
        stderr.contains(r#"reply is not JSON (HTTP 200 OK, text/event-stream; expected value at line 1 column 1); body: data: {"id":"x","object":"chat.completion.chunk""#),
        "{stderr}"
    );
}

#[test]
fn a_judge_failure_records_what_the_html_reply_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = support::grade_with_judge(
        &format!("{}#judge", serve("html")),
        &support::root().join("data/domain_eval_sample.csv"),
        &support::root().join("data/generations_terse.jsonl"),
        &out,
        dir.path(),
    )
    .env("OPENAI_API_KEY", KEY)
    .output()
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    assert!(
        verdicts.contains("reply is not JSON (HTTP 200 OK, text/html; charset=utf-8; expected value at line 1 column 1); body: <html> <head><title>502 Bad Gateway"),
        "{verdicts}"
    );
    assert!(!verdicts.contains(KEY));
}
