//! Credentials never reach what kgrade prints or stores, even when a server echoes them
//! (audit 19, defect 6). A loopback server (axum on 127.0.0.1) answers every request with an
//! error that repeats the credentials it was sent: a 401 `Incorrect API key provided: KEY`
//! (with a masked copy too) as some gateways write it, or a 500 whose plain-text body dumps
//! the `Authorization` headers. The endpoint URLs carry a password in their user-info as
//! well. `generate` and `grade --judge` then run against it, and the test reads every byte
//! they printed or wrote (outputs, reports, verdicts, run record, cache).

mod support;

use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const KEY: &str = "sk-AUDIT19-SECRET-7f3a";
const URL_PASSWORD: &str = "pw-URLSECRET-42";
/// base64("user:pw-URLSECRET-42"): the `Authorization: Basic` token made from the URL.
const URL_BASIC: &str = "dXNlcjpwdy1VUkxTRUNSRVQtNDI=";

/// Every `Authorization` header of a request, joined.
fn authorization(headers: &HeaderMap) -> String {
    headers
        .get_all("authorization")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Start the echoing server; `unauthorized` picks the 401 form, else the 500 form. Returns
/// `host:port`.
fn serve(unauthorized: bool) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |headers: HeaderMap, Json(_): Json<Value>| async move {
            let auth = authorization(&headers);
            if unauthorized {
                let key = auth
                    .split(", ")
                    .find_map(|a| a.strip_prefix("Bearer "))
                    .unwrap_or("")
                    .to_string();
                let masked = format!(
                    "{}****{}",
                    &key[..key.len().min(7)],
                    &key[key.len().saturating_sub(4)..]
                );
                // The audit's fake server printed the first header from offset 7 (`Bearer `'s
                // length), which cuts the Basic token made from the URL's user-info.
                let first = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("");
                let cut = first.get(7..).unwrap_or("");
                let message = format!("Incorrect API key provided: {key} ({masked}; sent: {auth}; {cut}). You can find your API key at https://example.invalid.");
                (
                    StatusCode::UNAUTHORIZED,
                    Json(json!({"error": {"message": message, "type": "invalid_request_error"}})),
                )
                    .into_response()
            } else {
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("internal error; request headers: authorization: {auth}"),
                )
                    .into_response()
            }
        }),
    );
    support::serve(app, 1).to_string()
}

fn data(name: &str) -> PathBuf {
    support::root().join("data").join(name)
}

/// No credential in `bytes` (named `what` in the failure).
fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for secret in [KEY, &KEY[..11], URL_PASSWORD, URL_BASIC, &URL_BASIC[1..]] {
        assert!(
            !text.contains(secret),
            "{what} holds the credential {secret:?}:\n{}",
            text.chars().take(2000).collect::<String>()
        );
    }
}

/// Every file kgrade wrote under `dir`, and what it printed, is free of credentials.
fn assert_nothing_leaked(dir: &Path, output: &std::process::Output) {
    assert_clean("stdout", &output.stdout);
    assert_clean("stderr", &output.stderr);
    let files = support::files_below(dir);
    assert!(!files.is_empty());
    for file in files {
        assert_clean(&file.display().to_string(), &std::fs::read(&file).unwrap());
    }
}

#[test]
fn generate_never_prints_or_stores_a_key_the_server_echoes() {
    let addr = serve(true);
    let dir = tempfile::tempdir().unwrap();
    let output = support::kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(data("domain_eval_sample.csv"))
        .args(["--model", "m", "--rps", "1000", "--max-retries", "0"])
        .arg("--endpoint")
        .arg(format!("http://user:{URL_PASSWORD}@{addr}/v1"))
        .arg("--out")
        .arg(dir.path().join("gen.jsonl"))
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The server's message is still shown, the key in it replaced, the URL without user-info.
    assert!(
        stderr.contains("HTTP 401 Unauthorized: Incorrect API key provided: [redacted]"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("http://{addr}/v1")), "{stderr}");
    assert_nothing_leaked(dir.path(), &output);
}

#[test]
fn a_judge_that_echoes_the_authorization_header_leaks_nothing_into_verdicts_or_reports() {
    let addr = serve(false);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = support::grade(
        &[
            "--judge",
            &format!("openai:http://user:{URL_PASSWORD}@{addr}/v1#judge-model"),
            "--max-retries",
            "0",
            "--rps",
            "1000",
            "--allow-unresolved",
        ],
        &data("domain_eval_sample.csv"),
        &data("generations_reasoning.jsonl"),
        &out,
    )
    .arg("--cache")
    .arg(dir.path().join("cache"))
    .env("OPENAI_API_KEY", KEY)
    .output()
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    // The judge failures are recorded with the server's words, scrubbed.
    assert!(
        // The URL's user-info goes as `Basic …`, the key as `Bearer …`: both scrubbed.
        verdicts.contains("HTTP 500 Internal Server Error: internal error; request headers: authorization: Basic [redacted], Bearer [redacted]"),
        "{verdicts}"
    );
    let run = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(
        run.contains(&format!("openai:http://{addr}/v1#judge-model")),
        "{run}"
    );
    assert_nothing_leaked(dir.path(), &output);
}
