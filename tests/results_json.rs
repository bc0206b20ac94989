//! `results.json`, the lm-eval results layout: every group keeps its own metric, and counts
//! and standard errors are over documents (items), as lm-eval's own results files have them.

mod support;

use serde_json::Value;
use support::{grade, read_json, root, write};

/// A domain_eval dataset with four items per value of `domain`, and answers right for the
/// values in `right`, wrong for the others.
fn run(values: &[&str], right: &[&str]) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let mut csv = String::from("id,question,answer,domain\n");
    let mut gens = String::new();
    for (v, value) in values.iter().enumerate() {
        for k in 0..4 {
            let id = format!("q{v}-{k}");
            csv.push_str(&format!(
                "{id},\"관할 기관은? ① 금융위 ② 기재부 ③ 국방부 ④ 행안부\",②,{value}\n"
            ));
            let answer = if right.contains(value) { "②" } else { "④" };
            gens.push_str(&format!(
                "{{\"id\":\"{id}\",\"response\":\"정답은 {answer}입니다.\"}}\n"
            ));
        }
    }
    let data = write(tmp.path(), "d.csv", csv);
    let gens = write(tmp.path(), "g.jsonl", gens);
    let out = tmp.path().join("out");
    grade(&[], &data, &gens, &out).assert().success();
    read_json(&out.join("results.json"))
}

/// Audit 28, A1: `금융 보험` and `금융/보험` (and `X Y`, `x y`, `x-y`) folded into one key, and
/// the later value's accuracy overwrote the earlier's with no warning.
#[test]
fn group_values_that_fold_alike_keep_their_own_metrics() {
    let values = [
        "금융 보험",
        "금융/보험",
        "X Y",
        "x y",
        "x-y",
        "국방",
        "y",
        "y stderr",
    ];
    let right = ["금융 보험", "x y", "국방", "y stderr"];
    let r = run(&values, &right);
    let keys = r["kgrade_group_keys"].as_object().unwrap();
    assert_eq!(keys.len(), values.len(), "{keys:?}");
    let task = r["results"].as_object().unwrap().values().next().unwrap();
    for value in values {
        let (key, _) = keys
            .iter()
            .find(|(_, m)| m["column"] == "domain" && m["value"] == value)
            .unwrap_or_else(|| panic!("no key for {value}: {keys:?}"));
        let expected = if right.contains(&value) { 1.0 } else { 0.0 };
        assert_eq!(task[format!("{key},none")], expected, "{value}: {key}");
        assert_eq!(task[format!("{key}_stderr,none")], 0.0, "{value}: {key}");
    }
    // A value that folds to no other keeps its plain lm-eval-style name.
    assert_eq!(task["acc_domain_국방,none"], 1.0);
    assert_eq!(keys["acc_domain_국방"]["value"], "국방");
    // The same inputs give the same names.
    assert_eq!(
        run(&values, &right)["kgrade_group_keys"],
        r["kgrade_group_keys"]
    );
}

/// Audit 28, A5: with lm-eval's `--repeats 3` (8 documents, 24 answers) results.json said
/// `sample_len: 24` and a standard error over 24 answers; lm-eval's own results file for the
/// same run says 8 documents, and `report.json`'s interval is over the 8 items. The samples
/// file and its results file were written by lm-eval (see tests/fixtures/lm_eval/README.md).
#[test]
fn repeats_count_documents_not_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let run = root().join("tests/fixtures/lm_eval/runs/3_maj3_public_safety");
    let dataset = root().join("../shared/data/kmmlu/Public-Safety-test.csv");
    grade(&[], &dataset, &run, tmp.path()).assert().success();
    let ours = read_json(&tmp.path().join("results.json"));
    let theirs_path = support::files_below(&run)
        .into_iter()
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("results_")
        })
        .unwrap();
    let theirs = read_json(&theirs_path);
    let task = "kmmlu_direct_maj3_public_safety";
    assert_eq!(theirs["results"][task]["sample_len"], 8);
    assert_eq!(
        ours["results"][task]["sample_len"],
        theirs["results"][task]["sample_len"]
    );
    assert_eq!(ours["n-samples"][task], theirs["n-samples"][task]);
    let report = read_json(&tmp.path().join("report.json"));
    let overall = &report["metrics"]["overall"];
    assert_eq!((&overall["n"], &overall["ci_n"]), (&24.into(), &8.into()));
    // Trial 41, defect 2: the standard error is lm-eval's `mean_stderr` over the documents'
    // scores (each document's mean over its 3 answers), recomputed here from the verdicts;
    // it had been √(p(1 − p)/7) at the answers' accuracy, 3 times as large (0.188).
    let mut per_item: std::collections::BTreeMap<String, (f64, f64)> = Default::default();
    for line in std::fs::read_to_string(tmp.path().join("verdicts.jsonl"))
        .unwrap()
        .lines()
    {
        let v: Value = serde_json::from_str(line).unwrap();
        let e = per_item.entry(v["id"].to_string()).or_default();
        e.0 += f64::from(u8::from(v["correct"].as_bool().unwrap()));
        e.1 += 1.0;
    }
    let scores: Vec<f64> = per_item.values().map(|(c, n)| c / n).collect();
    assert_eq!(scores.len(), 8);
    let m = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / m;
    let sd = (scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (m - 1.0)).sqrt();
    let se = ours["results"][task]["acc_stderr,none"].as_f64().unwrap();
    assert!(
        (se - sd / m.sqrt()).abs() < 1e-12,
        "{se} vs {}",
        sd / m.sqrt()
    );
    let p = overall["accuracy"].as_f64().unwrap();
    assert!(se < (p * (1.0 - p) / 7.0).sqrt() / 2.0, "{se}");
    // Trial 39, defect 12: whether a judge decided answers is said (here none did).
    assert_eq!(ours["config"]["judge"], "not configured");
}
