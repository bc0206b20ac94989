//! The per-item outcome `kgrade compare` ranks runs on. Bradley–Terry and McNemar count whole
//! wins on paired right/wrong outcomes, so each run's answers to one item are reduced to one
//! right or wrong before anything is compared:
//!
//! - one answer per item: that answer;
//! - several samples: the majority vote (the label chosen most often is gold; a tie is
//!   wrong), as the report's `samples.majority_vote_accuracy`;
//! - a circular run: right in every ordering the item was shown in (OpenCompass's
//!   `perf_circular`), or with [`CircularOutcome::Original`] right in the original ordering
//!   (`acc_origin`); with several draws, right in more than half of them.
//!
//! A circular run's all-orderings outcome is much harder than one answer, so it is compared
//! only with other circular runs; [`super::compare`] refuses the mix. Pure: verdicts in,
//! outcomes out.

use super::super::circular::{CircularAccumulator, DrawOutcome};
use super::super::metrics::{add_vote, majority_vote_right, vote_of};
use crate::types::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::str::FromStr;

/// How circular runs are read (`--circular-outcome`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CircularOutcome {
    /// Right in every ordering (`perf_circular`): comparable with other circular runs only.
    #[default]
    AllOrderings,
    /// Right in the original ordering (`acc_origin`): comparable with plain runs too.
    Original,
}

impl FromStr for CircularOutcome {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all-orderings" => Ok(CircularOutcome::AllOrderings),
            "original" => Ok(CircularOutcome::Original),
            _ => Err(format!(
                "unknown circular outcome `{s}` (all-orderings, original)"
            )),
        }
    }
}

/// What one run is ranked on (`models[].outcome` in `leaderboard.json`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// One answer per item.
    Answer,
    /// Several samples per item: the majority vote.
    MajorityVote,
    /// A circular run: right in every ordering.
    AllOrderings,
    /// A circular run: right in the original ordering.
    OriginalOrdering,
}

impl Outcome {
    /// What the outcome is, for people: `per_item` is the most samples (or orderings) an
    /// item had.
    pub fn describe(self, per_item: u64) -> String {
        match self {
            Outcome::Answer => "one answer".to_string(),
            Outcome::MajorityVote => format!("majority vote of up to {per_item} samples"),
            Outcome::AllOrderings => format!("right in all (up to {per_item}) orderings"),
            Outcome::OriginalOrdering => "original ordering only".to_string(),
        }
    }
}

#[derive(Default)]
struct ItemTally {
    answers: u64,
    correct: u64,
    gold: String,
    votes: Vec<(String, u64)>,
}

/// One run's answers, per item, gathered one verdict at a time.
pub struct RunAnswers {
    items: BTreeMap<String, ItemTally>,
    circular: CircularAccumulator,
}

impl Default for RunAnswers {
    fn default() -> Self {
        RunAnswers {
            items: BTreeMap::new(),
            circular: CircularAccumulator::new(&[]),
        }
    }
}

impl RunAnswers {
    pub fn add(&mut self, v: &Verdict) {
        self.circular.add(v);
        let t = self.items.entry(v.id.clone()).or_default();
        t.answers += 1;
        t.correct += u64::from(v.correct);
        let (gold, vote) = vote_of(v);
        t.gold = gold;
        add_vote(&mut t.votes, &vote);
    }

    /// The answers, ready to be scored.
    pub fn finish(self) -> ItemAnswers {
        let draws = self.circular.draws_by_item();
        let orderings = draws
            .values()
            .flatten()
            .map(|d| d.orderings)
            .max()
            .unwrap_or(1);
        let samples = self.items.values().map(|t| t.answers).max().unwrap_or(0);
        ItemAnswers {
            items: self.items,
            draws,
            orderings,
            samples,
        }
    }
}

/// One run's answers per item, scored by [`ItemAnswers::right`].
pub struct ItemAnswers {
    items: BTreeMap<String, ItemTally>,
    draws: BTreeMap<String, Vec<DrawOutcome>>,
    /// The most orderings any item was shown in (1: not a circular run).
    pub orderings: u64,
    /// The most answers any item has.
    pub samples: u64,
}

impl ItemAnswers {
    /// Some item was shown in more than one ordering (`kgrade generate --circular`).
    pub fn is_circular(&self) -> bool {
        self.orderings > 1
    }

    /// The outcome this run is ranked on, and the most samples (or orderings) behind one.
    pub fn outcome(&self, circular: CircularOutcome) -> (Outcome, u64) {
        match (self.is_circular(), circular) {
            (true, CircularOutcome::AllOrderings) => (Outcome::AllOrderings, self.orderings),
            (true, CircularOutcome::Original) => (Outcome::OriginalOrdering, 1),
            (false, _) if self.samples > 1 => (Outcome::MajorityVote, self.samples),
            (false, _) => (Outcome::Answer, 1),
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.items.contains_key(id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.items.keys()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Answers to item `id`.
    pub fn answers(&self, id: &str) -> u64 {
        self.items.get(id).map_or(0, |t| t.answers)
    }

    /// Whether item `id` counts as right under `outcome`.
    pub fn right(&self, id: &str, outcome: Outcome) -> bool {
        let more_than_half = |hits: usize, of: usize| 2 * hits > of;
        let draws = self.draws.get(id).map_or(&[][..], Vec::as_slice);
        match outcome {
            Outcome::Answer | Outcome::MajorityVote => self.items.get(id).is_some_and(|t| {
                if t.answers == 1 {
                    t.correct == 1
                } else {
                    majority_vote_right(&t.votes, &t.gold)
                }
            }),
            Outcome::AllOrderings => more_than_half(
                draws.iter().filter(|d| d.correct == d.orderings).count(),
                draws.len(),
            ),
            Outcome::OriginalOrdering => {
                let shown: Vec<bool> = draws.iter().filter_map(|d| d.origin).collect();
                more_than_half(shown.iter().filter(|&&r| r).count(), shown.len())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(id: &str, chosen: &str, gold: &str, ordering: Option<&[u8]>) -> Verdict {
        Verdict {
            id: id.into(),
            chosen: Some(chosen.into()),
            gold: gold.into(),
            correct: chosen == gold,
            ordering: ordering.map(<[u8]>::to_vec),
            ..Verdict::default()
        }
    }

    #[test]
    fn samples_are_read_by_majority_vote_and_orderings_all_or_original() {
        let mut plain = RunAnswers::default();
        // a: ①①② with gold ① (right); b: ①② (a tie: wrong); c: one wrong answer.
        for (id, chosen) in [("a", "①"), ("a", "①"), ("a", "②"), ("b", "①"), ("b", "②")] {
            plain.add(&verdict(id, chosen, "①", None));
        }
        plain.add(&verdict("c", "③", "①", None));
        let plain = plain.finish();
        assert_eq!(
            plain.outcome(CircularOutcome::AllOrderings),
            (Outcome::MajorityVote, 3)
        );
        let o = Outcome::MajorityVote;
        assert!(plain.right("a", o) && !plain.right("b", o) && !plain.right("c", o));

        let mut circ = RunAnswers::default();
        // x: right in the original ordering, wrong in the rotation; y: right in both.
        circ.add(&verdict("x", "①", "①", Some(&[0, 1])));
        circ.add(&verdict("x", "①", "②", Some(&[1, 0])));
        circ.add(&verdict("y", "②", "②", Some(&[0, 1])));
        circ.add(&verdict("y", "①", "①", Some(&[1, 0])));
        let circ = circ.finish();
        assert!(circ.is_circular() && !plain.is_circular());
        assert_eq!(
            circ.outcome(CircularOutcome::AllOrderings),
            (Outcome::AllOrderings, 2)
        );
        assert!(!circ.right("x", Outcome::AllOrderings) && circ.right("y", Outcome::AllOrderings));
        assert!(circ.right("x", Outcome::OriginalOrdering));
        assert_eq!(
            Outcome::AllOrderings.describe(4),
            "right in all (up to 4) orderings"
        );
    }
}
