//! Statements whose own clause takes them back: "③번을 정답으로 보기 어렵습니다", "정답은
//! ③이라고 할 수 없다", "②를 선택하면 틀립니다", "정답은 ②번으로 보이지만, …", "I would not
//! choose C", "The answer is B, but …". The words that make the statement ("정답은 ③",
//! "③을 선택") are there, but the clause denies, doubts, supposes or concedes them, so they
//! state nothing; what the answer does state is left to the other statements, or to the judge.
//!
//! Only the statement's own clause is read: from its last token (the label, or the keyword or
//! verb after the label) to the end of the sentence or of the clause ("정답은 ③번이며, 나머지는
//! 틀렸다" states ③).

use super::option_text::{squash, squash_chars};
use super::words::{is_belief_given_up, is_negation_word, is_past_perfect, lower, strip_beon};
use super::{Ctx, Said, Statement, Strength};
use crate::verify::scan::{Kind, Tok};
use crate::verify::{Choice, Rule};

/// Stems that deny or doubt what the clause says: "어렵다", "할 수 없다", "않다", "안 된다",
/// "못하다", "아니다", "틀렸다", "잘못이다", "오답이다", "오류입니다", "착각", "부족하다",
/// "제외된다".
const DENIALS: [&str; 23] = [
    "어렵", "어려", "힘들", "힘듭", "없", "않", "못", "아니", "아닌", "아닙", "아님", "아냐",
    "틀리", "틀렸", "틀린", "틀립", "틀릴", "잘못", "오답", "오류", "착각", "부족", "제외",
];

/// Further stems that deny only as their own word: "낮습니다" (of a likelihood), "마세요",
/// "말아야", "의문", "의심", "불가".
const DENIAL_PREFIXES: [&str; 8] = ["낮", "마세", "마십", "말아", "말고", "의문", "의심", "불가"];

/// English words that concede or suppose after a statement ("The answer is B, but …").
const CONCESSIONS: [&str; 6] = ["but", "though", "although", "however", "unless", "if"];

/// Endings that ask: "정답은 ③이라고 할 수 있을까요", "③인지", "③일지".
const ASKING: [&str; 7] = ["까요", "까", "는가", "나요", "인지", "일지", "을지"];

/// Endings of a statement's own last word that suppose or concede: "선택하면", "선택해도",
/// "정답이라면", "정답이지만", "고르나". Later in the clause only "-라면/-다면" suppose ("계산해 보면" and
/// "살펴보면" open the next clause).
const SUPPOSING: [&str; 8] = [
    "면",
    "지만",
    "으나",
    "해도",
    "어도",
    "아도",
    "라도",
    "니다만",
];

/// Clause endings after which the statement's clause is over ("정답은 ③번이며, …",
/// "③번이고 …", "③번이므로 …") and sentence-final endings ("③번입니다").
const CLAUSE_ENDS: [&str; 12] = [
    "고", "며", "므로", "니까", "어서", "아서", "여서", "다", "요", "죠", "음", "임",
];

impl Ctx<'_> {
    /// Does the statement's own clause deny, doubt, suppose or concede it?
    pub(super) fn takes_back(&self, s: &Statement) -> bool {
        // A statement of several choices decides nothing anyway, and says so.
        // Nor does one outside the set (it is invalid whatever its clause says).
        if matches!(s.said, Said::Many(_) | Said::Outside) {
            return false;
        }
        let (first, last) = (s.first.min(s.last), s.first.max(s.last));
        // "정답은 ③번과", "The answer is C or", "정답: ③ … 잠깐,": never finished. "Let me
        // pick A and check": tried, not given.
        if self.tried_to_check(s)
            || self.cut_off_after(last)
            || self.second_thought_left_open(last)
            || self.not_asserted_after(last)
            || self.cjk_doubt_after(last)
        {
            return true;
        }
        // "결론: ③번 보기는 옳은 설명이다" asked what is not so; "… so B is excluded".
        if s.first < s.last && self.subject_ruled_out(last) {
            return true;
        }
        // "I would not choose C", "I wouldn't pick C", "never select".
        // "I doubt 4 is correct", "It is unclear whether D is correct": a label after English
        // words too.
        let after_latin =
            first > 0 && self.toks[first].mark().is_some() && self.is_latin(first - 1);
        if (self.is_latin(first) || after_latin) && self.latin_denied_before(first) {
            return true;
        }
        // "Answer: C. This is a guess; treat as no answer.", "… do not grade": the text asks
        // for its answer not to count.
        if self.asks_not_to_count(last) {
            return true;
        }
        // "문제: 옳은 것은? 답: ③" on a question asking which is not: another question's answer.
        if self.about_another_question(first)
            || self.drafted_before(first)
            || (self.after_question_mark(first) && self.answers_posed_ask(first))
        {
            return true;
        }
        // "Every option but C is right", "Each option other than C is correct".
        if first > 0
            && self.toks[first].mark().is_some()
            && self.is_latin(first - 1)
            && matches!(
                lower(self.word(first - 1)).as_str(),
                "but" | "except" | "than" | "besides" | "excluding"
            )
        {
            return true;
        }
        let from = self.after_restated_option(s, last);
        if self.taken_back_before(first, last) || self.reported_after(first, last, from) {
            return true;
        }
        // The statement's last word may carry the ending itself: "③을 선택하면", "③이
        // 정답이라면", "③번을 정답으로 고르면", "③이 정답이지만".
        if last > first && self.is_hangul(last) {
            let w = self.word(last);
            if SUPPOSING.iter().any(|e| w.ends_with(e)) {
                return true;
            }
            if self.conceded_wish(last + 1) {
                return true;
            }
            // "③이라고 생각했었다": a belief held before; "③을 선택했던 작년과 달리".
            if is_past_perfect(w) || self.choice_as_a_mistake(last) {
                return true;
            }
            // "③입니다, 라고 말하면 틀립니다": quoted; read on.
            let quoted_next = self.quote_follows(last);
            if ends_clause(w) && !quoted_next {
                return self.retracted_after(last);
            }
        }
        // "③이 정답이라는 주장은 틀렸습니다": after a quotative the judgement is of a claim.
        let quotative = |x: usize| {
            self.is_hangul(x)
                && ["라는", "다는", "라고", "다고"]
                    .iter()
                    .any(|e| self.word(x).ends_with(e))
        };
        // "\"정답은 ③입니다\"는 틀린 말입니다": a closing quote, then the quote as a topic.
        // "기존 답안 \"정답: ③\"을 폐기합니다", "이전 답변(정답: ③)을 철회합니다": the quoted
        // or bracketed statement as the topic or object of the clause.
        let mut quoted = quotative(last)
            || (self.tok(from).is_some_and(|t| {
                t.is_punct('"')
                    || t.is_punct('”')
                    || t.is_punct('\'')
                    || t.is_punct('’')
                    || t.is_punct(')')
            }) && self.is_hangul(from + 1)
                && ["는", "은", "이", "가", "을", "를", "라는", "라고"]
                    .contains(&self.word(from + 1)));
        // "Answer: C is wrong.", "Answer: C would be wrong here.", "The answer C is not
        // correct.": the label called wrong right after it.
        // "\"The answer is C\" is a common misconception": past the closing quote.
        let mut j = from;
        if self
            .tok(j)
            .is_some_and(|t| t.is_punct('"') || t.is_punct('”'))
            && self.is_latin(j + 1)
        {
            j += 1;
        }
        let from = j;
        while self.is_latin(j)
            && matches!(
                lower(self.word(j)).as_str(),
                "is" | "was" | "would" | "will" | "be" | "seems" | "looks" | "definitely"
            )
        {
            j += 1;
        }
        // "…, which is a mistake", "…, some might say", "…, said no one".
        if self.hearsay_after(from) {
            return true;
        }
        // "The answer is C is a myth", "… is a common misconception": the claim called one.
        let mut m = j;
        while j > from
            && self.is_latin(m)
            && matches!(
                lower(self.word(m)).as_str(),
                "a" | "an" | "common" | "popular" | "widespread" | "classic" | "just"
            )
        {
            m += 1;
        }
        if j > from
            && self.is_latin(m)
            && matches!(
                lower(self.word(m)).as_str(),
                "wrong"
                    | "incorrect"
                    | "false"
                    | "not"
                    | "invalid"
                    | "myth"
                    | "misconception"
                    | "trap"
                    | "mistake"
                    | "fallacy"
            )
        {
            return true;
        }
        if self.called_off_after(last, from) || self.under_old_rules(first, from) {
            return true;
        }
        let mut remark_end = from;
        for j in from..self.toks.len().min(from + 10) {
            let t = self.toks[j];
            if j < remark_end {
                continue;
            }
            // "정답은 ①\n\n이 아닙니다.": the statement's own predicate, split onto the next line.
            if t.kind == Kind::Break && j == last + 1 {
                let mut n = j + 1;
                if self.is_hangul(n) && ["이", "가", "은", "는"].contains(&self.word(n)) {
                    n += 1;
                }
                if (self.is_hangul(n) && is_negation_word(self.word(n)))
                    || self.continued_on_next_line(j)
                {
                    return true;
                }
            }
            // "정답은 ③... 이 아니겠죠": the predicate after an ellipsis.
            if (last + 1..j).all(|x| self.toks[x].is_punct(')')) && self.split_by_ellipsis(j) {
                return true;
            }
            if t.is_sentence_end() {
                // "정답은 ③이라고 할 수 있을까요?"; "그러므로 ②. 그러나 이는 오답이다."
                return t.is_punct('?')
                    || self.next_sentence_retracts(j - 1)
                    || self.answer_called_wrong_after(j)
                    || self.quote_rejected_after(j);
            }
            // "정답: ② (학생들이 자주 틀리는 문제)": a remark in brackets takes nothing back
            // unless it doubts the answer ("(확실하지 않음)", "(아마)").
            // "정답: ③ [삭제]": a square-bracketed tag as well.
            if t.is_punct('(') || t.is_punct('[') {
                let closing = if t.is_punct('(') { ')' } else { ']' };
                let close = (j + 1..self.toks.len().min(j + 16))
                    .take_while(|&x| self.toks[x].kind != Kind::Break)
                    .find(|&x| self.toks[x].is_punct(closing));
                if let Some(close) = close {
                    let doubts = self.bracket_doubts(j, close);
                    if doubts {
                        return true;
                    }
                    remark_end = close + 1;
                    continue;
                }
            }
            // "정답: ① 청문 / ③ 의견제출": another label offered beside it.
            if t.is_punct('/') && self.is_label_mark(j + 1) {
                return true;
            }
            match t.kind {
                // "The answer is B, but …", "정답은 ③, 하지만 …": conceded after a comma.
                // "정답은 ③, 이라고 많은 수험생이 착각한다": the clause quoted after a comma.
                Kind::Punct(',') if self.tok(j + 1).is_some() && quotative(j + 1) => {
                    quoted = true;
                }
                Kind::Punct(',' | ';') => {
                    return self.tok(j + 1).is_some_and(|n| match n.kind {
                        Kind::Latin => CONCESSIONS.contains(&lower(self.word(j + 1)).as_str()),
                        Kind::Hangul => {
                            matches!(self.word(j + 1), "하지만" | "그러나" | "그런데" | "다만")
                        }
                        _ => false,
                    })
                }
                Kind::Hangul => {
                    let w = self.word(j);
                    // On a question asking what is not so, "정답: ③ (옳지 않음)" and "정답은 ③,
                    // 틀린 설명" describe the chosen option as asked; they deny nothing.
                    if self.asks_negative() && self.describes_as_wrong(j) && !quoted {
                        continue;
                    }
                    quoted |= quotative(j);
                    // "'정답은 ③'이라는 해설은 오류입니다", "…라는 말은 거짓입니다": the claim is
                    // called false.
                    // "…이라는 것은 흔한 오해다", "…이라는 건 함정이다", "…이라는 생각은 버려라",
                    // "…이라고 쓰는 실수를 하지 말자".
                    if quoted
                        && [
                            "거짓", "오류", "잘못", "오해", "함정", "미신", "속설", "실수", "버려",
                            "버리", "지웠", "지우", "철회", "취소", "폐기", "삭제", "무효", "번복",
                        ]
                        .iter()
                        .any(|d| w.contains(d))
                    {
                        return true;
                    }
                    if self.label_as_reference(j, from) || self.choice_as_a_mistake(j) {
                        return true;
                    }
                    if self.conceded_wish(j) || (w.ends_with('고') && self.conceded_wish(j + 1)) {
                        return true;
                    }
                    // "정답: ( 4번 )처럼 쓰세요", "정답: ③ 과 같이 답하세요": a template.
                    if w.starts_with("처럼")
                        || (["과", "와"].contains(&w)
                            && self.is_hangul(j + 1)
                            && self.word(j + 1).starts_with("같이"))
                    {
                        return true;
                    }
                    let denial = w == "안" || is_denial(w);
                    let asking = ASKING.iter().any(|e| w.ends_with(e));
                    // "틀림없이", "③번밖에 없다", "의심의 여지가 없다": certainty, not doubt;
                    // "③이 아닐까 싶습니다", "③이 아닌가 합니다": a tentative yes.
                    let not_doubt = (denial || asking)
                        && (w.contains("틀림없")
                            || w.starts_with("아닐까")
                            || w.starts_with("아닌가")
                            || (w.starts_with('없')
                                && j > 0
                                && self.is_hangul(j - 1)
                                && (self.word(j - 1).ends_with("밖에")
                                    || self.word(j - 1).starts_with("여지"))));
                    if not_doubt {
                        continue;
                    }
                    if denial
                        || asking
                        // "③이라고 생각했었다", "③으로 알고 있었다": a belief held before.
                        || is_past_perfect(w)
                        // "③이었던 적이 있다": once, not now.
                        || ((w.ends_with("었던") || w.ends_with("였던"))
                            && self.is_hangul(j + 1)
                            && self.word(j + 1).starts_with('적'))
                        || (w == "알고"
                            && self.is_hangul(j + 1)
                            && self.word(j + 1).starts_with("있었"))
                        // "③이었으면 좋았을 텐데", "③이었는데 바뀌었다": wished for, or past.
                        || [
                            "라면", "다면", "지만", "으나", "었으면", "였으면", "었는데", "였는데",
                            // "정답은 ③입니다만, …": conceded.
                            "니다만",
                            // "③이라고 쓰려다 (말았다)": meant, not done.
                            "려다", "려다가",
                            // "③이라고 적었다가 (지웠다)": done, then undone.
                            "었다가", "였다가", "했다가",
                            // "③이라고들 한다": what people say.
                            "라고들", "다고들",
                            // "③이 정답이 되려면": a condition.
                            "려면",
                        ]
                        .iter()
                        .any(|e| w.ends_with(e))
                        // "③번이 정답인 것 같기도 하고 ②번인 것 같기도": both ways.
                        || w.contains("기도")
                        // "③인 줄 알았는데": a belief given up.
                        || (w == "줄" && self.is_hangul(j + 1) && self.word(j + 1).starts_with("알았"))
                        // "정답은 ③이라고 생각했는데, …", "③이라고 봤는데": the statement quoted
                        // as a view held before, then something else: a belief given up,
                        // unless stated again.
                        || (j <= last + 2 && quotative(j - 1) && is_belief_given_up(w))
                        // "② 또는" at the end: an alternative left open.
                        || (j == last + 1
                            && matches!(w, "또는" | "혹은" | "아니면" | "내지")
                            && self.tok(j + 1).is_none_or(|n| n.is_sentence_end()))
                    {
                        return true;
                    }
                    // "정답은 ③입니다, 라고 말하면 틀립니다", "정답: ③ — 라고 쓰려다": the
                    // whole statement quoted after a comma or a dash.
                    if j > from
                        && ["라고", "라는", "라며"].iter().any(|q| w.starts_with(q))
                        && matches!(self.toks[j - 1].kind, Kind::Punct(',' | '—' | '–' | '-'))
                    {
                        quoted = true;
                        continue;
                    }
                    // "정답은 ③ 입니다 라고 쓰면 안 됩니다": the clause is quoted.
                    if ends_clause(w) && self.quote_follows(j) {
                        quoted = true;
                        continue;
                    }
                    if ends_clause(w) {
                        return self.retracted_after(j);
                    }
                }
                Kind::Latin
                    if CONCESSIONS.contains(&lower(self.word(j)).as_str())
                        || self.doubting_or(j) =>
                {
                    return true;
                }
                // "Answer: C — never mind, I don't know.", "… with probability 0.4", "(just
                // kidding)": taken back, or one possibility among others.
                Kind::Latin
                    if ["kidding", "probability", "chance", "likelihood", "wait"]
                        .iter()
                        .any(|w| self.word(j).eq_ignore_ascii_case(w))
                        // "— no, I take that back"
                        || (self.word(j).eq_ignore_ascii_case("no")
                            && j > 0
                            && self.toks[j - 1].is_punct('-'))
                        || (self.is_latin(j + 1)
                            && [("never", "mind"), ("take", "that")].iter().any(|(a, b)| {
                                self.word(j).eq_ignore_ascii_case(a)
                                    && self.word(j + 1).eq_ignore_ascii_case(b)
                            })) =>
                {
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    pub(super) fn drop_taken_back(
        &self,
        stmts: &mut Vec<Statement>,
        negations: &mut Vec<(Choice, usize)>,
    ) {
        let (taken, kept): (Vec<Statement>, Vec<Statement>) =
            stmts.drain(..).partition(|s| self.takes_back(s));
        *stmts = kept;
        // "정답은 ②입니다. 정답은 ③입니다. 확실하지 않네요.": a retraction takes back what
        // came before it too, so that an earlier statement is not revived.
        let retracted_at: Option<usize> = taken
            .iter()
            .filter(|t| {
                let last = t.first.max(t.last);
                // "정답은 ②입니다. … 따라서 최종 정답은 ③번과": cut off, or a second
                // thought left open; the earlier answer is not the final one either.
                self.retracted_by_next_sentence(last)
                    || self.cut_off_after(last)
                    || self.second_thought_left_open(last)
                    || self.cjk_doubt_after(last)
            })
            .map(|t| t.first.min(t.last))
            .max();
        if let Some(at) = retracted_at {
            stmts.retain(|s| s.first.max(s.last) > at);
            self.retracted.set(true);
        }
        for t in &taken {
            let (a, b) = (t.first.min(t.last), t.first.max(t.last));
            negations.extend((a..=b).filter_map(|m| {
                (self.is_label_mark(m))
                    .then(|| self.choice_at(m).map(|c| (c, m)))
                    .flatten()
            }));
        }
        let corrects = |earlier: &Statement, s: &Statement| {
            earlier.first.max(earlier.last) < s.first.min(s.last)
                && self.correction_between(earlier.first.max(earlier.last), s.first.min(s.last))
        };
        // Calling an option right answers a question that asks what is not so only if
        // "right" meant "the right answer", as when it corrects an earlier choice ("처음엔 ③로
        // 봤지만 다시 보니 ④가 맞다"); otherwise it is left undecided there.
        if self.asks_negative() {
            let keep: Vec<bool> = stmts
                .iter()
                .map(|s| !s.judges || stmts.iter().chain(&taken).any(|e| corrects(e, s)))
                .collect();
            let mut keep = keep.into_iter();
            stmts.retain(|_| keep.next().unwrap_or(true));
        }
        for s in stmts.iter_mut() {
            if s.strength == Strength::Weak && !s.view && taken.iter().any(|t| corrects(t, s)) {
                s.strength = Strength::Strong;
                s.rule = Rule::CorrectedStatement;
            }
        }
    }

    /// Is token `x` a wish conceded ("싶지만", "싶으나", "싶은데"), so that the choice before it
    /// ("③을 고르고 싶지만", "정답은 ③이라고 하고 싶지만") is not made?
    fn conceded_wish(&self, x: usize) -> bool {
        self.is_hangul(x) && {
            let v = self.word(x);
            v.starts_with('싶') && ["지만", "으나", "는데"].iter().any(|e| v.ends_with(e))
        }
    }

    /// Where the clause after a statement's label goes on, past the label's own option text
    /// written after it ("정답은 (1) 대표이사와 회계담당 임원(… 없는 경우에는 …)입니다": the
    /// option's words deny nothing).
    fn after_restated_option(&self, s: &Statement, last: usize) -> usize {
        let mut j = last + 1;
        let Said::One(c) = s.said else {
            return j;
        };
        if self.is_hangul(j) && strip_beon(self.word(j)).is_empty() {
            j += 1;
        }
        // "Answer: A) 시효는 …", "③. …", "2 - …": the label's list punctuation.
        while self
            .tok(j)
            .is_some_and(|t| matches!(t.kind, Kind::Punct(')' | '.' | ':' | '-')))
        {
            j += 1;
        }
        // Most labels are not followed by their option's text: the first word rules that out
        // before the options are squashed.
        let first_word = self
            .set
            .options()
            .get(c.index())
            .and_then(|o| o.split_whitespace().next());
        // Is one of the token and the option's first word, squashed, a prefix of the other?
        let starts = |t: &Tok| {
            first_word.is_some_and(|f| {
                let (mut a, mut b) = (squash_chars(t.text(self.text)), squash_chars(f));
                loop {
                    match (a.next(), b.next()) {
                        (Some(x), Some(y)) if x == y => {}
                        (Some(_), Some(_)) => return false,
                        _ => return true,
                    }
                }
            })
        };
        if !self.tok(j).is_some_and(starts) {
            return last + 1;
        }
        let Some(option) = self.squashed_option(c) else {
            return last + 1;
        };
        let mut written = String::new();
        let mut matched = 0;
        while let Some(t) = self.tok(j) {
            if t.kind == Kind::Break {
                break;
            }
            written.push_str(&squash(t.text(self.text)));
            if !option.starts_with(written.as_str()) {
                break;
            }
            matched = written.chars().count();
            j += 1;
        }
        if matched < 2 {
            return last + 1;
        }
        j
    }

    /// Is the Latin word at `k` denied by one of the three words before it in its clause
    /// ("would not choose", "wouldn't pick", "never select", "don't choose"; not "Since it
    /// does not, the answer is 3")?
    fn latin_denied_before(&self, k: usize) -> bool {
        (k.saturating_sub(6)..k)
            .rev()
            // "A is not correct and B is correct": a clause of its own.
            .take_while(|&j| {
                let ends = self.toks[j].is_sentence_end()
                    || matches!(self.toks[j].kind, Kind::Punct(',' | ';' | ':'))
                    || (self.is_latin(j)
                        && matches!(
                            lower(self.word(j)).as_str(),
                            "and"
                                | "but"
                                | "so"
                                | "while"
                                | "whereas"
                                | "therefore"
                                | "thus"
                                | "hence"
                                | "because"
                                | "since"
                        ));
                !ends
            })
            .any(|j| {
                self.is_latin(j)
                    && match lower(self.word(j)).as_str() {
                        "not" | "never" | "cannot" | "almost" | "nearly" => true,
                        // "I doubt the answer is C", "It's unlikely that …", "If only the answer
                        // were C", "Were the answer C, …", "It is false that …".
                        "doubt" | "doubtful" | "unlikely" | "if" | "were" | "whether" | "false"
                        | "untrue" | "unless" => true,
                        // "It's hard to say that D is correct", "There's no guarantee D is
                        // correct", "Nobody can prove D is correct".
                        "hard" | "difficult" | "impossible" | "unclear" | "uncertain"
                        | "unsure" | "nobody" | "guarantee" | "debatable" | "questionable" => true,
                        // "I was going to answer B": a choice not made.
                        "going" => {
                            j >= 1
                                && self.is_latin(j - 1)
                                && matches!(lower(self.word(j - 1)).as_str(), "was" | "were")
                        }
                        // "wouldn't", "don't", "won't": the t after an apostrophe.
                        "t" => j >= 1 && self.toks[j - 1].is_punct('\''),
                        _ => false,
                    }
            })
    }
}

/// Does the Hangul word deny or doubt (see `DENIALS`, `DENIAL_PREFIXES`)? Each stem is looked
/// for only where the word has its first syllable: most words have none of them.
pub(super) fn is_denial(w: &str) -> bool {
    const FIRSTS: [char; 12] = [
        '어', '힘', '없', '않', '못', '아', '틀', '잘', '오', '착', '부', '제',
    ];
    const PREFIX_FIRSTS: [char; 5] = ['낮', '마', '말', '의', '불'];
    if w.starts_with(PREFIX_FIRSTS) && DENIAL_PREFIXES.iter().any(|d| w.starts_with(d)) {
        return true;
    }
    w.char_indices()
        .any(|(i, c)| FIRSTS.contains(&c) && DENIALS.iter().any(|d| w[i..].starts_with(d)))
}

/// Does the Hangul word end the clause before a statement, walking left: a clause ending or
/// a concessive one ("…봤지만", "…있으나", "…했는데")?
pub(super) fn is_clause_boundary(w: &str) -> bool {
    ends_clause(w) || ["지만", "으나", "는데"].iter().any(|e| w.ends_with(e))
}

/// Does the Hangul word end the statement's clause ("③번이며", "③번입니다")? A quotative
/// ("③이라고", "정답이라고") does not: what is said of the quote follows.
fn ends_clause(w: &str) -> bool {
    // Every ending in `CLAUSE_ENDS` ends in one of these syllables.
    let Some(last) = w.chars().next_back() else {
        return false;
    };
    if !matches!(
        last,
        '고' | '며' | '로' | '까' | '서' | '다' | '요' | '죠' | '음' | '임'
    ) {
        return false;
    }
    CLAUSE_ENDS.iter().any(|e| w.ends_with(e))
        && !["다고", "라고", "냐고", "자고"]
            .iter()
            .any(|q| w.ends_with(q))
}
