//! The verifier on real exam questions: the five KMMLU test splits in ../shared/data/kmmlu.
//! Option texts there are real (amounts, near-duplicates, long legal sentences), which is what
//! label/text checks and unique-option-text reading must survive without a wrong commitment.

use kgrade::verify::{verify, ChoiceSet, Extraction, Notation};
use std::path::PathBuf;

fn kmmlu_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/kmmlu");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (CI has ../shared beside the clone)", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        5,
        "five KMMLU splits expected in {}",
        dir.display()
    );
    files
}

struct Row {
    question: String,
    options: [String; 4],
    gold: usize,
}

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for path in kmmlu_files() {
        let mut reader = csv::Reader::from_path(&path).unwrap();
        for rec in reader.records() {
            let rec = rec.unwrap();
            let options = [1, 2, 3, 4].map(|i| rec[i + 1].trim().to_string());
            let gold: usize = rec[1].trim().parse().unwrap();
            out.push(Row {
                question: rec[0].to_string(),
                options,
                gold: gold - 1,
            });
        }
    }
    out
}

/// The prompt as KMMLU-style harnesses show it: options as `(1) …` lines.
fn prompt(row: &Row) -> String {
    let mut p = row.question.clone();
    for (i, o) in row.options.iter().enumerate() {
        p.push_str(&format!("\n({}) {}", i + 1, o.replace('\n', " ")));
    }
    p
}

#[test]
fn detects_kmmlu_prompts_with_their_option_texts() {
    let rows = rows();
    assert!(rows.len() > 2000, "{} rows", rows.len());
    for row in &rows {
        let set = ChoiceSet::detect(&prompt(row)).expect("options detected");
        assert_eq!(set.notation(), Notation::Number);
        assert_eq!(set.len(), 4, "{}", prompt(row));
        let want: Vec<String> = row.options.iter().map(|o| o.replace('\n', " ")).collect();
        assert_eq!(set.options(), want.as_slice(), "{}", prompt(row));
    }
}

#[test]
fn never_commits_a_wrong_choice_on_real_options() {
    let mut decided_text = 0;
    let mut total = 0;
    for row in rows() {
        let set = ChoiceSet::detect(&prompt(&row)).unwrap();
        let gold = set.at_position(row.gold + 1).unwrap();
        let gold_text = set.option_text(gold).unwrap().to_string();
        let same_text = |c: kgrade::verify::Choice| set.option_text(c) == Some(gold_text.as_str());

        // A stated label is read exactly.
        let e = verify(&format!("정답은 ({})입니다.", row.gold + 1), &set);
        assert_eq!(e.choice(), Some(gold));

        // Naming only the gold option's text: the gold choice, or abstain.
        total += 1;
        if let Extraction::Answer { choice, .. } = verify(&gold_text, &set) {
            assert!(same_text(choice), "{gold_text:?} read as {choice:?}");
            decided_text += 1;
        }
        // The gold label with its own text: always read, and read right.
        let e = verify(&format!("({}) {}", row.gold + 1, gold_text), &set);
        assert_eq!(
            e.choice(),
            Some(gold),
            "({}) {gold_text:?}: {e:?}",
            row.gold + 1
        );
        let e = verify(
            &format!("정답은 ({}) {}입니다.", row.gold + 1, gold_text),
            &set,
        );
        assert_eq!(
            e.choice(),
            Some(gold),
            "statement with text {gold_text:?}: {e:?}"
        );
        // Another label written with the gold text never commits to that other label.
        let other = (row.gold + 1) % 4;
        let e = verify(&format!("({}) {}", other + 1, gold_text), &set);
        if let Some(c) = e.choice() {
            assert!(
                same_text(c) || c == gold,
                "({}) {gold_text:?} committed to {c:?}",
                other + 1
            );
        }
    }
    // Option texts are often long and distinctive; most should be read on their own.
    println!("option text alone decided {decided_text} of {total}");
    assert!(decided_text * 2 > total, "{decided_text} of {total}");
}

#[test]
fn restated_lists_and_disjunctions_never_commit_on_real_options() {
    let mut restated = 0;
    let mut total = 0;
    for row in rows() {
        let set = ChoiceSet::detect(&prompt(&row)).unwrap();
        let (a, b) = (row.gold, (row.gold + 1) % 4);
        // A marker and a copy of the options, whole or cut short.
        for cut in [usize::MAX, 12] {
            let list: Vec<String> = (0..4)
                .map(|i| {
                    let text: String = row.options[i]
                        .replace('\n', " ")
                        .chars()
                        .take(cut)
                        .collect();
                    format!("({}) {text}", i + 1)
                })
                .collect();
            for marker in ["정답:\n", "답: ", "Answer:\n"] {
                let text = format!("{marker}{}", list.join("\n"));
                let e = verify(&text, &set);
                total += 1;
                assert!(e.choice().is_none(), "{text:?} committed: {e:?}");
                if e.rule_name() == "restated_options" {
                    restated += 1;
                }
            }
        }
        // Two labels joined by a disjunction around a statement.
        for text in [
            format!("({}) 혹은 ({})이 정답입니다.", a + 1, b + 1),
            format!("({}) 아니면 ({})가 답입니다.", b + 1, a + 1),
            format!(
                "정답은 ({})입니다. 아니면 ({})일 수도 있습니다.",
                a + 1,
                b + 1
            ),
        ] {
            let e = verify(&text, &set);
            assert!(e.choice().is_none(), "{text:?} committed: {e:?}");
        }
    }
    // Nearly every copy is recognised as one, not merely left undecided.
    println!("restated_options on {restated} of {total}");
    assert!(restated * 10 >= total * 9, "{restated} of {total}");
}

#[test]
fn the_ask_echo_reads_real_questions_with_their_polarity() {
    let (mut asked, mut total, mut tried) = (0, 0, 0);
    for row in rows() {
        let set = ChoiceSet::detect(&prompt(&row)).unwrap();
        total += 1;
        let Some(ask) = set.ask().map(str::to_string) else {
            continue;
        };
        asked += 1;
        let gold = set.at_position(row.gold + 1).unwrap();
        let other = (row.gold + 1) % 4;
        let e = verify(&format!("{ask} 것은 ({})입니다.", row.gold + 1), &set);
        assert_eq!(e.choice(), Some(gold), "{ask:?}: {e:?}");
        // The opposite polarity names another option: never read as the answer.
        let Some(opposite) = opposite(&ask) else {
            continue;
        };
        tried += 1;
        let text = format!("{opposite} 것은 ({})입니다.", other + 1);
        let e = verify(&text, &set);
        assert!(
            e.choice().is_none(),
            "{text:?} for {ask:?} committed: {e:?}"
        );
    }
    println!("ask phrase on {asked} of {total}, opposite tried on {tried}");
    assert!(asked * 2 > total, "{asked} of {total}");
}

/// The opposite ask phrase: 옳은 ↔ 옳지 않은, 적절한 ↔ 적절하지 않은, 일치하는 ↔ 일치하지 않는.
fn opposite(ask: &str) -> Option<String> {
    if let Some(stem) = ask
        .strip_suffix(" 않은")
        .or_else(|| ask.strip_suffix(" 않는"))
    {
        let stem = stem.strip_suffix('지')?;
        return Some(match stem.strip_suffix('하') {
            Some(s) if ask.ends_with("않는") => format!("{s}하는"),
            Some(s) => format!("{s}한"),
            None => format!("{stem}은"),
        });
    }
    for (end, neg) in [
        ("한", "하지 않은"),
        ("하는", "하지 않는"),
        ("은", "지 않은"),
        ("는", "지 않는"),
    ] {
        if let Some(stem) = ask.strip_suffix(end) {
            return Some(format!("{stem}{neg}"));
        }
    }
    None
}

#[test]
fn opposite_ask_phrases() {
    assert_eq!(opposite("옳은").as_deref(), Some("옳지 않은"));
    assert_eq!(opposite("옳지 않은").as_deref(), Some("옳은"));
    assert_eq!(opposite("적절하지 않은").as_deref(), Some("적절한"));
    assert_eq!(opposite("적절한").as_deref(), Some("적절하지 않은"));
    assert_eq!(opposite("일치하지 않는").as_deref(), Some("일치하는"));
}
