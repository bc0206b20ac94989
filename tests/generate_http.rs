//! `kgrade generate` against real HTTP: loopback OpenAI-compatible servers started here (axum
//! on 127.0.0.1) that answer like a candidate model and can inject faults (429 with
//! Retry-After, 500, replies slower than the timeout), count every request and can be down.
//! Then `kgrade grade` on what generate wrote: the bundled sample round trip, a SIGKILLed run
//! that resumes asking only for the missing answers, replicas with one endpoint down, circular
//! evaluation graded against the options each answer was shown, and the batch route.
//!
//! Every assertion counts what the test controls (requests, lines, answers), never wall-clock.

mod support;

use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::{Fault, Faults};

#[derive(Default)]
struct Fake {
    requests: AtomicU64,
    answered: AtomicU64,
    faults: Faults,
    /// Delay before every good reply.
    delay: Mutex<Duration>,
    auth: Mutex<Vec<String>>,
    bodies: Mutex<Vec<Value>>,
    /// The model its replies name ("fake" when unset).
    served: Mutex<Option<String>>,
}

/// The fake model always picks the first option as it was shown: `A` when the prompt has
/// lettered options, `①` when it has circled ones, `1` otherwise. Under circular evaluation that is right in exactly one
/// rotation of a four-option item.
fn first_option(prompt: &str) -> &'static str {
    if prompt.contains("\nA. ") {
        "정답: A"
    } else if prompt.contains('①') {
        "정답은 ①입니다."
    } else {
        "정답: 1"
    }
}

async fn handle(fake: Arc<Fake>, chat: bool, headers: HeaderMap, body: Value) -> Response {
    fake.requests.fetch_add(1, Ordering::SeqCst);
    if let Some(a) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
        fake.auth.lock().unwrap().push(a.to_string());
    }
    fake.bodies.lock().unwrap().push(body.clone());
    if let Some(response) = support::apply(fake.faults.next().as_ref()).await {
        return response;
    }
    let delay = *fake.delay.lock().unwrap();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let usage = json!({"prompt_tokens": 40, "completion_tokens": 6, "total_tokens": 46});
    let served = (fake.served.lock().unwrap().clone()).unwrap_or_else(|| "fake".into());
    let reply = if chat {
        let prompt = body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or("");
        json!({"id": "chatcmpl-x", "object": "chat.completion", "model": served,
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": first_option(prompt), "reasoning_content": "보기를 살펴본다"}}],
            "usage": usage})
    } else {
        let prompt = body["prompt"].as_str().unwrap_or("");
        json!({"id": "cmpl-x", "object": "text_completion", "model": served,
            "choices": [{"index": 0, "finish_reason": "stop", "text": first_option(prompt)}],
            "usage": usage})
    };
    fake.answered.fetch_add(1, Ordering::SeqCst);
    Json(reply).into_response()
}

/// Start a fake server on 127.0.0.1 in its own runtime; returns its base URL (`…/v1`).
fn serve(fake: Arc<Fake>) -> String {
    let (f1, f2) = (fake.clone(), fake);
    let app = Router::new()
        .route(
            "/v1/chat/completions",
            post(move |headers: HeaderMap, Json(body): Json<Value>| {
                handle(f1.clone(), true, headers, body)
            }),
        )
        .route(
            "/v1/completions",
            post(move |headers: HeaderMap, Json(body): Json<Value>| {
                handle(f2.clone(), false, headers, body)
            }),
        );
    format!("http://{}/v1", support::serve(app, 2))
}

/// A base URL where nothing listens: the port was free a moment ago.
fn down_endpoint() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    format!("http://{addr}/v1")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

fn kgrade() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_kgrade"));
    c.env_remove("OPENAI_API_KEY");
    c
}

fn generate(
    dataset: &Path,
    endpoints: &[impl AsRef<str>],
    out: &Path,
    cache: &Path,
) -> std::process::Command {
    let mut c = kgrade();
    c.arg("generate")
        .arg("--dataset")
        .arg(dataset)
        .args([
            "--model",
            "fake-model",
            "--max-tokens",
            "64",
            "--temperature",
            "0",
        ])
        .args([
            "--rps",
            "500",
            "--max-concurrency",
            "4",
            "--backoff-ms",
            "5",
        ])
        .args(["--timeout", "1"])
        .arg("--out")
        .arg(out)
        .arg("--cache")
        .arg(cache);
    for e in endpoints {
        c.args(["--endpoint", e.as_ref()]);
    }
    c
}

/// A template that shows the options as `A. …`–`D. …`, written in `dir`.
fn letters_template(dir: &Path) -> PathBuf {
    let template = dir.join("letters.j2");
    std::fs::write(
        &template,
        "{{ stem }}\n{% for c in choices %}{{ \"ABCD\"[loop.index0] }}. {{ c.text }}\n{% endfor %}정답:",
    )
    .unwrap();
    template
}

/// Every verdict read in the letters the template showed: "A" chosen, right where A is gold.
fn read_as_letter_a(verdicts: &[Value]) {
    for v in verdicts {
        assert_eq!(v["choices"], "letter:4", "{v}");
        assert_eq!(v["chosen"], "A", "{v}");
        assert_eq!(v["correct"], v["gold"] == "A", "{v}");
    }
}

/// One line of a Batch API output file: a chat completion answering `custom_id` with
/// `content`, as the Batch API returns it.
fn batch_output_line(custom_id: &Value, content: &str) -> String {
    let line = json!({"id": "batch_req_x", "custom_id": custom_id, "error": null,
        "response": {"status_code": 200, "body": {"choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": content}}]}}});
    format!("{line}\n")
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn dataset_ids(path: &Path) -> Vec<String> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    let id = headers.iter().position(|h| h == "id");
    r.records()
        .enumerate()
        .map(|(i, rec)| match id {
            Some(k) => rec.unwrap()[k].to_string(),
            None => i.to_string(),
        })
        .collect()
}

fn grade(dataset: &Path, generations: &Path, out: &Path) -> Value {
    let o = kgrade()
        .arg("grade")
        .arg("--dataset")
        .arg(dataset)
        .arg("--generations")
        .arg(generations)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn faults_are_retried_keys_stay_secret_and_generate_then_grade_round_trips() {
    let fake = Arc::new(Fake::default());
    fake.faults.queue.lock().unwrap().extend([
        Fault::TooMany(1),
        Fault::ServerError,
        Fault::ServerError,
        Fault::Slow(Duration::from_secs(3)),
    ]);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("gen.jsonl"), dir.path().join("cache"));
    let dataset = data("domain_eval_sample.csv");
    let key = "sk-test-generate-0123456789";
    let run = || {
        generate(&dataset, &[&base], &out, &cache)
            .args([
                "--api-key-env",
                "KGRADE_TEST_GEN_KEY",
                "--stop",
                "\n\n",
                "--seed",
                "7",
            ])
            .env("KGRADE_TEST_GEN_KEY", key)
            .output()
            .unwrap()
    };
    let o = run();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ids = dataset_ids(&dataset);
    // Each fault costs exactly one more request: a 429, two 500s and one reply past the timeout.
    assert_eq!(fake.requests.load(Ordering::SeqCst), ids.len() as u64 + 4);
    assert!(stdout.contains("requests 64 (retries 4)"), "{stdout}");
    assert!(
        stdout.contains(&format!("completion {}", 6 * ids.len())),
        "{stdout}"
    );
    let got = lines(&out);
    let got_ids: Vec<&str> = got.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(got_ids, ids, "the finished file is in dataset order");
    assert!(!dir.path().join("gen.jsonl.partial").exists());
    for l in &got {
        assert_eq!(l["finish_reason"], "stop");
        assert_eq!(l["usage"]["completion_tokens"], 6);
        assert_eq!(l["reasoning_content"], "보기를 살펴본다");
        assert_eq!(l["sample"], 0);
    }
    let bodies = fake.bodies.lock().unwrap().clone();
    assert!(bodies.iter().all(|b| b["max_tokens"] == 64
        && b["model"] == "fake-model"
        && b["stop"] == json!(["\n\n"])
        && b["seed"] == 7));
    assert!(fake
        .auth
        .lock()
        .unwrap()
        .iter()
        .all(|a| a == &format!("Bearer {key}")));
    // The key reaches no file: not the output, not the cache.
    for entry in support::files_below(dir.path()) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !bytes.windows(key.len()).any(|w| w == key.as_bytes()),
            "key in {}",
            entry.display()
        );
    }

    // grade reads it unchanged; the fake always answers ①, so the items with gold ① are right.
    let report = grade(&dataset, &out, &dir.path().join("graded"));
    let m = &report["metrics"];
    assert_eq!(m["overall"]["n"], ids.len());
    // ① is no answer to the 9 O/X items; the 7 items whose gold is ① are right.
    assert_eq!(m["predicted_labels"]["①"], 51);
    assert_eq!(m["stages"]["unresolved"], 9);
    assert_eq!(m["overall"]["correct"], 7);
    assert!(m.get("circular").is_none());

    // A rerun asks nothing and writes the same file.
    let before = std::fs::read(&out).unwrap();
    let o = run();
    assert!(o.status.success());
    assert_eq!(fake.requests.load(Ordering::SeqCst), ids.len() as u64 + 4);
    assert!(String::from_utf8_lossy(&o.stdout).contains("(60 from the cache, 0 failed)"));
    assert_eq!(std::fs::read(&out).unwrap(), before);
}

#[test]
fn a_run_killed_with_sigkill_resumes_asking_only_for_missing_answers() {
    let fake = Arc::new(Fake::default());
    *fake.delay.lock().unwrap() = Duration::from_millis(150);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("gen.jsonl"), dir.path().join("cache"));
    let dataset = data("kmmlu_sample.csv");
    // 12 items × 2 samples.
    let total = 24u64;
    let mut child = generate(&dataset, &[&base], &out, &cache)
        .args(["--n", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let a few answers arrive, then kill without warning.
    while fake.answered.load(Ordering::SeqCst) < 5 {
        assert!(child.try_wait().unwrap().is_none(), "generate ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    child.wait().unwrap();
    assert!(!out.exists(), "no finished file from a killed run");
    let journal = std::fs::read_to_string(dir.path().join("gen.jsonl.partial")).unwrap();
    let cached = kgrade::cache::Cache::open(&cache)
        .unwrap()
        .stats()
        .unwrap()
        .generations as u64;
    assert!(cached >= 4, "{cached} answers survived the kill");
    assert!(cached < total, "the run was killed before the end");
    assert!(journal.lines().count() as u64 <= cached);

    *fake.delay.lock().unwrap() = Duration::ZERO;
    let before = fake.requests.load(Ordering::SeqCst);
    let o = generate(&dataset, &[&base], &out, &cache)
        .args(["--n", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    let asked = fake.requests.load(Ordering::SeqCst) - before;
    assert_eq!(
        asked,
        total - cached,
        "only the missing answers are asked for"
    );
    assert!(
        stdout.contains(&format!("({cached} from the cache, 0 failed)")),
        "{stdout}"
    );
    let got = lines(&out);
    assert_eq!(got.len() as u64, total);
    let pairs: Vec<(String, u64)> = got
        .iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap().to_string(),
                l["sample"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = dataset_ids(&dataset)
        .into_iter()
        .flat_map(|id| [(id.clone(), 0), (id, 1)])
        .collect();
    assert_eq!(pairs, want);
    let report = grade(&dataset, &out, &dir.path().join("graded"));
    assert_eq!(report["metrics"]["samples"]["max_samples_per_item"], 2);
}

#[test]
fn replicas_share_the_work_and_a_failing_endpoint_leaves_rotation() {
    let good = Arc::new(Fake::default());
    let broken = Arc::new(Fake::default());
    *broken.faults.always.lock().unwrap() = Some(Fault::ServerError);
    let (good_url, broken_url, down) =
        (serve(good.clone()), serve(broken.clone()), down_endpoint());
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("gen.jsonl"), dir.path().join("cache"));
    let dataset = data("domain_eval_sample.csv");
    let o = generate(&dataset, &[&down, &good_url, &broken_url], &out, &cache)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stdout}{stderr}");
    assert_eq!(
        lines(&out).len(),
        60,
        "every answer, from the live endpoint"
    );
    assert_eq!(good.answered.load(Ordering::SeqCst), 60);
    for bad in [&down, &broken_url] {
        assert!(
            stderr.contains(&format!("endpoint {bad} taken out of rotation")),
            "{stderr}"
        );
        assert!(stdout.contains(&format!("{bad}: 0 answered")), "{stdout}");
    }
    // Once out, an endpoint gets nothing: at most 3 failed calls in a row plus the calls
    // already under way (4 in flight), 3 attempts each.
    assert!(broken.requests.load(Ordering::SeqCst) <= (3 + 4) * 3);

    // The completions API, with one endpoint down from the start.
    let lone = Arc::new(Fake::default());
    let lone_url = serve(lone.clone());
    let o = generate(
        &dataset,
        &[&down, &lone_url],
        &dir.path().join("again.jsonl"),
        &dir.path().join("cache2"),
    )
    .args(["--n", "1", "--api", "completions"])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bodies = lone.bodies.lock().unwrap().clone();
    assert!(bodies.iter().all(|b| b["prompt"]
        .as_str()
        .unwrap()
        .starts_with("주어지는 객관식 문제")
        && b.get("messages").is_none()
        && b["max_tokens"] == 64));
}

#[test]
fn circular_runs_grade_each_answer_against_the_options_it_was_shown() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("gen.jsonl"), dir.path().join("cache"));
    let dataset = data("domain_eval_sample.csv");
    let o = generate(&dataset, &[&base], &out, &cache)
        .args(["--circular", "circular"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("16 of 60 items keep their one original ordering (9 O/X question, 7 options inside a table)"),
        "{stderr}"
    );
    let got = lines(&out);
    assert!(got.iter().all(|l| l["ordering"].is_array()));

    let graded = dir.path().join("graded");
    let report = grade(&dataset, &out, &graded);
    // The fake always answers the first option shown. Graded against the shown options, an
    // item with n options rotated n ways is right exactly once; graded against the dataset's
    // order it would be right in all or none of them.
    let mut per_item: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for v in lines(&graded.join("verdicts.jsonl")) {
        let e = per_item
            .entry(v["id"].as_str().unwrap().into())
            .or_default();
        e.0 += 1;
        e.1 += u64::from(v["correct"].as_bool().unwrap());
        assert!(v["ordering"].is_array());
    }
    let rotated: Vec<_> = per_item.values().filter(|(n, _)| *n > 1).collect();
    assert_eq!(rotated.len(), 44);
    assert!(
        rotated.iter().all(|(_, correct)| *correct == 1),
        "{rotated:?}"
    );

    let c = &report["metrics"]["circular"];
    assert_eq!(c["single_ordering_items"], 16);
    assert_eq!(c["overall"]["items"], 60);
    // perf: only single-ordering items can be right in every ordering they had.
    let single_right = per_item
        .values()
        .filter(|(n, correct)| *n == 1 && *correct == 1)
        .count() as f64;
    let perf = c["overall"]["perf_circular"].as_f64().unwrap();
    assert!((perf - single_right / 60.0).abs() < 1e-9, "{perf}");
    assert_eq!(
        c["overall"]["more"]["more_1"].as_f64().unwrap(),
        (44.0 + single_right) / 60.0
    );
    assert!(c["groups"]["domain"].is_object());
    let md = std::fs::read_to_string(graded.join("report.md")).unwrap();
    assert!(md.contains("## Circular evaluation"), "{md}");
}

#[test]
fn batch_requests_map_back_to_item_sample_and_ordering() {
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("batch.jsonl");
    let dataset = data("kmmlu_sample.csv");
    let o = kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(&dataset)
        .args([
            "--model",
            "gpt-4o-mini",
            "--circular",
            "circular",
            "--n",
            "2",
            "--max-tokens",
            "32",
        ])
        .arg("--write-batch")
        .arg(&batch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let requests = lines(&batch);
    // 12 items × 4 rotations × 2 samples, no server asked.
    assert_eq!(requests.len(), 96);
    let mut ids: Vec<&str> = requests
        .iter()
        .map(|r| r["custom_id"].as_str().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 96, "custom_id is unique");
    assert!(requests.iter().all(|r| r["method"] == "POST"
        && r["url"] == "/v1/chat/completions"
        && r["body"]["max_tokens"] == 32));

    // The batch output, as the Batch API returns it: one line per custom_id, answered by the
    // same first-option model as the loopback server.
    let output = dir.path().join("batch_output.jsonl");
    let mut text = String::new();
    for r in &requests {
        let prompt = r["body"]["messages"][0]["content"].as_str().unwrap();
        text.push_str(&batch_output_line(&r["custom_id"], first_option(prompt)));
    }
    std::fs::write(&output, text).unwrap();
    let graded = dir.path().join("graded");
    let report = grade(&dataset, &output, &graded);
    assert_eq!(report["join"]["unknown_ids"], 0);
    assert_eq!(report["metrics"]["overall"]["n"], 96);
    // One rotation in four shows the gold first: a quarter right, every item right at least once.
    assert_eq!(report["metrics"]["overall"]["correct"], 24);
    let c = &report["metrics"]["circular"]["overall"];
    assert_eq!(c["items"], 24, "12 items × 2 draws");
    assert_eq!(c["more"]["more_1"], 1.0);
    assert_eq!(c["perf_circular"], 0.0);
}

/// Audit 28, A4: item ids containing kgrade's own custom_id suffixes (`a#s=1`, `b#o=1,0,2,3`)
/// gave duplicate custom_ids (`a#s=1` for item `a#s=1` and for sample 1 of item `a`), and a
/// correct Batch output read back gave item `a` the other item's answer.
#[test]
fn batch_custom_ids_stay_distinct_when_ids_look_like_suffixes() {
    let dir = tempfile::tempdir().unwrap();
    let ids = ["a#s=1", "a", "b#o=1,0,2,3", "b", "c%23"];
    let mut csv = String::from("id,question,answer,domain\n");
    for (i, id) in ids.iter().enumerate() {
        let gold = ["①", "②", "③", "④"][i % 4];
        csv.push_str(&format!(
            "\"{id}\",\"문제 {i}?\n① 가\n② 나\n③ 다\n④ 라\",{gold},d\n"
        ));
    }
    let dataset = dir.path().join("hash.csv");
    std::fs::write(&dataset, csv).unwrap();
    let batch = dir.path().join("batch.jsonl");
    let o = kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(&dataset)
        .args(["--model", "m", "--n", "2", "--write-batch"])
        .arg(&batch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let requests = lines(&batch);
    let mut custom: Vec<&str> = requests
        .iter()
        .map(|r| r["custom_id"].as_str().unwrap())
        .collect();
    custom.sort();
    custom.dedup();
    assert_eq!(custom.len(), 10, "custom_ids unique: {custom:?}");
    // A correct model, in the Batch API's own order (not the input's).
    let mut text = String::new();
    for r in requests.iter().rev() {
        let prompt = r["body"]["messages"][0]["content"].as_str().unwrap();
        let i: usize = prompt.split("문제 ").nth(1).unwrap()[..1].parse().unwrap();
        let answer = format!("정답은 {}입니다.", ["①", "②", "③", "④"][i % 4]);
        text.push_str(&batch_output_line(&r["custom_id"], &answer));
    }
    let output = dir.path().join("batch_output.jsonl");
    std::fs::write(&output, text).unwrap();
    let report = grade(&dataset, &output, &dir.path().join("graded"));
    assert_eq!(report["join"]["unknown_ids"], 0);
    assert_eq!(report["metrics"]["overall"]["n"], 10);
    assert_eq!(report["metrics"]["overall"]["correct"], 10);
    assert_eq!(report["metrics"]["samples"]["max_samples_per_item"], 2);
}

/// Trial 37, defect 3: a `--template` that shows the options as `A. …` (the dataset's own
/// notation is (1)–(4)) was graded in the dataset's notation: every "정답: A" was `invalid`,
/// exit 0. The line now carries the prompt when its notation differs, so `grade` reads the
/// answer as the model was asked.
#[test]
fn a_template_in_another_notation_is_graded_in_that_notation() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let template = letters_template(dir.path());
    let dataset = data("kmmlu_sample.csv");
    let out = dir.path().join("gen.jsonl");
    let o = generate(&dataset, &[&base], &out, &dir.path().join("cache"))
        .arg("--template")
        .arg(&template)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let gens = lines(&out);
    assert!(gens
        .iter()
        .all(|g| g["prompt"].as_str().is_some_and(|p| p.contains("\nA. "))));
    let report = grade(&dataset, &out, &dir.path().join("graded"));
    let verdicts = lines(&dir.path().join("graded/verdicts.jsonl"));
    assert_eq!(verdicts.len(), 12);
    read_as_letter_a(&verdicts);
    assert_eq!(report["metrics"]["statuses"]["answer"], 12);
    // The built-in template shows the dataset's own notation: no prompt is kept.
    let plain = dir.path().join("plain.jsonl");
    let o = generate(&dataset, &[&base], &plain, &dir.path().join("cache"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(lines(&plain).iter().all(|g| g.get("prompt").is_none()));
}

/// Trial 42, defect 1: through `--write-batch`, a template in another notation was lost (a
/// batch output line carries only the custom_id), so a perfect model scored 0%. The
/// custom_id names the notation (`#n=letter`), and `grade` reads the batch output in it,
/// circular orderings included.
#[test]
fn a_template_in_another_notation_survives_the_batch_route() {
    let dir = tempfile::tempdir().unwrap();
    let template = letters_template(dir.path());
    let dataset = data("kmmlu_sample.csv");
    let batch = dir.path().join("batch.jsonl");
    let o = kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(&dataset)
        .args(["--model", "gpt-4o-mini", "--circular", "circular"])
        .arg("--template")
        .arg(&template)
        .arg("--write-batch")
        .arg(&batch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let requests = lines(&batch);
    assert_eq!(requests.len(), 48);
    assert!(requests
        .iter()
        .all(|r| r["custom_id"].as_str().unwrap().ends_with("#n=letter")));
    let output = dir.path().join("batch_output.jsonl");
    let mut text = String::new();
    for r in &requests {
        text.push_str(&batch_output_line(&r["custom_id"], "정답: A"));
    }
    std::fs::write(&output, text).unwrap();
    let report = grade(&dataset, &output, &dir.path().join("graded"));
    assert_eq!(report["metrics"]["statuses"]["answer"], 48, "{report}");
    let verdicts = lines(&dir.path().join("graded/verdicts.jsonl"));
    read_as_letter_a(&verdicts);
    // "A" is the gold in one rotation of four.
    assert_eq!(report["metrics"]["overall"]["correct"], 12);
}

/// Trial 42, defect 3: `generate`'s lines carried nothing of their question, so answers to
/// one KMMLU subject graded against another subject of the same size (ids are row numbers in
/// both) scored 24%, exit 0. Each line now carries its question's start, which the join
/// checks: the wrong dataset is refused; the right one grades.
#[test]
fn generated_answers_graded_against_another_dataset_are_refused() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/kmmlu");
    // The first 20 rows of two subjects, as a user's own subsets.
    let subset = |name: &str| {
        let text = std::fs::read_to_string(shared.join(name)).unwrap();
        let mut rdr = csv::Reader::from_reader(text.as_bytes());
        let path = dir.path().join(name);
        let mut w = csv::Writer::from_path(&path).unwrap();
        w.write_record(rdr.headers().unwrap()).unwrap();
        for r in rdr.records().take(20) {
            w.write_record(&r.unwrap()).unwrap();
        }
        w.flush().unwrap();
        path
    };
    let law = subset("Criminal-Law-test.csv");
    let tax = subset("Taxation-test.csv");
    let out = dir.path().join("law.jsonl");
    let o = generate(&law, &[&base], &out, &dir.path().join("cache"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(lines(&out).iter().all(|g| g["question"].is_string()));
    let wrong = kgrade()
        .arg("grade")
        .arg("--dataset")
        .arg(&tax)
        .arg("--generations")
        .arg(&out)
        .arg("--out")
        .arg(dir.path().join("wrong"))
        .output()
        .unwrap();
    assert_eq!(
        wrong.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("do not belong to the dataset"), "{err}");
    let report = grade(&law, &out, &dir.path().join("right"));
    assert_eq!(report["metrics"]["overall"]["n"], 20);
}

/// Trial 42, defect 4: two replicas serving different models were not noticed: every line
/// named the model asked for. Each line names the model its reply names, `generate` warns,
/// and `grade` warns that the generations name two models.
#[test]
fn replicas_serving_different_models_are_named() {
    let (a, b) = (Arc::new(Fake::default()), Arc::new(Fake::default()));
    *b.served.lock().unwrap() = Some("other-model".into());
    // Replies that take a while keep requests in flight together, so both replicas answer.
    for f in [&a, &b] {
        *f.delay.lock().unwrap() = Duration::from_millis(30);
    }
    let (base_a, base_b) = (serve(a.clone()), serve(b.clone()));
    let dir = tempfile::tempdir().unwrap();
    let dataset = data("kmmlu_sample.csv");
    let out = dir.path().join("gen.jsonl");
    let o = generate(
        &dataset,
        &[&base_a, &base_b],
        &out,
        &dir.path().join("cache"),
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the replies name 2 models") && err.contains("other-model"),
        "{err}"
    );
    let named: Vec<String> = lines(&out)
        .iter()
        .map(|g| g["model"].as_str().unwrap().to_string())
        .collect();
    let other = named.iter().filter(|m| *m == "other-model").count() as u64;
    assert_eq!(other, b.answered.load(Ordering::SeqCst));
    assert!(other > 0 && other < 12, "{named:?}");
    let graded = kgrade()
        .arg("grade")
        .arg("--dataset")
        .arg(&dataset)
        .arg("--generations")
        .arg(&out)
        .arg("--out")
        .arg(dir.path().join("graded"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&graded.stderr);
    assert!(err.contains("name 2 models"), "{err}");
}

/// Trial 42, defect 6: a server that refuses every request (a bad key: 401) was sent every
/// item, one failure each, and a dead endpoint cost seconds of retries per item, with no word
/// that the whole run was failing. When the first answers all fail alike and none arrives,
/// the run stops (exit 4), names the reason, and a rerun resumes.
#[test]
fn a_run_whose_first_answers_all_fail_alike_stops_early() {
    let fake = Arc::new(Fake::default());
    *fake.faults.always.lock().unwrap() = Some(Fault::Unauthorized);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let dataset = data("domain_eval_sample.csv");
    let out = dir.path().join("gen.jsonl");
    let cache = dir.path().join("cache");
    let o = generate(&dataset, &[&base], &out, &cache).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the first 5 answers all failed alike"),
        "{err}"
    );
    assert!(err.contains("401"), "{err}");
    // Far fewer than the 60 items were asked for (those in flight at the fifth failure).
    let asked = fake.requests.load(Ordering::SeqCst);
    assert!((5..20).contains(&asked), "{asked} requests");
    // A dead endpoint (nothing listening) stops as early.
    let o = generate(
        &dataset,
        &[&down_endpoint()],
        &dir.path().join("down.jsonl"),
        &cache,
    )
    .args(["--max-retries", "1"])
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&o.stderr).contains("all failed alike"));
    // Fixed, the same command completes.
    *fake.faults.always.lock().unwrap() = None;
    let o = generate(&dataset, &[&base], &out, &cache).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(lines(&out).len(), 60);
}

/// Trial 42, defect 8: `--write-batch` wrote 60,000 requests to one file, which the Batch
/// API refuses (50,000 requests or 200 MB at most), with no word. Past a limit the requests
/// go into parts, each within it, every custom_id once across them. (The five KMMLU test
/// splits, 2,500 items, in all 24 orderings.)
#[test]
fn a_batch_past_the_api_s_limits_is_written_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("kmmlu");
    std::fs::create_dir(&data).unwrap();
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/kmmlu");
    for e in std::fs::read_dir(&shared).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "csv") {
            std::os::unix::fs::symlink(&p, data.join(p.file_name().unwrap())).unwrap();
        }
    }
    let batch = dir.path().join("batch.jsonl");
    let o = kgrade()
        .arg("generate")
        .arg("--dataset")
        .arg(&data)
        .args(["--model", "gpt-4o-mini", "--circular", "all_possible"])
        .arg("--write-batch")
        .arg(&batch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!batch.exists());
    let parts = [
        dir.path().join("batch.part1.jsonl"),
        dir.path().join("batch.part2.jsonl"),
    ];
    let mut ids = std::collections::HashSet::new();
    for p in &parts {
        let text = std::fs::read_to_string(p).unwrap();
        assert!(text.len() as u64 <= 200 * 1024 * 1024);
        let n = text.lines().count();
        assert!(n <= 50_000, "{n}");
        for l in text.lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(ids.insert(v["custom_id"].as_str().unwrap().to_string()));
        }
    }
    assert_eq!(ids.len(), 2_500 * 24);
    assert!(String::from_utf8_lossy(&o.stdout).contains("in 2 files"));
}

/// Trial 39, defect 7: answers `generate` could not get were left out of OUT, so `grade`
/// left their items out of the accuracy's denominator (16.7% over 6 of 12 items, exit 0).
/// They are `error` lines now: request errors, counted wrong, as a failed batch request is.
#[test]
fn answers_that_failed_are_written_as_errors_and_stay_in_the_denominator() {
    let fake = Arc::new(Fake::default());
    fake.faults.queue.lock().unwrap().extend([
        Fault::ServerError,
        Fault::ServerError,
        Fault::ServerError,
    ]);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen.jsonl");
    let dataset = data("kmmlu_sample.csv");
    let status = generate(&dataset, &[&base], &out, &dir.path().join("cache"))
        .args(["--max-retries", "0"])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(4));
    let written = lines(&out);
    assert_eq!(written.len(), 12, "every item has a line");
    let errors: Vec<&Value> = written
        .iter()
        .filter(|l| l.get("error").is_some())
        .collect();
    assert_eq!(errors.len(), 3);
    assert!(errors
        .iter()
        .all(|e| e["error"].as_str().unwrap().contains("HTTP 500")));
    let report = grade(&dataset, &out, &dir.path().join("run"));
    let overall = &report["metrics"]["overall"];
    assert_eq!(overall["n"], 12);
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/run.json")).unwrap())
            .unwrap();
    assert_eq!(run["request_errors"], 3);
    // A rerun asks only for the three and replaces their error lines.
    let before = fake.requests.load(Ordering::SeqCst);
    let status = generate(&dataset, &[&base], &out, &dir.path().join("cache"))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(fake.requests.load(Ordering::SeqCst) - before, 3);
    assert!(lines(&out).iter().all(|l| l.get("error").is_none()));
}

/// Trial 39, defect 11: `--out` naming a folder made and paid for every request, then
/// failed when the file was written. It is refused before the first request.
#[test]
fn an_out_that_is_a_folder_is_refused_before_any_request() {
    let fake = Arc::new(Fake::default());
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("outdir");
    std::fs::create_dir(&out).unwrap();
    let o = generate(
        &data("kmmlu_sample.csv"),
        &[&base],
        &out,
        &dir.path().join("cache"),
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--out is a folder"), "{err}");
    assert_eq!(fake.requests.load(Ordering::SeqCst), 0);
    assert!(!dir.path().join("outdir.partial").exists());
}
