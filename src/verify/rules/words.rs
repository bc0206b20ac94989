//! Word lists the rules read, as data: answer keywords (정답, 답, Answer), negations, the
//! particles and fillers that may stand between a keyword and a label, connectors that join
//! alternatives, hedges, self-corrections, final qualifiers and refusals. Korean eojeol are
//! matched by prefix (stem) and the rest read as particles. No rule logic lives here.

use crate::verify::scan::{Kind, Tok};

/// An answer keyword: 정답, 답, 해답, 답안, 답변 (optionally 최종-prefixed). Returns
/// (is_final, suffix).
pub(super) fn answer_keyword(w: &str) -> Option<(bool, &str)> {
    let (is_final, w) = match w.strip_prefix("최종") {
        Some(rest) => (true, rest.strip_prefix("적인").unwrap_or(rest)),
        // "모범답안: ③": the model answer.
        None => (false, w.strip_prefix("모범").unwrap_or(w)),
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

pub(super) fn is_negation_word(w: &str) -> bool {
    ["아니", "아닌", "아님", "아닙", "아냐", "아닐"]
        .iter()
        .any(|p| w.starts_with(p))
        // "③ 아니면 ④", "③이 아니라면 ④": a disjunction or a condition, not a denial.
        && !is_conditional_negation(w)
        // "③이 아닐까 싶습니다": a tentative yes ("④가 아닐 것 같습니다" is a no).
        && !w.starts_with("아닐까")
}

/// "아니면", "아니라면", "아니면은": "or" / "if not", which deny nothing.
pub(super) fn is_conditional_negation(w: &str) -> bool {
    ["아니면", "아니라면", "아니었다면", "아니었으면"]
        .iter()
        .any(|p| w.starts_with(p))
}

/// Does the Hangul word call something an error as its predicate ("오류다", "오류입니다",
/// "오류임"), not name one as an object ("오류를 바로잡은")?
pub(super) fn is_called_error(w: &str) -> bool {
    w.strip_prefix("오류").is_some_and(|r| {
        matches!(
            r,
            "" | "다"
                | "이다"
                | "입니다"
                | "임"
                | "예요"
                | "이에요"
                | "야"
                | "이야"
                | "였다"
                | "였습니다"
        )
    })
}

/// Is the Hangul word in the past perfect, a state that held before and no longer
/// ("생각했었다", "믿었었다", "여겼었다", "이였었다"): a syllable ending in ㅆ, then 었?
pub(super) fn is_past_perfect(w: &str) -> bool {
    let mut prev = '\0';
    w.chars().any(|c| {
        let ss = matches!(prev, '\u{AC00}'..='\u{D7A3}') && (prev as u32 - 0xAC00) % 28 == 20;
        prev = c;
        c == '었' && ss
    })
}

/// Is the Hangul word a belief held in the past and then followed by something else
/// ("생각했는데", "알았는데", "봤는데", "여겼는데", "믿었는데")? Not a conclusion reached
/// ("판단했는데, 그 근거는 …").
pub(super) fn is_belief_given_up(w: &str) -> bool {
    w.strip_suffix("는데").is_some_and(|stem| {
        [
            "생각했",
            "생각하였",
            "알았",
            "봤",
            "보았",
            "여겼",
            "믿었",
            "예상했",
            "짐작했",
        ]
        .iter()
        .any(|v| stem.ends_with(v))
    })
}

/// Particles (with an optional leading 번) that may sit between a label and what follows.
pub(super) fn strip_beon(w: &str) -> &str {
    w.strip_prefix("번").unwrap_or(w)
}

/// A word without a copula ending it: "배입니다", "배예요" → "배" (not a particle, which may
/// lead to a denial: "배가 아니라").
pub(super) fn bare_word(w: &str) -> &str {
    const COPULAS: [&str; 7] = ["입니다", "이에요", "이다", "예요", "이야", "임", "야"];
    COPULAS
        .iter()
        .find_map(|e| w.strip_suffix(e).filter(|b| !b.is_empty()))
        .unwrap_or(w)
}

pub(super) fn is_subject_or_object_particle(w: &str) -> bool {
    matches!(
        strip_beon(w),
        "" | "이" | "가" | "을" | "를" | "은" | "는" | "이야말로" | "만이" | "로" | "으로"
    )
}

/// Words that may stand between a keyword and the label: "정답은 바로 보기 ③".
pub(super) fn is_right_filler_hangul(w: &str) -> bool {
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
            // "정답 번호: 1", "정답 번호는 3".
            | "번호"
            | "번호는"
            | "최종"
            | "가장"
            | "적절한"
            | "올바른"
            | "옳은"
            | "것은"
            | "단연"
            | "확실히"
            | "아마"
            | "아마도"
    )
}

pub(super) fn is_right_filler_latin(w: &str) -> bool {
    matches!(
        lower(w).as_str(),
        "is" | "the"
            | "option"
            | "choice"
            | "would"
            | "must"
            | "be"
            | "should"
            | "will"
            | "correct"
            | "number"
            | "text"
            // JSON keys: `"answer_label": "②"`, `"answer_letter": "C"`.
            | "label"
            | "letter"
            // LaTeX font commands around a label: `$\mathrm{C}$`, `\textbf{(C)}`.
            | "mathrm"
            | "mathbf"
            | "textbf"
            | "textrm"
            | "mathit"
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
            | "now"
            | "clearly"
            | "definitely"
            | "stays"
            | "remains"
            | "still"
    )
}

/// Nouns an answer calls an option by: "③번 선택지가", "두 번째 보기인 ④".
pub(super) const OPTION_NOUN_WORDS: [&str; 4] = ["선택지", "보기", "항목", "옵션"];

/// The particle after a noun for an option: "선택지가" → "가", "보기를" → "를".
pub(super) fn option_noun_particle(w: &str) -> Option<&str> {
    OPTION_NOUN_WORDS.iter().find_map(|n| {
        w.strip_prefix(n)
            .filter(|p| matches!(*p, "이" | "가" | "을" | "를" | "로" | "으로"))
    })
}

/// Words that may stand between a label and a following keyword: "③을 최종 정답으로".
pub(super) fn is_left_filler_hangul(w: &str) -> bool {
    let noun_particle = OPTION_NOUN_WORDS.iter().any(|n| {
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

pub(super) fn is_left_filler_latin(w: &str) -> bool {
    matches!(
        lower(w).as_str(),
        "is" | "the" | "correct" | "right" | "final" | "best" | "most" | "likely" | "my" | "as"
    )
}

/// Connectors that join alternatives: "① 또는 ②", "①과 ②", "① or ②".
pub(super) fn is_alternative_connector(t: &Tok, text: &str) -> bool {
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
                | "내지"
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
        // 或(者), 还是, 和, 及; または, か, と — one character per token.
        Kind::Other => matches!(
            t.text(text),
            "或" | "者" | "还" | "還" | "和" | "及" | "ま" | "た" | "は" | "か" | "と"
        ),
        _ => false,
    }
}

/// Words that put a second choice up as possible: "③일 수도 있고 ④일 수도".
pub(super) fn is_hedge(t: &Tok, text: &str) -> bool {
    match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            w.starts_with("수도")
                || w.starts_with("또는")
                || w.starts_with("혹은")
                || is_conditional_negation(w)
                || w.starts_with("내지")
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
/// `next` is the text of the token after `t` (empty when there is none).
pub(super) fn is_correction(t: &Tok, next: &str, text: &str) -> bool {
    match t.kind {
        Kind::Hangul => {
            let w = t.text(text);
            [
                "정정",
                "재검토",
                "수정",
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
                || own_mistake(w, next)
                || w == "사실"
                || w.ends_with("지만")
                || w.ends_with("으나")
                || matches!(
                    w,
                    "아니" | "아니요" | "아니야" | "아니다" | "아니오" | "아니네"
                )
        }
        Kind::Latin => matches!(
            lower(t.text(text)).as_str(),
            "wait"
                | "actually"
                | "hmm"
                | "edit"
                | "corrected"
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

/// Does the word `w` (with the word after it, `next`) speak of the writer looking again or
/// having erred: "다시 보니", "다시 계산하면", "잘못 봤습니다", "실수했습니다", "착각이었네요"?
/// Not an option's or a reader's error: "잘못 고르기 쉬운", "실수로 고르는", "착각한 값",
/// "잘못 적용한", "다시 경정할 수 있다".
fn own_mistake(w: &str, next: &str) -> bool {
    const LOOKING: [&str; 13] = [
        "보", "봐", "봤", "확인", "생각", "계산", "검토", "살펴", "읽", "따져", "풀", "점검",
        "고려",
    ];
    let past = |s: &str| ["했", "였", "었", "봤", "았"].iter().any(|m| s.contains(m));
    if let Some(rest) = w.strip_prefix("다시") {
        let looked = if matches!(rest, "" | "금") {
            next
        } else {
            rest
        };
        return LOOKING.iter().any(|l| looked.starts_with(l));
    }
    let Some(rest) = ["잘못", "실수", "착각"]
        .iter()
        .find_map(|p| w.strip_prefix(p))
    else {
        return false;
    };
    if past(rest) {
        return true;
    }
    let thought = |s: &str| {
        past(s)
            || ["생각", "판단", "계산", "읽", "보았", "봤", "답", "말씀"]
                .iter()
                .any(|l| s.starts_with(l))
    };
    match rest {
        "" | "을" | "를" | "이" | "가" => thought(next),
        "된" => ["답", "판단", "계산", "생각"]
            .iter()
            .any(|l| next.starts_with(l)),
        _ => false,
    }
}

pub(super) fn is_final_qualifier(t: &Tok, text: &str) -> bool {
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

/// A Latin word in ASCII lower case (full-width letters folded).
pub(super) fn lower(w: &str) -> String {
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

/// Words that offer an alternative: "혹은", "아니면", "또는", "or", "alternatively".
pub(super) fn is_disjunction(t: &Tok, text: &str) -> bool {
    match t.kind {
        Kind::Hangul => ["혹은", "아니면", "또는", "아니라면"]
            .iter()
            .any(|w| t.text(text).starts_with(w)),
        Kind::Latin => matches!(
            lower(t.text(text)).as_str(),
            "or" | "alternatively" | "otherwise"
        ),
        Kind::Punct('/') => true,
        _ => false,
    }
}

/// Chinese and Japanese answer markers, longest first: "正确答案：C", "答案是 B", "答え: D",
/// and the Chinese choice made, "故选C" (so choose C), "我选择 A" (I choose A).
pub(super) const CJK_KEYWORDS: [&str; 14] = [
    "正确答案",
    "正確答案",
    "最终答案",
    "最終答案",
    "我选择",
    "我選擇",
    // Not 本题选, 应选, 所以选, 因此选 (audit 44's misses): as often someone else's choice or
    // a supposed one ("有人认为本题选B，但这是错误的", "很多人会因此选B"; trials 53, 54).
    "故选",
    "故選",
    "答案",
    "答え",
    "正解",
    "解答",
    "回答",
    "答",
];

/// The Chinese or Japanese answer marker `rest` opens with (`before` is the text before it);
/// not a choosing verb that is the first half of "选项" ("故选项B是错误的": "option B is
/// wrong", audit 44), nor another's answer.
pub(super) fn cjk_keyword(before: &str, rest: &str) -> Option<&'static str> {
    // "备选答案：B", "错误答案：B", "別の答え": a spare or a wrong one (trial 55); not "的",
    // which "正确的答案", "我的答案" have too (trial 56).
    const NOT_MINE: [&str; 9] = [
        "备选",
        "備選",
        "错误",
        "錯誤",
        "易错",
        "常见",
        "别的",
        "別の",
        "另一个",
    ];
    if NOT_MINE.iter().any(|m| before.ends_with(m)) {
        return None;
    }
    let keyword = CJK_KEYWORDS.iter().find(|w| rest.starts_with(*w))?;
    let after = &rest[keyword.len()..];
    let option = (keyword.ends_with('选') || keyword.ends_with('選'))
        && (after.starts_with('项') || after.starts_with('項'));
    (!option).then_some(keyword)
}

/// Chinese and Japanese words that may stand between such a marker and the label, one
/// character each as the scanner splits them: 是, 为, は, 应该, 选项 ….
pub(super) const CJK_FILLERS: [&str; 16] = [
    "是", "为", "為", "は", "が", "应", "该", "應", "該", "选", "選", "项", "項", "择", "的", "擇",
];

/// Nouns an answer puts after the question's ask phrase: "적절하지 않은 것은 ③",
/// "옳은 선택지는 ②", "일치하지 않는 보기는 ④".
pub(super) const ASK_NOUNS: [&str; 9] = [
    "것",
    "선택지",
    "보기",
    "항목",
    "답",
    "옵션",
    "번호",
    "설명",
    "내용",
];

/// Asks about truth or fit, by polarity, word by word: an answer may echo its question's ask
/// with another phrase of the same polarity ("틀린 것은 ③" for "…옳지 않은 것은?").
const TRUTH_POSITIVE: [&[&str]; 8] = [
    &["옳은"],
    &["맞는"],
    &["적절한"],
    &["바른"],
    &["올바른"],
    &["타당한"],
    &["해당하는"],
    &["정확한"],
];

const TRUTH_NEGATIVE: [&[&str]; 12] = [
    &["옳지", "않은"],
    &["틀린"],
    &["적절하지", "않은"],
    &["잘못된"],
    &["바르지", "않은"],
    &["올바르지", "않은"],
    &["맞지", "않는"],
    &["부적절한"],
    &["해당하지", "않는"],
    &["아닌"],
    &["타당하지", "않은"],
    &["정확하지", "않은"],
];

/// The phrases of the same polarity as a Korean ask about truth or fit ("옳지 않은",
/// "적절한"), or none for another ask ("가장 먼저 해야 할").
pub(super) fn truth_synonyms(ask: &[&str]) -> &'static [&'static [&'static str]] {
    if TRUTH_POSITIVE.contains(&ask) {
        &TRUTH_POSITIVE
    } else if TRUTH_NEGATIVE.contains(&ask)
        // "사실이 아닌", "옳은 것이 아닌"; not "잘못된 설명이 아닌", whose two negations cancel.
        || (ask.last() == Some(&"아닌") && super::echo::asks_negative(ask))
    {
        &TRUTH_NEGATIVE
    } else {
        &[]
    }
}

/// "incorrect statement", "false one" (`Some(false)`), "correct statement", "true one"
/// (`Some(true)`): an English phrase naming the untrue or the true option, which echoes a
/// question asking which is not true, or which is.
pub(super) fn truth_phrase(adjective: &str, noun: &str) -> Option<bool> {
    let is = |w: &str, list: &[&str]| list.iter().any(|l| w.eq_ignore_ascii_case(l));
    const NOUNS: [&str; 6] = [
        "statement",
        "claim",
        "one",
        "description",
        "explanation",
        "sentence",
    ];
    if !is(noun, &NOUNS) {
        return None;
    }
    if is(
        adjective,
        &["incorrect", "false", "wrong", "untrue", "inaccurate"],
    ) {
        Some(false)
    } else if is(adjective, &["correct", "true", "right", "accurate"]) {
        Some(true)
    } else {
        None
    }
}

/// Does an English ask ask which is not true: "NOT true", "NOT correct", "incorrect",
/// "false"? (See [`truth_phrase`].)
pub(super) fn english_asks_untrue(ask: &[&str]) -> bool {
    let is = |w: &str, list: &[&str]| list.iter().any(|l| w.eq_ignore_ascii_case(l));
    match ask {
        [w] => is(w, &["incorrect", "false", "untrue", "wrong", "inaccurate"]),
        [not, w, ..] => {
            not.eq_ignore_ascii_case("not")
                && is(w, &["true", "correct", "accurate", "right", "valid"])
        }
        _ => false,
    }
}

/// Verbs of a view held now, after a quote: "…라고 생각합니다", "…다고 봅니다".
pub(super) const VIEW_VERBS: [&str; 9] = [
    "생각합",
    "생각해요",
    "생각한다",
    "봅니다",
    "봐요",
    "본다",
    "판단합",
    "판단됩",
    "믿습",
];

/// Does `text` doubt in Chinese or Japanese ("但不太确定", "没有把握", "自信はありません"),
/// or take the answer back for a label named at once ("不，B", "更正：B", "いや、Bです")?
/// Not "不，" or "更正" alone, which as often deny another option (trials 55, 56).
/// Only looked for where a CJK ideograph or kana is (lead bytes E3–E9; Hangul's are EA–ED).
pub(super) fn cjk_doubt(text: &str) -> bool {
    const DOUBTS: [&str; 18] = [
        "不太确定",
        "不确定",
        "不太肯定",
        "不能确定",
        "无法确定",
        "没有把握",
        "没把握",
        "不敢肯定",
        "拿不准",
        "自信はありません",
        "自信がありません",
        "自信がない",
        "自信はない",
        "確信はありません",
        "確信がありません",
        "確信がない",
        "わかりません",
        "分かりません",
    ];
    // Not a doubt denied or named as a noun: "并不是不确定", "没有不确定的地方", "毫无不确定性",
    // "不确定度很低", "自信がないわけではありません".
    let stands = |at: usize, d: &str| {
        let before = &text[..at];
        let after = &text[at + d.len()..];
        !["不是", "没有", "毫无", "并非"]
            .iter()
            .any(|n| before.ends_with(n))
            && !after.starts_with(['度', '性', '的'])
            && !after.starts_with("わけ")
    };
    // "不，B", "不，应该是B", "更正：B", "いや、Bです": taken back for a label named at once.
    let label_after = |w: &str| {
        text.match_indices(w).any(|(at, _)| {
            let mut rest = text[at + w.len()..].trim_start();
            for p in ["应该是", "应该选", "应该", "应选", "是", "选", "やはり"] {
                rest = rest.strip_prefix(p).unwrap_or(rest);
            }
            rest.trim_start().starts_with(|c: char| {
                c.is_ascii_uppercase() || ('①'..='⑳').contains(&c) || c.is_ascii_digit()
            })
        })
    };
    text.bytes().any(|b| (0xE3..=0xE9).contains(&b))
        && (DOUBTS
            .iter()
            .any(|d| text.match_indices(d).any(|(at, _)| stands(at, d)))
            || ["不，", "不,", "更正：", "更正:", "いや、"]
                .iter()
                .any(|w| label_after(w)))
}
