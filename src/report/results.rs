//! `results.json` in lm-evaluation-harness's results layout, so that tools and leaderboards
//! that read lm-eval's results read kgrade's numbers: `results` per task (and a group over
//! several tasks) with `acc,none` / `acc_stderr,none` (and `acc_norm` for loglikelihood
//! tasks), grouped accuracies named as lm-eval groups would be (`acc_format_md_table`,
//! `acc_lang_ko`, `acc_subdomain_은행`), `n-samples`, `versions`, `higher_is_better`.

use super::metrics::{Accuracy, Metrics};
use crate::types::JoinReport;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The name of the aggregate group over several tasks.
const GROUP: &str = "kgrade";

/// lm-eval's `acc_stderr`: the standard error of a mean of per-document scores with the
/// sample variance (n − 1), or "N/A" below two documents, as lm-eval writes it. lm-eval's
/// documents are items: with one answer each it is √(p(1 − p)/(n − 1)); with several, the
/// standard error over the items of their scores (answers to one item are not
/// independent), which is lm-eval's figure over per-document mean scores.
fn stderr(a: &Accuracy) -> Value {
    let n = documents(a);
    if n < 2 {
        return json!("N/A");
    }
    if let Some(se) = a.item_stderr {
        return json!(se);
    }
    let p = a.accuracy;
    json!((p * (1.0 - p) / (n as f64 - 1.0)).sqrt())
}

/// lm-eval's stderr of a group weighted by size (`pooled_sample_stderr`): the tasks'
/// sample variances pooled, Σ(nᵢ − 1)·nᵢ·seᵢ² / (Σnᵢ − k), over Σnᵢ. `None` below two
/// documents past the tasks' count.
fn pooled_stderr(tasks: &[(f64, u64)]) -> Option<f64> {
    let total: u64 = tasks.iter().map(|&(_, n)| n).sum();
    let dof = total.checked_sub(tasks.len() as u64).filter(|&d| d > 0)?;
    let pooled: f64 = (tasks.iter())
        .map(|&(se, n)| (n as f64 - 1.0) * n as f64 * se * se)
        .sum::<f64>()
        / dof as f64;
    Some((pooled / total as f64).sqrt())
}

/// The documents (items) behind an accuracy, as lm-eval's `sample_len` counts them.
fn documents(a: &Accuracy) -> u64 {
    if a.ci_n > 0 {
        a.ci_n
    } else {
        a.n
    }
}

/// A metric-name part: lower case, every run of characters other than letters, digits
/// and `_` made one `_` (`md table` → `md_table`; Hangul stays).
fn name_part(s: &str, keep_underscore: bool) -> String {
    let mut out = String::new();
    for c in s.trim().to_lowercase().chars() {
        if c.is_alphanumeric() || (keep_underscore && c == '_') {
            out.push(c);
        } else if keep_underscore && !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// One metric name per (column, value) of the groupings other than `task`, unique among
/// themselves and against the metrics already in `taken`. Names are lower-cased and
/// punctuation is folded (`금융 보험` and `금융/보험` both read `acc_domain_금융_보험`), so
/// values that fold to the same name, or onto another metric's name (`y stderr` onto
/// `y`'s stderr), each get a suffix from a hash of their column and value: deterministic,
/// independent of the other values, and never merging two groups.
fn group_keys(metrics: &Metrics, taken: &Map<String, Value>) -> BTreeMap<String, (String, String)> {
    let mut wanted: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (col, g) in &metrics.groups {
        if col == "task" {
            continue;
        }
        for value in g.values.keys() {
            // An empty value, "(empty)" in the reports, is `…_empty` (trial 41: `acc_topic_`).
            let part = match name_part(value, true) {
                p if p.is_empty() => "empty".to_string(),
                p => p,
            };
            let key = format!("acc_{}_{part}", name_part(col, false));
            wanted
                .entry(key)
                .or_default()
                .push((col.clone(), value.clone()));
        }
    }
    let clashes = |key: &str, others: &BTreeMap<String, Vec<(String, String)>>| {
        let metric = format!("{key},none");
        let err = format!("{key}_stderr,none");
        taken.contains_key(&metric)
            || taken.contains_key(&err)
            || key
                .strip_suffix("_stderr")
                .is_some_and(|base| others.contains_key(base))
    };
    let mut out = BTreeMap::new();
    for (key, owners) in &wanted {
        if owners.len() == 1 && !clashes(key, &wanted) {
            out.insert(key.clone(), owners[0].clone());
            continue;
        }
        for (col, value) in owners {
            let hash = blake3::hash(format!("{col}\0{value}").as_bytes()).to_hex();
            let mut len = 8;
            let mut unique = format!("{key}_{}", &hash[..len]);
            while (out.contains_key(&unique) || wanted.contains_key(&unique)) && len < 64 {
                len += 8;
                unique = format!("{key}_{}", &hash[..len]);
            }
            out.insert(unique, (col.clone(), value.clone()));
        }
    }
    out
}

fn entry(task: &str, a: &Accuracy) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("alias".into(), json!(task));
    m.insert("acc,none".into(), json!(a.accuracy));
    m.insert("acc_stderr,none".into(), stderr(a));
    m.insert("sample_len".into(), json!(documents(a)));
    m
}

/// The results document for a run's metrics. `fallback_task` names the one task of a run
/// that is not an lm-eval folder (the dataset file's stem).
pub fn results(metrics: &Metrics, join: Option<&JoinReport>, fallback_task: &str) -> Value {
    let tasks: Vec<(String, Accuracy)> = match metrics.groups.get("task") {
        Some(g) if join.is_some_and(|j| !j.tasks.is_empty()) => {
            g.values.iter().map(|(t, a)| (t.clone(), *a)).collect()
        }
        _ => vec![(fallback_task.to_string(), metrics.overall)],
    };
    let aggregate_name = if tasks.len() > 1 {
        GROUP.to_string()
    } else {
        tasks[0].0.clone()
    };
    // `acc_norm` belongs to loglikelihood tasks only. A run may mix them with generation
    // tasks: each task gets its own, and the group one only when every answer has one (else
    // the group's `acc` is over all its answers, as in every other report).
    let all_loglikelihood = metrics.acc.is_some_and(|a| a.n == metrics.overall.n);
    let norm_of = |task: &str| match metrics.acc_norm_by_task.get(task) {
        Some(norm) => Some(*norm),
        None if tasks.len() == 1 && all_loglikelihood => metrics.acc_norm,
        None => None,
    };
    let with_norm = |mut m: Map<String, Value>, norm: Option<Accuracy>| {
        if let Some(norm) = norm {
            m.insert("acc_norm,none".into(), json!(norm.accuracy));
            m.insert("acc_norm_stderr,none".into(), stderr(&norm));
        }
        m
    };
    let mut results = Map::new();
    for (task, a) in &tasks {
        let e = with_norm(entry(task, a), norm_of(task));
        results.insert(task.clone(), Value::Object(e));
    }
    let group_norm = all_loglikelihood.then_some(metrics.acc_norm).flatten();
    let mut aggregate = with_norm(entry(&aggregate_name, &metrics.overall), group_norm);
    // A group over several tasks: lm-eval's size-weighted stderr, pooled from its tasks'.
    if tasks.len() > 1 {
        let parts = |metric: &str| -> Option<Vec<(f64, u64)>> {
            (tasks.iter())
                .map(|(t, _)| {
                    let e = results.get(t)?;
                    let se = e.get(format!("{metric}_stderr,none"))?.as_f64()?;
                    Some((se, e.get("sample_len")?.as_u64()?))
                })
                .collect()
        };
        for metric in ["acc", "acc_norm"] {
            let key = format!("{metric}_stderr,none");
            if let Some(se) = aggregate
                .contains_key(&key)
                .then(|| parts(metric))
                .flatten()
                .and_then(|p| pooled_stderr(&p))
            {
                aggregate.insert(key, json!(se));
            }
        }
    }
    let group_keys = group_keys(metrics, &aggregate);
    for (key, (col, value)) in &group_keys {
        let a = &metrics.groups[col.as_str()].values[value.as_str()];
        aggregate.insert(format!("{key},none"), json!(a.accuracy));
        aggregate.insert(format!("{key}_stderr,none"), stderr(a));
    }
    let mut groups = Map::new();
    let mut group_subtasks = Map::new();
    if tasks.len() > 1 {
        groups.insert(aggregate_name.clone(), Value::Object(aggregate.clone()));
        group_subtasks.insert(
            aggregate_name.clone(),
            json!(tasks.iter().map(|(t, _)| t).collect::<Vec<_>>()),
        );
    }
    results.insert(aggregate_name.clone(), Value::Object(aggregate));
    let names: Vec<&String> = results.keys().collect();
    let versions: Map<String, Value> = names.iter().map(|t| ((*t).clone(), json!(1.0))).collect();
    let higher: Map<String, Value> = results
        .iter()
        .map(|(t, e)| {
            let higher = if e.get("acc_norm,none").is_some() {
                json!({"acc": true, "acc_norm": true})
            } else {
                json!({"acc": true})
            };
            (t.clone(), higher)
        })
        .collect();
    // lm-eval counts documents (items), not answers: `effective` is the items graded,
    // `original` the dataset's items behind the task (its file's rows in a folder).
    let n_samples: Map<String, Value> = tasks
        .iter()
        .map(|(t, a)| {
            let original = match join {
                Some(j) if j.task_items.contains_key(t) => j.task_items[t],
                Some(j) if tasks.len() == 1 => j.items as u64,
                _ => documents(a),
            };
            (
                t.clone(),
                json!({"original": original, "effective": documents(a)}),
            )
        })
        .collect();
    let mut doc = Map::new();
    doc.insert("results".into(), Value::Object(results));
    if !groups.is_empty() {
        doc.insert("groups".into(), Value::Object(groups));
    }
    doc.insert("group_subtasks".into(), Value::Object(group_subtasks));
    doc.insert("versions".into(), Value::Object(versions));
    doc.insert("higher_is_better".into(), Value::Object(higher));
    doc.insert("n-samples".into(), Value::Object(n_samples));
    doc.insert(
        "config".into(),
        // The evaluated model when the generations name one (as lm-eval's config names
        // it), and whether a judge decided answers: a judge-assisted score is not a
        // deterministic one.
        json!({
            "model": join.and_then(|j| j.model.clone()).unwrap_or_else(|| "kgrade".into()),
            "dataset": join.map(|j| j.dataset.clone()),
            "generations": join.map(|j| j.generations.clone()),
            "judge": join.map(|j| j.judge.clone()),
        }),
    );
    // The column and value behind each grouped metric, exactly as the dataset has them.
    let faithful: Map<String, Value> = group_keys
        .iter()
        .map(|(k, (col, value))| (k.clone(), json!({"column": col, "value": value})))
        .collect();
    doc.insert("kgrade_group_keys".into(), Value::Object(faithful));
    doc.insert("kgrade_version".into(), json!(env!("CARGO_PKG_VERSION")));
    Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trial 41, defect 4: a group's stderr was the binomial one over all its documents;
    /// lm-eval pools its tasks' (`pooled_sample_stderr`). lm-eval's own results file for
    /// fixture run 5 gives its tasks 0.16366… and 0.18298… over 8 documents each, and the
    /// group 0.12274756….
    #[test]
    fn a_group_stderr_is_pooled_as_lm_eval_pools_it() {
        let se = pooled_stderr(&[(0.16366341767699427, 8), (0.18298126367784995, 8)]).unwrap();
        assert!((se - 0.1227475632577457).abs() < 1e-12, "{se}");
        assert!(pooled_stderr(&[(0.1, 1)]).is_none());
    }

    #[test]
    fn metric_names_follow_lm_eval_groups() {
        assert_eq!(
            format!(
                "acc_{}_{}",
                name_part("sub_domain", false),
                name_part("은행", true)
            ),
            "acc_subdomain_은행"
        );
        assert_eq!(name_part("md_table", true), "md_table");
        // Trial 41: an empty value's metric is named, not `acc_topic_`.
        let mut acc = crate::report::metrics::Accumulator::new(&["topic".to_string()]);
        let mut v = crate::types::Verdict {
            id: "a".into(),
            gold: "①".into(),
            ..crate::types::Verdict::default()
        };
        v.fields.insert("topic".into(), String::new());
        acc.add(&v);
        v.id = "b".into();
        v.fields.insert("topic".into(), "empty".into());
        acc.add(&v);
        let keys = group_keys(&acc.finish(), &Map::new());
        assert_eq!(keys.len(), 2);
        assert!(
            keys.keys().all(|k| k.starts_with("acc_topic_empty")),
            "{keys:?}"
        );
        assert_eq!(name_part("Public Safety", true), "public_safety");
    }

    #[test]
    fn stderr_is_lm_eval_s_sample_standard_error() {
        let a = Accuracy::new(3, 4);
        let se = stderr(&a).as_f64().unwrap();
        // Scores 1,1,1,0: sample variance 0.25, / n = 4 → se 0.25.
        assert!((se - 0.25).abs() < 1e-12, "{se}");
        assert_eq!(stderr(&Accuracy::new(1, 1)), json!("N/A"));
    }
}
