//! What the integration tests and benches share: a server on 127.0.0.1 in a runtime of its
//! own, the faults a fake model or judge server injects before its reply, and the `kgrade`
//! binary with a time limit (and `kgrade grade` on a dataset and generations). Each test
//! crate that needs them says `mod support;` (benches: `#[path = "../tests/support/mod.rs"]`),
//! so not every crate uses every item.
#![allow(dead_code)]

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Serve `app` on a free port of 127.0.0.1 from a runtime of its own (a current-thread one
/// when `workers` is 0), on a thread that lives as long as the test; returns the address.
pub fn serve(app: Router, workers: usize) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = if workers == 0 {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        } else {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .enable_all()
                .build()
        }
        .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

/// A fault a fake server injects instead of (or before) its reply.
#[derive(Clone, Debug)]
pub enum Fault {
    /// 429 with `Retry-After` in seconds.
    TooMany(u64),
    /// 500.
    ServerError,
    /// 401.
    Unauthorized,
    /// Wait this long, then reply as usual.
    Slow(Duration),
    /// 200 with a body that is not JSON.
    MalformedBody,
    /// 200 with JSON whose content the caller cannot use (the server writes it).
    MalformedReply,
    /// Drop the connection with no reply.
    Drop,
}

/// A fake server's faults: one for every request, or a queue taken one per request.
#[derive(Default)]
pub struct Faults {
    pub queue: Mutex<VecDeque<Fault>>,
    /// Every request fails with this, if set.
    pub always: Mutex<Option<Fault>>,
}

impl Faults {
    /// The fault for this request, taken off the queue unless one applies to every request.
    pub fn next(&self) -> Option<Fault> {
        self.always
            .lock()
            .unwrap()
            .clone()
            .or_else(|| self.queue.lock().unwrap().pop_front())
    }
}

/// Apply `fault`: the response to send instead of the reply, if any. A slow fault waits and
/// lets the reply go on; so does a malformed reply, which the server writes itself.
pub async fn apply(fault: Option<&Fault>) -> Option<Response> {
    match fault? {
        Fault::TooMany(secs) => Some(
            (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", secs.to_string())],
                "slow down",
            )
                .into_response(),
        ),
        Fault::ServerError => Some((StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response()),
        Fault::Unauthorized => Some((StatusCode::UNAUTHORIZED, "no").into_response()),
        Fault::MalformedBody => Some((StatusCode::OK, "{\"choices\": [").into_response()),
        Fault::Slow(d) => {
            tokio::time::sleep(*d).await;
            None
        }
        Fault::Drop => {
            // A panicking handler makes hyper drop the connection; the panic message is kept
            // out of the test output.
            quiet_deliberate_panics();
            panic!("{DELIBERATE}")
        }
        Fault::MalformedReply => None,
    }
}

const DELIBERATE: &str = "dropping the connection on purpose";

/// Install (once) a panic hook that stays silent for the fake servers' deliberate panics
/// and reports every other panic as usual.
fn quiet_deliberate_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied());
            if message != Some(DELIBERATE) {
                default(info);
            }
        }));
    });
}

/// The `kgrade` binary, stopped (and the test failed) if it runs for more than two minutes:
/// a hang is a failure, not a stuck CI job. `COLUMNS` is removed, so the terminal tables a
/// test reads do not depend on the shell that runs it.
pub fn kgrade() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("kgrade").unwrap();
    c.timeout(Duration::from_secs(120)).env_remove("COLUMNS");
    c
}

/// `kgrade grade [FLAGS…] --dataset D --generations G --out OUT`.
/// `kgrade grade` with a judge that fails fast (no retries, no rate wait, unresolved answers
/// allowed) and its cache in `dir/cache`: the run that the judge-failure tests make.
pub fn grade_with_judge(
    judge: &str,
    dataset: &Path,
    generations: &Path,
    out: &Path,
    dir: &Path,
) -> assert_cmd::Command {
    let judge = format!("openai:{judge}");
    let flags = [
        "--judge",
        judge.as_str(),
        "--max-retries",
        "0",
        "--rps",
        "1000",
        "--allow-unresolved",
    ];
    let mut cmd = grade(&flags, dataset, generations, out);
    cmd.arg("--cache").arg(dir.join("cache"));
    cmd
}

/// `kgrade generate` of the bundled sample against `endpoint` with model `m`, one try per
/// request and no rate wait, writing `dir/gen.jsonl` with its cache in `dir/cache`: the run
/// the endpoint and secrets tests make. The caller sets or removes `OPENAI_API_KEY`.
pub fn generate_once(endpoint: &str, dir: &Path) -> assert_cmd::Command {
    let mut cmd = kgrade();
    cmd.arg("generate")
        .arg("--dataset")
        .arg(root().join("data/domain_eval_sample.csv"))
        .args(["--model", "m", "--rps", "1000", "--max-retries", "0"])
        .args(["--endpoint", endpoint])
        .arg("--out")
        .arg(dir.join("gen.jsonl"))
        .arg("--cache")
        .arg(dir.join("cache"));
    cmd
}

pub fn grade(
    flags: &[&str],
    dataset: &Path,
    generations: &Path,
    out: &Path,
) -> assert_cmd::Command {
    let mut cmd = kgrade();
    cmd.arg("grade")
        .args(flags)
        .arg("--dataset")
        .arg(dataset)
        .arg("--generations")
        .arg(generations)
        .arg("--out")
        .arg(out);
    cmd
}

/// The repository root (bundled data, rubrics).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every file under `dir`, recursively.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_below(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Write `body` to `dir/name`; returns the path.
pub fn write(dir: &Path, name: &str, body: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}
