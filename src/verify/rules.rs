//! The verifier's rules over the tokens of a final text, in order: answer statements (with
//! negation, alternatives, self-correction), a bare label, a leading label line, O/X words,
//! a unique option text; otherwise abstain. Each rule only commits when the text leaves one
//! reading; anything else abstains so that the judge decides.

use super::scan::{tokenize, Kind, Mark, Tok};
use super::{Choice, ChoiceSet, Extraction, NoAnswerReason, Notation, Rule};
use std::ops::Range;

/// A mark read against the choice set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolved {
    In(Choice),
    /// Written as a choice but not one of this set's ("⑤" of four, "E" of A–D, "C" on ①…).
    Outside,
}

/// What a statement says.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Said {
    One(Choice),
    Outside,
    Many(Vec<Choice>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Weak,
    Strong,
}

#[derive(Clone, Debug)]
struct Statement {
    said: Said,
    strength: Strength,
    rule: Rule,
    /// Token range the statement covers (keyword to label or label to keyword).
    first: usize,
    last: usize,
    /// Marked final: "최종 답", "Final answer", "결론적으로 정답은".
    is_final: bool,
}

struct Ctx<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    set: &'a ChoiceSet,
    /// Tokens inside text that addresses a grader ("[SYSTEM: …]", "Ignore previous
    /// instructions …"): such text is data and states nothing.
    masked: Vec<bool>,
}

/// Decide on the final text `text` (spans relative to it).
pub(crate) fn decide(text: &str, set: &ChoiceSet) -> Extraction {
    let toks = tokenize(text);
    if toks
        .iter()
        .all(|t| matches!(t.kind, Kind::Punct(_) | Kind::Break))
    {
        return Extraction::NoAnswer {
            reason: NoAnswerReason::Empty,
        };
    }
    let masked = grader_addressed(text, &toks);
    let ctx = Ctx {
        text,
        toks,
        set,
        masked,
    };
    if let Some(e) = ctx.decide_by_statements(Strength::Strong) {
        return e;
    }
    if let Some(e) = ctx.bare() {
        return e;
    }
    if let Some(e) = ctx.decide_by_statements(Strength::Weak) {
        return e;
    }
    if set.notation() == Notation::Ox {
        if let Some(e) = ctx.ox_words() {
            return e;
        }
    }
    if let Some(e) = ctx.unique_option_text() {
        return e;
    }
    let reason = if is_refusal(text) {
        NoAnswerReason::Refusal
    } else {
        NoAnswerReason::NotFound
    };
    Extraction::NoAnswer { reason }
}

// ---------------------------------------------------------------------------------------
// Word lists. Korean eojeol are matched by prefix (stem) and the rest read as particles.
// ---------------------------------------------------------------------------------------

/// An answer keyword: 정답, 답, 해답, 답안, 답변 (optionally 최종-prefixed). Returns
/// (is_final, suffix).
fn answer_keyword(w: &str) -> Option<(bool, &str)> {
    let (is_final, w) = match w.strip_prefix("최종") {
        Some(rest) => (true, rest.strip_prefix("적인").unwrap_or(rest)),
        None => (false, w),
    };
    for stem in ["정답", "해답", "답안", "답변", "답"] {
        if let Some(suffix) = w.strip_prefix(stem) {
            // 답하다 (to answer), 답답, 답장, 정답률, 답례: not statements of an answer.
            if [
                "하", "합", "한", "할", "답", "장", "률", "례", "사", "습", "해", "했",
            ]
            .iter()
            .any(|p| suffix.starts_with(p))
            {
                return None;
            }
            return Some((is_final, suffix));
        }
    }
    None
}

fn is_negation_word(w: &str) -> bool {
    ["아니", "아닌", "아님", "아닙", "아냐"]
        .iter()
        .any(|p| w.starts_with(p))
}

/// Particles (with an optional leading 번) that may sit between a label and what follows.
fn strip_beon(w: &str) -> &str {
    w.strip_prefix("번").unwrap_or(w)
}

fn is_subject_or_object_particle(w: &str) -> bool {
    matches!(
        strip_beon(w),
        "" | "이" | "가" | "을" | "를" | "은" | "는" | "이야말로" | "만이" | "로" | "으로"
    )
}

/// Words that may stand between a keyword and the label: "정답은 바로 보기 ③".
fn is_right_filler_hangul(w: &str) -> bool {
    matches!(
        w,
        "바로"
            | "보기"
            | "보기는"
            | "선택지"
            | "선택지는"
            | "번"
            | "옵션"
            | "항목"
            | "최종"
            | "가장"
            | "적절한"
            | "올바른"
            | "옳은"
            | "것은"
            | "단연"
            | "확실히"
    )
}

fn is_right_filler_latin(w: &str) -> bool {
    matches!(
        lower(w).as_str(),
        "is" | "the"
            | "option"
            | "choice"
            | "would"
            | "be"
            | "should"
            | "will"
            | "correct"
            | "number"
            | "text"
            | "probably"
            | "likely"
            | "final"
            | "therefore"
            | "thus"
            | "so"
            | "my"
            | "most"
            | "best"
            | "right"
            | "boxed"
    )
}

/// Words that may stand between a label and a following keyword: "③을 최종 정답으로".
fn is_left_filler_hangul(w: &str) -> bool {
    let noun_particle = ["보기", "선택지", "항목", "옵션"].iter().any(|n| {
        w.strip_prefix(n)
            .is_some_and(|p| matches!(p, "" | "가" | "이" | "를" | "을" | "는" | "은"))
    });
    noun_particle
        || is_subject_or_object_particle(w)
        || matches!(
            w,
            "최종"
                | "가장"
                | "옳은"
                | "올바른"
                | "맞는"
                | "적절한"
                | "진짜"
                | "확실한"
                | "최종적인"
        )
}

fn is_left_filler_latin(w: &str) -> bool {
    matches!(
        lower(w).as_str(),
        "is" | "the" | "correct" | "right" | "final" | "best" | "most" | "likely" | "my" | "as"
    )
}

/// Connectors that join alternatives: "① 또는 ②", "①과 ②", "① or ②".
fn is_alternative_connector(t: &Tok, text: &str) -> bool {
    match t.kind {
        Kind::Punct(',' | '/' | '&' | '~' | '(' | '|') => true,
        Kind::Hangul => matches!(
            strip_beon(t.text(text)),
            "과" | "와"
                | "이나"
                | "나"
                | "또는"
                | "혹은"
                | "아니면"
                | "및"
                | "이랑"
                | "랑"
                | "이거나"
                | "거나"
                | "부터"
                | "에서"
                | "이든"
                | "든"
        ),
        Kind::Latin => matches!(lower(t.text(text)).as_str(), "or" | "and"),
        _ => false,
    }
}

/// Words that put a second choice up as possible: "③일 수도 있고 ④일 수도".
fn is_hedge(t: &Tok, text: &str) -> bool {
    match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            w.starts_with("수도")
                || w.starts_with("또는")
                || w.starts_with("혹은")
                || w.starts_with("아니면")
                || w.starts_with("아마")
                || w.contains("거나")
                || w.contains("가능")
                || w.contains("기도")
        }
        Kind::Latin => matches!(
            lower(t.text(text)).as_str(),
            "or" | "maybe" | "possibly" | "either" | "perhaps" | "could" | "might"
        ),
        _ => false,
    }
}

/// A self-correction between two statements: "다시 보니", "정정", "아니,", "wait", "actually".
fn is_correction(t: &Tok, text: &str) -> bool {
    match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            [
                "다시",
                "정정",
                "재검토",
                "수정",
                "잘못",
                "실수",
                "착각",
                "재계산",
                "재확인",
                "고쳐",
                "번복",
                "하지만",
                "그러나",
                "사실은",
            ]
            .iter()
            .any(|p| w.starts_with(p))
                || w == "사실"
                || w.ends_with("지만")
                || w.ends_with("으나")
                || matches!(
                    w,
                    "아니" | "아니요" | "아니야" | "아니다" | "아니네" | "아니오"
                )
        }
        Kind::Latin => matches!(
            lower(t.text(text)).as_str(),
            "wait"
                | "actually"
                | "correction"
                | "oops"
                | "mistake"
                | "reconsider"
                | "recheck"
                | "reconsidering"
                | "rethinking"
        ),
        _ => false,
    }
}

fn is_final_qualifier(t: &Tok, text: &str) -> bool {
    match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            ["최종", "결론", "결국"].iter().any(|p| w.starts_with(p))
        }
        Kind::Latin => matches!(
            lower(t.text(text)).as_str(),
            "final" | "finally" | "conclusion"
        ),
        _ => false,
    }
}

/// O/X polarity of a word on an O/X item: Some(true) = ○, Some(false) = ×.
fn ox_polarity(toks: &[Tok], k: usize, text: &str) -> Option<bool> {
    let t = &toks[k];
    let next_is_neg = toks.get(k + 1).is_some_and(|n| {
        n.kind == Kind::Hangul && {
            let w = n.text(text);
            w.starts_with('않') || w.starts_with('못')
        }
    });
    match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            for p in ["옳지", "맞지", "그렇지", "적절하지", "올바르지"] {
                if let Some(rest) = w.strip_prefix(p) {
                    if next_is_neg || rest.starts_with('않') || rest.starts_with('못') {
                        return Some(false);
                    }
                    return Some(true);
                }
            }
            if w.starts_with("틀림없") {
                return None;
            }
            if w.starts_with('없') {
                return Some(false);
            }
            if w.starts_with("틀리지") || w.starts_with("틀리진") {
                return Some(next_is_neg);
            }
            if [
                "틀",
                "그르",
                "그른",
                "거짓",
                "잘못",
                "부적절",
                "오류",
                "비적절",
            ]
            .iter()
            .any(|p| w.starts_with(p))
                || is_negation_word(w)
            {
                return Some(false);
            }
            if ["옳", "맞", "그렇", "참", "적절", "올바", "타당"]
                .iter()
                .any(|p| w.starts_with(p))
            {
                return Some(true);
            }
            None
        }
        Kind::Latin => match lower(t.text(text)).as_str() {
            "true" | "correct" | "yes" => Some(true),
            "false" | "incorrect" | "wrong" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A Latin word in ASCII lower case (full-width letters folded).
fn lower(w: &str) -> String {
    if w.is_ascii() {
        return w.to_ascii_lowercase();
    }
    w.chars()
        .map(|c| match c {
            '\u{FF21}'..='\u{FF3A}' | '\u{FF41}'..='\u{FF5A}' => {
                char::from_u32(c as u32 - 0xFF21 + 'A' as u32).map_or(c, |c| c.to_ascii_lowercase())
            }
            _ => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Does the text decline to answer?
fn is_refusal(text: &str) -> bool {
    const PHRASES: [&str; 16] = [
        "답변할 수 없",
        "답변드릴 수 없",
        "답할 수 없",
        "대답할 수 없",
        "판단할 수 없",
        "알 수 없습니다",
        "모르겠",
        "제공할 수 없",
        "도와드릴 수 없",
        "죄송",
        "I cannot",
        "I can't",
        "I'm sorry",
        "I am unable",
        "unable to determine",
        "cannot determine",
    ];
    PHRASES.iter().any(|p| text.contains(p))
}

/// Mark tokens inside text that addresses a grader, so that it states nothing.
fn grader_addressed(text: &str, toks: &[Tok]) -> Vec<bool> {
    let mut masked = vec![false; toks.len()];
    // Words that address whoever grades the answer. "시스템"/"system" count only as a
    // speaker tag ("SYSTEM:", "시스템:"), since "펜실베니아 시스템" is ordinary exam text.
    let is_cue = |k: usize| {
        let t = &toks[k];
        let tagged = toks.get(k + 1).is_some_and(|n| n.is_punct(':'));
        match t.kind {
            Kind::Hangul => {
                let w = t.text(text);
                let next_ignores = toks
                    .get(k + 1)
                    .is_some_and(|n| n.kind == Kind::Hangul && n.text(text).starts_with("무시"));
                ["채점", "평가자", "프롬프트"]
                    .iter()
                    .any(|p| w.starts_with(p))
                    || (w.starts_with("지시") && next_ignores)
                    || (w == "시스템" && tagged)
            }
            Kind::Latin => match lower(t.text(text)).as_str() {
                "grader" | "grading" | "evaluator" | "instruction" | "instructions" => true,
                "system" => tagged || t.text(text) == "SYSTEM",
                "ignore" => toks.get(k + 1).is_some_and(|n| {
                    n.kind == Kind::Latin
                        && matches!(
                            lower(n.text(text)).as_str(),
                            "previous" | "all" | "the" | "above" | "prior"
                        )
                }),
                _ => false,
            },
            _ => false,
        }
    };
    if !(0..toks.len()).any(is_cue) {
        return masked;
    }
    // A bracketed group with a cue, and a sentence with a cue, are masked whole.
    let mut k = 0;
    while k < toks.len() {
        if matches!(toks[k].kind, Kind::Punct('[' | '<' | '(')) {
            let close = match toks[k].kind {
                Kind::Punct('[') => ']',
                Kind::Punct('<') => '>',
                _ => ')',
            };
            if let Some(len) = toks[k + 1..].iter().position(|t| t.is_punct(close)) {
                let group = k..=k + 1 + len;
                if group.clone().any(is_cue) {
                    group.for_each(|g| masked[g] = true);
                }
                k += len + 2;
                continue;
            }
        }
        k += 1;
    }
    for sentence in sentences(toks) {
        if sentence.clone().any(is_cue) {
            sentence.for_each(|g| masked[g] = true);
        }
    }
    masked
}

/// Token ranges of sentences (split at . ! ? and line breaks).
fn sentences(toks: &[Tok]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, t) in toks.iter().enumerate() {
        if t.is_sentence_end() {
            if k > start {
                out.push(start..k);
            }
            start = k + 1;
        }
    }
    if start < toks.len() {
        out.push(start..toks.len());
    }
    out
}

/// At most `max` bytes of `text` from `at`, cut on a character boundary.
fn clip(text: &str, at: usize, max: usize) -> &str {
    let mut end = text.len().min(at + max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(at..end).unwrap_or("")
}

/// Normalised for option-text matching: no whitespace or decoration, ASCII lower case.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| {
            !c.is_whitespace() && !matches!(c, '*' | '_' | '`' | '#' | '$' | '\\' | '"' | '\'')
        })
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Ctx<'_> {
    fn tok(&self, k: usize) -> Option<&Tok> {
        self.toks.get(k)
    }

    fn word(&self, k: usize) -> &str {
        self.toks[k].text(self.text)
    }

    fn is_hangul(&self, k: usize) -> bool {
        self.tok(k).is_some_and(|t| t.kind == Kind::Hangul)
    }

    fn is_latin(&self, k: usize) -> bool {
        self.tok(k).is_some_and(|t| t.kind == Kind::Latin)
    }

    fn resolve(&self, mark: Mark) -> Resolved {
        let set = self.set;
        let position = match (mark, set.notation()) {
            (Mark::Ox(o), Notation::Ox) => Some(if o { 1 } else { 2 }),
            (
                Mark::Circled(n) | Mark::Num(n) | Mark::Ordinal(n),
                Notation::Circled | Notation::Number,
            ) => Some(n as usize),
            (Mark::Letter(n) | Mark::Ordinal(n), Notation::Letter) => Some(n as usize),
            _ => None,
        };
        match position.and_then(|p| set.at_position(p)) {
            Some(c) => Resolved::In(c),
            None => Resolved::Outside,
        }
    }

    /// Is token `k` a written label? ○/× marks are option text, not labels, on items whose
    /// options are numbered or circled ("(1) ○×○○" in KMMLU).
    fn is_label_mark(&self, k: usize) -> bool {
        match self.tok(k).and_then(Tok::mark) {
            Some(Mark::Ox(_)) => self.set.notation() == Notation::Ox,
            Some(_) => true,
            None => false,
        }
    }

    /// A label at token `k`: a mark, or on O/X items an O/X word.
    fn label_at(&self, k: usize) -> Option<Resolved> {
        let t = self.tok(k)?;
        if let Some(m) = t.mark() {
            if !self.is_label_mark(k) {
                return None;
            }
            // O/X marks on other items and letters on digit items are usually not labels at
            // all ("O2", "A사"); only treat them as out-of-set labels where a label must be.
            return Some(self.resolve(m));
        }
        if self.set.notation() == Notation::Ox {
            if let Some(o) = ox_polarity(&self.toks, k, self.text) {
                return Some(Resolved::In(Choice::from_index(usize::from(!o))?));
            }
        }
        None
    }

    /// A label at `k` that names one of this set's choices.
    fn choice_at(&self, k: usize) -> Option<Choice> {
        match self.label_at(k)? {
            Resolved::In(c) => Some(c),
            Resolved::Outside => None,
        }
    }

    fn span(&self, first: usize, last: usize) -> Range<usize> {
        self.toks[first].start as usize..self.toks[last].end as usize
    }

    /// Is the label at `k` followed by a negation: "①이 아니라", "①은 정답이 아니다",
    /// "① 아님"?
    fn negated_after(&self, k: usize) -> Option<usize> {
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
    fn questioned_after(&self, k: usize) -> bool {
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
    fn label_phrase(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<(Said, usize)> {
        let first = self.label_at(k)?;
        if self.questioned_after(k) {
            return None;
        }
        if let Some(neg_end) = self.negated_after(k) {
            if let Resolved::In(c) = first {
                negations.push((c, k));
            }
            // "①이 아니라 ②": the next label in the same clause is the statement.
            let mut j = neg_end + 1;
            while let Some(t) = self.tok(j) {
                if t.is_sentence_end() || j > neg_end + 4 {
                    break;
                }
                if self.label_at(j).is_some() && self.is_label_mark(j) {
                    return self.label_phrase(j, negations);
                }
                j += 1;
            }
            return None;
        }
        let mut labels = vec![first];
        let mut last = k;
        // Alternatives directly after the label.
        let mut j = k + 1;
        let mut gap = 0;
        while let Some(t) = self.tok(j) {
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
            let connector = is_alternative_connector(t, self.text)
                || t.is_punct(')')
                || (t.kind == Kind::Hangul && strip_beon(self.word(j)).is_empty());
            if connector && gap < 3 {
                gap += 1;
                j += 1;
                continue;
            }
            break;
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
            if also || is_hedge(t, self.text) {
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

    /// Option text written right after a keyword: "정답은 금융위원회입니다".
    fn option_text_at(&self, k: usize) -> Option<Choice> {
        let at = self.tok(k)?.start as usize;
        let rest = squash(clip(self.text, at, 400));
        let mut best: Option<(usize, Choice)> = None;
        for c in self.set.choices() {
            let opt = squash(self.set.option_text(c)?);
            if opt.chars().count() >= 2
                && rest.starts_with(&opt)
                && best.is_none_or(|(l, _)| opt.len() > l)
            {
                best = Some((opt.len(), c));
            }
        }
        best.map(|(_, c)| c)
    }

    /// The statement read to the right of a keyword at `k`.
    fn right_of_keyword(
        &self,
        k: usize,
        negations: &mut Vec<(Choice, usize)>,
    ) -> Option<(Said, usize)> {
        let mut j = k + 1;
        let mut steps = 0;
        let mut breaks = 0;
        let mut negated = false;
        while let Some(t) = self.tok(j) {
            if steps > 8 {
                return None;
            }
            if self.is_label_mark(j)
                || (self.set.notation() == Notation::Ox && self.label_at(j).is_some())
            {
                let phrase = self.label_phrase(j, negations)?;
                if negated {
                    if let Said::One(c) = phrase.0 {
                        negations.push((c, j));
                    }
                    // "not A but B": the next label in the same sentence is the statement.
                    let after = phrase.1 + 1;
                    let next = (after..self.toks.len().min(after + 4))
                        .take_while(|&x| !self.toks[x].is_sentence_end())
                        .find(|&x| self.is_label_mark(x))?;
                    return self.label_phrase(next, negations);
                }
                return Some(phrase);
            }
            let filler = match t.kind {
                Kind::Punct(':' | '=' | '-' | '>' | '[' | ']' | '(' | '{' | '"' | '|') => true,
                Kind::Break => {
                    breaks += 1;
                    breaks == 1 && steps <= 2
                }
                Kind::Hangul => is_right_filler_hangul(self.word(j)),
                Kind::Latin => {
                    let w = self.word(j);
                    if lower(w) == "not" {
                        negated = true;
                        true
                    } else {
                        is_right_filler_latin(w)
                    }
                }
                _ => false,
            };
            if !filler {
                if matches!(t.kind, Kind::Hangul | Kind::Latin) && !negated {
                    return self.option_text_at(j).map(|c| (Said::One(c), j));
                }
                return None;
            }
            steps += 1;
            j += 1;
        }
        None
    }

    /// A label to the left of a keyword at `k`: "③번이 정답입니다", "④를 정답으로".
    fn left_of_keyword(&self, k: usize, suffix_negated: bool) -> Option<usize> {
        let mut j = k;
        for _ in 0..4 {
            if j == 0 {
                return None;
            }
            j -= 1;
            let t = &self.toks[j];
            if self.is_label_mark(j) {
                return (!suffix_negated).then_some(j);
            }
            let skip = match t.kind {
                Kind::Hangul => is_left_filler_hangul(self.word(j)),
                Kind::Latin => is_left_filler_latin(self.word(j)),
                Kind::Punct(')' | '"' | ']' | ':' | '-') => true,
                _ => false,
            };
            if !skip {
                return None;
            }
        }
        None
    }

    fn final_before(&self, k: usize) -> bool {
        (k.saturating_sub(2)..k).any(|j| is_final_qualifier(&self.toks[j], self.text))
    }

    /// Every statement in the text, in order, plus the negated labels.
    fn statements(&self) -> (Vec<Statement>, Vec<(Choice, usize)>) {
        let mut out: Vec<Statement> = Vec::new();
        let mut negations = Vec::new();
        for k in 0..self.toks.len() {
            if self.masked[k] {
                continue;
            }
            let t = self.toks[k];
            match t.kind {
                Kind::Hangul => {
                    let mut w = self.word(k);
                    // "①번답: ②": the 번 belongs to the label before, the keyword follows.
                    if k > 0 && self.toks[k - 1].mark().is_some() && self.toks[k - 1].end == t.start
                    {
                        w = strip_beon(w);
                    }
                    if let Some((fin, suffix)) = answer_keyword(w) {
                        let is_final = fin || self.final_before(k);
                        let right_ok = matches!(
                            suffix,
                            "" | "은"
                                | "는"
                                | "이"
                                | "을"
                                | "변은"
                                | "안은"
                                | "변"
                                | "안"
                                | "으로는"
                        );
                        if right_ok {
                            if let Some((said, last)) = self.right_of_keyword(k, &mut negations) {
                                out.push(Statement {
                                    said,
                                    strength: Strength::Strong,
                                    rule: Rule::Statement,
                                    first: k,
                                    last,
                                    is_final,
                                });
                                continue;
                            }
                        }
                        if matches!(suffix, "은" | "는") {
                            continue;
                        }
                        let questioning = ["인지", "일까", "인가", "일지", "인가요"]
                            .iter()
                            .any(|p| suffix.starts_with(p));
                        if questioning {
                            continue;
                        }
                        let negated = suffix.contains("아니")
                            || suffix.contains("아닌")
                            || suffix.contains("아님")
                            || suffix.contains("아닙")
                            || (k + 1..k + 3).any(|x| {
                                self.is_hangul(x) && {
                                    let w = self.word(x);
                                    is_negation_word(w)
                                        || w.starts_with('없')
                                        || w == "리가"
                                        || w == "리"
                                }
                            });
                        if let Some(m) = self.left_of_keyword(k, false) {
                            if negated {
                                if let Some(c) = self.choice_at(m) {
                                    negations.push((c, m));
                                }
                                continue;
                            }
                            if let Some(r) = self.label_at(m) {
                                out.push(Statement {
                                    said: said_of(&[r]),
                                    strength: Strength::Strong,
                                    rule: Rule::Statement,
                                    first: m,
                                    last: k,
                                    is_final: is_final || self.final_before(m),
                                });
                            }
                        }
                    }
                }
                Kind::Latin => {
                    let w = lower(self.word(k));
                    if w == "answer" || w == "answers" || w == "boxed" {
                        let rule = if w == "boxed" {
                            Rule::Boxed
                        } else {
                            Rule::Statement
                        };
                        let is_final = self.final_before(k);
                        if let Some((said, last)) = self.right_of_keyword(k, &mut negations) {
                            out.push(Statement {
                                said,
                                strength: Strength::Strong,
                                rule,
                                first: k,
                                last,
                                is_final,
                            });
                        } else if w != "boxed" {
                            if let Some(m) = self.left_of_keyword(k, false) {
                                if let Some(r) = self.label_at(m) {
                                    out.push(Statement {
                                        said: said_of(&[r]),
                                        strength: Strength::Strong,
                                        rule,
                                        first: m,
                                        last: k,
                                        is_final,
                                    });
                                }
                            }
                        }
                    } else if matches!(
                        w.as_str(),
                        "choose" | "select" | "pick" | "chose" | "selected"
                    ) {
                        let mut j = k + 1;
                        while self.is_latin(j) && is_right_filler_latin(self.word(j)) {
                            j += 1;
                        }
                        if let Some((said, last)) = self
                            .tok(j)
                            .and_then(Tok::mark)
                            .and_then(|_| self.label_phrase(j, &mut negations))
                        {
                            out.push(Statement {
                                said,
                                strength: Strength::Strong,
                                rule: Rule::Statement,
                                first: k,
                                last,
                                is_final: false,
                            });
                        }
                    }
                }
                Kind::Mark(_) => {
                    if let Some(s) = self.choose_or_weak(k) {
                        out.push(s);
                    }
                }
                _ => {}
            }
        }
        out.sort_by_key(|s| (s.first, s.last));
        out.dedup_by(|b, a| a.said == b.said && b.first <= a.last);
        (out, negations)
    }

    /// "③을 선택합니다" (strong), "③이 맞습니다", "②로 보입니다", "(B) is correct" (weak).
    fn choose_or_weak(&self, k: usize) -> Option<Statement> {
        let r = self.label_at(k)?;
        let said = said_of(&[r]);
        let make = |strength, rule, last| Statement {
            said: said.clone(),
            strength,
            rule,
            first: k,
            last,
            is_final: self.final_before(k),
        };
        if self.is_hangul(k + 1) {
            let p = strip_beon(self.word(k + 1));
            let next = if self.is_hangul(k + 2) {
                self.word(k + 2)
            } else {
                ""
            };
            let starts = |w: &str, list: &[&str]| list.iter().any(|s| w.starts_with(s));
            if matches!(p, "을" | "를" | "로" | "으로")
                && starts(
                    next,
                    &["선택", "고르", "고릅", "골라", "골랐", "고를", "택"],
                )
            {
                return Some(make(Strength::Strong, Rule::Statement, k + 2));
            }
            // "③번 같습니다", "③ 같아요": a hedged single choice.
            let seems = if p.is_empty() { next } else { p };
            if seems.starts_with('같') && !seems.starts_with("같지") && !self.questioned_after(k)
            {
                let last = if p.is_empty() { k + 2 } else { k + 1 };
                return Some(make(Strength::Weak, Rule::WeakStatement, last));
            }
            // "③번이 가장 적절해 보입니다", "②가 타당하다".
            let judged = if next == "가장" && self.is_hangul(k + 3) {
                self.word(k + 3)
            } else {
                next
            };
            if matches!(p, "이" | "가")
                && starts(judged, &["적절", "타당", "올바르", "올바릅"])
                && !starts(judged, &["적절하지", "타당하지", "올바르지"])
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, k + 2));
            }
            // Predicate forms only: "맞는 설명" and "맞고" describe an option, not a choice.
            let predicate = starts(
                next,
                &[
                    "맞다",
                    "맞습",
                    "맞아",
                    "맞네",
                    "맞음",
                    "맞는다",
                    "맞겠",
                    "맞죠",
                ],
            ) || (next == "맞는"
                && self.is_hangul(k + 3)
                && self.word(k + 3).starts_with('것')
                && self.is_hangul(k + 4)
                && self.word(k + 4).starts_with('같'));
            if matches!(p, "이" | "가") && predicate {
                return Some(make(Strength::Weak, Rule::WeakStatement, k + 2));
            }
            // "④번입니다." as a sentence of its own (or closing a clause).
            let copula = [
                "입니다",
                "이다",
                "임",
                "이에요",
                "예요",
                "이야",
                "이죠",
                "입니다만",
            ];
            let after_label = k > 0 && self.is_label_mark(k - 1);
            if copula.contains(&p)
                && !after_label
                && self
                    .tok(k + 2)
                    .is_none_or(|t| t.is_sentence_end() || t.is_punct(','))
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, k + 1));
            }
            if matches!(p, "로" | "으로")
                && starts(
                    next,
                    &[
                        "봤", "보았", "보인", "보입", "생각", "판단", "추정", "예상", "보여",
                    ],
                )
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, k + 2));
            }
        }
        if self.is_latin(k + 1) && lower(self.word(k + 1)) == "is" && self.is_latin(k + 2) {
            let w = lower(self.word(k + 2));
            if w == "correct" || w == "right" {
                return Some(make(Strength::Weak, Rule::WeakStatement, k + 2));
            }
        }
        None
    }

    fn correction_between(&self, a: usize, b: usize) -> bool {
        (a + 1..b).any(|j| is_correction(&self.toks[j], self.text))
    }

    /// Decide from statements whose strength (after promotion) is at least `at_least`.
    fn decide_by_statements(&self, at_least: Strength) -> Option<Extraction> {
        let (mut stmts, negations) = self.statements();
        // A label inside a strong statement ("정답은 ① 또는 ②입니다") is not a claim of its own.
        let strong: Vec<(usize, usize)> = stmts
            .iter()
            .filter(|s| s.strength == Strength::Strong)
            .map(|s| (s.first.min(s.last), s.first.max(s.last)))
            .collect();
        // Nor is one later in the same sentence, unless a self-correction separates them:
        // "정답은 (2) Al2(SO4)3입니다" states (2) only.
        stmts.retain(|s| {
            s.strength == Strength::Strong
                || !strong.iter().any(|&(a, b)| {
                    (a..=b).contains(&s.first)
                        || (s.first > b
                            && !(b..s.first).any(|x| self.toks[x].is_sentence_end())
                            && !self.correction_between(b, s.first))
                })
        });
        if stmts.is_empty() {
            return None;
        }
        // A weak statement after a self-correction replaces what came before it.
        for n in 1..stmts.len() {
            if stmts[n].strength == Strength::Weak
                && self.correction_between(stmts[n - 1].last, stmts[n].first)
            {
                stmts[n].strength = Strength::Strong;
                stmts[n].rule = Rule::CorrectedStatement;
            }
        }
        let strongest = stmts.iter().map(|s| s.strength).max()?;
        if strongest < at_least {
            return None;
        }
        if strongest == Strength::Strong {
            // A weaker claim after the last statement that names another choice contradicts it.
            let last_strong = stmts.iter().rposition(|s| s.strength == Strength::Strong)?;
            let conclusion = &stmts[last_strong];
            if let Some(late) = stmts[last_strong + 1..].iter().find(|s| {
                s.said != conclusion.said && matches!(s.said, Said::One(_) | Said::Many(_))
            }) {
                return Some(self.conflict(&[conclusion, late], Rule::ConflictingStatements));
            }
        }
        let primary: Vec<&Statement> = stmts.iter().filter(|s| s.strength == strongest).collect();
        let last = *primary.last()?;
        let mut rule = last.rule;
        if let Some(prev) = primary[..primary.len() - 1]
            .iter()
            .rev()
            .find(|s| s.said != last.said)
        {
            let corrected =
                self.correction_between(prev.last, last.first) || (last.is_final && !prev.is_final);
            if !corrected {
                if strongest == Strength::Weak {
                    // Weak claims that differ describe options one by one; they state nothing.
                    return None;
                }
                return Some(self.conflict(&primary, Rule::ConflictingStatements));
            }
            rule = Rule::CorrectedStatement;
        }
        if strongest == Strength::Weak {
            // A weak claim ("③이 맞다") decides only when nothing else in the text names
            // another choice: in an option-by-option analysis it describes an option.
            let c = match last.said {
                Said::One(c) => c,
                _ => return None,
            };
            let other = (0..self.toks.len()).any(|j| {
                !self.masked[j]
                    && self.is_label_mark(j)
                    && self.choice_at(j).is_some_and(|o| o != c)
                    && !negations.iter().any(|&(_, at)| at == j)
            });
            if other {
                return None;
            }
        }
        let span = self.span(last.first.min(last.last), last.last.max(last.first));
        Some(match &last.said {
            Said::One(c) => {
                let (a, b) = (last.first.min(last.last), last.first.max(last.last));
                if let Some(other) = (a..=b)
                    .filter(|&m| self.is_label_mark(m) && self.choice_at(m) == Some(*c))
                    .find_map(|m| {
                        self.text_names_other_option(*c, m)
                            .or_else(|| self.number_is_other_option(*c, m))
                    })
                {
                    return Some(Extraction::Ambiguous {
                        candidates: vec![*c, other],
                        rule: Rule::LabelTextMismatch,
                        span,
                    });
                }
                if negations.iter().any(|&(n, at)| n == *c && at > last.last) {
                    return Some(Extraction::Ambiguous {
                        candidates: vec![*c],
                        rule: Rule::ConflictingStatements,
                        span,
                    });
                }
                Extraction::Answer {
                    choice: *c,
                    rule,
                    span,
                }
            }
            Said::Many(cands) => Extraction::Ambiguous {
                candidates: cands.clone(),
                rule: Rule::Alternatives,
                span,
            },
            Said::Outside => Extraction::Invalid {
                text: self.text[span.clone()].to_string(),
                rule,
                span,
            },
        })
    }

    /// Does the text right after the label at `m` name another option than `c`'s?
    /// "정답은 ③(기획재정부)" when ③ is 국방부 and ② is 기획재정부.
    fn text_names_other_option(&self, c: Choice, m: usize) -> Option<Choice> {
        if self.set.options().is_empty() {
            return None;
        }
        let mut j = m + 1;
        while let Some(t) = self.tok(j) {
            let skip = matches!(t.kind, Kind::Punct('(' | ':' | '-' | '.' | ')' | ','))
                || (t.kind == Kind::Hangul && self.word(j) == "번");
            if !skip {
                break;
            }
            j += 1;
        }
        let t = self.tok(j)?;
        if t.is_sentence_end() {
            return None;
        }
        let rest = squash(clip(self.text, t.start as usize, 300));
        let starts = |o: Choice| {
            self.set
                .option_text(o)
                .map(squash)
                .is_some_and(|t| t.chars().count() >= 2 && rest.starts_with(&t))
        };
        if starts(c) {
            return None;
        }
        self.set.choices().find(|&o| o != c && starts(o))
    }

    /// Does an option's text begin at token `k` ("(3) 3" where an option reads "3")?
    fn starts_option_text(&self, k: usize) -> bool {
        let Some(t) = self.tok(k) else { return false };
        let rest = squash(clip(self.text, t.start as usize, 300));
        self.set.options().iter().any(|o| {
            let o = squash(o);
            !o.is_empty() && rest.starts_with(&o)
        })
    }

    /// Are the labels at `a` and `b` written in two notations ("③ (3)", "3번(③)")? Only
    /// then is the second a restatement of the first; "(3) 3" may be a label and its text.
    fn two_notations(&self, a: usize, b: usize) -> bool {
        let circled = |k: usize| matches!(self.tok(k).and_then(Tok::mark), Some(Mark::Circled(_)));
        circled(a) != circled(b)
    }

    /// A plain number ("3", not "3번" or "(3)") that is also another option's value: with
    /// options (1) 1 (2) 3 (3) 5, "3" may mean the third option or the option "3".
    fn number_is_other_option(&self, c: Choice, m: usize) -> Option<Choice> {
        let t = self.tok(m)?;
        if !matches!(t.kind, Kind::Mark(Mark::Num(_))) || self.set.options().is_empty() {
            return None;
        }
        let written = t.text(self.text);
        if written.starts_with(['(', '（']) || written.chars().any(|ch| !ch.is_numeric()) {
            return None;
        }
        if self.is_hangul(m + 1)
            && self.toks[m + 1].start == t.end
            && self.word(m + 1).starts_with('번')
        {
            return None;
        }
        let value: String = written
            .chars()
            .map(|ch| char::from_digit(ch.to_digit(10).unwrap_or(0), 10).unwrap_or('0'))
            .collect();
        let valued = |o: Choice| {
            self.set.option_text(o).is_some_and(|text| {
                let text = squash(text);
                let digits: String = text.chars().take_while(|ch| ch.is_ascii_digit()).collect();
                digits == value && !text[digits.len()..].starts_with(['.', ','])
            })
        };
        if valued(c) {
            return None;
        }
        self.set.choices().find(|&o| o != c && valued(o))
    }

    fn conflict(&self, stmts: &[&Statement], rule: Rule) -> Extraction {
        let mut candidates: Vec<Choice> = Vec::new();
        for s in stmts {
            match &s.said {
                Said::One(c) => candidates.push(*c),
                Said::Many(m) => candidates.extend(m),
                Said::Outside => {}
            }
        }
        candidates.sort();
        candidates.dedup();
        let first = stmts.first().map_or(0, |s| s.first.min(s.last));
        let last = stmts.last().map_or(0, |s| s.last.max(s.first));
        Extraction::Ambiguous {
            candidates,
            rule,
            span: self.span(first, last),
        }
    }

    /// Is token `j` only a separator or a copula/particle that may follow a bare label?
    fn is_bare_tail(&self, j: usize) -> bool {
        let t = &self.toks[j];
        match t.kind {
            Kind::Punct('.' | '!' | '?' | ')' | ']' | '[' | '(' | ':' | '"' | '\'')
            | Kind::Break => true,
            Kind::Hangul => matches!(
                strip_beon(self.word(j)),
                "" | "입니다"
                    | "이다"
                    | "임"
                    | "이요"
                    | "요"
                    | "예요"
                    | "이에요"
                    | "선택지"
                    | "보기"
                    | "항목"
                    | "옵션"
                    | "선택지입니다"
                    | "보기입니다"
                    | "입니다만"
                    | "정답"
                    | "정답입니다"
                    | "이정답"
                    | "가정답"
                    | "이죠"
                    | "이야"
            ),
            _ => false,
        }
    }

    /// The bare label of the token range, if it is one label with an optional tail or
    /// option text. Returns an extraction for the range.
    fn bare_in(&self, range: Range<usize>, rule: Rule) -> Option<Extraction> {
        let mut k = range.start;
        while k < range.end && matches!(self.toks[k].kind, Kind::Punct(_) | Kind::Break) {
            k += 1;
        }
        if k >= range.end || self.masked[k] {
            return None;
        }
        let label = self.label_at(k)?;
        // O/X words count as bare only when they are the whole text.
        let is_mark = self.is_label_mark(k);
        let mut j = k + 1;
        // Two labels side by side that agree: "③ (3)", "3번(③)".
        let mut agree_until = k;
        while j < range.end {
            if self.is_label_mark(j) {
                if self.label_at(j) == Some(label)
                    && j <= agree_until + 3
                    && self.two_notations(agree_until, j)
                {
                    agree_until = j;
                    j += 1;
                    continue;
                }
                break;
            }
            if self.toks[j].kind == Kind::Break || !self.is_bare_tail(j) {
                break;
            }
            j += 1;
        }
        // Whatever follows a line break is not part of a bare answer.
        while j < range.end && self.toks[j].kind == Kind::Break {
            j += 1;
            if j < range.end {
                return None;
            }
        }
        let span = self.span(k, agree_until);
        if let Resolved::In(c) = label {
            if let Some(other) = self.number_is_other_option(c, k) {
                return Some(Extraction::Ambiguous {
                    candidates: vec![c, other],
                    rule: Rule::LabelTextMismatch,
                    span,
                });
            }
        }
        let decided = |rule| match label {
            Resolved::In(c) => Extraction::Answer {
                choice: c,
                rule,
                span: span.clone(),
            },
            Resolved::Outside => Extraction::Invalid {
                text: self.text[span.clone()].to_string(),
                rule,
                span: span.clone(),
            },
        };
        if j >= range.end {
            if !is_mark && range.end - range.start > 3 {
                return None;
            }
            return Some(decided(rule));
        }
        if !is_mark {
            return None;
        }
        // The rest must be option text with no other label.
        // Another label after the first is only allowed inside the label's own option text
        // ("(2) 10 120"), checked below.
        let more_labels = (j..range.end).any(|x| self.is_label_mark(x));
        if more_labels && self.set.options().is_empty() {
            return None;
        }
        let rest_start = self.toks[agree_until].end as usize;
        let rest_end = self.toks[range.end - 1].end as usize;
        let full_rest = squash(&self.text[rest_start..rest_end]);
        let raw_rest = full_rest
            .trim_start_matches(['.', ')', ':', '-', ']', '번'])
            .to_string();
        let rest = raw_rest.trim_end_matches(['.', '!', ')', ']']);
        let rest = ["입니다", "이다", "임", "이에요", "예요", "요"]
            .iter()
            .find_map(|s| rest.strip_suffix(s))
            .unwrap_or(rest);
        // The label's own option text, exactly: nothing in it can change the reading.
        if let Resolved::In(c) = label {
            let own_text = self.set.option_text(c).map(squash);
            let same = |t: &str| {
                !t.is_empty()
                    && (t == full_rest || t == raw_rest || t.trim_end_matches(['.', '!']) == rest)
            };
            if own_text.is_some_and(|t| same(&t)) {
                return Some(decided(rule));
            }
        }
        let negated = (j..range.end).any(|x| match self.toks[x].kind {
            Kind::Hangul => {
                let w = self.word(x);
                is_negation_word(strip_beon(w))
                    || [
                        "아니", "아닌", "아님", "아닙", "없", "틀", "오답", "빼", "제외", "말고",
                    ]
                    .iter()
                    .any(|n| w.contains(n))
                    || answer_keyword(w).is_some()
            }
            Kind::Latin => matches!(
                lower(self.word(x)).as_str(),
                "not" | "wrong" | "incorrect" | "answer"
            ),
            _ => false,
        });
        // A particle glued to the label makes a sentence ("③이 맞다"), not option text.
        let glued = (self.toks[j].kind == Kind::Hangul
            && (self.toks[j].start == self.toks[j - 1].end || self.word(j).starts_with('같')))
            || (self.toks[j].kind == Kind::Latin
                && matches!(
                    lower(self.word(j)).as_str(),
                    "is" | "was" | "seems" | "looks" | "would" | "should" | "might" | "could"
                ));
        if negated || glued {
            return None;
        }
        if self.set.options().is_empty() {
            return (rest.chars().count() <= 40).then(|| decided(rule));
        }
        let Resolved::In(c) = label else {
            return Some(decided(rule));
        };
        // 2: the text is the option's text; 1: one contains the other; 0: unrelated.
        let score = |o: Choice| {
            self.set.option_text(o).map_or(0, |t| {
                let t = squash(t);
                if t.is_empty() {
                    0
                } else if t == rest {
                    2
                } else if rest.chars().count() >= 2 && (t.contains(rest) || rest.contains(&t)) {
                    1
                } else {
                    0
                }
            })
        };
        let own = score(c);
        if more_labels && own < 2 {
            return None;
        }
        let others: Vec<Choice> = self
            .set
            .choices()
            .filter(|&o| o != c && score(o) > 0 && score(o) >= own)
            .collect();
        let best_other = others.iter().map(|&o| score(o)).max().unwrap_or(0);
        if own > 0 && own > best_other {
            return Some(decided(rule));
        }
        let mut candidates = vec![c];
        candidates.extend(others);
        Some(Extraction::Ambiguous {
            candidates,
            rule: Rule::LabelTextMismatch,
            span: self.span(k, range.end - 1),
        })
    }

    fn bare(&self) -> Option<Extraction> {
        if let Some(e) = self.bare_in(0..self.toks.len(), Rule::Bare) {
            return Some(e);
        }
        let line_end = self.toks.iter().position(|t| t.kind == Kind::Break)?;
        self.leading_bare(line_end).or_else(|| self.last_line())
    }

    /// The last line alone is a label, after prose: "…설명…\n\n④". No other line may start
    /// with a label, since a restated option list ends with one too.
    fn last_line(&self) -> Option<Extraction> {
        let n = self.toks.len();
        let mut end = n;
        while end > 0 && matches!(self.toks[end - 1].kind, Kind::Break | Kind::Punct(_)) {
            end -= 1;
        }
        let last_break = self.toks[..end]
            .iter()
            .rposition(|t| t.kind == Kind::Break)?;
        let other_line_starts_with_label = std::iter::once(0)
            .chain(
                self.toks[..last_break]
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.kind == Kind::Break)
                    .map(|(b, _)| b + 1),
            )
            .any(|start| {
                let mut k = start;
                while k < last_break && matches!(self.toks[k].kind, Kind::Punct(_)) {
                    k += 1;
                }
                k < last_break && self.is_label_mark(k)
            });
        if other_line_starts_with_label {
            return None;
        }
        let e = self.bare_in(last_break + 1..end, Rule::LastLine)?;
        // Only a lone label: option text on the last line is how option lists end.
        match &e {
            Extraction::Answer { span, .. } | Extraction::Invalid { span, .. }
                if span.end >= self.toks[end - 1].end as usize =>
            {
                Some(e)
            }
            _ => None,
        }
    }

    /// The first line alone is a label and no other line names a different choice.
    fn leading_bare(&self, line_end: usize) -> Option<Extraction> {
        let e = self.bare_in(0..line_end, Rule::LeadingBare)?;
        let chosen = e.choice();
        let later_conflict = (line_end..self.toks.len()).any(|j| {
            self.is_label_mark(j)
                && match self.label_at(j) {
                    Some(Resolved::In(c)) => Some(c) != chosen,
                    _ => true,
                }
        });
        (!later_conflict).then_some(e)
    }

    fn ox_words(&self) -> Option<Extraction> {
        // Final polarity of each sentence that has O/X words.
        let mut finals: Vec<(bool, usize, Range<usize>)> = Vec::new();
        for s in sentences(&self.toks) {
            if s.clone().any(|j| self.masked[j]) {
                continue;
            }
            let words: Vec<(usize, bool)> = s
                .clone()
                .filter_map(|j| match self.toks[j].kind {
                    Kind::Mark(Mark::Ox(o)) => Some((j, o)),
                    _ => ox_polarity(&self.toks, j, self.text).map(|p| (j, p)),
                })
                .filter(|&(j, _)| {
                    // "틀리지 않" was read from 틀리지; skip the 않 that follows it.
                    !self.word(j).starts_with('않')
                })
                .collect();
            let Some(&(last_j, last_p)) = words.last() else {
                continue;
            };
            let connective = |j: usize| {
                let w = self.word(j);
                [
                    "지만", "는데", "으나", "나", "므로", "니까", "어서", "아서", "고", "며", "면",
                    "은데", "다고", "라고", "지",
                ]
                .iter()
                .any(|e| w.ends_with(e))
            };
            if words.iter().any(|&(j, p)| p != last_p && !connective(j)) {
                return Some(Extraction::Ambiguous {
                    candidates: self.set.choices().collect(),
                    rule: Rule::OxWordConflict,
                    span: self.span(s.start, s.end - 1),
                });
            }
            finals.push((last_p, last_j, s));
        }
        let &(p, j, ref s) = finals.last()?;
        let concluded = (s.start..s.end.min(s.start + 2)).any(|x| {
            is_correction(&self.toks[x], self.text)
                || (self.toks[x].kind == Kind::Hangul
                    && [
                        "따라서",
                        "그러므로",
                        "결론",
                        "결국",
                        "즉",
                        "하지만",
                        "그러나",
                        "최종",
                    ]
                    .iter()
                    .any(|w| self.word(x).starts_with(w)))
        });
        if !concluded && finals.iter().any(|f| f.0 != p) {
            return Some(Extraction::Ambiguous {
                candidates: self.set.choices().collect(),
                rule: Rule::OxWordConflict,
                span: self.span(finals[0].2.start, s.end - 1),
            });
        }
        let choice = Choice::from_index(usize::from(!p))?;
        Some(Extraction::Answer {
            choice,
            rule: Rule::OxWord,
            span: self.span(j, j),
        })
    }

    fn unique_option_text(&self) -> Option<Extraction> {
        if self.set.options().is_empty() || self.text.len() > 300 {
            return None;
        }
        if (0..self.toks.len()).any(|j| self.is_label_mark(j)) {
            return None;
        }
        if self.toks.iter().enumerate().any(|(j, t)| {
            (t.kind == Kind::Hangul && is_negation_word(self.word(j)))
                || (t.kind == Kind::Latin && lower(self.word(j)) == "not")
        }) {
            return None;
        }
        let hay = squash(self.text);
        let found: Vec<(Choice, String)> = self
            .set
            .choices()
            .filter_map(|c| {
                let o = squash(self.set.option_text(c)?);
                (o.chars().count() >= 2 && hay.contains(&o)).then_some((c, o))
            })
            .collect();
        // An option contained in a longer matched option is not named on its own.
        let named: Vec<&(Choice, String)> = found
            .iter()
            .filter(|(c, o)| {
                !found
                    .iter()
                    .any(|(d, p)| d != c && p.len() > o.len() && p.contains(o.as_str()))
            })
            .collect();
        let span = 0..self.text.len();
        match named.as_slice() {
            [] => None,
            [(c, _)] => Some(Extraction::Answer {
                choice: *c,
                rule: Rule::OptionText,
                span,
            }),
            many => Some(Extraction::Ambiguous {
                candidates: many.iter().map(|(c, _)| *c).collect(),
                rule: Rule::MultipleOptionTexts,
                span,
            }),
        }
    }
}

fn said_of(labels: &[Resolved]) -> Said {
    let mut choices: Vec<Choice> = Vec::new();
    let mut outside = false;
    for l in labels {
        match l {
            Resolved::In(c) => {
                if !choices.contains(c) {
                    choices.push(*c)
                }
            }
            Resolved::Outside => outside = true,
        }
    }
    match (choices.as_slice(), outside) {
        ([c], false) => Said::One(*c),
        ([], _) => Said::Outside,
        _ => Said::Many(choices),
    }
}
