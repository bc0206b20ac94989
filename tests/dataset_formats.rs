//! Datasets as other tools write them (trial 44: D2, D3, D5, D6, D7), each graded by the real
//! binary against answers whose outcome is known. The files under `tests/fixtures/datasets/`
//! were written by Hugging Face `datasets`, pandas, openpyxl and pyarrow themselves
//! (`make.py` there, synthetic rows); the generations are written here.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The five fixture items' gold, 0-based (`make.py`'s QUESTIONS).
const GOLD: [usize; 5] = [3, 1, 3, 0, 1];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/datasets")
        .join(name)
}

/// Answers to the five items: right on every one but the last, which names the option
/// after the gold; `say` writes a 0-based option as the model would.
fn answers(dir: &Path, ids: impl Fn(usize) -> String, say: impl Fn(usize) -> String) -> PathBuf {
    let path = dir.join("gens.jsonl");
    let lines: String = GOLD
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let chosen = if i == 4 { (g + 1) % 4 } else { g };
            let response = format!("풀이를 마쳤습니다.\n정답: {}", say(chosen));
            format!(
                "{}\n",
                serde_json::json!({"id": ids(i), "response": response})
            )
        })
        .collect();
    std::fs::write(&path, lines).unwrap();
    path
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    verdicts: Vec<Value>,
}

fn grade(dataset: &Path, generations: &Path, extra: &[&str]) -> Run {
    let out = generations.with_file_name("out");
    let output = assert_cmd::Command::cargo_bin("kgrade")
        .unwrap()
        .arg("grade")
        .arg("--dataset")
        .arg(dataset)
        .arg("--generations")
        .arg(generations)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        verdicts,
    }
}

fn row_ids(i: usize) -> String {
    i.to_string()
}

fn letter(i: usize) -> String {
    char::from(b'A' + i as u8).to_string()
}

fn number(i: usize) -> String {
    format!("{}번", i + 1)
}

/// Four right, the last wrong, exit 0; `fields` never holds an option.
fn assert_four_of_five(run: &Run) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("(4/5 answers"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    for v in &run.verdicts {
        let fields = v["fields"].as_object().unwrap();
        for k in fields.keys() {
            assert!(
                !["choices", "A", "D", "보기1", "보기4", ""].contains(&k.as_str()),
                "option column {k} became a grouping field: {v}"
            );
        }
    }
}

/// D2: Hugging Face's MMLU layout (`datasets` `to_json`): the `choices` list is the options,
/// shown as A–D, and the 0-based `answer` (0 occurs) is read as an index.
#[test]
fn hf_mmlu_jsonl_is_graded_with_its_list_of_options() {
    let dir = tempfile::tempdir().unwrap();
    let run = grade(
        &fixture("hf_mmlu.jsonl"),
        &answers(dir.path(), row_ids, letter),
        &[],
    );
    assert_four_of_five(&run);
    let golds: Vec<&str> = run
        .verdicts
        .iter()
        .map(|v| v["gold"].as_str().unwrap())
        .collect();
    assert_eq!(golds, ["D", "B", "D", "A", "B"]);
    assert!(
        !run.stderr.contains("0-based"),
        "0 occurs: nothing to warn: {}",
        run.stderr
    );
    // Following the old advice (`--choices number:4`) no longer reads the index as 1-based.
    let run = grade(
        &fixture("hf_mmlu.jsonl"),
        &answers(dir.path(), row_ids, number),
        &["--choices", "number:4"],
    );
    assert_four_of_five(&run);
    assert_eq!(run.verdicts[0]["gold_index"], 4);
}

/// D2: CLIcK's layout, the answer the option's text.
#[test]
fn click_jsonl_answers_given_as_option_text() {
    let dir = tempfile::tempdir().unwrap();
    let ids = |i: usize| format!("fire_{i}");
    let run = grade(
        &fixture("click.jsonl"),
        &answers(dir.path(), ids, letter),
        &[],
    );
    assert_four_of_five(&run);
}

/// ARC's layout (`choices` {text, label}, `answerKey` naming a label), with rows labelled
/// 1–4 among rows labelled A–D as ARC's own splits have them: each `answerKey` is the option
/// its label names, as lm-eval's `arc_challenge_chat` reads it (trial 47 R2: refused; before
/// that, trial 46: read as 0-based indexes, 0/9), and each row is read in its own labels
/// unless a prompt or `--choices` says otherwise. Without `--answer-col` the error names it.
#[test]
fn arc_answer_keys_name_their_rows_labels() {
    let dir = tempfile::tempdir().unwrap();
    let ids = |i: usize| format!("Mercury_{i}");
    // Rows 1 and 3 are labelled 1–4: a prompt built from the row shows them so.
    let path = dir.path().join("gens.jsonl");
    let lines: String = (GOLD.iter().enumerate())
        .map(|(i, &g)| {
            let chosen = if i == 4 { (g + 1) % 4 } else { g };
            let said = if i == 1 || i == 3 {
                number(chosen)
            } else {
                letter(chosen)
            };
            let response = format!("풀이를 마쳤습니다.\n정답: {said}");
            format!(
                "{}\n",
                serde_json::json!({"id": ids(i), "response": response})
            )
        })
        .collect();
    std::fs::write(&path, lines).unwrap();
    let run = grade(&fixture("arc.jsonl"), &path, &["--answer-col", "answerKey"]);
    assert_four_of_five(&run);
    let golds: Vec<&str> = (run.verdicts.iter())
        .map(|v| v["gold"].as_str().unwrap())
        .collect();
    assert_eq!(golds, ["D", "2", "D", "1", "B"]);
    // `--choices number:4`: every row shown as numbers.
    let gens = answers(dir.path(), ids, number);
    let run = grade(
        &fixture("arc.jsonl"),
        &gens,
        &["--answer-col", "answerKey", "--choices", "number:4"],
    );
    assert_four_of_five(&run);
    let run = grade(&fixture("arc.jsonl"), &gens, &[]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("arc.jsonl:1: no column `answer`")
            && run.stderr.contains("--answer-col answerKey"),
        "{}",
        run.stderr
    );
    // An answerKey that is none of its row's labels is refused at its line.
    let text = std::fs::read_to_string(fixture("arc.jsonl")).unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        text.replacen("\"answerKey\":\"1\"", "\"answerKey\":\"5\"", 1),
    )
    .unwrap();
    let run = grade(&bad, &gens, &["--answer-col", "answerKey"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("bad.jsonl:4: field `answerKey`: \"5\" is none of the labels"),
        "{}",
        run.stderr
    );
}

/// Options labelled ①–④ (trial 47 B6: refused) are read in those labels. Labels that do not
/// run in order from the first (used twice, `D`–`A`, `A, B, D, E`, `0`–`3`) are refused:
/// options are read by place, so their answers would be read by place and their gold by
/// label (trial 49: 0/4 at exit 0 for a model right on every row).
#[test]
fn options_with_circled_labels_are_read_in_them() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds.jsonl");
    let row = |label: [&str; 4], key: &str| {
        let options: Vec<serde_json::Value> = (label.iter().zip(["파랑", "빨강", "노랑", "초록"]))
            .map(|(l, t)| serde_json::json!({"label": l, "text": t}))
            .collect();
        serde_json::json!({"id": "q0", "question": "하늘의 색은?", "choices": options, "answerKey": key})
            .to_string()
    };
    std::fs::write(&ds, row(["①", "②", "③", "④"], "①") + "\n").unwrap();
    let gens = dir.path().join("g.jsonl");
    std::fs::write(&gens, "{\"id\": \"q0\", \"response\": \"정답은 ①\"}\n").unwrap();
    let run = grade(&ds, &gens, &["--answer-col", "answerKey"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.verdicts[0]["correct"], true, "{:?}", run.verdicts);
    for (labels, shown) in [
        (["①", "①", "③", "④"], "\"①\", \"①\", \"③\", \"④\""),
        (["D", "C", "B", "A"], "\"D\", \"C\", \"B\", \"A\""),
        (["A", "B", "D", "E"], "\"A\", \"B\", \"D\", \"E\""),
        (["0", "1", "2", "3"], "\"0\", \"1\", \"2\", \"3\""),
    ] {
        std::fs::write(&ds, row(labels, labels[0]) + "\n").unwrap();
        let run = grade(&ds, &gens, &["--answer-col", "answerKey"]);
        assert_eq!(run.code, 3, "{}", run.stderr);
        let said = format!("ds.jsonl:1: field `choices`: 4 options labelled {shown}: kgrade reads options by place");
        assert!(run.stderr.contains(&said), "{}", run.stderr);
    }
}

/// A question that lists its options itself, beside `choices` labelled the same way, is
/// read with its answer in those labels (trial 49 R3: "unknown answer label \"A\"").
#[test]
fn a_question_showing_its_labelled_options_reads_the_answer_label() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds.jsonl");
    let labels = ["①", "②", "③", "④"];
    let texts = ["파랑", "빨강", "노랑", "초록"];
    let listed: String = (labels.iter().zip(texts))
        .map(|(l, t)| format!("\n{l} {t}"))
        .collect();
    let row = serde_json::json!({
        "id": "q0",
        "question": format!("하늘의 색은?{listed}"),
        "choices": {"text": texts, "label": labels},
        "answerKey": "②",
    });
    std::fs::write(&ds, row.to_string() + "\n").unwrap();
    let gens = dir.path().join("g.jsonl");
    std::fs::write(&gens, "{\"id\": \"q0\", \"response\": \"정답은 ②\"}\n").unwrap();
    let run = grade(&ds, &gens, &["--answer-col", "answerKey"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.verdicts[0]["correct"], true, "{:?}", run.verdicts);
}

/// D2: the same dataset through `datasets`' `to_csv` holds NumPy list reprs: refused at the
/// field, with how to write it instead.
#[test]
fn hf_to_csv_list_column_is_refused_at_its_field() {
    let dir = tempfile::tempdir().unwrap();
    let run = grade(
        &fixture("hf_mmlu.csv"),
        &answers(dir.path(), row_ids, letter),
        &[],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("hf_mmlu.csv:2: field `choices`") && run.stderr.contains("to_json"),
        "{}",
        run.stderr
    );
}

/// D3: `보기1`–`보기4` option columns beside renamed question and answer columns (pandas,
/// UTF-8 with BOM).
#[test]
fn korean_option_columns_with_renamed_question_and_answer() {
    let dir = tempfile::tempdir().unwrap();
    let run = grade(
        &fixture("bogi_columns.csv"),
        &answers(dir.path(), row_ids, number),
        &["--question-col", "문제", "--answer-col", "정답"],
    );
    assert_four_of_five(&run);
    assert_eq!(run.verdicts[0]["fields"]["과목"], "소방");
}

/// D6: pandas' `to_json(orient="records")` (one array) and `json.dump({"data": …}, indent=2)`.
#[test]
fn json_documents_of_records_are_read() {
    for name in ["records_array.json", "records_wrapped.json"] {
        let dir = tempfile::tempdir().unwrap();
        let run = grade(&fixture(name), &answers(dir.path(), row_ids, number), &[]);
        assert_four_of_five(&run);
    }
}

/// D5: a workbook written by openpyxl and a Parquet file written by pyarrow are named as
/// such, with how to export them, exit 3.
#[test]
fn workbooks_and_parquet_are_refused_with_how_to_export() {
    for (name, kind) in [
        ("kmmlu.xlsx", "Excel workbook"),
        ("kmmlu.parquet", "Parquet"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let run = grade(&fixture(name), &answers(dir.path(), row_ids, number), &[]);
        assert_eq!(run.code, 3, "{}", run.stderr);
        assert!(
            run.stderr.contains(kind) && run.stderr.contains("to_csv"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("UTF-8 name"), "{}", run.stderr);
    }
}

/// D7: a sheet's cleared columns and rows are skipped (the rows counted in a warning); TSV
/// as pandas writes it is read.
#[test]
fn excel_leftovers_and_tsv_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let run = grade(
        &fixture("excel_leftovers.csv"),
        &answers(dir.path(), row_ids, number),
        &[],
    );
    assert_four_of_five(&run);
    assert!(
        run.stderr.contains("skipped 2 rows with every field empty"),
        "{}",
        run.stderr
    );
    let run = grade(
        &fixture("kmmlu.tsv"),
        &answers(dir.path(), row_ids, number),
        &[],
    );
    assert_four_of_five(&run);
}
