//! The question's ask: the phrase it asks with ("…적절하지 않은 것은?" → "적절하지 않은",
//! "Which of the following is NOT true?" → "NOT true"), which an answer may echo and which
//! gives the ask its polarity, and whether it asks for ○/×.

/// The ask phrase of a Korean question: the one or two words before the first "것은?" /
/// "것을 고르…" / "것은 무엇…" ("가장 적절하지 않은 것은?" → "적절하지 않은").
/// Two words when the last is a negation (않은, 않는, 아닌, 없는, 못한), else one.
pub(crate) fn ask_phrase(q: &str) -> Option<String> {
    korean_ask(q).or_else(|| super::english_ask::english_ask(q))
}

/// Where the first asking ending ("것은?", "것은 ?", "것을 고르…", "것은 무엇…", "것을 모두…",
/// "것만을 모두…", "것은 (단, …)?") starts: the first 것 that one of them continues.
fn first_asking_ending(q: &str) -> Option<usize> {
    const ENDINGS: [&str; 6] = ["은?", "은 ?", "을 고르", "은 무엇", "을 모두", "만을 모두"];
    memchr::memmem::find_iter(q.as_bytes(), "것".as_bytes()).find(|&at| {
        let rest = &q[at + "것".len()..];
        ENDINGS.iter().any(|e| rest.starts_with(e))
            || remark_then_question(rest)
            || picked_from_box(rest)
    })
}

/// After "것": "만을 <보기>에서 있는 대로 고른 것은?", "을 〈보기〉에서 모두 고른 것은?": the
/// ones to pick from a box of statements, with words between them and "고른" on the same
/// line (the civil-service exams' own ask).
fn picked_from_box(rest: &str) -> bool {
    const OPENINGS: [&str; 5] = [
        "만을",
        "을 <보기>",
        "을 〈보기〉",
        "을 [보기]",
        "을 보기에서",
    ];
    let line = &rest[..rest.find(['?', '\n']).unwrap_or(rest.len())];
    OPENINGS.iter().any(|o| line.starts_with(o)) && (line.contains("고르") || line.contains("고른"))
}

/// After "것": "은 (소화설비 제외)?", a remark in brackets on the same line, then the
/// question mark.
fn remark_then_question(rest: &str) -> bool {
    let Some(remark) = rest
        .strip_prefix("은 (")
        .or_else(|| rest.strip_prefix("은("))
    else {
        return false;
    };
    remark.find([')', '\n']).is_some_and(|end| {
        remark[end..]
            .strip_prefix(')')
            .is_some_and(|r| r.trim_start_matches(' ').starts_with('?'))
    })
}

fn korean_ask(q: &str) -> Option<String> {
    // The stem asks before the options list, so the first asking ending counts; "것은" alone
    // is too common inside option texts to count.
    let at = first_asking_ending(q)?;
    let mut words_back = q[..at].split_whitespace().rev();
    let before: Vec<&str> = words_back.by_ref().take(2).collect();
    let last = *before.first()?;
    if !is_hangul(last) {
        return None;
    }
    let negated = ["않은", "않는", "아닌", "없는", "못한", "않다고", "아니한"].contains(&last);
    // "잘못 설명된 것은?", "틀리게 연결된 것은?": an adverb that makes the ask negative.
    let adverb = before
        .get(1)
        .is_some_and(|w| ["잘못", "틀리게", "그릇되게"].contains(w));
    match (negated || adverb, before.get(1)) {
        (true, Some(w)) if is_hangul(w) => {
            // The words the negation's phrase goes back over, so that a second negation
            // in it is counted: "잘못된 설명이 아닌", "옳지 않다고 볼 수 없는" (trial 58:
            // "설명이 아닌" alone read as an ask for what is not so).
            let mut words = before;
            for w in words_back {
                if !(is_hangul(w) && leads_into(w, words[words.len() - 1])) {
                    break;
                }
                // A phrase longer than this is not read: its negations may not all be seen.
                if words.len() == MAX_ASK_WORDS {
                    return None;
                }
                words.push(w);
            }
            words.reverse();
            Some(words.join(" "))
        }
        (true, _) => None,
        (false, _) => Some(last.to_string()),
    }
}

/// At most how many words a Korean ask phrase holds.
const MAX_ASK_WORDS: usize = 8;

fn is_hangul(w: &str) -> bool {
    w.chars().all(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c))
}

/// Does word `w` belong to the same phrase as the `next` word after it: a predicate the
/// negation denies ("옳지 | 않은", "틀리게 | 아닌"), a modifier of a subject noun ("잘못된 |
/// 설명이", "옳지 않은 | 것이"), a verb before the bound noun 수 ("볼 | 수"), a quote or
/// adverb before a verb ("않다고 | 볼"), the complement of a denial ("것이 | 아닌")? Not a
/// topic ("설명으로", "지역에 대한").
fn leads_into(w: &str, next: &str) -> bool {
    let Some(last) = w.chars().last() else {
        return false;
    };
    // The final consonant of a Hangul syllable: 4 is ㄴ, 8 is ㄹ.
    let coda = |c: char| (c as u32 - 0xAC00) % 28;
    let next_last = next.chars().last().unwrap_or(' ');
    let one_syllable = next.len() == '수'.len_utf8();
    let denies = ["않", "아니", "아닌", "못", "없"]
        .iter()
        .any(|n| next.starts_with(n));
    let subject = !one_syllable && matches!(next_last, '이' | '가');
    // "것이 | 아닌", "설명이 | 아닌": the complement of 아니다; "수 | 없는".
    let complement =
        matches!(last, '이' | '가') && (next.starts_with("아닌") || next.starts_with("아니"));
    // "잘못 | 설명된": an adverb that makes the ask negative.
    let adverb = ["잘못", "틀리게", "그릇되게"].contains(&w);
    (denies && matches!(last, '지' | '게'))
        || adverb
        || complement
        || (w == "수" && (next.starts_with('없') || next.starts_with('있')))
        || (subject && coda(last) == 4)
        || (next == "수" && coda(last) == 8)
        || (one_syllable
            && coda(next_last) == 8
            && (w.ends_with("다고") || w.ends_with("라고") || last == '게'))
}

/// Does the question ask for no judgement: no "것" and no negation or truth word anywhere
/// in it (options included)?
pub(crate) fn asks_nothing(q: &str) -> bool {
    const WORDS: [&str; 12] = [
        "것", "않", "아닌", "아니", "없는", "틀", "옳", "잘못", "적절", "맞는", "바른", "해당",
    ];
    !WORDS.iter().any(|w| q.contains(w))
        && ![
            "not", "NOT", "Not", "except", "EXCEPT", "false", "true", "correct",
        ]
        .iter()
        .any(|w| q.contains(w))
}

/// Does the question ask for a ○/× (O/X) answer?
pub(crate) fn asks_for_ox(q: &str) -> bool {
    let has_o = q.contains(['○', '◯', '⭕']);
    let has_x = q.contains(['×', '✕', '✗', '❌']);
    if has_o && has_x {
        return true;
    }
    // "O/X", "O, X", "옳으면 O, 틀리면 X", "(O/X)", "OX": ASCII letters standing alone
    // (or glued to each other) within a short distance.
    let b = q.as_bytes();
    let alone = |i: usize, other: u8| {
        let before = i == 0 || !b[i - 1].is_ascii_alphanumeric() || b[i - 1] == other;
        let after = i + 1 >= b.len() || !b[i + 1].is_ascii_alphanumeric() || b[i + 1] == other;
        before && after
    };
    let os: Vec<usize> = (0..b.len())
        .filter(|&i| b[i] == b'O' && alone(i, b'X'))
        .collect();
    let xs: Vec<usize> = (0..b.len())
        .filter(|&i| b[i] == b'X' && alone(i, b'O'))
        .collect();
    os.iter().any(|&o| xs.iter().any(|&x| x > o && x - o <= 40))
}

#[cfg(test)]
mod tests {
    use super::super::english_ask::{english_lead, ENGLISH_LEADS};
    use super::*;

    #[test]
    fn reads_the_ask_phrase() {
        for (q, want) in [
            (
                "다음 중 가장 적절하지 않은 것은? ① a ② b",
                Some("적절하지 않은"),
            ),
            ("다음 설명 중 옳은 것은?", Some("옳은")),
            (
                "제시문의 내용과 일치하지 않는 것을 고르면?",
                Some("일치하지 않는"),
            ),
            ("Which of the following is correct?", Some("correct")),
            (
                "Which of the following statements is NOT true?\nA. x",
                Some("NOT true"),
            ),
            ("Which of the following?", None),
            ("Which city is NOT correct?\nA. Seoul", Some("NOT correct")),
            ("Which is NOT correct?\nA. Seoul", Some("NOT correct")),
            ("Which are true?\nA. Seoul", Some("true")),
            ("Which statements are false?", Some("false")),
            ("Which one of these?", None),
            (
                "다음 중 잘못된 설명이 아닌 것은?",
                Some("잘못된 설명이 아닌"),
            ),
            (
                "다음 중 옳지 않은 것이 아닌 것은?",
                Some("옳지 않은 것이 아닌"),
            ),
            (
                "다음 중 옳지 않다고 볼 수 없는 것은?",
                Some("옳지 않다고 볼 수 없는"),
            ),
            ("다음 중 사실이 아닌 것은?", Some("사실이 아닌")),
            (
                "다음 중 옳지 않은 것이 아닌 것이 아닌 것은?",
                Some("옳지 않은 것이 아닌 것이 아닌"),
            ),
            (
                "다음 중 틀렸다고 할 수 없는 것이 아닌 것은?",
                Some("틀렸다고 할 수 없는 것이 아닌"),
            ),
            (
                "다음 중 옳지 않다고 볼 수 없는 것이 아닌 것이 아닌 것은?",
                None,
            ),
            ("다음 중 과세할 수 없는 것은?", Some("과세할 수 없는")),
            (
                "다음 중 헌법에 규정된 기본권이 아닌 것은?",
                Some("규정된 기본권이 아닌"),
            ),
            (
                "다음 중 비가 오지 않는 지역에 대한 설명으로 옳지 않은 것은?",
                Some("옳지 않은"),
            ),
            (
                "All of the following are false EXCEPT:\nA. x",
                Some("false EXCEPT"),
            ),
            (
                "None of the following are true except:\nA. x",
                Some("none true except"),
            ),
            (
                "Which of these cannot be false?\nA. x",
                Some("cannot be false"),
            ),
            (
                "Which of these statements about unemployment is NOT correct?",
                Some("NOT correct"),
            ),
            (
                "Which statement about people who don't vote is false?",
                Some("false"),
            ),
            (
                "Which statement is true about numbers that cannot be negative?",
                Some("true"),
            ),
            (
                "Which of these is true of events that cannot happen?",
                Some("true"),
            ),
            // A negation past the topic with no word of truth before it: unknown.
            (
                "Which of the following is NOT an example of an incorrect statement?",
                None,
            ),
            ("Which statement is least likely to be false?", None),
            (
                "Which statement is true for a function never equal to zero?",
                Some("true"),
            ),
            (
                "Which of these is the statement that is NOT correct?",
                Some("the statement that is NOT correct"),
            ),
            (
                "All of the following are true of patients who do not smoke EXCEPT:",
                Some("true EXCEPT"),
            ),
            (
                "Consider which of these apply. Which statement is NOT correct?",
                Some("NOT correct"),
            ),
            (
                "Which of the following is NOT true of insoluble salts?",
                Some("NOT true of insoluble salts"),
            ),
            (
                "Which one of these statements isn't false?",
                Some("isn't false"),
            ),
            (
                "Which of the following statements about things that are not alive is true?",
                Some("true"),
            ),
            ("다음 중 잘못 설명된 것이 아닌 것은?", Some("잘못 설명된 것이 아닌")),
            (
                "Which of the following is the one that cannot be true?",
                Some("the one that cannot be true"),
            ),
            (
                "The essay considers which of these reforms succeeded.\nWhich statement is NOT true?",
                Some("NOT true"),
            ),
            ("Name the capital.", None),
        ] {
            assert_eq!(ask_phrase(q).as_deref(), want, "{q}");
        }
    }

    use proptest::prelude::*;

    /// The plain readings the fast ones must agree with: every ending searched for on its
    /// own, a lower-cased copy of the question.
    fn first_ending_by_find(q: &str) -> Option<usize> {
        [
            "것은?",
            "것은 ?",
            "것을 고르",
            "것은 무엇",
            "것을 모두",
            "것만을 모두",
        ]
        .iter()
        .filter_map(|k| q.find(k))
        .chain(q.match_indices("것은").map(|(i, _)| i).find(|&i| {
            let after = &q[i + "것은".len()..];
            let after = after.strip_prefix(' ').unwrap_or(after);
            after.starts_with('(')
                && after.lines().next().is_some_and(|line| {
                    line.split_once(')')
                        .is_some_and(|(_, r)| r.trim_start_matches(' ').starts_with('?'))
                })
        }))
        .min()
    }

    fn lead_by_lowercase(q: &str) -> Option<usize> {
        let lower = q.to_ascii_lowercase();
        (0..lower.len())
            .filter(|&i| lower.is_char_boundary(i))
            .find_map(|i| {
                ENGLISH_LEADS.iter().find_map(|l| {
                    let whole = lower[i..].starts_with(l)
                        && !lower
                            .as_bytes()
                            .get(i + l.len())
                            .is_some_and(|b| b.is_ascii_alphabetic());
                    whole.then_some(i + l.len())
                })
            })
    }

    /// Pieces that make and break ask endings.
    const PIECES: &[&str] = &[
        "것",
        "것은",
        "은?",
        "은 ?",
        "것을 고르",
        "을 모두",
        "만을 모두",
        "것은 무엇",
        "것은 (",
        "(단,",
        ")",
        ")?",
        "않은",
        "적절하지",
        " ",
        "\n",
        "?",
        "which of the following",
        "WHICH OF THE FOLLOWING",
        "which of these",
        "Which one of these",
        " these",
        "s",
        "Which",
        " of the following",
        "w",
        "W",
        "hich",
        "①",
        "국방부",
        "옳은",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The ask endings and English leads found by byte search are the ones a plain
        /// search finds.
        #[test]
        fn fast_ask_readings_agree_with_the_plain_ones(
            picks in proptest::collection::vec(0usize..1000, 0..30)
        ) {
            let q: String = picks.iter().map(|&i| PIECES[i % PIECES.len()]).collect();
            prop_assert_eq!(first_asking_ending(&q), first_ending_by_find(&q), "{:?}", q);
            prop_assert_eq!(english_lead(&q, &ENGLISH_LEADS), lead_by_lowercase(&q), "{:?}", q);
        }
    }
}
