//! Whether the runs `kgrade compare` is given are over one dataset. `run.json` names the
//! dataset (its blake3 content hash, else its path); a run without it (verdicts copied out of
//! their run directory) names none, and ids alone say nothing (KMMLU's subjects all number
//! their items from 0). So every shared item is also checked in the verdicts themselves: its
//! gold answer (as the original option, whatever ordering it was shown in) and the dataset
//! columns both runs carry must agree. Not for item sets: [`super::compare`] handles those.

use super::{same_path, CompareError, Run};
use crate::types::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How the runs were found to be over one dataset (`dataset_identity` in
/// `leaderboard.json`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DatasetIdentity {
    /// Every run's `run.json` has the same `dataset_blake3`.
    Content,
    /// Every run's `run.json` names the same dataset file (runs graded before the hash).
    Path,
    /// Some run has no `run.json`: only the items' gold answers and columns were compared.
    Items,
}

/// What the verdicts say an item is: its gold answer and its dataset columns.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ItemKey {
    gold: String,
    fields: BTreeMap<String, String>,
}

impl ItemKey {
    pub(super) fn of(v: &Verdict) -> ItemKey {
        // The original option: a circular verdict's gold is in the order it was shown.
        let gold = match (&v.ordering, v.gold_index) {
            (_, 0) => v.gold.clone(),
            (Some(o), k) => o
                .get(k - 1)
                .map_or_else(|| v.gold.clone(), |&x| (usize::from(x) + 1).to_string()),
            (None, k) => k.to_string(),
        };
        ItemKey {
            gold,
            fields: v.fields.clone(),
        }
    }

    /// How `self` (in `a`) and `other` (in `b`) differ, if they do. Columns only one run
    /// has (lm-eval's `task`) are not a difference.
    fn difference(&self, other: &ItemKey, a: &str, b: &str) -> Option<String> {
        if self.gold != other.gold {
            return Some(format!(
                "gold answer {} in {a}, {} in {b}",
                self.gold, other.gold
            ));
        }
        self.fields
            .iter()
            .find_map(|(col, x)| match other.fields.get(col) {
                Some(y) if y != x => Some(format!("column `{col}` is `{x}` in {a}, `{y}` in {b}")),
                _ => None,
            })
    }
}

/// Check that `runs` are over one dataset, on the `shared` items; say how that was found.
pub(super) fn check(
    runs: &[Run],
    shared: &BTreeSet<&String>,
) -> Result<DatasetIdentity, CompareError> {
    let first = &runs[0];
    for r in &runs[1..] {
        if let (Some(a), Some(b)) = (&first.dataset, &r.dataset) {
            // By content when both runs recorded it (a copy at another path, another
            // machine's checkout), else by path.
            let same = match (&first.dataset_hash, &r.dataset_hash) {
                (Some(x), Some(y)) => x == y,
                _ => same_path(a, b),
            };
            if !same {
                return Err(CompareError::DatasetsDiffer {
                    a: first.dir.clone(),
                    dataset_a: a.clone(),
                    b: r.dir.clone(),
                    dataset_b: b.clone(),
                });
            }
        }
        let mut differing = shared.iter().filter_map(|id| {
            let (x, y) = (first.keys.get(*id)?, r.keys.get(*id)?);
            x.difference(y, &first.dir, &r.dir).map(|d| (id, d))
        });
        if let Some((id, first_difference)) = differing.next() {
            return Err(CompareError::ItemsContentDiffer {
                a: first.dir.clone(),
                b: r.dir.clone(),
                differing: 1 + differing.count(),
                shared: shared.len(),
                first: format!("`{id}`: {first_difference}"),
            });
        }
    }
    Ok(if runs.iter().all(|r| r.dataset_hash.is_some()) {
        DatasetIdentity::Content
    } else if runs.iter().all(|r| r.dataset.is_some()) {
        DatasetIdentity::Path
    } else {
        DatasetIdentity::Items
    })
}
