//! Ctrl-C (SIGINT) against the real binary and a loopback OpenAI-compatible server (axum on
//! 127.0.0.1) that answers like a candidate model or a judge. The server answers the first few
//! requests and holds every later one at a gate the test opens (or never opens), so what is
//! under way when SIGINT arrives is known exactly: each test waits on observable state (lines
//! in the journal, requests the server saw, the message on stderr), never on a fixed sleep,
//! and asserts no wall-clock time.

use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;

/// A model and judge server that answers the first `free` requests at once and holds the
/// rest until the gate opens.
struct Fake {
    free: u64,
    requests: AtomicU64,
    answered: AtomicU64,
    gate: tokio::sync::watch::Sender<bool>,
}

impl Fake {
    fn new(free: u64) -> Arc<Fake> {
        Arc::new(Fake {
            free,
            requests: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            gate: tokio::sync::watch::Sender::new(false),
        })
    }

    fn open_gate(&self) {
        self.gate.send_replace(true);
    }
}

async fn handle(fake: Arc<Fake>, body: Value) -> Response {
    if fake.requests.fetch_add(1, SeqCst) >= fake.free {
        let mut gate = fake.gate.subscribe();
        let _ = gate.wait_for(|open| *open).await;
    }
    let prompt = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    // A judge request fences the answer it is about; anything else asks for an answer.
    let content = if prompt.contains("=====ANSWER-") {
        json!({"reason": "no single final choice", "choice": null}).to_string()
    } else {
        "정답: 1".to_string()
    };
    fake.answered.fetch_add(1, SeqCst);
    Json(
        json!({"id": "x", "object": "chat.completion", "model": "fake",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 4}}),
    )
    .into_response()
}

/// Start `fake` on 127.0.0.1; returns its base URL (`…/v1`).
fn serve(fake: Arc<Fake>) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(body): Json<Value>| handle(fake.clone(), body)),
    );
    format!("http://{}/v1", support::serve(app, 2))
}

fn data(name: &str) -> PathBuf {
    support::root().join("data").join(name)
}

fn kgrade() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kgrade"));
    c.env_remove("OPENAI_API_KEY");
    c
}

/// `kgrade generate` on the 60-item sample, two requests at a time, with a timeout far past
/// any wait here (a held request is held, not timed out).
fn generate(base: &str, out: &Path, cache: &Path) -> Command {
    let mut c = kgrade();
    c.arg("generate")
        .arg("--dataset")
        .arg(data("domain_eval_sample.csv"))
        .args(["--endpoint", base, "--model", "fake-model"])
        .args([
            "--max-concurrency",
            "2",
            "--rps",
            "1000",
            "--timeout",
            "600",
        ])
        .arg("--out")
        .arg(out)
        .arg("--cache")
        .arg(cache);
    c
}

/// A running `kgrade` whose stderr is collected as it comes.
struct Running {
    child: Child,
    stderr: Arc<Mutex<String>>,
}

impl Running {
    fn start(mut command: Command) -> Running {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut s = collected.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Running { child, stderr }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Wait (a minute at most) until `ready`, failing if the process ends first.
    fn wait_until(&mut self, what: &str, mut ready: impl FnMut(&Running) -> bool) {
        let start = Instant::now();
        while !ready(self) {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("ended ({status}) before {what}: {}", self.stderr());
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no {what} within a minute: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn ctrl_c(&self) {
        self.signal(libc::SIGINT);
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill(2) on our own child's pid, which it has not yet been reaped from.
        let sent = unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        assert_eq!(sent, 0);
    }

    /// Wait (a minute at most: far less than a held request) for the exit code and the
    /// whole of stderr.
    fn exit(&mut self) -> (i32, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = self.child.kill();
                panic!("still running a minute after Ctrl-C: {}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        // The reader thread ends with the pipe; give it the last lines.
        let start = Instant::now();
        while Arc::strong_count(&self.stderr) > 1 && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        (status.code().unwrap_or(-1), self.stderr())
    }
}

/// Complete lines in `path` (0 if it is not there yet).
fn complete_lines(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// Every line of a generations file, each checked to be whole JSON with an id.
fn generation_ids(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "a cut last line");
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

fn dataset_ids() -> Vec<String> {
    let mut r = csv::Reader::from_path(data("domain_eval_sample.csv")).unwrap();
    let id = r.headers().unwrap().iter().position(|h| h == "id").unwrap();
    r.records()
        .map(|rec| rec.unwrap()[id].to_string())
        .collect()
}

/// A `generate` run whose server answered `free` requests (all in the journal) and holds the
/// next two, stopped by one Ctrl-C (its message seen).
struct Stopped {
    fake: Arc<Fake>,
    base: String,
    dir: tempfile::TempDir,
    out: PathBuf,
    cache: PathBuf,
    run: Running,
}

fn generate_stopped_with_two_under_way(free: u64) -> Stopped {
    let mut s = generate_with_two_under_way(free);
    s.run.ctrl_c();
    s.run
        .wait_until("the stopping message", |r| r.stderr().contains("stopping:"));
    s
}

/// A `generate` run whose server answered `free` requests (all in the journal) and holds the
/// next two, not yet signalled.
fn generate_with_two_under_way(free: u64) -> Stopped {
    let fake = Fake::new(free);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("gen.jsonl"), dir.path().join("cache"));
    let journal = dir.path().join("gen.jsonl.partial");
    let mut run = Running::start(generate(&base, &out, &cache));
    run.wait_until("the free answers in the journal", |_| {
        complete_lines(&journal) as u64 >= free
    });
    run.wait_until("two requests under way", |_| {
        fake.requests.load(SeqCst) >= free + 2
    });
    Stopped {
        fake,
        base,
        dir,
        out,
        cache,
        run,
    }
}

/// The same command again, which must end with every answer once, in dataset order; its
/// stdout.
fn rerun_completes(s: &Stopped) -> String {
    let o = generate(&s.base, &s.out, &s.cache).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        generation_ids(&s.out),
        dataset_ids(),
        "no id missing or twice"
    );
    stdout
}

#[test]
fn ctrl_c_in_generate_finishes_requests_under_way_saves_every_answer_and_a_rerun_completes() {
    let mut s = generate_stopped_with_two_under_way(6);
    s.fake.open_gate();
    let (code, stderr) = s.run.exit();

    assert_eq!(code, 130, "{stderr}");
    assert!(
        stderr.contains("press Ctrl-C again to cancel them"),
        "{stderr}"
    );
    // The two requests under way finished and were saved; nothing else was asked for.
    let message = format!(
        "kgrade: interrupted: 8 of 60 answers saved to {}; run the same command again to resume",
        s.out.display()
    );
    assert!(stderr.contains(&message), "{stderr}");
    assert_eq!(s.fake.answered.load(SeqCst), 8);
    assert_eq!(s.fake.requests.load(SeqCst), 8, "no request after Ctrl-C");
    // OUT holds exactly those answers, each a whole JSON line, in dataset order.
    let got = generation_ids(&s.out);
    assert_eq!(got.len(), 8);
    let in_order: Vec<String> = dataset_ids()
        .into_iter()
        .filter(|id| got.contains(id))
        .collect();
    assert_eq!(got, in_order);
    let dir = s.dir.path();
    assert!(!dir.join("gen.jsonl.partial").exists(), "journal removed");
    assert!(!dir.join("gen.jsonl.tmp").exists());

    // The same command again asks only for the rest.
    let stdout = rerun_completes(&s);
    assert!(stdout.contains("(8 from the cache, 0 failed)"), "{stdout}");
    assert_eq!(s.fake.requests.load(SeqCst), 60);
}

#[test]
fn a_second_ctrl_c_in_generate_cancels_the_requests_under_way() {
    // Three answers, then every request is held until the rerun: only cancelling ends the run.
    let mut s = generate_stopped_with_two_under_way(3);
    s.run.ctrl_c();
    let (code, stderr) = s.run.exit();

    assert_eq!(code, 130, "{stderr}");
    assert!(
        stderr.contains("cancelling the requests under way"),
        "{stderr}"
    );
    assert!(
        stderr.contains("interrupted: 3 of 60 answers saved to"),
        "{stderr}"
    );
    assert_eq!(s.fake.requests.load(SeqCst), 5, "no request after Ctrl-C");
    assert_eq!(generation_ids(&s.out).len(), 3);

    // The two cancelled requests are asked for again, with the rest.
    s.fake.open_gate();
    rerun_completes(&s);
    assert_eq!(s.fake.requests.load(SeqCst), 5 + 57);
}

/// Trial 42, defect 11: SIGTERM (`kill`, `timeout`, a scheduler's time limit) ended
/// `generate` at once with exit 143, no word and no OUT. It ends as two Ctrl-C presses do:
/// the requests under way are cancelled, what arrived is saved to OUT, and a rerun completes.
#[test]
fn sigterm_in_generate_saves_what_arrived() {
    let mut s = generate_with_two_under_way(4);
    s.run.signal(libc::SIGTERM);
    let (code, stderr) = s.run.exit();
    assert_eq!(code, 130, "{stderr}");
    assert!(stderr.contains("terminated (SIGTERM)"), "{stderr}");
    assert!(
        stderr.contains("interrupted: 4 of 60 answers saved to"),
        "{stderr}"
    );
    assert_eq!(generation_ids(&s.out).len(), 4);
    s.fake.open_gate();
    rerun_completes(&s);
}

#[test]
fn ctrl_c_in_grade_judge_keeps_every_verdict_in_the_cache_and_the_output_folder_as_it_was() {
    let fake = Fake::new(4);
    let base = serve(fake.clone());
    let dir = tempfile::tempdir().unwrap();
    let (out, cache) = (dir.path().join("run"), dir.path().join("cache"));
    let grade = |judge: bool| {
        let mut c = kgrade();
        c.arg("grade")
            .arg("--dataset")
            .arg(data("domain_eval_sample.csv"))
            .arg("--generations")
            .arg(data("generations_reasoning.jsonl"))
            .arg("--out")
            .arg(&out);
        if judge {
            c.args(["--judge", &format!("openai:{base}#judge-model")])
                .args([
                    "--max-concurrency",
                    "1",
                    "--rps",
                    "1000",
                    "--timeout",
                    "600",
                ])
                .arg("--cache")
                .arg(&cache)
                .arg("--allow-unresolved");
        }
        c
    };
    // An earlier run without a judge: what an interrupted run must leave alone.
    assert!(grade(false).output().unwrap().status.success());
    let before: Vec<(PathBuf, Vec<u8>)> = support::files_below(&out)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();

    let mut run = Running::start(grade(true));
    // Four verdicts given, the fifth judgement under way (held at the gate).
    run.wait_until("a judgement under way", |_| fake.requests.load(SeqCst) >= 5);
    run.ctrl_c();
    run.wait_until("the stopping message", |r| r.stderr().contains("stopping:"));
    fake.open_gate();
    let (code, stderr) = run.exit();

    assert_eq!(code, 130, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "kgrade: interrupted: 5 new judge verdicts saved to the cache {}; the files in {} were left as they were",
            cache.display(),
            out.display()
        )),
        "{stderr}"
    );
    assert_eq!(fake.requests.load(SeqCst), 5, "no request after Ctrl-C");
    let after: Vec<(PathBuf, Vec<u8>)> = support::files_below(&out)
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    assert!(after == before, "the output folder changed");
    // The cache opens and holds the five verdicts.
    let stats = kgrade()
        .args(["cache", "stats", "--cache"])
        .arg(&cache)
        .output()
        .unwrap();
    assert!(stats.status.success());
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["entries"], 5);

    // The same command again reads those five from the cache and asks for the rest.
    let o = grade(true).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = support::read_json(&out.join("report.json"));
    let judged = report["metrics"]["stages"]["judge"].as_u64().unwrap();
    let from_cache = std::fs::read_to_string(out.join("verdicts.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).unwrap()["judge"]["cached"] == true)
        .count() as u64;
    assert_eq!(from_cache, 5);
    assert_eq!(fake.requests.load(SeqCst), 5 + (judged - from_cache));
}
