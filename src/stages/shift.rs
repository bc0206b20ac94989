//! Answers keyed to the wrong rows: generations whose ids are the dataset's shifted by one
//! (answers keyed from 0 by a pipeline's `enumerate` against ids counting from 1, or the
//! reverse). Two signs: ids just past one end of the dataset's with as many missing at the
//! other ([`ids_shifted`]); or, when no id strays (the last request failed, a `--limit`),
//! answers that agree with their neighbouring rows' golds far more than with their own
//! ([`Neighbours`]). Either refuses the run before anything is written.

use super::GradeError;
use crate::types::{Item, JoinReport, Verdict};

/// Generations whose ids are the dataset's shifted by one: the dataset's ids are the whole
/// numbers lo..=hi, the only id the dataset lacks is just past one end and the item at the
/// other end has no answer (answers keyed 0..N-1 by a pipeline's `enumerate` against an id
/// column counting 1..N, or the reverse; trial 44), whatever else is missing (a failed
/// request, a `--limit`; trial 45). Every answer would be graded against its neighbour's
/// question: refused before anything is written, as generations of another dataset are, and
/// before that check, which would say less. Answers that carry their question and mostly
/// match their rows are keyed right (one failed item and one stray id): graded.
pub(super) fn ids_shifted(join: &JoinReport) -> Option<GradeError> {
    let (lo, hi) = join.id_range?;
    if join.answers == 0 || join.unknown_ids_listed.len() >= super::join::LISTED {
        return None;
    }
    if join.questions_compared > 0 && join.questions_differing * 2 <= join.questions_compared {
        return None;
    }
    // The stray ids, as whole numbers: they must run on from one end of the dataset's range
    // (a shift by k names k ids past it), and as many ids at the other end have no answer.
    let mut strays: Vec<i64> = (join.unknown_ids_listed.iter())
        .map(|id| id.parse().ok())
        .collect::<Option<_>>()?;
    strays.sort_unstable();
    strays.dedup();
    let k = strays.len() as i64;
    let runs_on = |from: i64| strays.iter().zip(from..).all(|(s, want)| *s == want);
    let missing = |ids: std::ops::Range<i64>| {
        ids.into_iter().all(|id| {
            join.items_without_generations
                .iter()
                .any(|m| *m == id.to_string())
        })
    };
    let (from, to, whose) = if k > 0 && runs_on(hi + 1) && missing(lo..lo + k) {
        (lo + k, hi + k, "after")
    } else if k > 0 && runs_on(lo - k) && missing(hi - k + 1..hi + 1) {
        (lo - k, hi - k, "before")
    } else {
        return None;
    };
    let whose = match k {
        1 => format!("the row {whose} its own"),
        _ => format!("the row {k} places {whose} its own"),
    };
    let ids = if join.row_number_ids {
        "its row numbers: it has no id column, or one counting rows from 0"
    } else {
        "its id column's"
    };
    let fix = fix(join, from - lo, from == 0);
    Some(GradeError::IdsShifted(format!(
        "the generations name ids {from}–{to} and the dataset has ids {lo}–{hi} ({ids}): each answer names {whose}, so each would be graded against another question; nothing was written. {fix} (generations {}, dataset {})",
        join.generations, join.dataset
    )))
}

/// What to do about answers whose ids are the rows' ids plus `offset`; `from_zero`: the
/// answers' ids start at 0.
fn fix(join: &JoinReport, offset: i64, from_zero: bool) -> String {
    match &join.counting_column {
        Some(column) if offset == 1 => format!(
            "The dataset's column `{column}` counts the rows from 1, as the answers do: give --id-col {column}"
        ),
        // lm-eval's doc_id and `enumerate` count rows from 0.
        _ if from_zero && !join.row_number_ids => "If the answers are keyed by row number from 0 (lm-eval's doc_id, a pipeline's `enumerate`), give --id-col @row to join by row number".to_string(),
        _ => "Renumber the answers' ids to the dataset's (a pipeline that keys answers by `enumerate` counts from 0), or give the dataset an id column that matches them".to_string(),
    }
}

/// Decided answers weighed against their own row's gold and a neighbouring row's, for one
/// neighbour (the row before, or after).
#[derive(Default, Debug)]
struct Pairs {
    /// Answers whose row has that neighbour.
    n: u64,
    /// Right for their own row.
    own: u64,
    /// Right for the neighbour's.
    theirs: u64,
    /// Right for their own row only, and for the neighbour's only.
    own_only: u64,
    theirs_only: u64,
}

impl Pairs {
    fn push(&mut self, chosen: usize, own: usize, theirs: usize) {
        self.n += 1;
        self.own += u64::from(chosen == own);
        self.theirs += u64::from(chosen == theirs);
        self.own_only += u64::from(chosen == own && chosen != theirs);
        self.theirs_only += u64::from(chosen == theirs && chosen != own);
    }

    /// Do the answers agree with the neighbour's gold far more than with their own? Among
    /// answers right for exactly one of the two rows, the neighbour's must lead by more than
    /// six standard deviations of a fair coin (a sign test; at least 36 such answers) and at
    /// least two to one. Keyed right, a model's answers follow their own questions and not
    /// the next one's, whatever the golds' order (a model that always says ① is right as
    /// often either way); keyed one off, they follow the neighbour's.
    fn shifted(&self) -> bool {
        let (a, b) = (self.own_only as f64, self.theirs_only as f64);
        b > 2.0 * a && (b - a) / (a + b).max(1.0).sqrt() > 6.0
    }
}

/// Decided answers weighed against their own row's gold and both neighbours', as they are
/// verified: memory for two row numbers a row, whatever the number of answers.
#[derive(Debug)]
pub(super) struct Neighbours {
    /// The row whose id is one more than row `r`'s (`NONE` when there is none), and one less.
    next: Vec<u32>,
    prev: Vec<u32>,
    before: Pairs,
    after: Pairs,
}

const NONE: u32 = u32::MAX;

impl Neighbours {
    /// A shift is by id: an id's neighbour is the id with its trailing number one more or
    /// less and the same text before it (`17` and `18`, `Law/17` and `Law/18`,
    /// `kmmlu-law-17` and `kmmlu-law-18`), wherever its row is. When some id ends in no
    /// number, the rows' order stands for the ids'.
    pub(super) fn new(items: &[Item]) -> Neighbours {
        let numbered: Option<Vec<(&str, u64)>> = (items.iter())
            .map(|item| {
                let id = item.id.as_str();
                let digits = id.bytes().rev().take_while(u8::is_ascii_digit).count();
                let (prefix, number) = id.split_at(id.len() - digits);
                Some((prefix, number.parse().ok()?))
            })
            .collect();
        let row = |r: usize| u32::try_from(r).unwrap_or(NONE);
        let next: Vec<u32> = match numbered {
            Some(keys) => {
                let mut rows = std::collections::HashMap::with_capacity(keys.len());
                for (r, key) in keys.iter().enumerate() {
                    rows.entry(*key).or_insert(r);
                }
                (keys.iter())
                    .map(|&(prefix, n)| rows.get(&(prefix, n + 1)).map_or(NONE, |&r| row(r)))
                    .collect()
            }
            None => (1..=items.len())
                .map(|r| if r < items.len() { row(r) } else { NONE })
                .collect(),
        };
        let mut prev = vec![NONE; items.len()];
        for (r, &n) in next.iter().enumerate() {
            if let Some(p) = prev.get_mut(n as usize) {
                *p = row(r);
            }
        }
        Neighbours {
            next,
            prev,
            before: Pairs::default(),
            after: Pairs::default(),
        }
    }

    /// Weigh the verdict `v` of an answer joined to row `row` of `items`. Answers graded
    /// against options in another order than the dataset's (a circular run, a shuffled
    /// prompt) are not weighed: their positions are not the rows'.
    pub(super) fn push(&mut self, items: &[Item], row: usize, item: &Item, v: &Verdict) {
        // Another order's item is a copy of the row, not the row itself.
        let (true, Some(chosen)) = (std::ptr::eq(item, &items[row]), v.chosen_index) else {
            return;
        };
        let own = items[row].gold.position();
        let gold = |of: &[u32]| items.get(*of.get(row)? as usize).map(|i| i.gold.position());
        if let Some(before) = gold(&self.prev) {
            self.before.push(chosen, own, before);
        }
        if let Some(after) = gold(&self.next) {
            self.after.push(chosen, own, after);
        }
    }

    /// Refuse answers that agree with the id before or after theirs far more than with
    /// their own, unless they carry their questions and mostly match their rows (then the
    /// join is shown right by the text itself).
    pub(super) fn check(&self, join: &JoinReport) -> Option<GradeError> {
        if join.questions_compared > 0 && join.questions_differing * 2 <= join.questions_compared {
            return None;
        }
        let (pairs, whose, offset) = if self.after.shifted() {
            (&self.after, "after", -1)
        } else if self.before.shifted() {
            (&self.before, "before", 1)
        } else {
            return None;
        };
        let from_zero = join.id_range.is_some_and(|(lo, _)| lo + offset == 0);
        let fix = fix(join, offset, from_zero);
        Some(GradeError::IdsShifted(format!(
            "the answers look keyed one row off: against their own rows {} of {} decided answers are right, against the row of the id {whose} theirs {} ({} right only there, {} only for their own), so each would be graded against another question; nothing was written. {fix} (generations {}, dataset {})",
            pairs.own, pairs.n, pairs.theirs, pairs.theirs_only, pairs.own_only, join.generations, join.dataset
        )))
    }
}
