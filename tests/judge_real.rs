//! The judge against a real model server, when one is installed: set `KGRADE_OLLAMA_MODEL`
//! (e.g. `gpt-oss:20b`, with `OLLAMA_HOST` if not on 127.0.0.1:11434) and/or
//! `KGRADE_OPENAI_JUDGE` (e.g. `openai:http://127.0.0.1:8000/v1#gpt-oss-20b`, key from
//! `OPENAI_API_KEY`). Without them these tests say so and pass: CI has no model server.

use kgrade::cache::Cache;
use kgrade::client::ClientConfig;
use kgrade::judge::rubric::Rubric;
use kgrade::judge::run::{judge_all, Counters, JudgeConfig, Outcome, Task};
use kgrade::judge::JudgeSpec;
use kgrade::verify::ChoiceSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn judge_with(spec: JudgeSpec) {
    let rubric = Rubric::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("rubrics"),
        "mc_final_answer",
    )
    .unwrap();
    let set = ChoiceSet::detect(
        "금융정책을 총괄하는 기관은? ① 금융위원회 ② 기획재정부 ③ 국방부 ④ 행정안전부",
    )
    .unwrap();
    let tasks = vec![
        Task {
            question: "금융정책을 총괄하는 기관은?".into(),
            choices: set.clone(),
            answer: "처음에는 기획재정부라고 생각했지만, 금융정책은 금융위원회 소관이므로 첫 번째 보기를 고르겠습니다.".into(),
        },
        Task {
            question: "금융정책을 총괄하는 기관은?".into(),
            choices: set.clone(),
            answer: "② 아니면 ④ 같은데 잘 모르겠습니다.".into(),
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::open(&dir.path().join("cache")).unwrap());
    let config = JudgeConfig {
        spec,
        client: ClientConfig {
            api_key: std::env::var("OPENAI_API_KEY").ok(),
            rps: 2.0,
            burst: 1,
            tpm: None,
            max_concurrency: 1,
            timeout: Duration::from_secs(300),
            max_retries: 2,
            backoff_base: Duration::from_secs(1),
            interrupt: Default::default(),
        },
        max_tokens: 256,
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let out = rt
        .block_on(judge_all(
            config,
            rubric,
            cache,
            tasks,
            Arc::new(Counters::default()),
        ))
        .unwrap();
    assert!(matches!(out[0], Outcome::Judged { .. }), "{:?}", out[0]);
    assert_eq!(
        out[0].choice().map(|c| c.position()),
        Some(1),
        "{:?}",
        out[0]
    );
    assert_eq!(
        out[1].choice(),
        None,
        "no single final choice: {:?}",
        out[1]
    );
}

#[test]
fn real_ollama_judge() {
    let Ok(model) = std::env::var("KGRADE_OLLAMA_MODEL") else {
        eprintln!("skipped: set KGRADE_OLLAMA_MODEL to test against a real Ollama server");
        return;
    };
    judge_with(
        JudgeSpec::parse(
            &format!("ollama:{model}"),
            std::env::var("OLLAMA_HOST").ok().as_deref(),
        )
        .unwrap(),
    );
}

#[test]
fn real_openai_compatible_judge() {
    let Ok(spec) = std::env::var("KGRADE_OPENAI_JUDGE") else {
        eprintln!(
            "skipped: set KGRADE_OPENAI_JUDGE to test against a real OpenAI-compatible server"
        );
        return;
    };
    judge_with(JudgeSpec::parse(&spec, None).unwrap());
}
