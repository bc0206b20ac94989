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
