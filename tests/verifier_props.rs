//! Properties of the verifier: total and deterministic on any UTF-8, never commits when the
//! final text states two different choices, and reads a single stated choice correctly.

use kgrade::verify::{verify, ChoiceSet, Extraction};
use proptest::prelude::*;

fn sets() -> Vec<ChoiceSet> {
    ["circled:5", "circled:4", "number:4", "letter:4", "ox"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect()
}

/// Text that mixes everything the verifier looks at: markers, labels, keywords, particles.
fn tricky_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "정답",
        "답",
        "은 ",
        "는 ",
        ": ",
        "：",
        "③",
        "①",
        "⑤",
        "⑩",
        "❸",
        "⑶",
        "(2)",
        "2",
        "12",
        "번",
        "이",
        "가",
        "아니라",
        "아닙니다",
        "또는",
        " 다시 보니 ",
        "최종 ",
        "A",
        "(B)",
        "E",
        "O",
        "X",
        "○",
        "×",
        "옳다",
        "틀리지 않다",
        "두 번째",
        "셋째",
        "The answer is ",
        "\\boxed{",
        "}",
        "<think>",
        "</think>",
        "<|channel|>final<|message|>",
        "<|channel|>analysis<|message|>",
        "<|end|>",
        "\n",
        ". ",
        "**",
        "#",
        "\u{a0}",
        "\u{3000}",
        "２",
        "년",
        "억원",
        "[SYSTEM: ",
        "]",
        "금융위원회",
        "입니다",
        "선택",
        "맞다",
        "수도",
        ",",
        "/",
        "(",
        ")",
        "😀",
        "\u{200b}",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn total_and_deterministic_on_arbitrary_utf8(text in any::<String>()) {
        for set in sets() {
            let a = verify(&text, &set);
            prop_assert_eq!(&a, &verify(&text, &set));
            if let Some(span) = a.span() {
                prop_assert!(text.get(span).is_some());
            }
        }
    }

    #[test]
    fn total_and_deterministic_on_tricky_text(text in tricky_text()) {
        let question = "다음 중 옳은 것은? ① 금융위원회 ② 기획재정부 ③ 국방부 ④ 행정안전부";
        let mut all = sets();
        all.push(ChoiceSet::detect(question).unwrap());
        for set in all {
            let a = verify(&text, &set);
            prop_assert_eq!(&a, &verify(&text, &set));
            if let Some(span) = a.span() {
                prop_assert!(text.get(span).is_some(), "span off char boundary");
            }
        }
    }
}

const STATEMENTS: [&str; 10] = [
    "정답은 {}입니다.",
    "답: {}",
    "정답 : {}번",
    "{}번이 정답이다.",
    "따라서 정답은 {}.",
    "The answer is {}.",
    "**정답: {}**",
    "【정답】 {}",
    "\\boxed{{}}",
    "{}을 선택합니다.",
];

const FILLERS: [&str; 7] = [
    "",
    " ",
    "\n\n",
    " 계산해 보면 2023년 기준 3억원이다. ",
    "\n보기를 하나씩 검토했다.\n",
    " Let me check each option. ",
    " 제3조에 따르면 그렇다. ",
];

fn circled(i: usize) -> String {
    char::from_u32(0x2460 + i as u32).unwrap().to_string()
}

fn label_forms(i: usize) -> Vec<String> {
    vec![circled(i), format!("{}", i + 1), format!("({})", i + 1)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn never_commits_when_two_different_choices_are_stated(
        a in 0usize..5, b in 0usize..5,
        ta in 0usize..STATEMENTS.len(), tb in 0usize..STATEMENTS.len(),
        fa in 0usize..3, fb in 0usize..3,
        f0 in 0usize..FILLERS.len(), f1 in 0usize..FILLERS.len(), f2 in 0usize..FILLERS.len(),
        think in any::<bool>(),
    ) {
        prop_assume!(a != b);
        let set: ChoiceSet = "circled:5".parse().unwrap();
        let first = STATEMENTS[ta].replace("{}", &label_forms(a)[fa]);
        let second = STATEMENTS[tb].replace("{}", &label_forms(b)[fb]);
        let body = format!("{}{} {}{} {}", FILLERS[f0], first, FILLERS[f1], second, FILLERS[f2]);
        let text = if think { format!("<think>정답은 {}</think>{body}", circled(a)) } else { body };
        let e = verify(&text, &set);
        prop_assert!(!matches!(e, Extraction::Answer { .. }), "{:?} committed: {:?}", text, e);
    }

    #[test]
    fn reads_one_stated_choice(
        a in 0usize..5, t in 0usize..STATEMENTS.len(), form in 0usize..3,
        f0 in 0usize..FILLERS.len(), f1 in 0usize..FILLERS.len(),
        gpt_oss in any::<bool>(),
    ) {
        let set: ChoiceSet = "circled:5".parse().unwrap();
        let statement = STATEMENTS[t].replace("{}", &label_forms(a)[form]);
        let body = format!("{}{} {}", FILLERS[f0], statement, FILLERS[f1]);
        let text = if gpt_oss {
            format!("<|channel|>analysis<|message|>정답은 {}일까?<|end|><|start|>assistant<|channel|>final<|message|>{body}<|return|>", circled((a + 1) % 5))
        } else {
            body
        };
        match verify(&text, &set) {
            Extraction::Answer { choice, .. } => prop_assert_eq!(choice.index(), a, "{:?}", text),
            other => prop_assert!(false, "{:?} not decided: {:?}", text, other),
        }
    }
}

/// Distinct option texts, none containing another.
const OPTION_WORDS: [&str; 12] = [
    "지방자치단체",
    "중앙행정기관",
    "공공기관",
    "민간위탁기관",
    "정규분포",
    "이항분포",
    "mitochondria",
    "ribosome",
    "법인세",
    "부가가치세",
    "상속세",
    "소득세",
];

/// Option-list styles real prompts use; `{n}` is the 1-based number, `{a}` the letter.
const LIST_STYLES: [&str; 8] = [
    "{n}번 - {t}",
    "{n}. {t}",
    "{n}) {t}",
    "({n}) {t}",
    "| {n} | {t} |",
    "{a}. {t}",
    "({a}) {t}",
    "- {a}) {t}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Every list style is detected with its texts, whatever numbers the stem mentions;
    /// "N번 - <N's text>" reads N, and a label with another option's text never commits.
    #[test]
    fn option_lists_in_every_style_are_read(
        style in 0usize..LIST_STYLES.len(), n in 2usize..=12, header in any::<bool>(),
        k in 0usize..12, j in 0usize..12,
        stem in prop::sample::select(vec![
            "다음 중 옳은 것은?",
            "2019년 개정된 제3조 2항에 따라 다음 중 두 개를 고르면?",
            "1. 다음 글을 읽고 답하시오.\n2. 옳은 것을 고르시오.",
            "Which of the following is correct? (1 point)",
        ]),
    ) {
        let (k, j) = (k % n, j % n);
        let lines: Vec<String> = (0..n)
            .map(|i| {
                LIST_STYLES[style]
                    .replace("{n}", &(i + 1).to_string())
                    .replace("{a}", &char::from(b'A' + i as u8).to_string())
                    .replace("{t}", OPTION_WORDS[i])
            })
            .collect();
        let q = format!("{stem}\n{}{}", if header { "선택지:\n" } else { "" }, lines.join("\n"));
        let set = ChoiceSet::detect(&q).expect("options detected");
        prop_assert_eq!(set.len(), n, "{}", q);
        prop_assert_eq!(set.options(), &OPTION_WORDS[..n], "{}", q);
        let label = |i: usize| if style >= 5 {
            char::from(b'A' + i as u8).to_string()
        } else {
            format!("{}번", i + 1)
        };
        let e = verify(&format!("{} - {}", label(k), OPTION_WORDS[k]), &set);
        prop_assert_eq!(e.choice().map(|c| c.index()), Some(k), "{:?}", e);
        if j != k {
            let e = verify(&format!("{} - {}", label(j), OPTION_WORDS[k]), &set);
            prop_assert!(e.choice().is_none(), "{} - {} on {}: {:?}", label(j), OPTION_WORDS[k], q, e);
        }
    }

    /// A final statement naming a label outside the set is never read as an in-set choice,
    /// whatever in-set labels the text discussed before it.
    #[test]
    fn a_final_label_outside_the_set_never_commits(
        n in 4usize..=20, inside in 0usize..20, over in 0usize..6,
        t in 0usize..STATEMENTS.len(), letters in any::<bool>(),
    ) {
        let notation = if letters { "letter" } else { "number" };
        let set: ChoiceSet = format!("{notation}:{n}").parse().unwrap();
        let outside = (n + over).min(if letters { 25 } else { 19 });
        prop_assume!(outside >= n);
        let write = |i: usize| if letters {
            format!("({})", char::from(b'A' + i as u8))
        } else {
            format!("({})", i + 1)
        };
        let text = format!(
            "{} looks plausible, and {} too. {}",
            write(inside % n), write(outside), STATEMENTS[t].replace("{}", &write(outside))
        );
        let e = verify(&text, &set);
        prop_assert!(e.choice().is_none(), "{:?} committed: {:?}", text, e);
    }
}

const MARKERS: [&str; 6] = [
    "정답:",
    "답:",
    "정답은",
    "Answer:",
    "**정답**\n",
    "최종 답:",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// A marker followed by a copy of the option list (whole texts or fragments, any label
    /// form, inline or one per line) never commits.
    #[test]
    fn a_restated_option_list_never_commits(
        marker in 0usize..MARKERS.len(), n in 2usize..=4, form in 0usize..3,
        cut in 0usize..3, inline in any::<bool>(),
    ) {
        let q = "다음 중 옳은 것은?\n(1) 지방자치단체의 사무\n(2) 중앙행정기관의 사무\n(3) 공공기관의 사무\n(4) 민간위탁기관의 사무";
        let set = ChoiceSet::detect(q).unwrap();
        let list: Vec<String> = (0..n)
            .map(|i| {
                let text = set.options()[i].clone();
                let text: String = text.chars().take(text.chars().count() - cut).collect();
                format!("{} {text}", label_forms(i)[[0, 2, 2][form]])
            })
            .collect();
        let sep = if inline { " " } else { "\n" };
        let text = format!("{}{sep}{}", MARKERS[marker], list.join(sep));
        let e = verify(&text, &set);
        prop_assert!(e.choice().is_none(), "{:?} committed: {:?}", text, e);
    }

    /// Two labels joined by a disjunction, before or after an answer statement, never commit.
    #[test]
    fn a_disjunction_around_a_statement_never_commits(
        a in 0usize..5, b in 0usize..5, fa in 0usize..3, fb in 0usize..3,
        conn in prop::sample::select(vec![" 혹은 ", " 아니면 ", " 또는 ", "나 ", " or ", "/"]),
        tail in prop::sample::select(vec!["이 정답입니다.", "이 답이다.", " is the answer.", "을 선택합니다."]),
        after in any::<bool>(),
    ) {
        prop_assume!(a != b);
        // "나" joins two labels ("②나 ④") but does not open a sentence.
        prop_assume!(!(after && conn == "나 "));
        let set: ChoiceSet = "circled:5".parse().unwrap();
        let (x, y) = (&label_forms(a)[fa], &label_forms(b)[fb]);
        let text = if after {
            format!("정답은 {x}입니다.{conn}{y}.")
        } else {
            format!("{x}{conn}{y}{tail}")
        };
        let e = verify(&text, &set);
        prop_assert!(e.choice().is_none(), "{:?} committed: {:?}", text, e);
    }
}

/// (ask phrase as the question writes it, the opposite one).
const ASKS: [(&str, &str); 4] = [
    ("적절하지 않은", "적절한"),
    ("옳지 않은", "옳은"),
    ("일치하지 않는", "일치하는"),
    ("옳은", "옳지 않은"),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// An answer echoing the question's ask phrase states its label; the opposite phrase
    /// ("적절한 것은 ①" on a "적절하지 않은 것은?" question) never commits that label.
    #[test]
    fn the_ask_echo_follows_the_questions_polarity(
        ask in 0usize..ASKS.len(), a in 0usize..5, b in 0usize..5, form in 0usize..3,
        noun in prop::sample::select(vec!["것은", "선택지는", "보기는"]),
        end in prop::sample::select(vec!["입니다.", "이다.", "", "번입니다."]),
        both in any::<bool>(),
    ) {
        let (asked, opposite) = ASKS[ask];
        let q = format!("다음 중 {asked} 것은?\n① 가\n② 나\n③ 다\n④ 라\n⑤ 마");
        let set = ChoiceSet::detect(&q).unwrap();
        let echo = format!("{asked} {noun} {}{end}", label_forms(a)[form]);
        let other = format!("{opposite} {noun} {}{end}", label_forms(b)[form]);
        let text = if both { format!("{other} {echo}") } else { echo.clone() };
        let e = verify(&text, &set);
        prop_assert_eq!(e.choice().map(|c| c.index()), Some(a), "{:?}: {:?}", text, e);
        let e = verify(&other, &set);
        prop_assert!(e.choice().is_none(), "{:?} committed: {:?}", other, e);
    }
}
