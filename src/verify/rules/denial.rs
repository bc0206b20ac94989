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
use super::words::{is_conditional_negation, lower, strip_beon};
use super::{Ctx, Said, Statement, Strength};
use crate::verify::scan::{Kind, Tok};
use crate::verify::{Choice, Rule};

/// Stems that deny or doubt what the clause says: "어렵다", "할 수 없다", "않다", "안 된다",
/// "못하다", "아니다", "틀렸다", "잘못이다", "오답이다", "착각", "부족하다", "제외된다".
const DENIALS: [&str; 22] = [
    "어렵", "어려", "힘들", "힘듭", "없", "않", "못", "아니", "아닌", "아닙", "아님", "아냐",
    "틀리", "틀렸", "틀린", "틀립", "틀릴", "잘못", "오답", "착각", "부족", "제외",
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
const SUPPOSING: [&str; 7] = ["면", "지만", "으나", "해도", "어도", "아도", "라도"];

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
        // "I would not choose C", "I wouldn't pick C", "never select".
        if self.is_latin(first) && self.latin_denied_before(first) {
            return true;
        }
        if self.about_another_question(first) {
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
            if ends_clause(w) {
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
        let mut quoted = quotative(last);
        let mut remark_end = from;
        for j in from..self.toks.len().min(from + 10) {
            let t = self.toks[j];
            if j < remark_end {
                continue;
            }
            if t.is_sentence_end() {
                // "정답은 ③이라고 할 수 있을까요?"; "그러므로 ②. 그러나 이는 오답이다."
                return t.is_punct('?') || self.next_sentence_retracts(j - 1);
            }
            // "정답: ② (학생들이 자주 틀리는 문제)": a remark in brackets takes nothing back
            // unless it doubts the answer ("(확실하지 않음)", "(아마)").
            if t.is_punct('(') {
                let close = (j + 1..self.toks.len().min(j + 16))
                    .take_while(|&x| self.toks[x].kind != Kind::Break)
                    .find(|&x| self.toks[x].is_punct(')'));
                if let Some(close) = close {
                    let doubts = (j + 1..close).any(|x| {
                        self.is_hangul(x)
                            && ["확실", "모르", "추정", "수도", "아마", "틀릴"]
                                .iter()
                                .any(|d| self.word(x).contains(d))
                    });
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
                        || ["라면", "다면", "지만", "으나"].iter().any(|e| w.ends_with(e))
                        // "③번이 정답인 것 같기도 하고 ②번인 것 같기도": both ways.
                        || w.contains("기도")
                        // "③인 줄 알았는데": a belief given up.
                        || (w == "줄" && self.is_hangul(j + 1) && self.word(j + 1).starts_with("알았"))
                        // "② 또는" at the end: an alternative left open.
                        || (j == last + 1
                            && matches!(w, "또는" | "혹은" | "아니면" | "내지")
                            && self.tok(j + 1).is_none_or(|n| n.is_sentence_end()))
                    {
                        return true;
                    }
                    if ends_clause(w) {
                        return self.retracted_after(j);
                    }
                }
                Kind::Latin if CONCESSIONS.contains(&lower(self.word(j)).as_str()) => {
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// Take back the statements whose clause denies them (see `takes_back`): their labels
    /// count as denied, and a weaker claim after one of them and a self-correction ("처음엔
    /// ②로 봤지만 다시 보니 ④가 맞다") corrects it.
    /// Does the sentence before token `first` say the statement answers another question
    /// ("앞 문제(7번)의 정답은 4번", "다음 문제의 답은 ③", "3번 문제의 정답은 ②")?
    fn about_another_question(&self, first: usize) -> bool {
        // From the start of the statement's clause: "3번 문제의 정답은 (2)이고, 이 문제의
        // 정답은 (3)" states (3).
        let start = (0..first)
            .rev()
            .find(|&x| {
                self.toks[x].is_sentence_end()
                    || self.toks[x].is_punct(',')
                    || (self.is_hangul(x)
                        && ["이고", "이며", "지만", "으나", "는데"]
                            .iter()
                            .any(|e| self.word(x).ends_with(e)))
            })
            .map_or(0, |x| x + 1);
        if start >= first {
            return false;
        }
        let before = &self.text[self.toks[start].start as usize..self.toks[first].start as usize];
        memchr::memmem::find(before.as_bytes(), "문".as_bytes()).is_some()
            // "이번 문항의 답은 (4)": this one.
            && !before.contains("이번 문")
            && [
                "앞 문제",
                "이전 문제",
                "다음 문제",
                "다른 문제",
                "지난 문제",
                "번 문제",
                "번 문항",
                "앞 문항",
                "이전 문항",
                "다음 문항",
            ]
            .iter()
            .any(|p| before.contains(p))
    }

    pub(super) fn drop_taken_back(
        &self,
        stmts: &mut Vec<Statement>,
        negations: &mut Vec<(Choice, usize)>,
    ) {
        let (taken, kept): (Vec<Statement>, Vec<Statement>) =
            stmts.drain(..).partition(|s| self.takes_back(s));
        *stmts = kept;
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
            if s.strength == Strength::Weak && taken.iter().any(|t| corrects(t, s)) {
                s.strength = Strength::Strong;
                s.rule = Rule::CorrectedStatement;
            }
        }
    }

    /// Does the Hangul word `j` call something wrong as a judgement ("틀린", "잘못된", "옳지
    /// 않음", "해당하지 않는") rather than deny a claim ("어렵다", "없다", "아니다")?
    fn describes_as_wrong(&self, j: usize) -> bool {
        let w = self.word(j);
        w.starts_with('틀')
            || w.starts_with("잘못")
            || (w.starts_with('않')
                && j > 0
                && self.is_hangul(j - 1)
                && [
                    "옳",
                    "적절",
                    "맞",
                    "바르",
                    "올바르",
                    "타당",
                    "일치",
                    "부합",
                    "해당",
                ]
                .iter()
                .any(|p| self.word(j - 1).starts_with(p)))
    }

    /// "…기준으로 하면 3, 개정 후 기준으로 하면 2가 답입니다": another label in the
    /// sentence of the statement at tokens `first..=last` (one answer per supposition).
    fn other_label_in_sentence(&self, first: usize, last: usize) -> bool {
        let before = (0..first)
            .rev()
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .any(|x| self.is_label_mark(x));
        before
            || (last + 1..self.toks.len())
                .take_while(|&x| !self.toks[x].is_sentence_end())
                .any(|x| self.is_label_mark(x))
    }

    /// Walking left from the statement at tokens `first..=last` to the start of its clause:
    /// is it under a supposition ("정답이 ③이 아니라면 ④가 답입니다", "만약 …하면 정답은 ②",
    /// "…기준으로 하면 3, …기준으로 하면 2가 답입니다"; but "2회 위반이라면 정답은 ③이겠지만,
    /// 1회 위반이므로 정답은 ②입니다" states ②), or someone else's, a third party as the
    /// clause's subject or topic ("해설서에서는", "A 학생은", "Some sources say …") or a first
    /// belief ("처음에는 정답이 ③이라고 생각했")?
    fn taken_back_before(&self, first: usize, last: usize) -> bool {
        for j in (0..first).rev() {
            let t = self.toks[j];
            if t.is_sentence_end() || t.is_punct(',') || t.is_punct(';') {
                break;
            }
            match t.kind {
                Kind::Hangul => {
                    let w = self.word(j);
                    // Every supposing word here ends in 면 ("…라면", "아니면", "아니었으면").
                    // "…에 따르면", "…에 의하면" (according to) suppose nothing.
                    if w.ends_with('면')
                        && !w.ends_with("따르면")
                        && !w.ends_with("의하면")
                        && (w.ends_with("라면")
                            || w.ends_with("다면")
                            || is_conditional_negation(w)
                            || self.other_label_in_sentence(first, last))
                    {
                        return true;
                    }
                    if ["만약", "만일", "가령"].contains(&w) {
                        return true;
                    }
                    // The statement's own clause only: "처음엔 ②로 봤지만 | 다시 보니 ④가 맞다".
                    if is_clause_boundary(w) {
                        break;
                    }
                    if is_third_party(w)
                        || ["처음엔", "처음에는", "처음에", "원래는", "당초에는", "당초"]
                            .contains(&w)
                    {
                        return true;
                    }
                }
                Kind::Latin
                    if matches!(
                        lower(self.word(j)).as_str(),
                        "says"
                            | "said"
                            | "claim"
                            | "claims"
                            | "claimed"
                            | "suggests"
                            | "according"
                            | "sources"
                            | "others"
                            | "people"
                    ) =>
                {
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// After the statement at tokens `first..=last` (its clause going on at `from`, past the
    /// label's own option text): is it someone else's, with people named right after it
    /// ("③을 정답으로 고른 분들이 많았습니다"), a quote attributed ("정답은 ③번이라고 적혀
    /// 있는데", "정답을 ③이라고 했습니다"), or an answer object set by another verb than a
    /// choosing one ("많은 사람들이 정답을 ③번으로 알고 있습니다")?
    fn reported_after(&self, first: usize, last: usize, from: usize) -> bool {
        // "③을 정답으로 고른 분들이 많았습니다", "정답은 ③이라고 많은 사람들이 …": people
        // named right after it.
        // Only after the statement's own verb ("고른", "적은") or a quote ("…이라고"), not in
        // a remark ("정답: ② (학생들이 자주 틀리는 문제)").
        let after_verb = self.is_hangul(last)
            || self.is_hangul(from) && {
                let w = self.word(from);
                w.ends_with("라고") || w.ends_with("다고")
            };
        if after_verb
            && (from..self.toks.len().min(from + 3))
                .take_while(|&x| !self.toks[x].is_sentence_end() && !self.toks[x].is_punct('('))
                .any(|x| self.is_hangul(x) && is_people(self.word(x)))
        {
            return true;
        }
        // The verb after the label: attributed after a quotative, and for "정답을 ③으로 …" a
        // choosing verb, not another ("제시하고", "알고 있습니다").
        let object = self.is_hangul(first) && {
            let w = self.word(first);
            w.ends_with('을') || w.ends_with('를')
        };
        let mut j = last + 1;
        while let Some(t) = self.tok(j) {
            if t.kind != Kind::Hangul || j > last + 3 {
                return false;
            }
            let w = self.word(j);
            if ["라고", "다고"].iter().any(|q| w.ends_with(q)) {
                return self.is_hangul(j + 1) && is_attribution(self.word(j + 1));
            }
            let particle = strip_beon(w);
            if matches!(particle, "" | "으로" | "로") {
                j += 1;
                continue;
            }
            return object && !CHOOSING.iter().any(|v| w.starts_with(v));
        }
        false
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

    /// Is the Latin word at `k` denied by one of the three words before it in its sentence
    /// ("would not choose", "wouldn't pick", "never select", "don't choose")?
    fn latin_denied_before(&self, k: usize) -> bool {
        (k.saturating_sub(3)..k)
            .rev()
            .take_while(|&j| !self.toks[j].is_sentence_end())
            .any(|j| {
                self.is_latin(j)
                    && match lower(self.word(j)).as_str() {
                        "not" | "never" | "cannot" => true,
                        // "wouldn't", "don't", "won't": the t after an apostrophe.
                        "t" => j >= 1 && self.toks[j - 1].is_punct('\''),
                        _ => false,
                    }
            })
    }
}

/// Verbs that make "정답을 ③으로 …" the writer's own choice.
const CHOOSING: [&str; 27] = [
    "선택",
    "고르",
    "고릅",
    "골라",
    "고를",
    "택",
    "하겠",
    "합니다",
    "한다",
    "할게",
    "정하",
    "정합",
    "봅니다",
    "본다",
    "보겠",
    "판단",
    "생각",
    "추정",
    "예상",
    "결론",
    "제출",
    "체크",
    "표시",
    "마킹",
    "적습",
    "적겠",
    "기재",
];

/// Is the word a third party as subject or topic ("해설서에서는", "많은 사람들이", "학생은",
/// "출제자는", "일부 교재에서는")?
fn is_third_party(w: &str) -> bool {
    const PARTIES: [&str; 16] = [
        "해설",
        "교재",
        "책",
        "학생",
        "사람",
        "출제",
        "수험생",
        "응시자",
        "누군가",
        "친구",
        "선생",
        "강사",
        "인터넷",
        "시중",
        "일부",
        "모범답안",
    ];
    const MARKED: [&str; 9] = [
        "은",
        "는",
        "이",
        "가",
        "에서는",
        "에서",
        "에는",
        "들이",
        "들은",
    ];
    PARTIES.iter().any(|p| w.starts_with(p)) && MARKED.iter().any(|m| w.ends_with(m))
}

/// Is the word people, as a subject ("분들이", "사람들이", "학생들은", "수험생이")?
fn is_people(w: &str) -> bool {
    ["분들", "사람", "학생", "수험생", "응시자"]
        .iter()
        .any(|p| w.starts_with(p))
        && ["이", "은", "는", "가", "도"]
            .iter()
            .any(|m| w.ends_with(m))
}

/// Is the word after a quotative one that attributes the quote ("했습니다", "한다",
/// "적혀", "나와", "주장", "알려져")?
fn is_attribution(w: &str) -> bool {
    [
        "했",
        "한다",
        "합니다",
        "하는",
        "하더",
        "적혀",
        "적혔",
        "나와",
        "나옵",
        "주장",
        "알려",
        "쓰여",
        "써",
        "말하",
        "말했",
        "되어",
        "돼",
    ]
    .iter()
    .any(|a| w.starts_with(a))
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
fn is_clause_boundary(w: &str) -> bool {
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
