//! Label phrases: what a written label says once its neighbours are read — alternatives
//! ("① 또는 ②", "①, ④", "2번(③)"), a negation ("①이 아니라 ②"), a question ("③일까?"),
//! or a hedged second choice later in the sentence.

use super::words::{answer_keyword, lower, OPTION_NOUN_WORDS};
use super::words::{
    is_alternative_connector, is_hedge, is_negation_word, is_subject_or_object_particle, strip_beon,
};
use super::{said_of, Ctx, Resolved, Said};
use crate::verify::scan::{Kind, Mark};
use crate::verify::Choice;

impl Ctx<'_> {
    /// Is the label at `k` followed by a negation: "①이 아니라", "①은 정답이 아니다",
    /// "① 아님"?
    pub(super) fn negated_after(&self, k: usize) -> Option<usize> {
        let mut j = k + 1;
        if self.is_hangul(j) {
            let w = self.word(j);
            if is_negation_word(strip_beon(w)) {
                return Some(j);
            }
            let rest = strip_beon(w);
            for p in ["이", "가", "은", "는", "도"] {
                if let Some(r) = rest.strip_prefix(p) {
                    if is_negation_word(r) {
                        return Some(j);
                    }
                }
            }
            if !is_subject_or_object_particle(w) && w != "도" && w != "번도" {
                return None;
            }
            j += 1;
        }
        // "①은 정답이 아니다": skip one keyword.
        if self.is_hangul(j) {
            let w = self.word(j);
            if is_negation_word(w) {
                return Some(j);
            }
            if let Some((_, suffix)) = answer_keyword(w) {
                if ["이", "가", "은", "는", "이아", "이 "]
                    .iter()
                    .any(|p| suffix.starts_with(p))
                    && (suffix.contains("아니")
                        || suffix.contains("아님")
                        || suffix.contains("아닌"))
                {
                    return Some(j);
                }
                if self.is_hangul(j + 1) && is_negation_word(self.word(j + 1)) {
                    return Some(j + 1);
                }
            }
        }
        None
    }

    /// Is the label at `k` asked about rather than stated: "③?", "②번인지", "③일까",
    /// "③이 맞나요?"
    pub(super) fn questioned_after(&self, k: usize) -> bool {
        for j in k + 1..k + 4 {
            let Some(t) = self.tok(j) else { return false };
            match t.kind {
                Kind::Punct('?') => return true,
                Kind::Hangul => {
                    let w = strip_beon(self.word(j));
                    let asks = [
                        "인지",
                        "일지",
                        "일까",
                        "인가",
                        "이냐",
                        "냐",
                        "인가요",
                        "맞나",
                        "맞을까",
                        "맞는지",
                        "일는지",
                    ];
                    // Glued to the label ("②번인지") or after its particle ("③이 맞나요");
                    // "(2) 인가" with a space is option text (인가 = permission).
                    let attached = j > k + 1 || t.start == self.toks[j - 1].end;
                    if attached
                        && (asks.iter().any(|a| w.starts_with(a) || w.ends_with(a))
                            || w.ends_with("나요"))
                    {
                        return true;
                    }
                    if !(w.is_empty() || is_subject_or_object_particle(w)) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        false
    }

    /// Read a label phrase starting at token `k` (which must be a label): alternatives
    /// ("① 또는 ②", "①, ④", "2번(③)"), a negation followed by the real label ("①이 아니라
    /// ②"). Returns what it says and the last token used.
    /// A separator between two labels that is not a word for "or": "-", "→", "+", ";",
    /// "vs", "plus", "then", "그리고".
    fn is_separator(&self, j: usize) -> bool {
        let t = &self.toks[j];
        matches!(t.kind, Kind::Punct('-' | '>' | '+' | ';'))
            || (t.kind == Kind::Latin
                && ["vs", "plus", "then"]
                    .iter()
                    .any(|w| self.word(j).eq_ignore_ascii_case(w)))
            || (t.kind == Kind::Hangul && self.word(j) == "그리고")
    }

    /// Is the token after `j` (past a "vs." full stop) a label mark?
    fn next_is_label_mark(&self, j: usize) -> bool {
        let n = if self.tok(j + 1).is_some_and(|t| t.is_punct('.')) {
            j + 2
        } else {
            j + 1
        };
        self.is_label_mark(n)
    }

    /// From the label at `j`, a list of labels ("①과 ②는", "①, ②, ④는", "B and D are")
    /// that the clause then rejects ("틀림", "모두 틀린 설명", "are wrong").
    pub(super) fn rejected_list_at(&self, j: usize) -> bool {
        let mut x = j;
        while x < self.toks.len().min(j + 12) {
            let t = &self.toks[x];
            let joins = self.is_label_mark(x)
                || t.is_punct(',')
                || (t.kind == Kind::Hangul
                    && matches!(strip_beon(self.word(x)), "" | "과" | "와" | "및"))
                || (t.kind == Kind::Latin && self.word(x).eq_ignore_ascii_case("and"));
            if !joins {
                break;
            }
            x += 1;
        }
        let wrong_ko = |y: usize| {
            self.is_hangul(y)
                && (is_negation_word(self.word(y))
                    || ["틀", "오답", "아니", "않", "제외", "잘못"]
                        .iter()
                        .any(|p| self.word(y).starts_with(p)))
        };
        if self.is_hangul(x)
            && ["은", "는", "이", "가", "도"]
                .iter()
                .any(|p| strip_beon(self.word(x)).starts_with(p))
        {
            return (x..self.toks.len().min(x + 4)).any(wrong_ko);
        }
        self.is_latin(x)
            && ["is", "are"]
                .iter()
                .any(|w| self.word(x).eq_ignore_ascii_case(w))
            && self.is_latin(x + 1)
            && ["wrong", "incorrect", "not", "false"]
                .iter()
                .any(|w| self.word(x + 1).eq_ignore_ascii_case(w))
    }

    /// Is the label at `j` ruled out by the words right after it: "C는 오답", "(B) 아님",
    /// "2번은 제외"?
    pub(super) fn ruled_out_after(&self, j: usize) -> bool {
        let ruled_out = |x: usize| {
            self.is_hangul(x)
                && ["오답", "틀", "아니", "아님", "아닙", "제외"]
                    .iter()
                    .any(|p| self.word(x).starts_with(p))
        };
        (self.is_hangul(j + 1)
            && matches!(strip_beon(self.word(j + 1)), "은" | "는" | "이" | "가")
            && ruled_out(j + 2))
            || ruled_out(j + 1)
    }

    /// After a negation ending at `neg_end`, the label it contrasts with: "①이 아니라 ②",
    /// "①이 아닌 ②" state the next label in the same clause; not "③이 아닌 이유는 ③의 …".
    fn contrasted_after(
        &self,
        neg_end: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<(Said, usize)> {
        let w = self.word(neg_end);
        let contrast = ["아니라", "아니고", "아니며"].iter().any(|p| w.contains(p))
            || w.ends_with("아닌") && self.is_label_mark(neg_end + 1);
        if !contrast {
            return None;
        }
        let mut j = neg_end + 1;
        while let Some(t) = self.tok(j) {
            if t.is_sentence_end() || j > neg_end + 4 {
                break;
            }
            if self.label_at(j).is_some() && self.is_label_mark(j) {
                // "A가 아니라 A": the label it rules out is no contrast.
                let (said, last) = self.label_phrase(j, negations)?;
                let sentence = (0..neg_end)
                    .rev()
                    .find(|&x| self.toks[x].is_sentence_end())
                    .map_or(0, |x| x + 1);
                let denied = |c: &Choice| {
                    negations
                        .iter()
                        .any(|&(n, at)| n == *c && (sentence..j).contains(&at))
                };
                return match &said {
                    Said::One(c) if denied(c) => None,
                    _ => Some((said, last)),
                };
            }
            j += 1;
        }
        None
    }

    pub(super) fn label_phrase(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<(Said, usize)> {
        let mut first = self.label_at(k)?;
        // "3번(C)", "C (3번)", "3번, 즉 C": one option written twice reads as one label.
        let mut k = k;
        if let Some((r, j)) = self.same_option_after(k) {
            first = r;
            k = j;
        }
        if self.questioned_after(k) {
            return None;
        }
        if let Some(neg_end) = self.negated_after(k) {
            if let Resolved::In(c) = first {
                negations.push((c, k));
            }
            return self.contrasted_after(neg_end, negations);
        }
        let mut labels = vec![first];
        let mut last = k;
        // Alternatives directly after the label.
        let mut j = k + 1;
        let mut gap = 0;
        while let Some(t) = self.tok(j) {
            // "정답: B (C는 오답)", "정답: (D) ((B) 아님)": a remark in brackets on another
            // label, not an alternative (but "답: 1, 2번은 틀림" may judge both).
            let remark = self.is_label_mark(j)
                && (t.text(self.text).starts_with(['(', '（']) || self.toks[j - 1].is_punct('('))
                && self.ruled_out_after(j);
            if remark {
                break;
            }
            // "정답은 2번 10" where option 2 reads "10": the label's own text, not another.
            if let [Resolved::In(c)] = labels[..] {
                let plain_number = self.tok(j).is_some_and(|t| {
                    t.text(self.text).bytes().all(|b| b.is_ascii_digit())
                        && !(self.is_hangul(j + 1)
                            && self.toks[j + 1].start == t.end
                            && self.word(j + 1).starts_with('번'))
                });
                if self.is_label_mark(j) && plain_number && self.starts_own_option_text(c, j) {
                    break;
                }
            }
            // "정답: ③ - ①과 ②는 틀림", "③, ① is wrong": the labels after it rejected, not
            // offered.
            // Only after a dash or another separator read below: after a comma the first label
            // may be in that list ("답: 1, 2번은 틀림").
            if self.is_label_mark(j)
                && gap > 0
                && (last + 1..j).any(|x| self.is_separator(x))
                && self.rejected_list_at(j)
            {
                break;
            }
            if self.is_label_mark(j) && gap > 0 {
                if let Some(r) = self.label_at(j) {
                    labels.push(r);
                    last = j;
                    gap = 0;
                    j += 1;
                    continue;
                }
            }
            if self.is_label_mark(j)
                && gap == 0
                && j == last + 1
                && (self.two_notations(last, j) || !self.starts_option_text(j))
            {
                // Two labels side by side: "③ (3)".
                if let Some(r) = self.label_at(j) {
                    labels.push(r);
                    last = j;
                    j += 1;
                    continue;
                }
            }
            // `["B", "C"]`: quotes around listed labels are not a gap.
            if (t.is_punct('"') || t.is_punct('\'')) && gap < 3 {
                j += 1;
                continue;
            }
            // "③ - ② 중 하나", "③ → ②", "C + B", "C vs B", "C; B", "③ 그리고 ②": a second
            // label after a separator is offered too (unless rejected, above).
            let connector = is_alternative_connector(t, self.text)
                || (self.is_separator(j) && self.next_is_label_mark(j))
                || t.is_punct(')')
                || self.is_namely(j)
                || (t.kind == Kind::Hangul && strip_beon(self.word(j)).is_empty())
                // "option 2 and option 3", "② 또는 선택지 ③": the noun again after a connector
                // word (not after a comma: "option 2, and option 3 is wrong").
                || (gap > 0
                    && !(k..j).any(|x| self.toks[x].is_punct(','))
                    && ((t.kind == Kind::Latin
                        && ["option", "choice", "answer", "number"]
                            .iter()
                            .any(|n| self.word(j).eq_ignore_ascii_case(n)))
                        || (t.kind == Kind::Hangul
                            && OPTION_NOUN_WORDS.contains(&self.word(j)))));
            if connector && gap < 3 {
                gap += 1;
                j += 1;
                continue;
            }
            break;
        }
        // "정답은 1번, 2번, 3번이 아닌 4번": every label listed (joined by commas or 와/과, not
        // side by side as "③ ①이 아니라") ruled out, the next one stated.
        let listed = (k + 1..=last).all(|x| {
            !self.is_label_mark(x)
                || (self.toks[x - 1].is_punct(',')
                    || (self.is_hangul(x - 1)
                        && matches!(strip_beon(self.word(x - 1)), "와" | "과" | "및")))
        });
        if labels.len() > 1 && listed {
            if let Some(neg_end) = self.negated_after(last) {
                negations.extend((k..=last).filter_map(|x| {
                    self.is_label_mark(x)
                        .then(|| self.choice_at(x).map(|c| (c, x)))
                        .flatten()
                }));
                return self.contrasted_after(neg_end, negations);
            }
        }
        // "1번과 4번 중 4번", "(A)(B)(C)(D) 중 (D)": one picked from the list just named.
        if labels.len() > 1
            && self.is_hangul(last + 1)
            && matches!(self.word(last + 1), "중" | "중에서" | "중에")
            && self.is_label_mark(last + 2)
        {
            if let Some(r) = self.label_at(last + 2) {
                if labels.contains(&r) {
                    return self.label_phrase(last + 2, negations);
                }
            }
        }
        // "둘 다", "모두", "both" after a list.
        let said = said_of(&labels);
        if let Said::Many(_) = said {
            return Some((said, last));
        }
        // Hedged second choice later in the same sentence: "③일 수도 있고 ④일 수도 있다".
        let mut hedged = false;
        let mut others: Vec<Choice> = Vec::new();
        let mut j = last + 1;
        while let Some(t) = self.tok(j) {
            if t.is_sentence_end() {
                break;
            }
            // "①도 정답일 수 있음": another choice put up as also right.
            let also = self.is_label_mark(j)
                && self.is_hangul(j + 1)
                && strip_beon(self.word(j + 1)) == "도";
            // "정답은 A=3, 즉 C입니다": a label after 즉 restates the answer, so another
            // choice there is a second one.
            let namely = self.restated_at(j);
            if also || namely || is_hedge(t, self.text) {
                hedged = true;
            }
            if self.is_label_mark(j) {
                if let Some(Resolved::In(c)) = self.label_at(j) {
                    if self.negated_after(j).is_none() {
                        others.push(c);
                    }
                }
            }
            j += 1;
        }
        // "정답은 ②입니다. 아니면 ③일 수도 있습니다.": an alternative opening the next sentence.
        if let Some(alt) = self.alternative_opening(j) {
            hedged = true;
            others.push(alt);
        }
        if hedged {
            if let Said::One(c) = said {
                if others.iter().any(|&o| o != c) {
                    let mut all = vec![c];
                    all.extend(others);
                    if let Said::Many(m) =
                        said_of(&all.into_iter().map(Resolved::In).collect::<Vec<_>>())
                    {
                        return Some((Said::Many(m), last));
                    }
                }
            }
        }
        Some((said, last))
    }

    /// "즉" ("that is") between two labels.
    pub(super) fn is_namely(&self, j: usize) -> bool {
        self.is_hangul(j) && self.word(j) == "즉"
    }

    /// The label after the one at `k` when both name one option: "3번(C)", "③ (C)",
    /// "3번, 즉 C". Returns how the set reads it and the second label's token.
    fn same_option_after(&self, k: usize) -> Option<(Resolved, usize)> {
        let mut bracketed = false;
        for j in k + 1..k + 5 {
            let t = self.tok(j)?;
            if self.is_label_mark(j) {
                bracketed |= t.text(self.text).starts_with(['(', '（']);
                return self.same_option_two_ways(k, j, bracketed).map(|r| (r, j));
            }
            let bare_beon = t.kind == Kind::Hangul && strip_beon(self.word(j)).is_empty();
            if t.is_punct('(') || self.is_namely(j) {
                bracketed = true;
            } else if !(bare_beon || t.is_punct(',') || t.is_punct('=')) {
                return None;
            }
        }
        None
    }

    /// The labels at `a` and `b` name one option in two notations, its position and its
    /// label ("3번(C)" on a lettered set, "③ (C)" on a circled one), when the second is
    /// `bracketed` or introduced by "즉" after the first. Returns how the set reads
    /// that option.
    fn same_option_two_ways(&self, a: usize, b: usize, bracketed: bool) -> Option<Resolved> {
        if !bracketed || !self.is_label_mark(b) {
            return None;
        }
        let position = |k: usize| match self.mark_at(k)? {
            Mark::Num(n) | Mark::Circled(n) => Some((false, n)),
            Mark::Letter(n) => Some((true, n)),
            _ => None,
        };
        let (letter_a, n_a) = position(a)?;
        let (letter_b, n_b) = position(b)?;
        if letter_a == letter_b || n_a != n_b {
            return None;
        }
        match (self.label_at(a)?, self.label_at(b)?) {
            (r @ Resolved::In(_), _) | (_, r @ Resolved::In(_)) => Some(r),
            _ => Some(Resolved::Outside),
        }
    }

    /// What the label `r` at token `m` says together with labels joined to it from the left
    /// ("(2) 혹은 (3)이 답", "A or B is the answer", "①, ②가 정답"), and the group's first
    /// token. A disjunction on either side of a statement makes it name several choices.
    pub(super) fn said_with_left_alternatives(&self, m: usize, r: Resolved) -> (Said, usize) {
        let mut labels = vec![r];
        let mut first = m;
        'group: while first > 0 {
            let mut i = first;
            let mut connected = false;
            for _ in 0..3 {
                if i == 0 {
                    break 'group;
                }
                i -= 1;
                if self.is_label_mark(i) {
                    // "3번(C)이 정답": one option in two notations; "2번(C)이 정답": two.
                    let same = self
                        .same_option_after(i)
                        .filter(|&(_, j)| j == first)
                        .map(|(r, _)| r);
                    if let Some(same) = same {
                        if let Some(l) = labels.last_mut() {
                            *l = same;
                        }
                        first = i;
                        continue 'group;
                    }
                    // "②③이 정답", "2번(C)이 정답": labels side by side are alternatives.
                    let side_by_side = (i + 1..first).all(|x| {
                        self.toks[x].kind == Kind::Hangul && strip_beon(self.word(x)).is_empty()
                    });
                    match self.label_at(i) {
                        Some(l) if connected || side_by_side => {
                            labels.push(l);
                            first = i;
                            continue 'group;
                        }
                        _ => break 'group,
                    }
                }
                let t = &self.toks[i];
                let bare_beon = t.kind == Kind::Hangul && strip_beon(self.word(i)).is_empty();
                if is_alternative_connector(t, self.text)
                    || (t.kind == Kind::Latin && lower(self.word(i)) == "either")
                {
                    connected = true;
                } else if !(t.is_punct(')') || bare_beon) {
                    break 'group;
                }
            }
            break;
        }
        labels.reverse();
        (said_of(&labels), first)
    }

    /// "正解は③ではなく②です", "答案不是③，而是②": after the Chinese or Japanese marker
    /// ending at token `end`, one label denied and another given in its place (as "③이
    /// 아니라 ②"); the second, with its token.
    pub(super) fn cjk_not_but(&self, end: usize) -> Option<(Said, usize)> {
        let from = |x: usize| self.tok(x).map_or("", |t| &self.text[t.start as usize..]);
        let label_within =
            |x: usize, n: usize| (x..self.toks.len().min(x + n)).find(|&y| self.is_label_mark(y));
        let mut j = end + 1;
        let (first, then) = if from(j).starts_with("不是") {
            let first = label_within(j, 4)?;
            let mut n = first + 1;
            while self
                .tok(n)
                .is_some_and(|t| matches!(t.kind, Kind::Punct(_)) || t.text(self.text) == "、")
            {
                n += 1;
            }
            (first, from(n).starts_with("而是").then_some(n))
        } else {
            while matches!(
                self.tok(j).map(|t| t.text(self.text)),
                Some("は" | "是" | ":")
            ) {
                j += 1;
            }
            let first = j;
            let not = ["ではなく", "じゃなく", "でなく"];
            let next = from(first + 1);
            (
                first,
                (self.is_label_mark(first) && not.iter().any(|w| next.starts_with(w)))
                    .then_some(first + 1),
            )
        };
        let second = label_within(then?, 8)?;
        (first < second && self.is_label_mark(first))
            .then(|| self.label_at(second))
            .flatten()
            .map(|r| (said_of(&[r]), second))
    }
}
