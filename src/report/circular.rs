//! Circular-evaluation metrics, as OpenCompass's `CircularEvaluator` defines them, over
//! verdicts that record the option ordering their item was shown in (`kgrade generate
//! --circular`). Per item (and per sample draw): `acc_origin` counts only the original
//! ordering, `acc_circular` every rendered ordering as its own question, `perf_circular` items
//! right in all their orderings, and `more_N` items right in at least N. Numbers are fractions
//! (OpenCompass prints them ×100). Pure: verdicts in, numbers out; state is one small record
//! per item.

use crate::types::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The circular scores of a set of items.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CircularScores {
    /// Items (one per item and sample draw).
    pub items: u64,
    /// Answers over every ordering.
    pub answers: u64,
    /// Accuracy on the original ordering only, over the items answered in it.
    pub acc_origin: f64,
    /// Items answered in their original ordering (`acc_origin`'s denominator).
    #[serde(default)]
    pub origin_items: u64,
    /// Accuracy with every rendered ordering counted as its own question.
    pub acc_circular: f64,
    /// Items answered right in every one of their orderings.
    pub perf_circular: f64,
    /// `more_N`: items answered right in at least N orderings, for N below the most
    /// orderings any item had (N equal to it is `perf_circular`, as in OpenCompass). Written
    /// in the order of N (more_2 before more_10), as OpenCompass writes them.
    #[serde(serialize_with = "by_n")]
    pub more: BTreeMap<String, f64>,
}

/// The number N of a `more_N` key (keys of another shape sort last).
fn more_n(key: &str) -> u64 {
    key.strip_prefix("more_")
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}

/// The `more_N` keys of `more` in the order of N, not as text (more_1, more_2, …, more_10).
pub fn more_keys(more: &BTreeMap<String, f64>) -> Vec<&String> {
    let mut keys: Vec<&String> = more.keys().collect();
    keys.sort_by_key(|k| more_n(k));
    keys
}

fn by_n<S: serde::Serializer>(more: &BTreeMap<String, f64>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(more_keys(more).into_iter().map(|k| (k, more[k])))
}

/// Circular metrics overall and per group value.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CircularMetrics {
    pub overall: CircularScores,
    /// column → value → scores.
    pub groups: BTreeMap<String, BTreeMap<String, CircularScores>>,
    /// The most orderings any item was shown in.
    pub orderings: u64,
    /// Items shown in their original ordering only (options that cannot be re-rendered
    /// safely: O/X, tables, options that refer to each other).
    pub single_ordering_items: u64,
    /// `circular` (each item in its n rotations) or `all_possible` (in all n! orderings):
    /// OpenCompass names the same scores `perf_circular` and `perf_all_possible`.
    #[serde(default)]
    pub mode: String,
    /// Orderings an item should have been answered in and was not (a failed request, a
    /// batch's error file): each counts as a wrong answer, as it would have in OpenCompass,
    /// where every ordering is asked.
    #[serde(default)]
    pub missing_orderings: u64,
    /// Item draws with a missing ordering.
    #[serde(default)]
    pub items_missing_orderings: u64,
    /// Answers to an ordering an item draw already had (a file given twice, a retry beside
    /// its failure): not counted.
    #[serde(default)]
    pub duplicate_answers: u64,
}

/// The sentences every report says under the circular heading when answers are missing or
/// repeated (markdown and HTML alike).
pub fn notes(c: &CircularMetrics) -> Vec<String> {
    let mut out = Vec::new();
    if c.missing_orderings > 0 {
        out.push(format!(
            "{} orderings of {} items have no answer: each counts as wrong.",
            c.missing_orderings, c.items_missing_orderings
        ));
    }
    if c.duplicate_answers > 0 {
        out.push(format!(
            "{} answers repeat an ordering their item already had in the same sample and were not counted.",
            c.duplicate_answers
        ));
    }
    out
}

/// One draw of one item: its answers over the orderings it was shown in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawOutcome {
    /// Answers (one per ordering shown), and how many were right.
    pub orderings: u64,
    pub correct: u64,
    /// Whether the answer in the original ordering was right (`None`: not shown in it).
    pub origin: Option<bool>,
}

#[derive(Default)]
struct Unit {
    n: u64,
    correct: u64,
    origin: Option<bool>,
    groups: Vec<Option<String>>,
    /// The orderings answered, each once.
    seen: Vec<Vec<u8>>,
    /// Of those, the ones whose answer is a failed request: an answer after it (its retry)
    /// takes its place.
    failed: Vec<Vec<u8>>,
    duplicates: u64,
    /// Answers the item should have had: `n` plus the missing ones (set by `expect`).
    expected: u64,
}

impl Unit {
    /// An item shown only as it is: it kept its one ordering.
    fn single(&self) -> bool {
        self.seen.len() == 1 && is_identity(&self.seen[0])
    }
}

fn is_identity(ordering: &[u8]) -> bool {
    ordering.iter().enumerate().all(|(i, &o)| o as usize == i)
}

/// Is the ordering a rotation of the original (`[k, k+1, …]` modulo n)?
fn is_rotation(ordering: &[u8]) -> bool {
    let n = ordering.len();
    ordering
        .iter()
        .enumerate()
        .all(|(i, &o)| o as usize == (ordering[0] as usize + i) % n)
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

/// Builds [`CircularMetrics`] one verdict at a time; verdicts without an ordering are not
/// part of it.
pub struct CircularAccumulator {
    by: Vec<String>,
    /// (id, draw) → its answers. The draw is the sample the generation line named; when it
    /// named none, the k-th answer to an item in one ordering is draw k.
    units: HashMap<(String, u32), Unit>,
    draws: HashMap<(String, Vec<u8>), u32>,
    /// (id, ordering) → the draw whose answer to it failed, for lines that name no draw: the
    /// next answer to it is that draw's retry, not another draw (trial 41, defect 3).
    failed_draws: HashMap<(String, Vec<u8>), u32>,
    order: Vec<(String, u32)>,
}

impl CircularAccumulator {
    pub fn new(by: &[String]) -> CircularAccumulator {
        CircularAccumulator {
            by: by.to_vec(),
            units: HashMap::new(),
            draws: HashMap::new(),
            failed_draws: HashMap::new(),
            order: Vec::new(),
        }
    }

    pub fn add(&mut self, v: &Verdict) {
        let Some(ordering) = &v.ordering else {
            return;
        };
        let failed = v.status == "request_error";
        let at = (v.id.clone(), ordering.clone());
        let draw = match v.draw {
            Some(draw) => draw,
            None => match self.failed_draws.remove(&at) {
                Some(draw) => draw,
                None => {
                    let next = self.draws.entry(at.clone()).or_default();
                    *next += 1;
                    *next - 1
                }
            },
        };
        let key = (v.id.clone(), draw);
        let unit = self.units.entry(key.clone()).or_insert_with(|| {
            self.order.push(key);
            Unit {
                groups: self.by.iter().map(|c| v.fields.get(c).cloned()).collect(),
                ..Unit::default()
            }
        });
        if unit.seen.contains(ordering) {
            unit.duplicates += 1;
            // A retry beside its failure: the answer that arrived counts, not the failure
            // (a failed request is counted wrong, so only a right retry adds).
            if !failed && unit.failed.contains(ordering) {
                unit.failed.retain(|o| o != ordering);
                unit.correct += u64::from(v.correct);
                if is_identity(ordering) {
                    unit.origin = Some(v.correct);
                }
            }
            return;
        }
        unit.seen.push(ordering.clone());
        unit.n += 1;
        unit.correct += u64::from(v.correct);
        if is_identity(ordering) {
            unit.origin = Some(v.correct);
        }
        if failed {
            unit.failed.push(ordering.clone());
            if v.draw.is_none() {
                self.failed_draws.insert(at, draw);
            }
        }
    }

    /// The run's mode, and each unit's expected answers: all n! orderings when any item was
    /// shown in one that is no rotation, else its n rotations; one for an item shown only
    /// as it is.
    fn expect(&mut self) -> &'static str {
        let all_possible = self
            .units
            .values()
            .any(|u| u.seen.iter().any(|o| !is_rotation(o)));
        for u in self.units.values_mut() {
            let n = u.seen.first().map_or(0, Vec::len);
            u.expected = if u.single() {
                1
            } else if all_possible {
                factorial(n)
            } else {
                n as u64
            }
            .max(u.n);
        }
        if all_possible {
            "all_possible"
        } else {
            "circular"
        }
    }

    /// Each item's draws, for `kgrade compare`'s per-item outcome: item id → one
    /// [`DrawOutcome`] per draw, in the order the draws were first seen.
    /// A missing ordering counts as a wrong answer, as in the report.
    pub fn draws_by_item(mut self) -> BTreeMap<String, Vec<DrawOutcome>> {
        self.expect();
        let mut items: BTreeMap<String, Vec<DrawOutcome>> = BTreeMap::new();
        for key in &self.order {
            if let Some(u) = self.units.get(key) {
                items.entry(key.0.clone()).or_default().push(DrawOutcome {
                    orderings: u.expected,
                    correct: u.correct,
                    origin: u.origin,
                });
            }
        }
        items
    }

    /// The metrics, or `None` when no verdict recorded an ordering.
    pub fn finish(mut self) -> Option<CircularMetrics> {
        if self.units.is_empty() {
            return None;
        }
        let mode = self.expect();
        let units: Vec<&Unit> = self
            .order
            .iter()
            .filter_map(|k| self.units.get(k))
            .collect();
        let orderings = units.iter().map(|u| u.expected).max().unwrap_or(0);
        let mut groups: BTreeMap<String, BTreeMap<String, Vec<&Unit>>> = BTreeMap::new();
        for u in &units {
            for (col, value) in self.by.iter().zip(&u.groups) {
                if let Some(value) = value {
                    groups
                        .entry(col.clone())
                        .or_default()
                        .entry(value.clone())
                        .or_default()
                        .push(u);
                }
            }
        }
        Some(CircularMetrics {
            overall: scores(&units, orderings),
            groups: groups
                .into_iter()
                .map(|(col, values)| {
                    let values = values
                        .into_iter()
                        .map(|(value, us)| (value, scores(&us, orderings)))
                        .collect();
                    (col, values)
                })
                .collect(),
            orderings,
            single_ordering_items: units.iter().filter(|u| u.single()).count() as u64,
            mode: mode.to_string(),
            missing_orderings: units.iter().map(|u| u.expected - u.n).sum(),
            items_missing_orderings: units.iter().filter(|u| u.expected > u.n).count() as u64,
            duplicate_answers: units.iter().map(|u| u.duplicates).sum(),
        })
    }
}

fn fraction(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn scores(units: &[&Unit], orderings: u64) -> CircularScores {
    let items = units.len() as u64;
    let answers: u64 = units.iter().map(|u| u.n).sum();
    // A missing ordering is a wrong answer.
    let asked: u64 = units.iter().map(|u| u.expected).sum();
    let correct: u64 = units.iter().map(|u| u.correct).sum();
    let origins: Vec<bool> = units.iter().filter_map(|u| u.origin).collect();
    // Right in at least j orderings, or in all of its own when it has fewer (an O/X item kept
    // in its one ordering): else more_j could fall below perf_circular (trial 41, defect 5).
    let at_least = |j: u64| {
        (units.iter())
            .filter(|u| u.expected > 0 && u.correct >= j.min(u.expected))
            .count() as u64
    };
    CircularScores {
        items,
        answers,
        acc_origin: fraction(
            origins.iter().filter(|&&c| c).count() as u64,
            origins.len() as u64,
        ),
        origin_items: origins.len() as u64,
        acc_circular: fraction(correct, asked),
        perf_circular: fraction(
            units.iter().filter(|u| u.correct == u.expected).count() as u64,
            items,
        ),
        more: (1..orderings)
            .map(|j| (format!("more_{j}"), fraction(at_least(j), items)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Source;

    fn verdict(id: &str, ordering: &[u8], correct: bool, domain: &str) -> Verdict {
        Verdict {
            id: id.into(),
            sample: 0,
            status: "answer".into(),
            rule: "statement".into(),
            span: None,
            chosen: Some("①".into()),
            gold: if correct { "①" } else { "②" }.into(),
            correct,
            source: Source::Verifier,
            choices: "circled:4".into(),
            fields: [("domain".to_string(), domain.to_string())].into(),
            candidates: None,
            tail: None,
            note: None,
            line: 1,
            judge: None,
            ordering: Some(ordering.to_vec()),
            ..Verdict::default()
        }
    }

    /// Hand-checked against OpenCompass's `CircularEvaluator.score` with circular patterns
    /// ABCD, BCDA, CDAB, DABC. Item a: right in ABCD, BCDA, CDAB, wrong in DABC. Item b: right
    /// in every ordering. Item c: wrong in ABCD, right in BCDA only.
    /// acc_origin = 2/3 (a, b); acc_circular = (3 + 4 + 1) / 12 = 2/3; perf = 1/3 (b);
    /// more_1 = 3/3, more_2 = 2/3, more_3 = 2/3.
    #[test]
    fn matches_opencompass_on_a_hand_checked_example() {
        let rotations: [&[u8]; 4] = [&[0, 1, 2, 3], &[3, 0, 1, 2], &[2, 3, 0, 1], &[1, 2, 3, 0]];
        let mut acc = CircularAccumulator::new(&["domain".to_string()]);
        for (k, r) in rotations.iter().enumerate() {
            acc.add(&verdict("a", r, k != 3, "금융"));
            acc.add(&verdict("b", r, true, "금융"));
            acc.add(&verdict("c", r, k == 1, "국방"));
        }
        let m = acc.finish().unwrap();
        let o = &m.overall;
        assert_eq!((o.items, o.answers, m.orderings), (3, 12, 4));
        assert!((o.acc_origin - 2.0 / 3.0).abs() < 1e-12);
        assert!((o.acc_circular - 8.0 / 12.0).abs() < 1e-12);
        assert!((o.perf_circular - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(o.more["more_1"], 1.0);
        assert!((o.more["more_2"] - 2.0 / 3.0).abs() < 1e-12);
        assert!((o.more["more_3"] - 2.0 / 3.0).abs() < 1e-12);
        assert!(!o.more.contains_key("more_4"), "more_4 is perf_circular");
        // Item a is right in its original ordering but wrong in one rotation: it counts in
        // acc_origin and not in perf_circular.
        let finance = &m.groups["domain"]["금융"];
        assert_eq!(finance.acc_origin, 1.0);
        assert_eq!(finance.perf_circular, 0.5);
        let defence = &m.groups["domain"]["국방"];
        assert_eq!((defence.acc_origin, defence.perf_circular), (0.0, 0.0));
        assert_eq!(defence.more["more_1"], 1.0);
    }

    #[test]
    fn single_ordering_items_and_samples() {
        let mut acc = CircularAccumulator::new(&[]);
        // An O/X item kept its one ordering; a 2-option item answered twice per ordering.
        acc.add(&verdict("ox", &[0, 1], true, "x"));
        for correct in [true, false] {
            acc.add(&verdict("q", &[0, 1], true, "x"));
            acc.add(&verdict("q", &[1, 0], correct, "x"));
        }
        let m = acc.finish().unwrap();
        assert_eq!(m.single_ordering_items, 1);
        // Units: ox (1/1), q draw 0 (2/2), q draw 1 (1/2).
        assert_eq!(m.overall.items, 3);
        assert!((m.overall.perf_circular - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(m.overall.acc_origin, 1.0);
        // Trial 41, defect 5: the O/X item, right in its one ordering, is right "in at least
        // one" (more_1: ox and both draws of q), never below perf_circular.
        assert_eq!(m.overall.more["more_1"], 1.0);
        assert!(CircularAccumulator::new(&[]).finish().is_none());
        // With four rotations: ox right in its one ordering, a right in 3 of 4. perf_circular
        // is 1/2 (ox); more_2 and more_3 are 2/2 (ox and a). They had been 1/2 (a alone).
        let rotations: [&[u8]; 4] = [&[0, 1, 2, 3], &[3, 0, 1, 2], &[2, 3, 0, 1], &[1, 2, 3, 0]];
        let mut acc = CircularAccumulator::new(&[]);
        acc.add(&verdict("ox", &[0, 1], true, "x"));
        for (k, r) in rotations.iter().enumerate() {
            acc.add(&verdict("a", r, k != 3, "x"));
        }
        let o = acc.finish().unwrap().overall;
        assert_eq!(o.perf_circular, 0.5);
        assert_eq!((o.more["more_2"], o.more["more_3"]), (1.0, 1.0));
    }

    /// Trial 41, defect 3: a failed request and its retry beside it, for one ordering, made
    /// a second draw with one answer (three orderings "missing") when the lines named no
    /// sample, and kept the failure over the retry when they did. The retry takes the
    /// failure's place either way.
    #[test]
    fn a_retry_beside_its_failure_takes_its_place() {
        let rotations: [&[u8]; 4] = [&[0, 1, 2, 3], &[3, 0, 1, 2], &[2, 3, 0, 1], &[1, 2, 3, 0]];
        for draw in [None, Some(0)] {
            let mut acc = CircularAccumulator::new(&[]);
            for r in &rotations {
                if r[0] == 2 {
                    let mut failed = verdict("a", r, false, "x");
                    failed.status = "request_error".into();
                    failed.draw = draw;
                    acc.add(&failed);
                }
                let mut v = verdict("a", r, true, "x");
                v.draw = draw;
                acc.add(&v);
            }
            let m = acc.finish().unwrap();
            assert_eq!(m.overall.items, 1, "{draw:?}");
            assert_eq!(
                (m.missing_orderings, m.duplicate_answers),
                (0, 1),
                "{draw:?}"
            );
            assert_eq!(m.overall.perf_circular, 1.0, "{draw:?}");
            assert_eq!(m.overall.acc_circular, 1.0, "{draw:?}");
        }
    }

    /// Trial 38, defects 1, 2 and 7: an item right in the 3 rotations that arrived counted
    /// as right in all of them; an answer given twice counted as another ordering; and the
    /// report did not say which mode its scores were in.
    #[test]
    fn missing_orderings_count_as_wrong_and_repeats_are_not_counted() {
        let rotations: [&[u8]; 4] = [&[0, 1, 2, 3], &[3, 0, 1, 2], &[2, 3, 0, 1], &[1, 2, 3, 0]];
        let mut acc = CircularAccumulator::new(&[]);
        for r in &rotations[1..] {
            acc.add(&verdict("a", r, true, "x"));
        }
        for r in &rotations {
            let mut v = verdict("b", r, true, "x");
            v.draw = Some(0);
            acc.add(&v);
            acc.add(&v);
        }
        let m = acc.finish().unwrap();
        assert_eq!(m.mode, "circular");
        assert_eq!((m.missing_orderings, m.items_missing_orderings), (1, 1));
        assert_eq!(m.duplicate_answers, 4);
        let o = &m.overall;
        assert_eq!((o.items, o.answers, m.orderings), (2, 7, 4));
        // a: 3 of 4 (its original missing, so wrong); b: 4 of 4.
        assert_eq!(o.perf_circular, 0.5);
        assert!((o.acc_circular - 7.0 / 8.0).abs() < 1e-12);
        assert_eq!((o.acc_origin, o.origin_items), (1.0, 1));
        assert_eq!(m.single_ordering_items, 0);

        // One ordering that is no rotation: all 24 permutations were asked.
        let mut acc = CircularAccumulator::new(&[]);
        acc.add(&verdict("c", &[0, 1, 2, 3], true, "x"));
        acc.add(&verdict("c", &[1, 0, 2, 3], true, "x"));
        let m = acc.finish().unwrap();
        assert_eq!((m.mode.as_str(), m.orderings), ("all_possible", 24));
        assert_eq!(m.missing_orderings, 22);
        assert_eq!(m.overall.perf_circular, 0.0);
    }
}
