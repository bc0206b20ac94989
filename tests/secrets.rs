//! Credentials never reach what kgrade prints or stores, even when a server echoes them
//! (audit 19, defect 6). A loopback server (axum on 127.0.0.1) answers every request with an
//! error that repeats the credentials it was sent: a 401 `Incorrect API key provided: KEY`
//! (with a masked copy too) as some gateways write it, or a 500 whose plain-text body dumps
//! the `Authorization` headers. The endpoint URLs carry a password in their user-info as
//! well. `generate` and `grade --judge` then run against it, and the test reads every byte
//! they printed or wrote (outputs, reports, verdicts, run record, cache). A third form (audit
//! 28, D1) echoes the bearer key encoded as servers and proxies are seen to: base64 and
//! base64url, as a Basic token of `user:KEY`, percent-encoded, in upper and lower case, and
//! cut into the prefix and suffix fragments OpenAI-style messages print.

mod support;

use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use base64::Engine;
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

/// How the echoing server answers.
#[derive(Clone, Copy, PartialEq)]
enum Echo {
    /// 401 `Incorrect API key provided: KEY` with a masked copy and the cut Basic token.
    Unauthorized,
    /// 500 whose plain-text body dumps the `Authorization` headers.
    Headers,
    /// 401 with the bearer key in every encoding of [`encodings`].
    Encoded,
}

/// The bearer key as an echoing server may print it: encoded whole, or cut into fragments.
fn encodings(key: &str) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
    let percent: String = key
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    vec![
        STANDARD.encode(key),
        URL_SAFE_NO_PAD.encode(key),
        STANDARD.encode(format!("user:{key}")),
        URL_SAFE.encode(format!("apikey:{key}")),
        percent,
        key.to_lowercase(),
        key.to_uppercase(),
        key[..8].to_string(),
        key[key.len() - 6..].to_string(),
        key[5..15].to_string(),
    ]
}

/// Start the echoing server. Returns `host:port`.
fn serve(echo: Echo) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |headers: HeaderMap, Json(_): Json<Value>| async move {
            let auth = authorization(&headers);
            if echo == Echo::Encoded {
                let key = auth.strip_prefix("Bearer ").unwrap_or(&auth);
                let message = format!("Incorrect API key provided. Received: {}.", encodings(key).join(" / "));
                (
                    StatusCode::UNAUTHORIZED,
                    Json(json!({"error": {"message": message}})),
                )
                    .into_response()
            } else if echo == Echo::Unauthorized {
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

/// `grade` of the bundled domain_eval sample with a judge at `url` (`BASE#MODEL`), into
/// `out`, with the key in the environment.
fn judge_bundled(url: &str, out: &Path, dir: &Path) -> std::process::Output {
    support::grade_with_judge(
        url,
        &data("domain_eval_sample.csv"),
        &data("generations_reasoning.jsonl"),
        out,
        dir,
    )
    .env("OPENAI_API_KEY", KEY)
    .output()
    .unwrap()
}

/// No credential in `bytes` (named `what` in the failure).
fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let mut secrets: Vec<String> = [KEY, &KEY[..11], URL_PASSWORD, URL_BASIC, &URL_BASIC[1..]]
        .map(String::from)
        .to_vec();
    secrets.extend(encodings(KEY));
    for secret in &secrets {
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
    let addr = serve(Echo::Unauthorized);
    let dir = tempfile::tempdir().unwrap();
    let endpoint = format!("http://user:{URL_PASSWORD}@{addr}/v1");
    let output = support::generate_once(&endpoint, dir.path())
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
    let addr = serve(Echo::Headers);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = judge_bundled(
        &format!("http://user:{URL_PASSWORD}@{addr}/v1#judge-model"),
        &out,
        dir.path(),
    );
    assert!(output.status.success(), "{output:?}");
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    // The judge failures are recorded with the server's words, scrubbed.
    assert!(
        // The URL's user-info goes as `Basic …`, the key as `Bearer …`: both scrubbed.
        verdicts.contains("HTTP 500 Internal Server Error (text/plain; charset=utf-8): internal error; request headers: authorization: Basic [redacted], Bearer [redacted]"),
        "{verdicts}"
    );
    let run = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(
        run.contains(&format!("openai:http://{addr}/v1#judge-model")),
        "{run}"
    );
    assert_nothing_leaked(dir.path(), &output);
}

#[test]
fn a_key_echoed_encoded_or_in_fragments_is_redacted_in_stderr_verdicts_and_reports() {
    let addr = serve(Echo::Encoded);
    let dir = tempfile::tempdir().unwrap();
    let generated = support::generate_once(&format!("http://{addr}/v1"), dir.path())
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(generated.status.code(), Some(4), "{generated:?}");
    let stderr = String::from_utf8_lossy(&generated.stderr);
    // Ten echoes, ten redactions: the message itself is kept.
    assert!(
        stderr.contains(&format!(
            "HTTP 401 Unauthorized: Incorrect API key provided. Received: {}",
            ["[redacted]"; 10].join(" / ")
        )),
        "{stderr}"
    );
    assert_nothing_leaked(dir.path(), &generated);

    let out = dir.path().join("run");
    let graded = judge_bundled(&format!("http://{addr}/v1#judge-model"), &out, dir.path());
    assert!(graded.status.success(), "{graded:?}");
    for file in ["verdicts.jsonl", "report.json", "report.html"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(text.contains("Received: [redacted] / [redacted]"), "{file}");
    }
    assert_nothing_leaked(dir.path(), &graded);
}

/// Trial 43, D3: Azure Functions and many gateways take their key as `?code=…`: it was
/// written in clear to stderr, the generations and every report.
#[test]
fn a_code_key_in_the_url_is_never_shown() {
    let addr = serve(Echo::Unauthorized);
    let dir = tempfile::tempdir().unwrap();
    let generated =
        support::generate_once(&format!("http://{addr}/v1?code={URL_PASSWORD}"), dir.path())
            .env("OPENAI_API_KEY", KEY)
            .output()
            .unwrap();
    assert_eq!(generated.status.code(), Some(4), "{generated:?}");
    assert!(String::from_utf8_lossy(&generated.stderr).contains("?code=[redacted]"));
    assert_nothing_leaked(dir.path(), &generated);
    let addr = serve(Echo::Headers);
    let out = dir.path().join("run");
    let graded = judge_bundled(
        &format!("http://{addr}/v1?code={URL_PASSWORD}#judge-model"),
        &out,
        dir.path(),
    );
    assert!(graded.status.success(), "{graded:?}");
    let run = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(run.contains("?code=[redacted]#judge-model"), "{run}");
    assert_nothing_leaked(dir.path(), &graded);
}
