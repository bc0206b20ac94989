//! The judge against loopback servers that behave as real ones were seen to (a llama.cpp
//! server with a small model, llama-cpp-python's server, vLLM): unbounded output unless
//! `max_tokens` is sent, structured-output forms refused with an HTTP 500 and an explanation,
//! the same malformed reply at temperature 0 however often it is asked, replies whose reason
//! names another option than their choice, and HTTP 400 for a prompt over the context size.
//! Each server here is started by the test on 127.0.0.1 and counts what it receives.

mod support;

use axum::http::StatusCode;
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
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the fake server behaves.
#[derive(Clone, Copy, PartialEq)]
enum Behaviour {
    /// Like llama-cpp-python: `json_schema` refused with HTTP 500, `json_object` taken.
    RefusesJsonSchema,
    /// Refuses every structured-output form; only plain prompts are answered.
    RefusesAllForms,
    /// The same malformed reply every time (a small model at temperature 0).
    AlwaysMalformed,
    /// Malformed first; a well-formed reply once told what was wrong.
    MalformedThenFixed,
    /// A reply whose reason states ③ while its choice is ①.
    ReasonConflicts,
    /// llama.cpp's answer to a prompt over its context size.
    ContextOverflow,
    /// A reply cut at `max_tokens`: JSON that stops mid-string, `finish_reason: "length"`.
    CutAtTokenLimit,
    /// HTTP 200 with an error body, as some proxies answer a spent quota.
    ErrorBody,
}

struct Fake {
    behaviour: Behaviour,
    bodies: Mutex<Vec<Value>>,
    /// Requests being answered now, and the most at once.
    in_flight: std::sync::atomic::AtomicU64,
    most_in_flight: std::sync::atomic::AtomicU64,
}

fn reply(content: &str) -> Response {
    Json(json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}})).into_response()
}

async fn handle(fake: Arc<Fake>, body: Value) -> Response {
    use std::sync::atomic::Ordering::SeqCst;
    let now = fake.in_flight.fetch_add(1, SeqCst) + 1;
    fake.most_in_flight.fetch_max(now, SeqCst);
    // Long enough that answers in flight together overlap at the server.
    tokio::time::sleep(Duration::from_millis(150)).await;
    let response = answer(&fake, body);
    fake.in_flight.fetch_sub(1, SeqCst);
    response
}

/// The structured-output form a request asked for (`json_schema`, `json_object` or none).
fn form_of(body: &Value) -> Option<String> {
    body["response_format"]["type"].as_str().map(str::to_string)
}

impl Fake {
    /// The form of every request received, in order.
    fn forms(&self) -> Vec<Option<String>> {
        self.bodies.lock().unwrap().iter().map(form_of).collect()
    }
}

fn answer(fake: &Fake, body: Value) -> Response {
    fake.bodies.lock().unwrap().push(body.clone());
    let form = form_of(&body);
    let good =
        || reply(&json!({"reason": "정답은 ②라고 마지막에 말했다", "choice": "②"}).to_string());
    match fake.behaviour {
        Behaviour::RefusesJsonSchema if form.as_deref() == Some("json_schema") => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": {"code": 500, "message": "response_format type must be one of \"text\" or \"json_object\", but got: json_schema", "type": "server_error"}})),
        )
            .into_response(),
        Behaviour::RefusesAllForms if form.is_some() => (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": {"message": "Unsupported response_format", "type": "invalid_request_error"}})),
        )
            .into_response(),
        Behaviour::AlwaysMalformed => reply("{\"choice\": \"총리령\", \"reason\": \"...\"}"),
        Behaviour::MalformedThenFixed => {
            let asked_again = body["messages"].as_array().is_some_and(|m| m.len() > 2);
            if asked_again {
                good()
            } else {
                reply("The answer is probably ②.")
            }
        }
        Behaviour::ReasonConflicts => {
            // As SmolLM2 replied on the bundled sample: the reason is just another label.
            reply(&json!({"reason": "③", "choice": "①"}).to_string())
        }
        Behaviour::ErrorBody => Json(json!({"error": {"message": "quota exceeded for this key", "type": "insufficient_quota"}})).into_response(),
        Behaviour::CutAtTokenLimit => Json(json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"reason\": \"The answer states ② at the end, after"}, "finish_reason": "length"}], "usage": {"prompt_tokens": 10, "completion_tokens": 200}})).into_response(),
        Behaviour::ContextOverflow => (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": {"code": 400, "message": "request (3031 tokens) exceeds the available context size (2048 tokens), try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 3031, "n_ctx": 2048}})),
        )
            .into_response(),
        _ => good(),
    }
}

fn serve(fake: Arc<Fake>) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| handle(fake.clone(), body)),
    );
    format!("http://{}", support::serve(app, 1))
}

fn run(behaviour: Behaviour, tasks: usize) -> (Vec<Outcome>, Arc<Fake>, Arc<Counters>) {
    run_with(behaviour, tasks, 1)
}

fn fake(behaviour: Behaviour) -> Arc<Fake> {
    Arc::new(Fake {
        behaviour,
        bodies: Mutex::new(Vec::new()),
        in_flight: Default::default(),
        most_in_flight: Default::default(),
    })
}

fn run_with(
    behaviour: Behaviour,
    tasks: usize,
    max_concurrency: usize,
) -> (Vec<Outcome>, Arc<Fake>, Arc<Counters>) {
    let fake = fake(behaviour);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let config = JudgeConfig {
        spec: JudgeSpec::parse(&format!("openai:{base}/v1#small"), None).unwrap(),
        client: ClientConfig {
            api_key: None,
            rps: 200.0,
            burst: 1,
            tpm: None,
            max_concurrency,
            timeout: Duration::from_secs(10),
            max_retries: 3,
            backoff_base: Duration::from_millis(5),
            interrupt: Default::default(),
        },
        max_tokens: 200,
    };
    let set = ChoiceSet::detect("기관은? ① 금융위원회 ② 기획재정부 ③ 국방부").unwrap();
    let tasks: Vec<Task> = (0..tasks)
        .map(|i| Task {
            question: format!("문항 {i}: 기관은? ① 금융위원회 ② 기획재정부 ③ 국방부"),
            choices: set.clone(),
            answer: format!("문항 {i}: 처음엔 ①, 최종적으로 ②"),
        })
        .collect();
    let rubric = Rubric::resolve(None, "mc_final_answer").unwrap();
    let counters = Arc::new(Counters::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let out = rt
        .block_on(judge_all(config, rubric, cache, tasks, counters.clone()))
        .unwrap();
    (out, fake, counters)
}

#[test]
fn every_request_bounds_its_output_and_restricts_the_choice_to_the_labels() {
    let (out, fake, _) = run(Behaviour::MalformedThenFixed, 1);
    assert!(matches!(out[0], Outcome::Judged { .. }), "{out:?}");
    let body = fake.bodies.lock().unwrap()[0].clone();
    assert_eq!(body["max_tokens"], 200);
    assert_eq!(body["temperature"], 0);
    let schema = &body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["properties"]["choice"]["enum"],
        json!(["①", "②", "③", null])
    );
    // The reason comes before the choice, so a constrained decoder writes it first.
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["reason", "choice"]);
    // The options appear once in the prompt (the question shows them already).
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert_eq!(user.matches("기획재정부").count(), 1, "{user}");
}

#[test]
fn a_malformed_reply_is_asked_for_once_more_with_the_error_stated() {
    let (out, fake, counters) = run(Behaviour::MalformedThenFixed, 1);
    assert!(matches!(out[0], Outcome::Judged { .. }), "{out:?}");
    let bodies = fake.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 2);
    let second = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(second[2]["role"], "assistant");
    assert_eq!(second[2]["content"], "The answer is probably ②.");
    let follow_up = second[3]["content"].as_str().unwrap();
    assert!(follow_up.contains("reply is not JSON"), "{follow_up}");
    assert!(follow_up.contains("①, ②, ③ or null"), "{follow_up}");
    assert_eq!(
        counters.retries.load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

/// Trial 37, defect 8: replies cut at --judge-max-tokens failed as "not JSON: EOF while
/// parsing a string", with nothing pointing at the limit.
#[test]
fn a_reply_cut_at_the_token_limit_says_so() {
    let (out, _, _) = run(Behaviour::CutAtTokenLimit, 2);
    for o in &out {
        match o {
            Outcome::Failed { reason } => assert!(
                reason.contains("reply is not JSON")
                    && reason.contains("token limit")
                    && reason.contains("--judge-max-tokens (now 200)"),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
    }
}

/// Trial 39, defect 13: a 200 with an error body was "response has no reply text", the
/// provider's own words lost.
#[test]
fn a_success_status_with_an_error_body_keeps_the_providers_words() {
    let (out, _, _) = run(Behaviour::ErrorBody, 1);
    match &out[0] {
        Outcome::Failed { reason } => assert!(
            reason.contains("the server says quota exceeded for this key"),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_reply_that_stays_malformed_is_a_judge_failure_after_two_requests() {
    let (out, fake, _) = run(Behaviour::AlwaysMalformed, 3);
    for o in &out {
        match o {
            Outcome::Failed { reason } => assert!(
                reason.contains("malformed reply after one follow-up")
                    && reason.contains("`총리령`, not one of the options"),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        fake.bodies.lock().unwrap().len(),
        6,
        "two requests per answer"
    );
}

#[test]
fn a_refused_structured_output_form_falls_back_and_is_remembered_for_the_run() {
    let (out, fake, _) = run(Behaviour::RefusesJsonSchema, 3);
    assert!(
        out.iter().all(|o| matches!(o, Outcome::Judged { .. })),
        "{out:?}"
    );
    let forms = fake.forms();
    // json_schema once, refused; then json_object for every answer.
    assert_eq!(
        forms,
        [
            Some("json_schema".to_string()),
            Some("json_object".into()),
            Some("json_object".into()),
            Some("json_object".into())
        ]
    );

    let (out, fake, _) = run(Behaviour::RefusesAllForms, 2);
    assert!(
        out.iter().all(|o| matches!(o, Outcome::Judged { .. })),
        "{out:?}"
    );
    let bodies = fake.bodies.lock().unwrap();
    assert_eq!(
        bodies.len(),
        4,
        "json_schema, json_object, then plain for both"
    );
    assert!(bodies[3].get("response_format").is_none());
}

#[test]
fn context_overflow_is_reported_as_such_with_the_server_s_words() {
    let (out, fake, _) = run(Behaviour::ContextOverflow, 1);
    match &out[0] {
        Outcome::Failed { reason } => {
            assert!(
                reason.contains("does not fit the server's context")
                    && reason.contains("exceeds the available context size (2048 tokens)"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.bodies.lock().unwrap().len(), 1, "a 400 is not retried");
}

#[test]
fn a_reason_naming_another_option_is_flagged_in_the_verdict_and_the_report() {
    let fake = fake(Behaviour::ReasonConflicts);
    let base = serve(fake.clone());
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("d.csv");
    std::fs::write(
        &data,
        "id,question,answer,domain\nq1,\"기관은? ① 금융위원회 ② 기획재정부 ③ 국방부\",2,x\n",
    )
    .unwrap();
    let gens = tmp.path().join("g.jsonl");
    std::fs::write(&gens, "{\"id\":\"q1\",\"response\":\"① 아니면 ③\"}\n").unwrap();
    let out = tmp.path().join("out");
    support::grade(&[], &data, &gens, &out)
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .args(["--judge", &format!("openai:{base}/v1#small")])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "reason names another option than their choice: 1",
        ));
    let v: Value = serde_json::from_str(
        std::fs::read_to_string(out.join("verdicts.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(v["judge"]["reason_conflict"], true);
    assert_eq!(v["chosen"], "①");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(r["metrics"]["judge_reason_conflicts"], 1);
}

#[test]
fn once_the_form_is_known_answers_are_judged_concurrently() {
    // Until the first reply shows which form the server takes, requests go one at a time;
    // after it, up to --max-concurrency at once.
    let (out, fake, _) = run_with(Behaviour::RefusesJsonSchema, 8, 4);
    assert!(
        out.iter().all(|o| matches!(o, Outcome::Judged { .. })),
        "{out:?}"
    );
    let most = fake
        .most_in_flight
        .load(std::sync::atomic::Ordering::SeqCst);
    assert!(most >= 2, "at most {most} request in flight");
    let forms = fake.forms();
    assert_eq!(
        forms
            .iter()
            .filter(|f| f.as_deref() == Some("json_schema"))
            .count(),
        1
    );
}
