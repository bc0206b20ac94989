//! Circular evaluation (OpenCompass's CircularEval): the option orders an item is shown in,
//! and the item re-rendered in one of them, with its gold label moved along. `generate`
//! renders prompts from the permuted item; `grade` rebuilds the same item from the ordering a
//! generation line records, so an answer is always graded against the options it was shown.
//! Pure: no I/O. Not for metrics: see `report::circular`.
//!
//! An ordering is a permutation written as "shown position → original option": `[3, 0, 1, 2]`
//! shows the original fourth option first. Items whose options cannot be re-rendered safely
//! (O/X questions, options inside a table, options that refer to each other, options not
//! found one per marker) keep their one original ordering.

use crate::types::Item;
use crate::verify::{Choice, ChoiceSet, Notation};
use std::fmt;
use std::str::FromStr;

/// Which orderings to render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CircularMode {
    /// The cyclic rotations: n orderings for n options.
    Circular,
    /// Every permutation: n! orderings.
    AllPossible,
}

impl CircularMode {
    /// The name `--circular` takes.
    pub fn name(self) -> &'static str {
        match self {
            CircularMode::Circular => "circular",
            CircularMode::AllPossible => "all_possible",
        }
    }
}

impl FromStr for CircularMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.replace('-', "_").as_str() {
            "circular" => Ok(CircularMode::Circular),
            "all_possible" => Ok(CircularMode::AllPossible),
            _ => Err(format!(
                "unknown circular mode `{s}` (circular, all_possible)"
            )),
        }
    }
}

/// The orderings of `n` options, the original first, in OpenCompass's order. A rotation by
/// `s` moves original option `i` to position `(i + s) mod n` (OpenCompass's `BCDA` for s = 1,
/// that is `[3, 0, 1, 2]` here); `all_possible` takes OpenCompass's patterns in
/// `itertools.permutations` order, each pattern saying where each original option goes.
pub fn orderings(mode: CircularMode, n: usize) -> Vec<Vec<u8>> {
    let n8 = n as u8;
    match mode {
        CircularMode::Circular => (0..n8)
            .map(|s| (0..n8).map(|j| (j + n8 - s) % n8).collect())
            .collect(),
        CircularMode::AllPossible => {
            let mut out = Vec::new();
            let mut pattern: Vec<u8> = (0..n8).collect();
            loop {
                // pattern[i] is where original option i goes; invert it.
                let mut ordering = vec![0u8; n];
                for (i, &p) in pattern.iter().enumerate() {
                    ordering[p as usize] = i as u8;
                }
                out.push(ordering);
                if !next_permutation(&mut pattern) {
                    return out;
                }
            }
        }
    }
}

/// Lexicographic successor (the order `itertools.permutations` yields for sorted input).
fn next_permutation(p: &mut [u8]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let Some(j) = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]) else {
        return false;
    };
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// Is `ordering` the dataset's own order?
pub fn is_identity(ordering: &[u8]) -> bool {
    ordering.iter().enumerate().all(|(i, &o)| o as usize == i)
}

/// Why an item keeps its original ordering.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, thiserror::Error)]
pub enum NotPermutable {
    #[error("O/X question")]
    Ox,
    #[error("options inside a table")]
    Table,
    #[error("an option refers to the others")]
    RefersToOthers,
    #[error("options not found one per marker")]
    Unrecognised,
}

/// An ordering that does not fit its item (wrong length, not a permutation, or an item that
/// cannot be re-rendered).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ordering {ordering:?} does not fit item `{id}`: {reason}")]
pub struct OrderingError {
    pub id: String,
    pub ordering: Vec<u8>,
    pub reason: String,
}

/// Where each option's text sits in the question.
struct Layout {
    /// Byte range of each option's text (markers excluded, surrounding spaces excluded).
    spans: Vec<(usize, usize)>,
}

/// Phrases that make an option depend on the others' positions or contents.
const REFERRING: [&str; 8] = [
    "위의 모든",
    "위 모두",
    "모두 옳",
    "모두 맞",
    "모두 정답",
    "정답 없음",
    "all of the above",
    "none of the above",
];

/// Check that `item` can be shown in other orders, and find its options.
fn layout(item: &Item) -> Result<Layout, NotPermutable> {
    let set = &item.choices;
    if set.notation() == Notation::Ox {
        return Err(NotPermutable::Ox);
    }
    let q = &item.question;
    if q.lines().any(|l| l.trim_start().starts_with('|')) {
        return Err(NotPermutable::Table);
    }
    let n = set.len();
    let markers = find_markers(q, set.notation(), n).ok_or(NotPermutable::Unrecognised)?;
    let mut spans = Vec::with_capacity(n);
    for (k, &(_, end)) in markers.iter().enumerate() {
        let line_end = q[end..].find('\n').map_or(q.len(), |p| end + p);
        let stop = match markers.get(k + 1) {
            Some(&(next, _)) if next < line_end => next,
            Some(&(next, _)) => {
                // Only blank space may sit between an option's line and the next marker.
                if !q[line_end..next].trim().is_empty() {
                    return Err(NotPermutable::Unrecognised);
                }
                line_end
            }
            None => line_end,
        };
        let raw = &q[end..stop];
        let core = raw.trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '·'));
        if core.is_empty() {
            return Err(NotPermutable::Unrecognised);
        }
        let start = end + (core.as_ptr() as usize - raw.as_ptr() as usize);
        spans.push((start, start + core.len()));
    }
    let texts: Vec<&str> = spans.iter().map(|&(a, b)| &q[a..b]).collect();
    // The verifier read the same options, or the layout is not what it seems.
    if !set.options().is_empty()
        && set
            .options()
            .iter()
            .zip(&texts)
            .any(|(o, t)| o.trim() != *t)
    {
        return Err(NotPermutable::Unrecognised);
    }
    if texts.iter().any(|t| {
        let lower = t.to_lowercase();
        REFERRING.iter().any(|r| lower.contains(r))
    }) {
        return Err(NotPermutable::RefersToOthers);
    }
    Ok(Layout { spans })
}

/// The byte ranges of the `n` option markers, in order: circled markers anywhere (each exactly
/// once in the question), numbered or lettered ones (`(1)`, `1.`, `1)`, `A.`, `(A)`, `A)`) at
/// line starts, exactly one line per marker.
fn find_markers(q: &str, notation: Notation, n: usize) -> Option<Vec<(usize, usize)>> {
    let set = ChoiceSet::new(notation, n as u8).ok()?;
    let label_in = |_: Notation, k: usize| Choice::from_index(k).map(|c| set.label(c));
    let mut found = Vec::with_capacity(n);
    if notation == Notation::Circled {
        for k in 0..n {
            let mark = label_in(notation, k)?;
            let mut hits = q.match_indices(mark.as_str());
            let (at, m) = hits.next()?;
            if hits.next().is_some() {
                return None;
            }
            found.push((at, at + m.len()));
        }
    } else {
        let mut offset = 0;
        let mut lines = Vec::new();
        for line in q.split_inclusive('\n') {
            lines.push((offset, line));
            offset += line.len();
        }
        for k in 0..n {
            let label = label_in(notation, k)?;
            let forms = [
                format!("({label})"),
                format!("{label}."),
                format!("{label})"),
            ];
            let mut hits = lines.iter().filter_map(|&(at, line)| {
                let lead = line.len() - line.trim_start().len();
                let body = &line[lead..];
                forms
                    .iter()
                    .find(|f| body.starts_with(f.as_str()))
                    .map(|f| (at + lead, at + lead + f.len()))
            });
            let hit = hits.next()?;
            if hits.next().is_some() {
                return None;
            }
            found.push(hit);
        }
    }
    found.windows(2).all(|w| w[0].1 <= w[1].0).then_some(found)
}

/// Why `item` keeps its original ordering, or `None` when it can be shown in any order.
pub fn not_permutable(item: &Item) -> Option<NotPermutable> {
    layout(item).err()
}

/// `item` shown in `ordering`: the question with its option texts moved, the choice set's
/// option texts in the new order, and the gold choice where its text now sits.
pub fn permute(item: &Item, ordering: &[u8]) -> Result<Item, OrderingError> {
    let fail = |reason: String| OrderingError {
        id: item.id.clone(),
        ordering: ordering.to_vec(),
        reason,
    };
    let n = item.choices.len();
    let mut seen = vec![false; n];
    for &o in ordering {
        match seen.get_mut(o as usize) {
            Some(s) if !*s => *s = true,
            _ => return Err(fail(format!("not a permutation of {n} options"))),
        }
    }
    if ordering.len() != n {
        return Err(fail(format!("the item has {n} options")));
    }
    if is_identity(ordering) {
        return Ok(item.clone());
    }
    let layout = layout(item).map_err(|e| fail(e.to_string()))?;
    let q = &item.question;
    let texts: Vec<&str> = layout.spans.iter().map(|&(a, b)| &q[a..b]).collect();
    let mut question = String::with_capacity(q.len());
    let mut at = 0;
    for (k, &(start, end)) in layout.spans.iter().enumerate() {
        question.push_str(&q[at..start]);
        question.push_str(texts[ordering[k] as usize]);
        at = end;
    }
    question.push_str(&q[at..]);
    let options: Vec<String> = ordering
        .iter()
        .map(|&o| texts[o as usize].to_string())
        .collect();
    // The reordered question asks what the original did: its ask phrase goes with it.
    let choices = ChoiceSet::new(item.choices.notation(), n as u8)
        .map_err(|e| fail(e.to_string()))?
        .with_options(options)
        .with_question(&question);
    let gold_at = ordering
        .iter()
        .position(|&o| o as usize == item.gold.index())
        .and_then(Choice::from_index)
        .ok_or_else(|| fail("gold outside the options".into()))?;
    Ok(Item {
        id: item.id.clone(),
        question,
        choices,
        gold: gold_at,
        fields: item.fields.clone(),
    })
}

impl fmt::Display for CircularMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(question: &str, gold: usize) -> Item {
        let choices = ChoiceSet::detect(question).unwrap();
        Item {
            id: "q".into(),
            question: question.into(),
            gold: choices.at_position(gold).unwrap(),
            choices,
            fields: vec![("domain".into(), "d".into())],
        }
    }

    #[test]
    fn rotations_follow_opencompass() {
        // OpenCompass: ABCD, BCDA, CDAB, DABC; pattern BCDA puts option A at position B.
        assert_eq!(
            orderings(CircularMode::Circular, 4),
            vec![
                vec![0, 1, 2, 3],
                vec![3, 0, 1, 2],
                vec![2, 3, 0, 1],
                vec![1, 2, 3, 0]
            ]
        );
        let all = orderings(CircularMode::AllPossible, 4);
        assert_eq!(all.len(), 24);
        assert_eq!(all[0], vec![0, 1, 2, 3]);
        // permutations(ABCD)[1] = ABDC: C goes to D and D to C.
        assert_eq!(all[1], vec![0, 1, 3, 2]);
        // Every rotation is among all orderings.
        for r in orderings(CircularMode::Circular, 4) {
            assert!(all.contains(&r));
        }
    }

    #[test]
    fn circled_options_move_and_gold_follows() {
        let it = item("기관은?\n① 금융위\n② 기재부\n③ 국방부\n④ 행안부", 2);
        let p = permute(&it, &[3, 0, 1, 2]).unwrap();
        assert_eq!(
            p.question,
            "기관은?\n① 행안부\n② 금융위\n③ 기재부\n④ 국방부"
        );
        assert_eq!(p.choices.label(p.gold), "③");
        assert_eq!(p.choices.options()[2], "기재부");
        assert_eq!(ChoiceSet::detect(&p.question).unwrap(), p.choices);
        let inline = item("기관은? ① 금융위 ② 기재부 ③ 국방부", 1);
        let p = permute(&inline, &[2, 0, 1]).unwrap();
        assert_eq!(p.question, "기관은? ① 국방부 ② 금융위 ③ 기재부");
        assert_eq!(p.choices.label(p.gold), "②");
    }

    #[test]
    fn kmmlu_numbered_options_move() {
        let mut it = item("수도는?\n(1) 부산\n(2) 서울\n(3) 대구\n(4) 인천", 2);
        it.choices = ChoiceSet::new(Notation::Number, 4)
            .unwrap()
            .with_options(vec![
                "부산".into(),
                "서울".into(),
                "대구".into(),
                "인천".into(),
            ]);
        let p = permute(&it, &[1, 2, 3, 0]).unwrap();
        assert_eq!(
            p.question,
            "수도는?\n(1) 서울\n(2) 대구\n(3) 인천\n(4) 부산"
        );
        assert_eq!(p.choices.label(p.gold), "1");
    }

    #[test]
    fn unsafe_items_keep_their_ordering() {
        let table = item(
            "다음 표에서 고르시오.\n\n| 구분 | 예시 |\n|---|---|\n| ① | 장관 |\n| ② | 일반직 |",
            2,
        );
        assert_eq!(not_permutable(&table), Some(NotPermutable::Table));
        let ox = Item {
            choices: ChoiceSet::new(Notation::Ox, 2).unwrap(),
            ..item("옳으면 O, 틀리면 X ① a ② b", 1)
        };
        assert_eq!(not_permutable(&ox), Some(NotPermutable::Ox));
        let refers = item("고르시오.\n① 가\n② 나\n③ 위의 모든 것", 1);
        assert_eq!(not_permutable(&refers), Some(NotPermutable::RefersToOthers));
        let cites = item("①과 ②의 차이는?\n① 가\n② 나\n③ 다", 1);
        assert_eq!(not_permutable(&cites), Some(NotPermutable::Unrecognised));
        assert!(permute(&table, &[1, 0]).is_err());
        assert_eq!(permute(&table, &[0, 1]).unwrap().question, table.question);
        assert!(permute(&cites, &[0, 0, 1]).is_err());
    }
}
