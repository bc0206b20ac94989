//! Majority votes over an item's answers, for the report's `majority_vote_accuracy` and
//! `kgrade compare`'s per-item outcome of runs with several samples: what each answer votes
//! for, and whether the most-voted label is gold. Pure functions of verdicts.

use super::metrics::NO_ANSWER_LABEL;
use crate::types::Verdict;

/// What the answer `v` votes for, and its item's gold, in one notation: the labels as shown,
/// or in a circular run the original options ("option 3"), since there the labels move with
/// the ordering (trial 41: right in every rotation split 1–1–1–1, a tie, counted wrong). An
/// undecided answer votes for no answer (∅, never gold), as lm-eval's `majority_vote` counts
/// `[invalid]`: two refusals out of three outvote one right answer.
pub fn vote_of(v: &Verdict) -> (String, String) {
    let shown = || {
        let vote = (v.chosen.clone()).unwrap_or_else(|| NO_ANSWER_LABEL.to_string());
        (v.gold.clone(), vote)
    };
    let Some(ordering) = &v.ordering else {
        return shown();
    };
    // `chosen_index` and `gold_index` are 1-based positions shown.
    let original = |k: usize| {
        (k.checked_sub(1).and_then(|k| ordering.get(k)))
            .map(|&o| format!("option {}", usize::from(o) + 1))
    };
    let (gold, vote) = shown();
    let vote = v.chosen_index.and_then(original).unwrap_or(vote);
    (original(v.gold_index).unwrap_or(gold), vote)
}

/// Whether the label voted for most often among an item's answers is `gold`: `votes` is
/// (chosen label, answers naming it), undecided answers voting for ∅. A tie for the most votes
/// is not right.
pub fn majority_vote_right(votes: &[(String, u64)], gold: &str) -> bool {
    let best = votes.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let mut winners = votes.iter().filter(|(_, n)| *n == best);
    matches!((winners.next(), winners.next()), (Some((label, _)), None) if label == gold)
}

/// Count one answer's vote: `label` gets one more.
pub fn add_vote(votes: &mut Vec<(String, u64)>, label: &str) {
    match votes.iter_mut().find(|(l, _)| l == label) {
        Some((_, n)) => *n += 1,
        None => votes.push((label.to_string(), 1)),
    }
}
