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
/// match their rows are keyed right (one failed item and one stray id): graded, as are
/// answers whose choices follow their own rows' golds (see [`Neighbours`]).
pub(super) fn ids_shifted(join: &JoinReport, answers: &Neighbours) -> Option<GradeError> {
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
    // Answers that agree with their own rows clearly more than with the rows the shift
    // would give them are keyed right: generations of a larger set, its first items failed
    // (ids 102–121 against a subset 100–119; trial 48). Graded; the strays are warned of.
    let theirs = match whose {
        "after" => answers.before.get(k as usize - 1),
        _ => answers.after.get(k as usize - 1),
    };
    if theirs.is_some_and(Pairs::own_leads) {
        return None;
    }
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
/// neighbour (the row before, or after); the neighbour's against a row farther on (three ids
/// away on the same side), whose gold stands for chance; and their own against the row two
/// away, which is as near the neighbour as their own is.
#[derive(Default, Debug, Clone)]
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
    /// Right for the neighbour's row and not the far one, and the reverse.
    theirs_not_far: u64,
    far_not_theirs: u64,
    /// Right for their own row and not the one two away, and the reverse.
    own_not_second: u64,
    second_not_own: u64,
}

impl Pairs {
    fn add(&mut self, other: &Pairs) {
        self.n += other.n;
        self.own += other.own;
        self.theirs += other.theirs;
        self.own_only += other.own_only;
        self.theirs_only += other.theirs_only;
        self.theirs_not_far += other.theirs_not_far;
        self.far_not_theirs += other.far_not_theirs;
        self.own_not_second += other.own_not_second;
        self.second_not_own += other.second_not_own;
    }

    fn push(&mut self, chosen: usize, own: usize, golds: [Option<usize>; REACH]) {
        let Some(theirs) = golds[0] else {
            return;
        };
        let (own, theirs) = (chosen == own, chosen == theirs);
        self.n += 1;
        self.own += u64::from(own);
        self.theirs += u64::from(theirs);
        self.own_only += u64::from(own && !theirs);
        self.theirs_only += u64::from(theirs && !own);
        if let Some(far) = golds[2].map(|f| chosen == f) {
            self.theirs_not_far += u64::from(theirs && !far);
            self.far_not_theirs += u64::from(far && !theirs);
        }
        if let Some(second) = golds[1].map(|f| chosen == f) {
            self.own_not_second += u64::from(own && !second);
            self.second_not_own += u64::from(second && !own);
        }
    }

    /// Do the answers belong to the neighbour's question? Among answers right for exactly
    /// one of two rows (sign tests):
    /// - the neighbour's must lead their own by more than six standard deviations of a fair
    ///   coin (at least 36 such answers) and half as many again: keyed right, a model's
    ///   answers follow their own questions, whatever the golds' order (a model that always
    ///   says ① is right as often either way);
    /// - the neighbour's must lead the far row's by four: answers worse than chance for
    ///   their own rows (a notation read one off, options shown reversed) are at chance for
    ///   every other row too (trial 51);
    /// - their own must not lead the row two away by three: keyed one off, an answer's own
    ///   row and the row two away are both one away from its question, and as right
    ///   however the golds run; answers right above that for their own rows that also
    ///   follow the row before (few-shot examples taken from it) are keyed right.
    fn shifted(&self) -> bool {
        lead(self.theirs_only, self.own_only, 1.5) > 6.0
            && lead(self.theirs_not_far, self.far_not_theirs, 1.5) > 4.0
            && lead(self.own_not_second, self.second_not_own, 1.0) <= 3.0
    }

    /// Do the answers agree with their own rows' golds clearly more than with the
    /// neighbour's (two and a half standard deviations and two to one)?
    fn own_leads(&self) -> bool {
        lead(self.own_only, self.theirs_only, 2.0) > 2.5
    }
}

/// How far `b` leads `a` in standard deviations of a fair coin over `a + b` tosses; zero
/// unless `b` is more than `ratio` times `a`.
fn lead(b: u64, a: u64, ratio: f64) -> f64 {
    let (a, b) = (a as f64, b as f64);
    if b > ratio * a {
        (b - a) / (a + b).max(1.0).sqrt()
    } else {
        0.0
    }
}

/// Decided answers weighed against their own row's gold and their neighbours', as they are
/// verified: a few numbers a row, whatever the number of answers.
#[derive(Debug)]
pub(super) struct Neighbours {
    /// The row whose id is one more than row `r`'s (`NONE` when there is none), and one less.
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Row `r`'s stretch: [`STRETCH`] ids in a row with the same text before their number.
    stretch: Vec<u32>,
    /// Rows weighed already: a row's first decided answer stands for it (its other samples
    /// repeat it more often than not, and would count one row's luck many times over).
    weighed: Vec<bool>,
    /// Weighed against the ids 1, 2 and 3 before and after.
    before: [Pairs; REACH],
    after: [Pairs; REACH],
    /// The whole run weighed against the ids one before and one after, and three away.
    whole: [Pairs; 2],
    /// Each stretch weighed against the ids one before and one after: a shift from a lost
    /// answer on (every later answer keyed one off), or of one subject in a folder, shows
    /// there when the whole run does not.
    stretches: Vec<[Pairs; 2]>,
    /// Each stretch's first and last row, in the ids' order.
    ends: Vec<(u32, u32)>,
    /// The stretches of each text before the ids' numbers (a dataset's, or a subject's in a
    /// folder), in the ids' order.
    groups: Vec<std::ops::Range<usize>>,
}

const NONE: u32 = u32::MAX;
/// How many ids away the golds are weighed.
const REACH: usize = 3;
/// Ids in a stretch.
const STRETCH: usize = 100;

impl Neighbours {
    /// A shift is by id: an id's neighbours are the ids with the same text before their
    /// trailing number that come next and last before it in the numbers' order (`17` and
    /// `18`, `Law/17` and `Law/18`, `kmmlu-law-17` and `kmmlu-law-18`), wherever their rows
    /// are. When some id ends in no number, the rows' order stands for the ids'.
    pub(super) fn new(items: &[Item]) -> Neighbours {
        let row = |r: usize| u32::try_from(r).unwrap_or(NONE);
        let numbered: Option<Vec<(&str, u64)>> = (items.iter())
            .map(|item| {
                let id = item.id.as_str();
                let digits = id.bytes().rev().take_while(u8::is_ascii_digit).count();
                let (prefix, number) = id.split_at(id.len() - digits);
                Some((prefix, number.parse().ok()?))
            })
            .collect();
        let keys = numbered.unwrap_or_else(|| (0..items.len() as u64).map(|n| ("", n)).collect());
        let mut groups: std::collections::HashMap<&str, Vec<(u64, usize)>> = Default::default();
        for (r, &(prefix, n)) in keys.iter().enumerate() {
            groups.entry(prefix).or_default().push((n, r));
        }
        // Each row's neighbour is the next id in the ids' order (ids in steps of 10, or a
        // sample of a larger set, shift as `zip(ids, responses)` shifts them; trial 51).
        let mut next = vec![NONE; items.len()];
        let mut prev = vec![NONE; items.len()];
        let mut stretch = vec![0; items.len()];
        let mut ends = Vec::new();
        let mut spans = Vec::new();
        for mut group in groups.into_values() {
            group.sort_unstable();
            for (i, &(n, r)) in group.iter().enumerate() {
                // Past any row with the same id (the first row wins the join).
                if let Some(&(_, after)) = group[i + 1..].iter().find(|&&(m, _)| m > n) {
                    next[r] = row(after);
                    prev[after] = prev[after].min(row(r));
                }
            }
            let first = ends.len();
            for chunk in group.chunks(STRETCH) {
                for &(_, r) in chunk {
                    stretch[r] = row(ends.len());
                }
                ends.push((row(chunk[0].1), row(chunk[chunk.len() - 1].1)));
            }
            spans.push(first..ends.len());
        }
        Neighbours {
            next,
            prev,
            stretch,
            weighed: vec![false; items.len()],
            before: Default::default(),
            after: Default::default(),
            whole: Default::default(),
            stretches: ends.iter().map(|_| Default::default()).collect(),
            ends,
            groups: spans,
        }
    }

    /// Weigh the verdict `v` of an answer joined to row `row` of `items`. An answer graded
    /// against the options in another order (a circular run, a shuffled prompt) is weighed
    /// at its option's place in the row, found by the option's text (not at all when the
    /// texts are not known or not all different).
    pub(super) fn push(&mut self, items: &[Item], row: usize, item: &Item, v: &Verdict) {
        let Some(shown) = v.chosen_index else {
            return;
        };
        // Another order's item is a copy of the row, not the row itself.
        let chosen = if std::ptr::eq(item, &items[row]) {
            shown
        } else {
            let own = items[row].choices.options();
            let Some(text) = item.choices.options().get(shown.wrapping_sub(1)) else {
                return;
            };
            let mut places = own.iter().enumerate().filter(|(_, o)| *o == text);
            match (places.next(), places.next()) {
                (Some((i, _)), None) => i + 1,
                _ => return,
            }
        };
        if std::mem::replace(&mut self.weighed[row], true) {
            return;
        }
        let own = items[row].gold.position();
        let stretch = &mut self.stretches[self.stretch[row] as usize];
        for (side, (links, pairs)) in [
            (&self.prev, &mut self.before),
            (&self.next, &mut self.after),
        ]
        .into_iter()
        .enumerate()
        {
            // The golds of the rows 1, 2 and 3 ids away on this side.
            let mut golds = [None; REACH];
            let mut at = row;
            for gold in golds.iter_mut() {
                match links.get(at) {
                    Some(&r) if r != NONE => at = r as usize,
                    _ => break,
                }
                *gold = Some(items[at].gold.position());
            }
            for (k_away, gold) in pairs.iter_mut().zip(golds) {
                k_away.push(chosen, own, [gold, None, None]);
            }
            stretch[side].push(chosen, own, golds);
            self.whole[side].push(chosen, own, golds);
        }
    }

    /// Refuse answers that agree with the id before or after theirs far more than with
    /// their own, over the whole run or over a stretch of ids, unless they carry their
    /// questions and mostly match their rows (then the join is shown right by the text
    /// itself).
    pub(super) fn check(&self, items: &[Item], join: &JoinReport) -> Option<GradeError> {
        if join.questions_compared > 0 && join.questions_differing * 2 <= join.questions_compared {
            return None;
        }
        let (side, pairs, within) = match (0..2).find(|&side| self.whole[side].shifted()) {
            Some(side) => (
                side,
                self.whole[side].clone(),
                " over the whole run".to_string(),
            ),
            None => {
                let (side, stretches, pairs) = self.shifted_stretches()?;
                let (first, last) = (self.ends[stretches.start].0, self.ends[stretches.end - 1].1);
                let id = |r: u32| items[r as usize].id.as_str();
                (
                    side,
                    pairs,
                    format!(" among the ids {}–{}", id(first), id(last)),
                )
            }
        };
        let (whose, offset) = [("before", 1), ("after", -1)][side];
        let from_zero = join.id_range.is_some_and(|(lo, _)| lo + offset == 0);
        let fix = fix(join, offset, from_zero);
        Some(GradeError::IdsShifted(format!(
            "the answers look keyed one row off{within} (or the dataset's answers are): against their own rows {} of {} decided answers are right, against the row of the id {whose} theirs {} ({} right only there, {} only for their own), so each would be graded against another question; nothing was written. {fix} (generations {}, dataset {})",
            pairs.own, pairs.n, pairs.theirs, pairs.theirs_only, pairs.own_only, join.generations, join.dataset
        )))
    }

    /// The run of stretches from either end of a group's ids (all of them, a subject of a
    /// folder; from a lost answer on, every later answer keyed one off; or up to an extra
    /// one) whose answers look keyed one off, the most, with the side and their counts.
    fn shifted_stretches(&self) -> Option<(usize, std::ops::Range<usize>, Pairs)> {
        let mut best: Option<(u64, usize, std::ops::Range<usize>, Pairs)> = None;
        // The run with the most answers right for the neighbour only beyond those right for
        // their own only: from the loss on, neither just its tail nor rows before it.
        let mut weigh = |side: usize, run: std::ops::Range<usize>, sum: &Pairs| {
            let excess = sum.theirs_only.saturating_sub(sum.own_only);
            if sum.shifted() && best.as_ref().is_none_or(|b| excess > b.0) {
                best = Some((excess, side, run, sum.clone()));
            }
        };
        for group in &self.groups {
            for side in 0..2 {
                let (mut from_start, mut from_end) = (Pairs::default(), Pairs::default());
                for s in group.clone() {
                    from_start.add(&self.stretches[s][side]);
                    weigh(side, group.start..s + 1, &from_start);
                }
                for s in group.clone().rev() {
                    from_end.add(&self.stretches[s][side]);
                    weigh(side, s..group.end, &from_end);
                }
            }
        }
        best.map(|(_, side, run, sum)| (side, run, sum))
    }
}
