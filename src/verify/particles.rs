//! Korean particles around a label: which may follow a number that is a choice ("3번",
//! "3이", not "3년"), and particles written with their alternative in brackets ("1번이(가)");
//! and the English words after a number or an "A" that make it a count or an article
//! ("2 options seem correct", "A careful reading …"), not a label.

/// Hangul starts that may follow a number that is a choice: particles and the copula
/// (3번, 3이, 3가, 3입니다, 3을, 3은, 3으로, 3임, 3과 …), but not units (3년, 3억, 3개) or
/// words that make it a quantity (3가지, 3이상, 3이하).
pub(super) fn particle_may_follow_choice(rest: &str) -> bool {
    const REJECT: [&str; 8] = [
        "가지", "이상", "이하", "이내", "이후", "이전", "이외", "이었",
    ];
    const ALLOW: [char; 17] = [
        '번', '이', '가', '입', '을', '를', '은', '는', '으', '로', '임', '과', '와', '도', '라',
        '였', '만',
    ];
    if REJECT.iter().any(|r| rest.starts_with(r)) {
        return false;
    }
    // "C예요", "3예요": the copula after a vowel; "D네요", "D네.": "it is D".
    if rest.starts_with("예요") || rest.starts_with("네요") {
        return true;
    }
    // 만 is "only" after a choice but 10,000 after an amount (3만원): accept only 만 + space/end.
    // 나 is "or" ("2나 3") only as a word of its own, not the start of 나라, 나이 …; 네 ends
    // "D네." so (not 네 개, 네가).
    for p in ['만', '나', '네'] {
        if let Some(after) = rest.strip_prefix(p) {
            return after.is_empty() || after.starts_with([' ', '.', ',']);
        }
    }
    rest.chars().next().is_some_and(|c| ALLOW.contains(&c))
}

/// Particles and the alternative a template writes beside them in brackets.
const ALTERNATIVES: [(&str, &str); 12] = [
    ("이", "가"),
    ("가", "이"),
    ("은", "는"),
    ("는", "은"),
    ("을", "를"),
    ("를", "을"),
    ("와", "과"),
    ("과", "와"),
    ("으로", "로"),
    ("로", "으로"),
    ("이나", "나"),
    ("나", "이나"),
];

/// "1번이(가) 정답", "④은(는) 답이 아닙니다", "C을(를) 선택": a particle written with its
/// alternative in brackets, as templated and machine-translated text writes it. `before` is
/// the Hangul word that ends right at `rest`, which starts with the bracket; `after_mark`
/// says whether that word is glued to a mark before it. Returns the bracket's byte length,
/// which the tokeniser skips, so "1번이(가)" reads as "1번이". A word that is only the
/// particle ("이(가)") counts only after a mark: alone it may be "이" (this) before a
/// sub-item label "(가)".
pub(super) fn alternative_len(before: &str, after_mark: bool, rest: &str) -> Option<usize> {
    ALTERNATIVES.iter().find_map(|&(p, alt)| {
        let stem = before.strip_suffix(p)?;
        if stem.is_empty() && !after_mark {
            return None;
        }
        let inner = rest.strip_prefix('(')?.strip_prefix(alt)?;
        inner.starts_with(')').then_some(1 + alt.len() + 1)
    })
}

/// English nouns a number counts: "2 options", "3 of the statements", "4 fire classes".
const COUNTED: [&str; 24] = [
    "of",
    "option",
    "options",
    "statement",
    "statements",
    "candidate",
    "candidates",
    "thing",
    "things",
    "choice",
    "choices",
    "answers",
    "class",
    "classes",
    "item",
    "items",
    "cases",
    "types",
    "kinds",
    "reasons",
    "errors",
    "facts",
    "ones",
    "conditions",
];

/// The first one or two lower-case English words of `rest` (after one space).
fn english_words(rest: &str) -> (&str, &str) {
    let Some(rest) = rest.strip_prefix(' ') else {
        return ("", "");
    };
    fn word(s: &str) -> (&str, &str) {
        let n = s.bytes().take_while(|b| b.is_ascii_lowercase()).count();
        s.split_at(n)
    }
    let (first, tail) = word(rest);
    let second = tail.strip_prefix(' ').map_or("", |t| word(t).0);
    (first, second)
}

/// Does a number followed by `rest` count English nouns ("2 options seem correct", "3 of the
/// statements", "4 fire classes exist")?
pub(super) fn english_count_follows(rest: &str) -> bool {
    let (first, second) = english_words(rest);
    // "4 fire classes" (a word between), not "3 and option 4".
    !first.is_empty()
        && (COUNTED.contains(&first)
            || (COUNTED.contains(&second) && !AFTER_LABEL.contains(&first)))
}

/// Words that may follow a label "A" in English ("A is correct", "A because …", "A, since"):
/// after "A" any other lower-case word makes it the article ("A careful reading points to D").
const AFTER_LABEL: [&str; 47] = [
    "answer",
    "is",
    "was",
    "seems",
    "looks",
    "appears",
    "remains",
    "stands",
    "fits",
    "matches",
    "describes",
    "states",
    "says",
    "because",
    "since",
    "as",
    "and",
    "or",
    "but",
    "so",
    "then",
    "would",
    "should",
    "could",
    "might",
    "must",
    "will",
    "can",
    "correctly",
    "best",
    "only",
    "also",
    "too",
    "here",
    "for",
    "again",
    "instead",
    "rather",
    "definitely",
    "clearly",
    "probably",
    "given",
    "under",
    "per",
    "in",
    "vs",
    "with",
];

/// Is an "A" followed by `rest` the English article ("A careful reading …")?
pub(super) fn article_follows(rest: &str) -> bool {
    let (first, _) = english_words(rest);
    if first.is_empty() {
        return false;
    }
    // A whole lower-case word ("A careful"), not "A is" or "A b)".
    let whole = rest[1 + first.len()..]
        .chars()
        .next()
        .is_none_or(|c| !c.is_ascii_alphanumeric() && c != ')');
    whole && first.len() > 1 && !AFTER_LABEL.contains(&first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_alternatives_follow_their_particle() {
        assert_eq!(alternative_len("번이", false, "(가) 정답"), Some(5));
        assert_eq!(alternative_len("은", true, "(는) 답이"), Some(5));
        assert_eq!(alternative_len("답을", false, "(를)"), Some(5));
        assert_eq!(alternative_len("선택지로", false, "(으로)"), Some(8));
        // Not the particle's own alternative, nor a lone 이 before a sub-item label.
        assert_eq!(alternative_len("번이", false, "(나) 정답"), None);
        assert_eq!(alternative_len("이", false, "(가)와 (나)"), None);
        assert_eq!(alternative_len("번이", false, "(가"), None);
    }
}
