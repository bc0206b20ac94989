//! Judge throughput against a zero-latency loopback judge (axum on 127.0.0.1): the achieved
//! request rate at `--rps 50` and `--rps 500` as a fraction of the limit, measured at the
//! server, and warm-cache verdicts/s (every verdict already in the sled cache).
//!
//! `cargo bench --bench judge`

#[path = "../tests/support/mod.rs"]
mod support;

use axum::routing::post;
use axum::{Json, Router};
use kgrade::cache::{Cache, CachedVerdict};
use kgrade::client::ClientConfig;
use kgrade::judge::rubric::Rubric;
use kgrade::judge::run::{cache_key, judge_all, Counters, JudgeConfig, Outcome, Task};
use kgrade::judge::JudgeSpec;
use kgrade::verify::ChoiceSet;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn serve(stamps: Arc<Mutex<Vec<Instant>>>) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(_body): Json<Value>| {
            let stamps = stamps.clone();
            async move {
                stamps.lock().unwrap().push(Instant::now());
                let content = json!({"choice": "②", "reason": "bench"}).to_string();
                Json(json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}))
            }
        }),
    );
    format!("http://{}", support::serve(app, 0))
}

fn tasks(n: usize, tag: &str) -> Vec<Task> {
    let set = ChoiceSet::detect("기관은? ① 금융위원회 ② 기획재정부 ③ 국방부 ④ 행정안전부").unwrap();
    (0..n)
        .map(|i| Task {
            question: format!("{tag} 문항 {i}: 금융정책을 총괄하는 기관은?"),
            choices: set.clone(),
            answer: format!("{tag} {i}: 정답은 ② 또는 ③입니다."),
        })
        .collect()
}

fn config(base: &str, rps: f64) -> JudgeConfig {
    JudgeConfig {
        spec: JudgeSpec::parse(&format!("openai:{base}/v1#bench"), None).unwrap(),
        client: ClientConfig {
            api_key: None,
            rps,
            burst: 1,
            tpm: None,
            max_concurrency: 32,
            timeout: Duration::from_secs(10),
            max_retries: 3,
            backoff_base: Duration::from_millis(10),
            interrupt: Default::default(),
        },
        max_tokens: 256,
    }
}

fn main() {
    let rubric = Rubric::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("rubrics"),
        "mc_final_answer",
    )
    .unwrap();
    let stamps = Arc::new(Mutex::new(Vec::new()));
    let base = serve(stamps.clone());
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    for (rps, n) in [(50.0, 200usize), (500.0, 2000), (2000.0, 4000)] {
        stamps.lock().unwrap().clear();
        let start = Instant::now();
        let out = rt
            .block_on(judge_all(
                config(&base, rps),
                rubric.clone(),
                cache.clone(),
                tasks(n, &format!("rps{rps}")),
                Arc::new(Counters::default()),
            ))
            .unwrap();
        let wall = start.elapsed().as_secs_f64();
        assert!(out.iter().all(|o| matches!(o, Outcome::Judged { .. })));
        let s = stamps.lock().unwrap();
        let span = s.last().unwrap().duration_since(s[0]).as_secs_f64();
        let achieved = (s.len() - 1) as f64 / span;
        println!(
            "--rps {rps:>5}: {} requests, achieved {achieved:.1} req/s at the server = {:.1}% of the limit (wall {wall:.2} s)",
            s.len(),
            100.0 * achieved / rps
        );
    }

    // Warm cache: store verdicts for a larger task list directly, then judge it.
    let n = 50_000;
    let warm = tasks(n, "warm");
    let spec = config(&base, 1.0).spec;
    rt.block_on(async {
        for t in &warm {
            let messages = rubric
                .render_choice(&t.question, &t.choices, &t.answer)
                .unwrap();
            let key = cache_key(&spec, &rubric, &messages);
            let value = CachedVerdict {
                verdict: json!({"choice": "②", "reason": "bench"}),
                raw: String::new(),
                latency_ms: 0,
                time: 0,
                backend: "openai".into(),
                model: "bench".into(),
                rubric: rubric.id.clone(),
                rubric_version: rubric.version,
            };
            cache.put(&key, &value).await.unwrap();
        }
    });
    stamps.lock().unwrap().clear();
    let start = Instant::now();
    let counters = Arc::new(Counters::default());
    let out = rt
        .block_on(judge_all(
            config(&base, 1.0),
            rubric.clone(),
            cache.clone(),
            warm,
            counters.clone(),
        ))
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    assert!(out
        .iter()
        .all(|o| matches!(o, Outcome::Judged { cached: true, .. })));
    println!(
        "warm cache: {n} verdicts in {secs:.2} s = {:.0} verdicts/s, {} requests",
        n as f64 / secs,
        stamps.lock().unwrap().len()
    );
}
