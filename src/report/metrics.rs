//! Metrics over a stream of verdicts: grouped accuracy with Wilson intervals (made in
//! [`super::accuracy`]), counts by deciding stage, label distributions, balanced accuracy,
//! macro-F1, MCC, and per-item mean and majority-vote accuracy over several samples. Pure: verdicts in, numbers out.
//! State is bounded by items, labels and group values, never by the number of answers.

use crate::types::{Source, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The predicted label of an answer no stage decided.
pub const NO_ANSWER_LABEL: &str = "∅";

pub use super::accuracy::{wilson, wilson_of, Accuracy, ItemSpread};
pub use super::votes::{add_vote, majority_vote_right, vote_of};

/// Accuracy per value of one grouping column, and the macro average over values.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Grouping {
    pub values: BTreeMap<String, Accuracy>,
    pub macro_accuracy: f64,
}

/// Several answers per item: mean of per-item accuracy, and majority-vote accuracy.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Samples {
    pub items: u64,
    pub max_samples_per_item: u64,
    pub mean_accuracy: f64,
    /// The item's most-voted label is gold; ties and items with no decided answer count as
    /// wrong.
    pub majority_vote_accuracy: f64,
}

/// Everything the reports show, except the audit list (which is streamed).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Metrics {
    pub overall: Accuracy,
    pub groups: BTreeMap<String, Grouping>,
    /// Answers decided by each stage (`verifier`, `judge`, `cache`, `unresolved`).
    pub stages: BTreeMap<String, u64>,
    /// Verifier outcomes (`answer`, `ambiguous`, `no_answer`, `invalid`).
    pub statuses: BTreeMap<String, u64>,
    /// Answers per verifier rule or no-answer reason.
    pub rules: BTreeMap<String, u64>,
    /// Answers the verifier decided, per rule (the verifier's share of `stages`, split).
    #[serde(default)]
    pub verifier_rules: BTreeMap<String, u64>,
    /// Predicted labels (∅ = undecided) and gold labels: position bias shows here.
    pub predicted_labels: BTreeMap<String, u64>,
    pub gold_labels: BTreeMap<String, u64>,
    /// Mean recall over gold labels.
    pub balanced_accuracy: f64,
    /// Mean F1 over labels (gold or predicted, ∅ excluded).
    pub macro_f1: f64,
    /// Matthews correlation over labels (multiclass, ∅ counted as a prediction).
    pub mcc: f64,
    pub samples: Samples,
    /// Abstentions listed in the audit.
    pub audit_count: u64,
    /// Escalated answers the judge could not decide after every retry.
    pub judge_failures: u64,
    /// Judge replies whose reason names a different option than their choice.
    #[serde(default)]
    pub judge_reason_conflicts: u64,
    /// Verifier–judge agreement on the audit sample of verifier-decided answers.
    pub agreement: Agreement,
    /// Answers whose request failed (`request_error`): no answer was given, so they are
    /// counted apart from model mistakes (and, like every undecided answer, as wrong).
    #[serde(default)]
    pub request_errors: u64,
    /// Loglikelihood tasks, named as lm-eval names them: `acc` (the most likely option) and
    /// `acc_norm` (most likely per character of the option text). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acc: Option<Accuracy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acc_norm: Option<Accuracy>,
    /// `acc_norm` per lm-eval task (the verdicts' `task` field), for loglikelihood tasks
    /// only: a run may mix them with generation tasks.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub acc_norm_by_task: BTreeMap<String, Accuracy>,
    /// OpenCompass circular-evaluation metrics, when the answers record option orderings
    /// (`kgrade generate --circular`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circular: Option<super::circular::CircularMetrics>,
}

/// How far the verifier and the judge agree on the audit sample.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Agreement {
    /// Audited answers the judge decided (failures are left out).
    pub n: u64,
    pub agree: u64,
    /// `agree / n`; null when nothing was audited.
    pub percent: Option<f64>,
    /// Cohen's kappa over labels (∅ = the judge found no single choice); null when nothing
    /// was audited. When chance agreement is 1 (both raters used one and the same label
    /// throughout) kappa is undefined; it is reported as 1 if they agree on every answer.
    pub kappa: Option<f64>,
    /// verifier label → judge label → count.
    pub confusion: BTreeMap<String, BTreeMap<String, u64>>,
    /// Every disagreement, for a human to look at.
    pub disagreements: Vec<Disagreement>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Disagreement {
    pub id: String,
    pub sample: u32,
    pub line: u64,
    pub verifier: String,
    pub verifier_rule: String,
    pub judge: String,
    pub judge_reason: Option<String>,
}

#[derive(Default)]
struct ItemTally {
    n: u64,
    correct: u64,
    gold: String,
    votes: Vec<(String, u64)>,
    /// The item's value of each grouping column (as its first answer has it).
    groups: Vec<Option<String>>,
}

/// Builds [`Metrics`] one verdict at a time.
pub struct Accumulator {
    by: Vec<String>,
    overall: (u64, u64),
    groups: BTreeMap<String, BTreeMap<String, (u64, u64)>>,
    stages: BTreeMap<String, u64>,
    statuses: BTreeMap<String, u64>,
    rules: BTreeMap<String, u64>,
    verifier_rules: BTreeMap<String, u64>,
    confusion: HashMap<(String, String), u64>,
    /// Per-item tallies, ordered so that every sum over items is byte-reproducible.
    items: BTreeMap<String, ItemTally>,
    audit: u64,
    judge_failures: u64,
    judge_reason_conflicts: u64,
    agreement: Agreement,
    request_errors: u64,
    /// Loglikelihood answers: (correct, n) under `acc` and under `acc_norm`.
    acc: (u64, u64),
    acc_norm: (u64, u64),
    acc_norm_by_task: BTreeMap<String, (u64, u64)>,
    circular: super::circular::CircularAccumulator,
}

impl Accumulator {
    /// Group by the columns `by` (a verdict without the column is not counted in that group).
    pub fn new(by: &[String]) -> Accumulator {
        let mut stages = BTreeMap::new();
        for s in [Source::Verifier, Source::Judge, Source::Unresolved] {
            stages.insert(s.name().to_string(), 0);
        }
        Accumulator {
            by: by.to_vec(),
            overall: (0, 0),
            groups: BTreeMap::new(),
            stages,
            statuses: BTreeMap::new(),
            rules: BTreeMap::new(),
            verifier_rules: BTreeMap::new(),
            confusion: HashMap::new(),
            items: BTreeMap::new(),
            audit: 0,
            judge_failures: 0,
            judge_reason_conflicts: 0,
            agreement: Agreement::default(),
            request_errors: 0,
            acc: (0, 0),
            acc_norm: (0, 0),
            acc_norm_by_task: BTreeMap::new(),
            circular: super::circular::CircularAccumulator::new(by),
        }
    }

    pub fn add(&mut self, v: &Verdict) {
        self.circular.add(v);
        let hit = u64::from(v.correct);
        self.overall.0 += hit;
        self.overall.1 += 1;
        for col in &self.by {
            if let Some(value) = v.fields.get(col) {
                let e = self
                    .groups
                    .entry(col.clone())
                    .or_default()
                    .entry(value.clone())
                    .or_default();
                e.0 += hit;
                e.1 += 1;
            }
        }
        *self.stages.entry(v.source.name().to_string()).or_default() += 1;
        *self.statuses.entry(v.status.clone()).or_default() += 1;
        *self.rules.entry(v.rule.clone()).or_default() += 1;
        if v.source == Source::Verifier {
            *self.verifier_rules.entry(v.rule.clone()).or_default() += 1;
        }
        let predicted = v
            .chosen
            .clone()
            .unwrap_or_else(|| NO_ANSWER_LABEL.to_string());
        *self
            .confusion
            .entry((v.gold.clone(), predicted.clone()))
            .or_default() += 1;
        if is_audited(v) {
            self.audit += 1;
        }
        if v.status == "request_error" {
            self.request_errors += 1;
        }
        if let Some(norm) = &v.acc_norm {
            self.acc.0 += hit;
            self.acc.1 += 1;
            self.acc_norm.0 += u64::from(norm.correct);
            self.acc_norm.1 += 1;
            if let Some(task) = v.fields.get("task") {
                let e = self.acc_norm_by_task.entry(task.clone()).or_default();
                e.0 += u64::from(norm.correct);
                e.1 += 1;
            }
        }
        if let Some(j) = &v.judge {
            if j.reason_conflict {
                self.judge_reason_conflicts += 1;
            }
            if j.error.is_some() {
                if !j.audit {
                    self.judge_failures += 1;
                }
            } else if j.audit {
                let verifier = v
                    .chosen
                    .clone()
                    .unwrap_or_else(|| NO_ANSWER_LABEL.to_string());
                let judge = j
                    .choice
                    .clone()
                    .unwrap_or_else(|| NO_ANSWER_LABEL.to_string());
                let a = &mut self.agreement;
                a.n += 1;
                if verifier == judge {
                    a.agree += 1;
                } else {
                    a.disagreements.push(Disagreement {
                        id: v.id.clone(),
                        sample: v.sample,
                        line: v.line,
                        verifier: verifier.clone(),
                        verifier_rule: v.rule.clone(),
                        judge: judge.clone(),
                        judge_reason: j.reason.clone(),
                    });
                }
                *a.confusion
                    .entry(verifier)
                    .or_default()
                    .entry(judge)
                    .or_default() += 1;
            }
        }
        let t = self.items.entry(v.id.clone()).or_default();
        if t.n == 0 {
            t.groups = self.by.iter().map(|c| v.fields.get(c).cloned()).collect();
        }
        t.n += 1;
        t.correct += hit;
        let (gold, vote) = vote_of(v);
        t.gold = gold;
        add_vote(&mut t.votes, &vote);
    }

    pub fn finish(self) -> Metrics {
        // Items per group value, for the intervals.
        // Items per group value, for the intervals, and the spread of their scores.
        let mut group_items: HashMap<(usize, &str), (u64, ItemSpread)> = HashMap::new();
        let mut spread = ItemSpread::default();
        for t in self.items.values() {
            spread.add(t.correct, t.n);
            for (k, value) in t.groups.iter().enumerate() {
                if let Some(value) = value {
                    let (items, s) = group_items.entry((k, value.as_str())).or_default();
                    *items += 1;
                    s.add(t.correct, t.n);
                }
            }
        }
        let groups = self
            .groups
            .iter()
            .map(|(col, values)| {
                let k = self.by.iter().position(|c| c == col).unwrap_or(usize::MAX);
                let values: BTreeMap<String, Accuracy> = values
                    .iter()
                    .map(|(v, &(c, n))| {
                        let (items, s) = (group_items.get(&(k, v.as_str())).copied())
                            .unwrap_or((n, ItemSpread::default()));
                        (v.clone(), Accuracy::over_items(c, n, items).with_spread(&s))
                    })
                    .collect();
                let macro_accuracy = mean(values.values().map(|a| a.accuracy));
                (
                    col.clone(),
                    Grouping {
                        values,
                        macro_accuracy,
                    },
                )
            })
            .collect();
        let mut predicted_labels = BTreeMap::new();
        let mut gold_labels = BTreeMap::new();
        for ((g, p), n) in &self.confusion {
            *gold_labels.entry(g.clone()).or_default() += n;
            *predicted_labels.entry(p.clone()).or_default() += n;
        }
        let (balanced_accuracy, macro_f1, mcc) =
            label_metrics(&self.confusion, &gold_labels, &predicted_labels);
        let samples = Samples {
            items: self.items.len() as u64,
            max_samples_per_item: self.items.values().map(|t| t.n).max().unwrap_or(0),
            mean_accuracy: mean(self.items.values().map(|t| t.correct as f64 / t.n as f64)),
            majority_vote_accuracy: mean(
                self.items
                    .values()
                    .map(|t| f64::from(u8::from(majority_vote_right(&t.votes, &t.gold)))),
            ),
        };
        Metrics {
            overall: Accuracy::over_items(self.overall.0, self.overall.1, samples.items)
                .with_spread(&spread),
            groups,
            stages: self.stages,
            statuses: self.statuses,
            rules: self.rules,
            verifier_rules: self.verifier_rules,
            predicted_labels,
            gold_labels,
            balanced_accuracy,
            macro_f1,
            mcc,
            samples,
            audit_count: self.audit,
            judge_failures: self.judge_failures,
            judge_reason_conflicts: self.judge_reason_conflicts,
            agreement: finish_agreement(self.agreement),
            request_errors: self.request_errors,
            acc: (self.acc.1 > 0).then(|| Accuracy::new(self.acc.0, self.acc.1)),
            acc_norm: (self.acc_norm.1 > 0)
                .then(|| Accuracy::new(self.acc_norm.0, self.acc_norm.1)),
            acc_norm_by_task: self
                .acc_norm_by_task
                .into_iter()
                .map(|(t, (c, n))| (t, Accuracy::new(c, n)))
                .collect(),
            circular: self.circular.finish(),
        }
    }
}

/// Does the verdict belong in the extraction-failure audit? Every abstention and failed
/// request does; loglikelihood items, which have no text to read, do not.
pub fn is_audited(v: &Verdict) -> bool {
    v.status != "answer" && v.status != "loglikelihood"
}

fn finish_agreement(mut a: Agreement) -> Agreement {
    if a.n == 0 {
        return a;
    }
    let n = a.n as f64;
    let po = a.agree as f64 / n;
    let mut rows: BTreeMap<&str, f64> = BTreeMap::new();
    let mut cols: BTreeMap<&str, f64> = BTreeMap::new();
    for (v, row) in &a.confusion {
        for (j, &c) in row {
            *rows.entry(v).or_default() += c as f64;
            *cols.entry(j).or_default() += c as f64;
        }
    }
    let pe: f64 = rows
        .iter()
        .map(|(l, r)| r / n * cols.get(l).copied().unwrap_or(0.0) / n)
        .sum();
    a.percent = Some(po);
    a.kappa = Some(if (1.0 - pe).abs() < 1e-12 {
        if po >= 1.0 {
            1.0
        } else {
            0.0
        }
    } else {
        (po - pe) / (1.0 - pe)
    });
    a
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

fn label_metrics(
    confusion: &HashMap<(String, String), u64>,
    gold: &BTreeMap<String, u64>,
    predicted: &BTreeMap<String, u64>,
) -> (f64, f64, f64) {
    let cell = |g: &str, p: &str| {
        confusion
            .get(&(g.to_string(), p.to_string()))
            .copied()
            .unwrap_or(0) as f64
    };
    let balanced = mean(gold.iter().map(|(l, &n)| cell(l, l) / n as f64));
    let mut labels: Vec<&String> = gold.keys().chain(predicted.keys()).collect();
    labels.sort();
    labels.dedup();
    let f1 = mean(
        labels
            .iter()
            .filter(|l| l.as_str() != NO_ANSWER_LABEL)
            .map(|l| {
                let tp = cell(l, l);
                let fp = predicted.get(*l).copied().unwrap_or(0) as f64 - tp;
                let fn_ = gold.get(*l).copied().unwrap_or(0) as f64 - tp;
                if tp == 0.0 {
                    0.0
                } else {
                    2.0 * tp / (2.0 * tp + fp + fn_)
                }
            }),
    );
    // Gorodkin's multiclass MCC from the confusion matrix.
    let s: f64 = gold.values().sum::<u64>() as f64;
    let c: f64 = labels.iter().map(|l| cell(l, l)).sum();
    let t = |l: &String| gold.get(l).copied().unwrap_or(0) as f64;
    let p = |l: &String| predicted.get(l).copied().unwrap_or(0) as f64;
    let pt: f64 = labels.iter().map(|l| p(l) * t(l)).sum();
    let pp: f64 = labels.iter().map(|l| p(l) * p(l)).sum();
    let tt: f64 = labels.iter().map(|l| t(l) * t(l)).sum();
    let denom = ((s * s - pp) * (s * s - tt)).sqrt();
    let mcc = if denom == 0.0 {
        0.0
    } else {
        (c * s - pt) / denom
    };
    (balanced, f1, mcc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(id: &str, chosen: Option<&str>, gold: &str, domain: &str) -> Verdict {
        Verdict {
            id: id.into(),
            sample: 0,
            status: if chosen.is_some() {
                "answer"
            } else {
                "ambiguous"
            }
            .into(),
            rule: "statement".into(),
            span: None,
            chosen: chosen.map(str::to_string),
            gold: gold.into(),
            correct: chosen == Some(gold),
            source: if chosen.is_some() {
                Source::Verifier
            } else {
                Source::Unresolved
            },
            choices: "circled:4".into(),
            fields: [("domain".to_string(), domain.to_string())].into(),
            candidates: None,
            tail: None,
            note: None,
            line: 1,
            judge: None,
            chosen_index: None,
            gold_index: 1,
            acc_norm: None,
            ordering: None,
            draw: None,
        }
    }

    #[test]
    fn grouped_micro_macro_and_label_metrics() {
        let mut acc = Accumulator::new(&["domain".to_string()]);
        acc.add(&verdict("1", Some("①"), "①", "금융"));
        acc.add(&verdict("2", Some("①"), "②", "금융"));
        acc.add(&verdict("3", Some("②"), "②", "국방"));
        acc.add(&verdict("4", None, "①", "국방"));
        let m = acc.finish();
        assert_eq!((m.overall.correct, m.overall.n), (2, 4));
        let g = &m.groups["domain"];
        assert_eq!(g.values["금융"].accuracy, 0.5);
        assert_eq!(g.macro_accuracy, 0.5);
        assert_eq!(m.stages["unresolved"], 1);
        assert_eq!(m.verifier_rules["statement"], 3);
        assert_eq!(m.predicted_labels[NO_ANSWER_LABEL], 1);
        // Recall ① = 1/2, ② = 1/2.
        assert!((m.balanced_accuracy - 0.5).abs() < 1e-9);
        // F1 ① = 2/(2+1+1) = 0.5, F1 ② = 2/(2+0+1) = 2/3.
        assert!((m.macro_f1 - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-9);
        assert!(m.mcc > 0.0 && m.mcc < 1.0);
        assert_eq!(m.audit_count, 1);
    }

    #[test]
    fn agreement_and_kappa_on_the_audit_sample() {
        let mut acc = Accumulator::new(&[]);
        let pairs = [
            ("①", Some("①")),
            ("①", Some("①")),
            ("②", Some("②")),
            ("②", Some("①")),
            ("①", None),
        ];
        for (k, (verifier, judge)) in pairs.iter().enumerate() {
            let mut v = verdict(&k.to_string(), Some(verifier), "①", "x");
            v.judge = Some(crate::types::JudgeInfo {
                judge: "ollama:m".into(),
                rubric: "mc_final_answer@1".into(),
                choice: judge.map(str::to_string),
                reason: Some("r".into()),
                error: None,
                cached: false,
                audit: true,
                reason_conflict: false,
            });
            acc.add(&v);
        }
        let a = acc.finish().agreement;
        assert_eq!((a.n, a.agree), (5, 3));
        assert!((a.percent.unwrap() - 0.6).abs() < 1e-9);
        // Rows ① 3, ② 2; columns ① 3, ② 1, ∅ 1: pe = (3*3 + 2*1) / 25 = 0.44.
        assert!(
            (a.kappa.unwrap() - (0.6 - 0.44) / (1.0 - 0.44)).abs() < 1e-9,
            "{}",
            a.kappa.unwrap()
        );
        assert_eq!(a.disagreements.len(), 2);
        assert_eq!(a.confusion["②"]["①"], 1);
    }

    #[test]
    fn majority_vote_over_samples() {
        let mut acc = Accumulator::new(&[]);
        for (id, chosen) in [("a", "①"), ("a", "①"), ("a", "②"), ("b", "①"), ("b", "②")] {
            acc.add(&verdict(id, Some(chosen), "①", "x"));
        }
        let m = acc.finish();
        assert_eq!(m.samples.items, 2);
        assert_eq!(m.samples.max_samples_per_item, 3);
        // a: 2/3 correct, b: 1/2; majority: a right, b tied (wrong).
        assert!((m.samples.mean_accuracy - (2.0 / 3.0 + 0.5) / 2.0).abs() < 1e-9);
        assert_eq!(m.samples.majority_vote_accuracy, 0.5);
    }

    /// Trial 41, defect 1: a circular run's orderings voted with the labels they showed, so a
    /// model right in all four rotations split 1–1–1–1 and scored 0%. They vote for the
    /// original option.
    #[test]
    fn circular_orderings_vote_for_original_options() {
        let mut acc = Accumulator::new(&[]);
        // Gold is original option 1 (index 0); rotation r shows it at position (4 − r) % 4.
        for r in 0..4u8 {
            let ordering: Vec<u8> = (0..4).map(|k| (k + r) % 4).collect();
            let at = ordering.iter().position(|&o| o == 0).unwrap();
            let label = ["①", "②", "③", "④"][at];
            let mut v = verdict("a", Some(label), label, "x");
            v.chosen_index = Some(at + 1);
            v.gold_index = at + 1;
            v.ordering = Some(ordering.clone());
            acc.add(&v);
            // Item b: right only in the first rotation, else original option 2 wherever
            // it is shown.
            let two = ordering.iter().position(|&o| o == 1).unwrap();
            let pick = if r == 0 { at } else { two };
            let mut w = verdict("b", Some(["①", "②", "③", "④"][pick]), label, "x");
            w.chosen_index = Some(pick + 1);
            w.correct = r == 0;
            w.gold_index = at + 1;
            w.ordering = Some(ordering);
            acc.add(&w);
        }
        let m = acc.finish();
        assert_eq!(m.samples.max_samples_per_item, 4);
        // a: 4 votes for option 1 (right); b: 3 for option 2 against 1 (wrong). Voting by
        // the labels shown, both split and scored 0.
        assert_eq!(m.samples.majority_vote_accuracy, 0.5);
    }

    /// Trial 39, defect 5: undecided answers had no vote, so one right answer among two
    /// undecided ones won: 100% majority-vote accuracy at 33% mean accuracy.
    #[test]
    fn undecided_answers_vote_for_no_answer() {
        let mut acc = Accumulator::new(&[]);
        for (id, chosen) in [
            ("a", Some("①")),
            ("a", None),
            ("a", None),
            ("b", Some("①")),
            ("b", Some("①")),
            ("b", None),
        ] {
            acc.add(&verdict(id, chosen, "①", "x"));
        }
        let m = acc.finish();
        // a: ∅ wins 2–1 (wrong); b: ① wins 2–1 (right).
        assert_eq!(m.samples.majority_vote_accuracy, 0.5);
    }
}
