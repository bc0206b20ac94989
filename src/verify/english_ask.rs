//! The question's ask in English: "Which of the following is NOT true?" → "NOT true", "All
//! of the following are true EXCEPT" → "true EXCEPT", read up to its topic where a negation
//! lies past it (see `super::ask`).

/// The openings of an English ask, each followed by what it asks.
pub(super) const ENGLISH_LEADS: [&str; 3] = [
    "which of the following",
    "which of these",
    "which one of these",
];

/// Where the first of `leads` (which all start with one letter) ends, as a whole word in
/// any case, found without a lower-cased copy of the question (ASCII case folding keeps
/// offsets).
pub(super) fn english_lead(q: &str, leads: &[&str]) -> Option<usize> {
    debug_assert!(leads
        .iter()
        .all(|l| l.as_bytes()[0] == leads[0].as_bytes()[0]));
    let bytes = q.as_bytes();
    let first = |l: &str| l.as_bytes()[0].to_ascii_lowercase();
    memchr::memchr2_iter(first(leads[0]), first(leads[0]).to_ascii_uppercase(), bytes).find_map(
        |i| {
            leads
                .iter()
                .find(|l| {
                    bytes
                        .get(i..i + l.len())
                        .is_some_and(|w| w.eq_ignore_ascii_case(l.as_bytes()))
                        && bytes
                            .get(i + l.len())
                            .is_none_or(|b| !b.is_ascii_alphabetic())
                })
                .map(|l| i + l.len())
        },
    )
}

/// "Which of the following (statements) is NOT correct?" → "NOT correct"; at most six
/// words, so that an answer can echo it ("The one that is NOT correct is (C)").
pub(super) fn english_ask(q: &str) -> Option<String> {
    let rest = match english_lead(q, &ENGLISH_LEADS) {
        Some(at) => &q[at..],
        None => match after_which_noun(q) {
            Some(rest) => rest,
            None => return all_but_one(q),
        },
    };
    let cut = rest.find(['?', '\n']).unwrap_or(rest.len());
    // "…which of these apply. Which statement is NOT correct?", a lead on a line of its own
    // before the ask's: it opens a sentence before the ask's (trial 62); the ask is read
    // from the next one.
    let at = |sub: &str| sub.as_ptr() as usize - q.as_ptr() as usize;
    if let Some(end) = rest[..cut].find(". ") {
        return english_ask(&q[at(rest) + end + 2..]);
    }
    if rest[cut..].starts_with('\n') {
        if let Some(next) = english_ask(&q[at(rest) + cut + 1..]) {
            return Some(next);
        }
    }
    let rest = &rest[..cut];
    let rest = past_topic(rest.trim_start())?;
    let words: Vec<&str> = rest
        .split_whitespace()
        // "…NOT a fire-fighting facility (소화활동설비)?": the English words before any other.
        .take_while(|w| w.is_ascii())
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .skip_while(|w| {
            matches!(
                w.to_ascii_lowercase().as_str(),
                "statements"
                    | "statement"
                    | "options"
                    | "choices"
                    | "answers"
                    | "items"
                    | "is"
                    | "are"
                    | ""
            )
        })
        .collect();
    let words = ask_core(&words)?;
    let ok = !words.is_empty() && words.iter().all(|w| !w.is_empty() && w.is_ascii());
    // A longer ask keeps its first six words: enough for its polarity and an echo.
    ok.then(|| words[..words.len().min(6)].join(" "))
}

/// An English ask's words, up to its topic where a negation is past it: "true for a
/// function never equal to zero" asks "true" (trials 61 and 62: a topic's "never", "cannot",
/// "not" had turned the ask). A relative clause of the ask itself ("the
/// statement that is NOT correct") is read on. A negation past the topic with no word of
/// truth before it ("NOT an example of an incorrect statement", "least likely to be false",
/// "the first step for a child not breathing") leaves the polarity unknown: no ask is read.
fn ask_core<'a>(words: &[&'a str]) -> Option<Vec<&'a str>> {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let boundary = |i: usize| match lower[i].as_str() {
        "that" | "which" => !lower.get(i + 1).is_some_and(|n| {
            matches!(
                n.as_str(),
                "is" | "are"
                    | "was"
                    | "were"
                    | "isn't"
                    | "aren't"
                    | "cannot"
                    | "can"
                    | "must"
                    | "does"
                    | "doesn't"
                    | "could"
                    | "would"
                    | "should"
                    | "might"
                    | "may"
            )
        }),
        "for" | "of" | "with" | "where" | "in" | "on" | "at" | "about" | "who" | "whom"
        | "whose" | "when" | "if" | "to" | "regarding" | "concerning" | "among" | "during"
        | "under" | "without" | "by" | "from" | "than" | "because" | "since" => true,
        _ => false,
    };
    let b = (0..words.len())
        .find(|&i| boundary(i))
        .unwrap_or(words.len());
    let truth = lower[..b].iter().any(|w| TRUTH_WORDS.contains(&w.as_str()));
    let negated_tail = lower[b..]
        .iter()
        .any(|w| ASK_NEGATIONS.contains(&w.as_str()) || MAY_NEGATE.contains(&w.as_str()));
    // With no negation past it, the topic stays in the phrase an answer may echo ("the
    // capital of Germany is Madrid").
    // "accurate regarding depreciation, except": the except is the ask's, wherever it stands.
    let except = lower[b..]
        .iter()
        .position(|w| w == "except")
        .map(|i| words[b + i]);
    match (negated_tail, truth) {
        (false, _) => Some(words.to_vec()),
        (true, true) => Some(words[..b].iter().copied().chain(except).collect()),
        (true, false) => None,
    }
}

/// Words that judge truth in an English ask.
const TRUTH_WORDS: [&str; 14] = [
    "true",
    "false",
    "correct",
    "incorrect",
    "accurate",
    "inaccurate",
    "right",
    "wrong",
    "valid",
    "invalid",
    "untrue",
    "appropriate",
    "inappropriate",
    "best",
];

/// English words that turn what an ask asks, counted for its polarity (two cancel: "NOT
/// false" asks what is so; see `rules::echo::asks_negative`).
pub(super) const ASK_NEGATIONS: [&str; 18] = [
    "not",
    "false",
    "incorrect",
    "except",
    "least",
    "untrue",
    "wrong",
    "inaccurate",
    "invalid",
    "unnecessary",
    "inconsistent",
    "cannot",
    "none",
    "never",
    "isn't",
    "aren't",
    "doesn't",
    "can't",
];

/// More words that may turn what an ask asks past its topic ("… who don't vote").
const MAY_NEGATE: [&str; 6] = ["no", "don't", "didn't", "won't", "neither", "nor"];

/// "All of the following are true EXCEPT:" → "true EXCEPT", "None of the following is
/// false except" → "none false except": an ask for the one option unlike the rest, up to
/// its "except", with "none" kept, since it turns what is asked.
fn all_but_one(q: &str) -> Option<String> {
    const LEADS: [&str; 3] = [
        "all of the following",
        "none of the following",
        "each of the following",
    ];
    let bytes = q.as_bytes();
    if memchr::memmem::find(bytes, b"ollowing").is_none()
        && memchr::memmem::find(bytes, b"OLLOWING").is_none()
    {
        return None;
    }
    let at = LEADS.iter().filter_map(|l| english_lead(q, &[l])).min()?;
    let none = q[..at]
        .trim_end()
        .to_ascii_lowercase()
        .ends_with("none of the following");
    let rest = &q[at..];
    let rest = &rest[..rest.find(['?', ':', '\n']).unwrap_or(rest.len())];
    let mut words: Vec<&str> = Vec::new();
    for w in rest.split_whitespace() {
        let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        if !w.is_ascii() || w.is_empty() {
            return None;
        }
        if !matches!(
            w.to_ascii_lowercase().as_str(),
            "statements" | "are" | "is" | "options" | "choices"
        ) || !words.is_empty()
        {
            words.push(w);
        }
        if w.eq_ignore_ascii_case("except") {
            // "true of patients who do not smoke EXCEPT" asks "true EXCEPT".
            let core = ask_core(&words[..words.len() - 1])?;
            let core = &core[core.len().saturating_sub(3)..];
            let ask = [core, &[w]].concat().join(" ");
            return Some(if none { format!("none {ask}") } else { ask });
        }
    }
    None
}

/// After the lead, past a topic ("statements about unemployment is NOT correct" → "NOT
/// correct"): the words after its verb. With two verbs ("about things that are not alive
/// is true"), which is the ask's is not plain, and no ask is read.
fn past_topic(rest: &str) -> Option<&str> {
    let lower = rest.to_ascii_lowercase();
    let words: Vec<(usize, &str)> = lower
        .split(' ')
        .scan(0, |at, w| {
            let start = *at;
            *at += w.len() + 1;
            Some((start, w))
        })
        .collect();
    // "statements about …", "descriptions of …", "statements in relation to …" (trial 63).
    let topic = words.iter().take(2).any(|(_, w)| {
        matches!(
            *w,
            "about"
                | "regarding"
                | "concerning"
                | "of"
                | "for"
                | "on"
                | "in"
                | "at"
                | "by"
                | "from"
                | "under"
                | "with"
        )
    });
    if !topic {
        return Some(rest);
    }
    let verbs: Vec<(usize, usize)> = words
        .iter()
        .enumerate()
        .filter(|(_, (_, w))| {
            matches!(
                *w,
                "is" | "are"
                    | "was"
                    | "were"
                    | "must"
                    | "can"
                    | "cannot"
                    | "could"
                    | "should"
                    | "would"
                    | "might"
                    | "may"
                    | "will"
            )
        })
        .map(|(i, &(at, w))| (i, at + w.len()))
        .collect();
    // "about numbers that are never negative is true": the first verb is the relative
    // clause's, the last the ask's (trial 62).
    let relative = |upto: usize| {
        words[..upto]
            .iter()
            .any(|(_, w)| matches!(*w, "that" | "which" | "who"))
    };
    match verbs[..] {
        [(_, end)] => Some(rest[end..].trim_start()),
        [.., (i, end)] if relative(i) => Some(rest[end..].trim_start()),
        _ => None,
    }
}

/// "Which city is NOT correct?" → "is NOT correct?": the text after "Which" and one noun,
/// when a form of "to be" follows the noun; "Which is NOT correct?" → "is NOT correct?".
fn after_which_noun(q: &str) -> Option<&str> {
    let bytes = q.as_bytes();
    let at = memchr::memchr2_iter(b'w', b'W', bytes).find(|&i| {
        (i == 0 || !bytes[i - 1].is_ascii_alphabetic())
            && bytes
                .get(i..i + 6)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"which "))
    })?;
    let rest = &q[at + 6..];
    // "Which is NOT correct?": no noun between.
    if ["is ", "are ", "was ", "were "]
        .iter()
        .any(|v| rest.starts_with(v))
    {
        return Some(rest);
    }
    let noun_end = rest.find(' ')?;
    let noun = &rest[..noun_end];
    let after = &rest[noun_end + 1..];
    let verb = after.split(' ').next()?;
    // "Which statement about people who don't vote is false?": past the topic.
    if matches!(verb, "about" | "regarding" | "concerning")
        && noun.bytes().all(|b| b.is_ascii_alphabetic())
    {
        let line = &after[..after.find(['?', '\n']).unwrap_or(after.len())];
        return past_topic(line);
    }
    (noun.bytes().all(|b| b.is_ascii_alphabetic()) && matches!(verb, "is" | "are" | "was" | "were"))
        .then_some(after)
}
