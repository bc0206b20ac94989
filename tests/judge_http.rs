//! The judge against real HTTP: loopback servers started here (axum on 127.0.0.1), one per
//! API, that answer like a judge model and can inject faults (429 with Retry-After, 500,
//! replies too slow, malformed JSON, dropped connections), enforce a rate limit, and count
//! every request. Also the CLI end to end: API keys never reach outputs, a warm cache makes
//! no request, and a SIGKILLed run resumes without repeating finished calls.

mod support;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use kgrade::cache::Cache;
use kgrade::client::ClientConfig;
use kgrade::judge::rubric::Rubric;
use kgrade::judge::run::{judge_all, Counters, JudgeConfig, Outcome, Task};
use kgrade::judge::JudgeSpec;
use kgrade::verify::ChoiceSet;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{Fault, Faults};

#[derive(Default)]
struct Fake {
    requests: AtomicU64,
    faults: Faults,
    /// Delay before every good reply.
    delay: Mutex<Duration>,
    /// Strict rate limit (requests per second, burst 1) and the violations seen: more than
    /// rps + 2 arrivals within any one second (governor's bound is rps + 1; one more
    /// allows for a loaded machine delaying the server's own clock reading). A window count,
    /// not a gap between two arrivals, so scheduling jitter is no violation while a missing
    /// or loose limit still is; `span` below checks the whole run's pace as well.
    limit: Option<f64>,
    arrivals: Mutex<VecDeque<Instant>>,
    /// First and last arrival.
    span: Mutex<Option<(Instant, Instant)>>,
    violations: AtomicU64,
    /// Authorization headers seen.
    auth: Mutex<Vec<String>>,
    /// The last request body.
    last_body: Mutex<Option<Value>>,
}

/// The fake judge's reading of the fenced answer: the last valid circled label in it, or null.
fn fake_choice(body: &Value) -> Option<String> {
    let messages = body["messages"].as_array()?;
    let user = messages.iter().find(|m| m["role"] == "user")?["content"].as_str()?;
    let valid = user
        .lines()
        .find_map(|l| l.strip_prefix("Valid labels: "))?;
    let fence = user.lines().find(|l| l.starts_with("=====ANSWER-"))?;
    let inside = user.split(fence).nth(1)?;
    inside
        .chars()
        .rfind(|c| ('①'..='⑤').contains(c) && valid.contains(*c))
        .map(String::from)
}

async fn handle(fake: Arc<Fake>, ollama: bool, headers: HeaderMap, body: Value) -> Response {
    fake.requests.fetch_add(1, Ordering::SeqCst);
    if let Some(a) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
        fake.auth.lock().unwrap().push(a.to_string());
    }
    *fake.last_body.lock().unwrap() = Some(body.clone());
    if let Some(per_second) = fake.limit {
        let now = Instant::now();
        {
            let mut span = fake.span.lock().unwrap();
            let first = span.map_or(now, |(f, _)| f);
            *span = Some((first, now));
        }
        let mut arrivals = fake.arrivals.lock().unwrap();
        arrivals.push_back(now);
        while arrivals
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(1))
        {
            arrivals.pop_front();
        }
        if arrivals.len() as f64 > per_second + 2.0 {
            fake.violations.fetch_add(1, Ordering::SeqCst);
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", "1")],
                "slow down",
            )
                .into_response();
        }
    }
    let fault = fake.faults.next();
    if let Some(response) = support::apply(fault.as_ref()).await {
        return response;
    }
    let delay = *fake.delay.lock().unwrap();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let content = if matches!(fault, Some(Fault::MalformedReply)) {
        "The answer is probably ③.".to_string()
    } else {
        json!({"choice": fake_choice(&body), "reason": "read the final statement"}).to_string()
    };
    let reply = if ollama {
        json!({"model": body["model"], "message": {"role": "assistant", "content": content}, "done": true})
    } else {
        json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
    };
    Json(reply).into_response()
}

/// Start a fake judge on 127.0.0.1 in its own runtime; returns its base URL.
fn serve(fake: Arc<Fake>) -> String {
    let (f1, f2) = (fake.clone(), fake);
    let app = Router::new()
        .route(
            "/v1/chat/completions",
            post(move |headers: HeaderMap, Json(body): Json<Value>| {
                handle(f1.clone(), false, headers, body)
            }),
        )
        .route(
            "/api/chat",
            post(move |headers: HeaderMap, Json(body): Json<Value>| {
                handle(f2.clone(), true, headers, body)
            }),
        );
    format!("http://{}", support::serve(app, 2))
}

fn rubric() -> Rubric {
    Rubric::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("rubrics"),
        "mc_final_answer",
    )
    .unwrap()
}

fn config(spec: &str) -> JudgeConfig {
    JudgeConfig {
        spec: JudgeSpec::parse(spec, None).unwrap(),
        client: ClientConfig {
            api_key: None,
            rps: 200.0,
            burst: 1,
            tpm: None,
            max_concurrency: 4,
            timeout: Duration::from_millis(500),
            max_retries: 6,
            backoff_base: Duration::from_millis(5),
            interrupt: Default::default(),
        },
        max_tokens: 256,
    }
}

fn tasks(n: usize) -> Vec<Task> {
    let set = ChoiceSet::detect("기관은? ① 금융위원회 ② 기획재정부 ③ 국방부 ④ 행정안전부").unwrap();
    (0..n)
        .map(|i| Task {
            question: format!("문항 {i}: 기관은?"),
            choices: set.clone(),
            answer: format!(
                "문항 {i}: 처음엔 ①인가 했지만 {} 쪽이 맞는 것 같기도",
                ["②", "③", "④"][i % 3]
            ),
        })
        .collect()
}

fn run(config: JudgeConfig, cache: &Arc<Cache>, tasks: Vec<Task>) -> (Vec<Outcome>, Arc<Counters>) {
    let counters = Arc::new(Counters::default());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let out = rt
        .block_on(judge_all(
            config,
            rubric(),
            cache.clone(),
            tasks,
            counters.clone(),
        ))
        .unwrap();
    (out, counters)
}

#[test]
fn faults_are_retried_until_every_answer_is_judged_and_a_warm_cache_asks_nothing() {
    let fake = Arc::new(Fake::default());
    fake.faults.queue.lock().unwrap().extend([
        Fault::TooMany(1),
        Fault::ServerError,
        Fault::MalformedBody,
        Fault::MalformedReply,
        Fault::Slow(Duration::from_secs(2)),
        Fault::Drop,
        Fault::ServerError,
    ]);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let n = 12;
    let (out, counters) = run(config(&format!("openai:{base}/v1#judge")), &cache, tasks(n));
    for (i, o) in out.iter().enumerate() {
        match o {
            Outcome::Judged { cached, .. } => assert!(!cached),
            other => panic!("task {i}: {other:?}"),
        }
        assert_eq!(
            o.choice().map(|c| c.position()),
            Some(2 + i % 3),
            "task {i}"
        );
    }
    // What the test controls: every injected fault was met and retried, and every request
    // beyond one per task was a retry. (A request that is merely slow under a loaded machine
    // may time out and be retried too, so the exact count is not asserted.)
    assert!(
        fake.faults.queue.lock().unwrap().is_empty(),
        "every fault was served"
    );
    let requests = fake.requests.load(Ordering::SeqCst);
    let retries = counters.retries.load(Ordering::SeqCst);
    assert!(retries >= 7, "one retry per fault at least: {retries}");
    assert_eq!(
        requests,
        n as u64 + retries,
        "every extra request is a retry"
    );
    // Again with the same cache: every verdict from the cache, no request at all.
    let (again, counters) = run(config(&format!("openai:{base}/v1#judge")), &cache, tasks(n));
    assert!(again
        .iter()
        .all(|o| matches!(o, Outcome::Judged { cached: true, .. })));
    assert_eq!(
        again.iter().map(Outcome::choice).collect::<Vec<_>>(),
        out.iter().map(Outcome::choice).collect::<Vec<_>>()
    );
    assert_eq!(fake.requests.load(Ordering::SeqCst), requests);
    assert_eq!(counters.cache_hits.load(Ordering::SeqCst), n as u64);
}

/// Trial 39, defect 3: identical judgements in one run (`--n 5` at temperature 0 gives the
/// same answer five times) were each paid for, even one at a time: the cache was read
/// before a request waited its turn. The first is asked for; the others read its verdict.
#[test]
fn identical_judgements_in_one_run_are_asked_for_once() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    // Four distinct answers, each five times over, interleaved.
    let distinct = tasks(4);
    let repeated: Vec<Task> = (0..20).map(|i| distinct[i % 4].clone()).collect();
    let (out, counters) = run(config(&format!("openai:{base}/v1#judge")), &cache, repeated);
    assert_eq!(fake.requests.load(Ordering::SeqCst), 4);
    assert_eq!(counters.cache_hits.load(Ordering::SeqCst), 16);
    for (i, o) in out.iter().enumerate() {
        assert_eq!(
            o.choice().map(|c| c.position()),
            Some(2 + (i % 4) % 3),
            "task {i}"
        );
    }
}

#[test]
fn ollama_requests_structured_output_and_is_read_strictly() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let mut cfg = config("ollama:gpt-oss:20b");
    cfg.spec = JudgeSpec::parse("ollama:gpt-oss:20b", Some(&base)).unwrap();
    let (out, _) = run(cfg, &cache, tasks(3));
    assert!(out.iter().all(|o| matches!(o, Outcome::Judged { .. })));
    let body = fake.last_body.lock().unwrap().clone().unwrap();
    assert_eq!(body["model"], "gpt-oss:20b");
    assert_eq!(body["stream"], false);
    // Rubric version 2 asks for the reason before the choice, restricted to the labels.
    assert_eq!(body["format"]["required"], json!(["reason", "choice"]));
    assert_eq!(
        body["format"]["properties"]["choice"]["enum"],
        json!(["①", "②", "③", "④", null])
    );
    assert_eq!(body["options"]["temperature"], 0);
    assert_eq!(body["options"]["num_predict"], 256);
}

#[test]
fn persistent_failures_end_as_judge_errors_with_the_reason() {
    let fake = Arc::new(Fake::default());
    *fake.faults.always.lock().unwrap() = Some(Fault::ServerError);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let mut cfg = config(&format!("openai:{base}/v1#judge"));
    cfg.client.max_retries = 2;
    let (out, counters) = run(cfg, &cache, tasks(2));
    for o in &out {
        match o {
            Outcome::Failed { reason } => assert!(
                reason.contains("gave up after 3 attempts: HTTP 500"),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(fake.requests.load(Ordering::SeqCst), 6);
    assert_eq!(counters.failures.load(Ordering::SeqCst), 2);
    // A 401 is not retried: the same request cannot succeed.
    *fake.faults.always.lock().unwrap() = Some(Fault::Unauthorized);
    let before = fake.requests.load(Ordering::SeqCst);
    let (out, _) = run(config(&format!("openai:{base}/v1#judge")), &cache, tasks(1));
    assert!(matches!(&out[0], Outcome::Failed { reason } if reason.contains("401")));
    assert_eq!(fake.requests.load(Ordering::SeqCst), before + 1);
}

#[test]
fn the_requested_rate_is_never_exceeded_even_with_faults_and_a_rerun_asks_nothing() {
    let fake = Arc::new(Fake {
        limit: Some(25.0),
        ..Fake::default()
    });
    fake.faults.queue.lock().unwrap().extend([
        Fault::TooMany(1),
        Fault::ServerError,
        Fault::MalformedBody,
        Fault::MalformedReply,
        Fault::ServerError,
    ]);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let cfg = || {
        let mut cfg = config(&format!("openai:{base}/v1#judge"));
        cfg.client.rps = 25.0;
        cfg.client.burst = 1;
        cfg.client.max_concurrency = 8;
        // No fault here is slow: a generous timeout keeps a loaded machine from adding
        // timeouts of its own.
        cfg.client.timeout = Duration::from_secs(10);
        cfg
    };
    let (out, counters) = run(cfg(), &cache, tasks(40));
    assert!(out.iter().all(|o| matches!(o, Outcome::Judged { .. })));
    assert_eq!(
        fake.violations.load(Ordering::SeqCst),
        0,
        "the server saw requests above its limit"
    );
    assert!(fake.faults.queue.lock().unwrap().is_empty());
    let requests = fake.requests.load(Ordering::SeqCst);
    let retries = counters.retries.load(Ordering::SeqCst);
    // The whole run kept the pace: n requests at 25/s with burst 1 take at least
    // (n - 1) / 25 seconds from the first arrival to the last; two slots are allowed for a
    // late first clock reading on a loaded machine.
    let (first, last) = fake.span.lock().unwrap().unwrap();
    let least = Duration::from_secs_f64((requests - 3) as f64 / 25.0);
    assert!(
        last - first >= least,
        "{requests} requests in {:?}, faster than 25/s",
        last - first
    );
    assert!(retries >= 5, "one retry per fault at least: {retries}");
    assert_eq!(requests, 40 + retries, "every extra request is a retry");
    let (again, _) = run(cfg(), &cache, tasks(40));
    assert!(again
        .iter()
        .all(|o| matches!(o, Outcome::Judged { cached: true, .. })));
    assert_eq!(
        fake.requests.load(Ordering::SeqCst),
        requests,
        "a second run makes no request"
    );
}

// ------------------------------------------------------------------------------------------
// The CLI end to end.

fn kgrade_cmd() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("kgrade"))
}

/// `kgrade grade …` with its summary table kept out of the test output.
fn kgrade_grade(args: &[String]) -> std::process::Command {
    let mut c = kgrade_cmd();
    c.args(args).stdout(std::process::Stdio::null());
    c
}

fn grade_args(base: &str, out: &Path, cache: &Path) -> Vec<String> {
    [
        "grade",
        "--dataset",
        "data/domain_eval_sample.csv",
        "--generations",
        "data/generations_reasoning.jsonl",
        "--out",
        out.to_str().unwrap(),
        "--judge",
        &format!("openai:{base}/v1#judge-model"),
        "--cache",
        cache.to_str().unwrap(),
        "--rps",
        "100",
        "--backoff-ms",
        "5",
        "--audit-rate",
        "0.3",
        "--seed",
        "7",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn cli_judges_escalations_keeps_keys_secret_and_reruns_from_cache() {
    let fake = Arc::new(Fake::default());
    fake.faults.queue.lock().unwrap().extend([
        Fault::TooMany(1),
        Fault::ServerError,
        Fault::MalformedReply,
    ]);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let cache = dir.path().join("cache");
    let secret = "sk-test-9f8e7d6c5b4a";
    let status = kgrade_grade(&grade_args(&base, &out, &cache))
        .arg("--allow-unresolved")
        .env("OPENAI_API_KEY", secret)
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let first = fake.requests.load(Ordering::SeqCst);
    assert!(fake
        .auth
        .lock()
        .unwrap()
        .iter()
        .all(|a| a == &format!("Bearer {secret}")));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let m = &report["metrics"];
    assert!(m["stages"]["judge"].as_u64().unwrap() > 0);
    assert!(
        m["agreement"]["n"].as_u64().unwrap() > 0,
        "the audit sample was judged"
    );
    // results.json says a judge took part, as lm-eval tooling reads it.
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["config"]["judge"], report["judge"]);
    assert_ne!(results["config"]["judge"], "not configured");
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    let escalated = verdicts
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["status"] != "answer")
        .collect::<Vec<_>>();
    // Reasoning that never reached a final answer is not sent by default: a judge shown it
    // would grade a thought as the answer (trial 43, D1). It stays no answer, counted wrong,
    // and is not unresolved (the run exits 0 without --allow-unresolved below).
    let (cut_off, escalated): (Vec<_>, Vec<_>) = escalated
        .into_iter()
        .partition(|v| v["rule"] == "truncated_reasoning");
    assert!(!cut_off.is_empty());
    assert!(
        cut_off.iter().all(|v| v["source"] == "unresolved"
            && v.get("judge").is_none()
            && v["note"] == "not sent to the judge (its outcome is not in --escalate)"),
        "{cut_off:?}"
    );
    assert!(
        escalated.iter().all(|v| v["source"] == "judge"),
        "every escalated answer ends judged"
    );
    // The key is in no output and not in the cache.
    let export = kgrade_cmd()
        .args(["cache", "export", "--cache", cache.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(export.status.success());
    for text in [
        String::from_utf8_lossy(&export.stdout).to_string(),
        verdicts.clone(),
        std::fs::read_to_string(out.join("report.json")).unwrap(),
        std::fs::read_to_string(out.join("report.md")).unwrap(),
        std::fs::read_to_string(out.join("run.json")).unwrap(),
    ] {
        assert!(!text.contains(secret));
    }
    // A second run with a warm cache makes no request at all.
    let out2 = dir.path().join("run2");
    let status = kgrade_grade(&grade_args(&base, &out2, &cache))
        .env("OPENAI_API_KEY", secret)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(fake.requests.load(Ordering::SeqCst), first);
    // It grades and reports as the run that paid for the verdicts (trials 39 and 42: the
    // verdicts were filed under a `cache` stage, so the two runs' reports differed); only each
    // verdict's `judge.cached` says where it came from.
    let report2: Value =
        serde_json::from_str(&std::fs::read_to_string(out2.join("report.json")).unwrap()).unwrap();
    assert_eq!(report2["metrics"], report["metrics"]);
    let read = |dir: &std::path::Path, file: &str| {
        std::fs::read_to_string(dir.join(file))
            .unwrap()
            .replace(&dir.display().to_string(), "DIR")
    };
    for file in ["report.md", "report.html", "results.json"] {
        assert_eq!(read(&out2, file), read(&out, file), "{file}");
    }
    let verdicts2 = std::fs::read_to_string(out2.join("verdicts.jsonl")).unwrap();
    let judged_from_cache = verdicts2
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["judge"]["cached"] == true)
        .count();
    assert!(judged_from_cache > 0);
    let uncached = |text: &str| text.replace("\"cached\":true", "\"cached\":false");
    assert_eq!(uncached(&verdicts2), verdicts);
}

/// `--escalate truncated` sends reasoning that never reached a final answer to the judge,
/// for a user who wants it read.
#[test]
fn reasoning_with_no_final_answer_is_judged_only_when_asked() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let mut args = grade_args(&base, &dir.path().join("run"), &dir.path().join("cache"));
    args.extend(["--escalate".into(), "truncated".into()]);
    // The ambiguous answers, not sent, stay unresolved: exit 4.
    let status = kgrade_grade(&args).status().unwrap();
    assert_eq!(status.code(), Some(4));
    let verdicts = std::fs::read_to_string(dir.path().join("run/verdicts.jsonl")).unwrap();
    let verdicts: Vec<Value> = verdicts
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let cut_off: Vec<&Value> = (verdicts.iter())
        .filter(|v| v["rule"] == "truncated_reasoning")
        .collect();
    assert!(!cut_off.is_empty());
    assert!(
        cut_off.iter().all(|v| v["source"] == "judge"),
        "{cut_off:?}"
    );
    // Only those were sent (the audit sample aside): other abstentions stay unresolved.
    assert!(verdicts
        .iter()
        .filter(|v| v["status"] == "ambiguous")
        .all(|v| v["source"] == "unresolved"));
}

#[test]
fn cli_run_killed_with_sigkill_resumes_without_repeating_finished_calls() {
    let fake = Arc::new(Fake::default());
    *fake.delay.lock().unwrap() = Duration::from_millis(150);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let cache = dir.path().join("cache");
    let mut args = grade_args(&base, &out, &cache);
    args.extend(["--max-concurrency".into(), "1".into()]);
    let mut child = kgrade_grade(&args).spawn().unwrap();
    // Let a few calls finish, then kill without warning.
    let start = Instant::now();
    while fake.requests.load(Ordering::SeqCst) < 6 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    let _ = child.wait();
    let finished_before = fake.requests.load(Ordering::SeqCst);
    let stats = kgrade_cmd()
        .args(["cache", "stats", "--cache", cache.to_str().unwrap()])
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let cached = stats["entries"].as_u64().unwrap();
    assert!(cached >= 4, "{cached} verdicts survived the kill");
    assert!(cached <= finished_before);
    *fake.delay.lock().unwrap() = Duration::ZERO;
    let status = kgrade_grade(&args)
        .arg("--allow-unresolved")
        .status()
        .unwrap();
    assert!(status.success());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let m = &report["metrics"];
    let total_judged =
        m["stages"]["judge"].as_u64().unwrap() + m["agreement"]["n"].as_u64().unwrap();
    let second = fake.requests.load(Ordering::SeqCst) - finished_before;
    // Every call whose verdict was flushed came from the cache; only the rest were asked.
    assert_eq!(
        second,
        total_judged - cached,
        "second run asked {second} of {total_judged}, {cached} were cached"
    );
}

#[test]
fn cli_judge_command_judges_a_graded_run_and_unresolved_answers_fail_the_exit_code() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let cache = dir.path().join("cache");
    let status = kgrade_grade(&[
        "grade".into(),
        "--dataset".into(),
        "data/domain_eval_sample.csv".into(),
        "--generations".into(),
        "data/generations_terse.jsonl".into(),
        "--out".into(),
        out.to_str().unwrap().into(),
    ])
    .status()
    .unwrap();
    assert!(status.success(), "no judge configured: exit 0");
    // A judge that always fails: the unresolved answers make the exit code 4.
    *fake.faults.always.lock().unwrap() = Some(Fault::ServerError);
    let judge = |extra: &[&str]| {
        let mut c = kgrade_cmd();
        c.args([
            "judge",
            out.to_str().unwrap(),
            "--judge",
            &format!("openai:{base}/v1#m"),
        ])
        .args([
            "--cache",
            cache.to_str().unwrap(),
            "--max-retries",
            "1",
            "--backoff-ms",
            "1",
            "--rps",
            "200",
        ])
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
        c.status().unwrap()
    };
    assert_eq!(judge(&[]).code(), Some(4));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let failures = report["metrics"]["judge_failures"].as_u64().unwrap();
    assert!(failures > 0);
    // The refusals ("잘 모르겠습니다") are not sent to the judge: no one decided them.
    let refusals = std::fs::read_to_string(out.join("verdicts.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"rule\":\"refusal\""))
        .count() as u64;
    assert!(refusals > 0);
    assert_eq!(
        report["metrics"]["stages"]["unresolved"].as_u64().unwrap(),
        failures + refusals
    );
    assert!(judge(&["--allow-unresolved"]).success());
    // The judge recovers: judging again resolves every escalated answer.
    *fake.faults.always.lock().unwrap() = None;
    assert!(judge(&[]).success());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["metrics"]["stages"]["unresolved"], refusals);
    assert_eq!(report["metrics"]["judge_failures"], 0);
    assert_eq!(
        report["metrics"]["stages"]["judge"].as_u64().unwrap(),
        failures
    );
}

#[test]
fn token_limit_paces_requests_without_failing_them() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let mut cfg = config(&format!("openai:{base}/v1#judge"));
    // Each prompt is estimated at several hundred tokens: 60,000/min lets about two a second
    // through after the first minute's allowance; a small limit must still finish them all.
    cfg.client.tpm = Some(60_000);
    let (out, _) = run(cfg, &cache, tasks(5));
    assert!(out.iter().all(|o| matches!(o, Outcome::Judged { .. })));
    assert_eq!(fake.requests.load(Ordering::SeqCst), 5);
}

/// Trial 39, defect 6: the model saw KMMLU as `A. …`–`D. …` (lm-eval's prompt), and the
/// verdicts are in letters, but the judge was shown (1)–(4) and valid labels 1–4, left to
/// map an answer's "C" to a number itself. It is shown the options as the model saw them.
#[test]
fn the_judge_sees_the_options_in_the_notation_the_model_saw() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut args = grade_args(&base, &out, &dir.path().join("cache"));
    for (flag, value) in [
        ("--dataset", "data/kmmlu_sample.csv"),
        ("--generations", "data/kmmlu_lm_eval_samples.jsonl"),
        ("--audit-rate", "1"),
    ] {
        let at = args.iter().position(|a| a == flag).unwrap();
        args[at + 1] = value.to_string();
    }
    kgrade_grade(&args)
        .arg("--allow-unresolved")
        .status()
        .unwrap();
    let body = fake
        .last_body
        .lock()
        .unwrap()
        .clone()
        .expect("the judge was asked");
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.contains("Valid labels: A, B, C, D"), "{user}");
    assert!(user.contains("\nA ") && !user.contains("(1) "), "{user}");
}
