//! Unit tests of the parent module.
use super::*;
use crate::verify::Notation;
use std::io::Write;

fn write(name: &str, body: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(body)
        .unwrap();
    (dir, path)
}

#[test]
fn reads_domain_eval_with_bom_crlf_and_ox() {
    let body = "\u{feff}question,answer,domain,sub_domain,format,lang\r\n\"정책 기관은? ① 금융위 ② 기재부\",2,금융,,text,ko\r\n다음이 옳으면 O: 병무청은 국방부 소속,O,국방,병무,text,ko\r\n";
    let (_d, path) = write("d.csv", body.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.format, DatasetFormat::DomainEval);
    assert_eq!(ds.items.len(), 2);
    let a = &ds.items[0];
    assert_eq!(a.id, "0");
    assert_eq!(a.choices.label(a.gold), "②");
    assert!(a
        .fields
        .contains(&("sub_domain".into(), UNCLASSIFIED.into())));
    assert_eq!(ds.items[1].choices.notation(), Notation::Ox);
}

#[test]
fn errors_name_the_physical_line_on_crlf_and_multiline_fields() {
    for (body, line) in [
        (
            "question,answer,domain\r\n\"① a ② b\",1,x\r\n\"① a ② b\",7,x\r\n",
            3,
        ),
        (
            "question,answer,domain\n\"① a ② b\",1,x\n\"① a ② b\",7,x\n",
            3,
        ),
        (
            "question,answer,domain\r\n\"① a\r\n② b\",1,x\r\n\"① a ② b\",7,x\r\n",
            4,
        ),
        ("question,answer,domain\r\n\"① a ② b\",7,x\r\n", 2),
        // The bad field after a question over several lines is named on its own line
        // (audit 28, E4: the record's first line was named).
        (
            "question,answer,domain\n\"q\n① a\n② b\",1,x\n\"q\n① a\n② \"\"b\"\", c\",7,x\n",
            7,
        ),
        (
            "id,question,answer,domain\r\nq1,\"q\r\n① a\r\n② b\",7,x\r\n",
            4,
        ),
    ] {
        let (_d, path) = write("d.csv", body.as_bytes());
        let e = read_dataset(&path, &ColumnMap::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("d.csv:{line}: field `answer`")),
            "{body:?}: {e}"
        );
    }
}

#[test]
fn a_field_s_line_is_where_the_field_starts() {
    let record = b"a,\"b\nc\"\"\n,\",d\ne\n,f\n";
    let starts: Vec<usize> = (0..5).map(|i| csv_field_start(record, i, b',')).collect();
    // A field past the record's end starts where the record ends.
    assert_eq!(starts, [0, 2, 12, 13, 13]);
}

#[test]
fn bad_rows_name_file_line_and_field() {
    let (_d, path) = write(
        "d.csv",
        "question,answer,domain\n\"① a ② b\",7,x\n".as_bytes(),
    );
    let e = read_dataset(&path, &ColumnMap::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("d.csv:2: field `answer`: unknown answer label \"7\" for choices circled:2"),
        "{e}"
    );
    let (_d, path) = write("d.csv", "question,domain\n\"① a ② b\",x\n".as_bytes());
    let e = read_dataset(&path, &ColumnMap::default())
        .unwrap_err()
        .to_string();
    // A column missing from a CSV header is said at the header, with the columns found.
    assert!(
        e.contains("d.csv:1: no column `answer`: the header has `question`, `domain`"),
        "{e}"
    );
    let mut body = b"question,answer,domain\n\"\xff\xfe\",1,x\n".to_vec();
    body.extend_from_slice(b"");
    let (_d, path) = write("d.csv", &body);
    let e = read_dataset(&path, &ColumnMap::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("d.csv:2: field `question`: invalid UTF-8"),
        "{e}"
    );
    assert!(!e.contains("CP949"), "{e}");
    // A Korean file saved as CP949 (Excel's Korean CSV): the error says so and how to convert.
    let (cp949, _, _) =
        encoding_rs::EUC_KR.encode("question,answer\n\"다음 중 옳은 것은? ① 가 ② 나\",1\n");
    let (_d, path) = write("d.csv", &cp949);
    let e = read_dataset(&path, &ColumnMap::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("d.csv:2: field `question`: invalid UTF-8")
            && e.contains("CP949/EUC-KR")
            && e.contains("iconv -f cp949"),
        "{e}"
    );
    let (_d, path) = write(
        "d.csv",
        "question,answer,domain\n\"① a ② b\",1\n".as_bytes(),
    );
    let e = read_dataset(&path, &ColumnMap::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("d.csv:2: 2 fields where the header has 3"),
        "{e}"
    );
}

#[test]
fn generic_jsonl_with_column_map_and_duplicates() {
    let body = "{\"qid\":\"a\",\"q\":\"A. x\\nB. y\",\"gold\":\"B\",\"topic\":\"t\"}\n{\"qid\":\"a\",\"q\":\"A. x\\nB. y\",\"gold\":\"A\",\"topic\":\"t\"}\n{\"qid\":\"b\",\"q\":\"A. x\\nB. y\",\"gold\":\"A\",\n";
    let (_d, path) = write("g.jsonl", body.as_bytes());
    let cols = ColumnMap {
        id: Some("qid".into()),
        question: Some("q".into()),
        answer: Some("gold".into()),
        choices: None,
    };
    let e = read_dataset(&path, &cols).unwrap_err().to_string();
    assert!(e.contains("g.jsonl:3: invalid JSON"), "{e}");
    let body = body.lines().take(2).collect::<Vec<_>>().join("\n");
    let (_d, path) = write("g.jsonl", body.as_bytes());
    let ds = read_dataset(&path, &cols).unwrap();
    assert_eq!(ds.duplicate_ids, vec!["a".to_string()]);
    assert_eq!(
        ds.items[0].fields,
        vec![("topic".to_string(), "t".to_string())]
    );
}

/// Trial 40, D9: KMMLU's layout with an `E` column (a five-option exam) treated `E` as a
/// grouping column and refused gold 5. The letter columns after D are options; a row whose
/// E is empty keeps four.
#[test]
fn kmmlu_layout_with_more_letter_columns_has_more_options() {
    let body = "question,A,B,C,D,E,answer,Category\n문1,가,나,다,라,마,5,x\n문2,가,나,다,라,,4,x\n";
    let (_d, path) = write("five.csv", body.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.format, DatasetFormat::Kmmlu);
    let (a, b) = (&ds.items[0], &ds.items[1]);
    assert_eq!((a.choices.len(), a.gold.position()), (5, 5));
    assert_eq!(b.choices.len(), 4);
    assert_eq!(a.fields, vec![("Category".to_string(), "x".to_string())]);
    assert!(a.question.ends_with("\n(5) 마"), "{}", a.question);
}

/// Trial 40, D9: a key pointing at an option with no text (row 3's blank D, gold 4) was
/// accepted, so every answer to it was graded against nothing. The row is named.
#[test]
fn a_key_pointing_at_an_empty_option_is_refused() {
    let body = "question,A,B,C,D,answer\n문1,가,나,다,라,4\n문2,가,나,다,,4\n";
    let (_d, path) = write("blank.csv", body.as_bytes());
    let err = read_dataset(&path, &ColumnMap::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("blank.csv:3"), "{err}");
    assert!(err.contains("answer"), "{err}");
    assert!(err.contains("whose text is empty"), "{err}");
    // The same blank option with another key is only a blank option.
    let body = "question,A,B,C,D,answer\n문2,가,나,다,,2\n";
    let (_d, path) = write("blank2.csv", body.as_bytes());
    assert!(read_dataset(&path, &ColumnMap::default()).is_ok());
}

/// Trial 40, D12: a UTF-16 file (Excel's "Unicode text") was "column 1 has an invalid UTF-8
/// name", with nothing on what the file is; CP949 already had its hint.
#[test]
fn a_utf16_file_is_named_as_such() {
    let mut body = vec![0xFF, 0xFE];
    for c in "question,answer\n".encode_utf16() {
        body.extend_from_slice(&c.to_le_bytes());
    }
    let (_d, path) = write("u16.csv", &body);
    let e = read_dataset(&path, &ColumnMap::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the text is UTF-16") && e.contains("iconv -f utf-16"),
        "{e}"
    );
}

fn read_err(name: &str, body: &str, columns: &ColumnMap) -> String {
    let (_d, path) = write(name, body.as_bytes());
    read_dataset(&path, columns).unwrap_err().to_string()
}

/// Trial 44, D2: a `choices` list (Hugging Face's MMLU) became a grouping field, and with
/// `--choices number:4` its 0-based answers were read as 1-based (0/15 instead of 10/15,
/// exit 0). The list is the options; an integer beside it is 0-based unless the file shows
/// otherwise, and never silently.
#[test]
fn a_list_of_options_is_read_with_its_index_base_decided_by_the_file() {
    let mmlu = |answers: [u32; 3]| {
        answers
            .iter()
            .map(|a| format!("{{\"question\":\"q{a}\",\"subject\":\"s\",\"choices\":[\"w\",\"x\",\"y\",\"z\"],\"answer\":{a}}}\n"))
            .collect::<String>()
    };
    // 0 present: 0-based, nothing to say.
    let (_d, path) = write("m.jsonl", mmlu([0, 2, 3]).as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.format, DatasetFormat::Listed);
    let golds: Vec<String> = ds.items.iter().map(|i| i.choices.label(i.gold)).collect();
    assert_eq!(golds, ["A", "C", "D"]);
    assert_eq!(ds.items[0].fields, vec![("subject".into(), "s".into())]);
    assert!(ds.items[1].question.ends_with("\nA. w\nB. x\nC. y\nD. z"));
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    // Neither 0 nor 4: 0-based, said once with the file.
    let (_d, path) = write("m.jsonl", mmlu([1, 2, 3]).as_bytes());
    let cols = ColumnMap {
        choices: Some("number:4".parse().unwrap()),
        ..ColumnMap::default()
    };
    let ds = read_dataset(&path, &cols).unwrap();
    let golds: Vec<usize> = ds.items.iter().map(|i| i.gold.position()).collect();
    assert_eq!(golds, [2, 3, 4]);
    assert_eq!(ds.items[0].choices.notation(), Notation::Number);
    assert_eq!(ds.warnings.len(), 1);
    assert!(ds.warnings[0].contains("m.jsonl") && ds.warnings[0].contains("0-based"));
    // 4 with four options and no 0: 1-based, said.
    let (_d, path) = write("m.jsonl", mmlu([1, 4, 2]).as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    let golds: Vec<usize> = ds.items.iter().map(|i| i.gold.position()).collect();
    assert_eq!(golds, [1, 4, 2]);
    assert!(ds.warnings[0].contains("1-based") && ds.warnings[0].contains("line 2"));
    // Both: an error naming both lines.
    let e = read_err("m.jsonl", &mmlu([1, 4, 0]), &ColumnMap::default());
    assert!(
        e.contains("m.jsonl:3: field `answer`") && e.contains("line 2"),
        "{e}"
    );
}

/// Trial 44, D2: CLIcK's gold is the option's text, Inspect's a letter; a renamed answer
/// column still works; a Python list in a CSV (pandas' to_csv) is refused at its field.
#[test]
fn a_list_s_gold_may_be_a_letter_or_an_option_s_text() {
    let body = "{\"id\":\"k0\",\"q\":\"q\",\"choices\":[\"50만원\",\"100만원\"],\"gold\":\"100만원\"}\n{\"id\":\"k1\",\"q\":\"q\",\"choices\":[\"a\",\"b\",\"c\"],\"gold\":\"C\"}\n";
    let (_d, path) = write("c.jsonl", body.as_bytes());
    let cols = ColumnMap {
        question: Some("q".into()),
        answer: Some("gold".into()),
        ..ColumnMap::default()
    };
    let ds = read_dataset(&path, &cols).unwrap();
    assert_eq!(ds.items[0].gold.position(), 2);
    assert_eq!(ds.items[1].gold.position(), 3);
    assert!(ds.items.iter().all(|i| i.fields.is_empty()));
    let e = read_err(
        "c.jsonl",
        "{\"question\":\"q\",\"choices\":[\"a\",\"b\"],\"answer\":\"c\"}\n",
        &ColumnMap::default(),
    );
    assert!(
        e.contains("c.jsonl:1: field `answer`: \"c\" is neither"),
        "{e}"
    );
    // HAE-RAE: a Python repr of the options the question already shows is neither read
    // nor a group (trial 44's h02 kept grading while this was refused).
    let body =
        "{\"query\":\"q\\n(A) a\\n(B) b\",\"options\":\"['(A) a', '(B) b']\",\"answer\":\"(B)\"}\n";
    let (_d, path) = write("h.jsonl", body.as_bytes());
    let cols = ColumnMap {
        question: Some("query".into()),
        ..ColumnMap::default()
    };
    let ds = read_dataset(&path, &cols).unwrap();
    assert_eq!(ds.items[0].gold.position(), 2);
    assert!(ds.items[0].fields.is_empty(), "{:?}", ds.items[0].fields);
    let e = read_err(
        "c.csv",
        "question,choices,answer\nq,['a' 'b'],1\n",
        &ColumnMap::default(),
    );
    assert!(
        e.contains("c.csv:2: field `choices`") && e.contains("JSON lines"),
        "{e}"
    );
}

/// Trial 44, D3: option columns were read only in KMMLU's exact layout; renamed question or
/// answer columns, `보기1`…, `a`–`d` made them grouping fields.
#[test]
fn option_columns_are_read_whatever_the_other_columns_are_called() {
    let cols = ColumnMap {
        question: Some("문제".into()),
        answer: Some("정답".into()),
        ..ColumnMap::default()
    };
    for header in [
        "보기1,보기2,보기3,보기4",
        "A,B,C,D",
        "a,b,c,d",
        "option_1,option_2,option_3,option_4",
        "choice1,choice2,choice3,choice4",
        "선택지 1,선택지 2,선택지 3,선택지 4",
        "1,2,3,4",
    ] {
        let body = format!("문제,{header},정답,과목\n물음,가,나,다,라,3,소방\n");
        let (_d, path) = write("o.csv", body.as_bytes());
        let ds = read_dataset(&path, &cols).unwrap();
        let item = &ds.items[0];
        assert_eq!(item.choices.len(), 4, "{header}");
        assert_eq!(item.choices.option_text(item.gold), Some("다"), "{header}");
        assert_eq!(
            item.fields,
            vec![("과목".into(), "소방".into())],
            "{header}"
        );
    }
    // Option-like columns that do not run from the first are named when no options are found.
    let e = read_err("o.csv", "문제,보기2,보기3,정답\n물음,나,다,2\n", &cols);
    assert!(
        e.contains("no options found") && e.contains("`보기2`, `보기3`"),
        "{e}"
    );
    let e = read_err(
        "o.csv",
        "question,A,B,C,D,보기1,보기2,answer\nq,a,b,c,d,e,f,1\n",
        &ColumnMap::default(),
    );
    assert!(e.contains("two sets of option columns"), "{e}");
}

/// Trial 44, D6: a JSON document (pandas' records array, `{"data": […]}` pretty-printed) was
/// "invalid JSON"; a nested document (CSAT's) is refused with how to flatten it.
#[test]
fn a_json_document_of_records_is_read_and_a_nested_one_refused() {
    let row = |a: u32| {
        format!(
            "{{\"question\":\"q\",\"A\":\"x\",\"B\":\"y\",\"C\":\"z\",\"D\":\"w\",\"answer\":{a}}}"
        )
    };
    let array = format!("[{},{}]", row(1), row(4));
    let (_d, path) = write("d.json", array.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.items.len(), 2);
    assert_eq!(ds.items[1].gold.position(), 4);
    let wrapped = format!(
        "{{\n  \"version\": 1,\n  \"data\": [\n    {},\n    {}\n  ]\n}}\n",
        row(2),
        row(7)
    );
    let e = read_err("d.json", &wrapped, &ColumnMap::default());
    assert!(e.contains("d.json:5: field `answer`"), "{e}");
    let nested = "[{\"id\":\"p\",\"problems\":[{\"question\":\"q\"}]}]";
    let e = read_err("d.json", nested, &ColumnMap::default());
    assert!(
        e.contains("`problems` holds a list of records") && e.contains("jq"),
        "{e}"
    );
}

/// Trial 44, D5: a workbook or Parquet file was "column 1 has an invalid UTF-8 name".
#[test]
fn spreadsheets_and_parquet_are_named_with_how_to_export() {
    for (head, kind) in [
        (&b"PK\x03\x04rest"[..], "Excel workbook"),
        (
            &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0][..],
            ".xls",
        ),
        (&b"PAR1\x15\x04"[..], "Parquet"),
    ] {
        for name in ["d.csv", "d.jsonl"] {
            let (_d, path) = write(name, head);
            let e = read_dataset(&path, &ColumnMap::default()).unwrap_err();
            assert!(!e.unreadable);
            let e = e.to_string();
            assert!(e.contains(kind) && e.contains("to_csv"), "{e}");
        }
    }
}

/// Trial 44, D7: Excel's cleared columns ("…,Human Accuracy,,,") were "column `` appears
/// twice", its cleared rows "empty answer". Both are skipped (the rows counted); a value
/// under a column with no name is an error naming the column.
#[test]
fn excel_leftovers_are_skipped_and_a_value_without_a_column_name_is_named() {
    let body = "question,A,B,C,D,answer,,,\r\nq,a,b,c,d,2,,,\r\n,,,,,,,,\r\nq,a,b,c,d,3,,,\r\n,,,,,,,,\r\n";
    let (_d, path) = write("x.csv", body.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.items.len(), 2);
    // Row ids still count the skipped row, as pandas and lm-eval keep it (a row of NaN).
    assert_eq!(ds.items[1].id, "2");
    assert!(ds.items[0].fields.is_empty());
    assert_eq!(ds.warnings.len(), 1);
    assert!(ds.warnings[0].contains("skipped 2 rows") && ds.warnings[0].contains("line 3"));
    let e = read_err(
        "x.csv",
        "question,A,B,C,D,answer,,\nq,a,b,c,d,2,,note\n",
        &ColumnMap::default(),
    );
    assert!(e.contains("x.csv:2: column 8 has no name"), "{e}");
    // TSV, alone and in a folder.
    let (dir, path) = write("t.tsv", b"question\tA\tB\tanswer\nq\ta\t\"b, c\"\t2\n");
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(
        ds.items[0].choices.option_text(ds.items[0].gold),
        Some("b, c")
    );
    let ds = read_dataset(dir.path(), &ColumnMap::default()).unwrap();
    assert_eq!(ds.items[0].id, "t/0");
}

#[test]
fn option_columns_never_keyed_to_the_last_option_are_said() {
    let kmmlu = |answers: &[u8]| {
        let mut s = String::from("question,answer,A,B,C,D\n");
        for a in answers {
            s.push_str(&format!("q{a},{a},w,x,y,z\n"));
        }
        s
    };
    // Twelve rows with answers 1–3 only: answers counting from 0 would look like this.
    let (_d, path) = write(
        "k.csv",
        kmmlu(&[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]).as_bytes(),
    );
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.warnings.len(), 1, "{:?}", ds.warnings);
    assert!(ds.warnings[0].contains("no row's answer is the last option (4) in 12 rows"));
    // One 4 settles it; so do too few rows to tell.
    let (_d, path) = write(
        "k.csv",
        kmmlu(&[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 4]).as_bytes(),
    );
    assert!(read_dataset(&path, &ColumnMap::default())
        .unwrap()
        .warnings
        .is_empty());
    let (_d, path) = write("k.csv", kmmlu(&[1, 2, 3]).as_bytes());
    assert!(read_dataset(&path, &ColumnMap::default())
        .unwrap()
        .warnings
        .is_empty());
}

/// Trial 45, D1, D2 and D7: columns that look like options (selection rates in `1`–`4`,
/// rater flags `A`/`B`, a JSON list or `option1`… repeating the texts) replaced the options
/// a question shows: 0% for a model right everywhere, or a refusal blaming the answer. The
/// question's own options are read; the columns stay grouping fields, a list is dropped.
#[test]
fn a_question_showing_its_options_is_read_as_it_shows_them() {
    let rates = "id,question,answer,domain,1,2,3,4\nq0,\"기관은?\n① 서울\n② 부산\n③ 대구\n④ 광주\",①,공공,12%,30%,41%,17%\n";
    let (_d, path) = write("r.csv", rates.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.format, DatasetFormat::DomainEval);
    let item = &ds.items[0];
    assert_eq!(item.choices.options()[0], "서울");
    assert_eq!(item.gold.position(), 1);
    assert!(item.fields.contains(&("1".to_string(), "12%".to_string())));
    let flags = "id,question,answer,domain,A,B\nq0,\"기관은? ① 서울 ② 부산\",②,공공,y,n\n";
    let (_d, path) = write("f.csv", flags.as_bytes());
    assert_eq!(
        read_dataset(&path, &ColumnMap::default()).unwrap().items[0]
            .gold
            .position(),
        2
    );
    let list = "{\"id\":\"q0\",\"question\":\"옳은 것은?\\n① 서울\\n② 부산\\n③ 대구\\n④ 광주\",\"choices\":[\"서울\",\"부산\",\"대구\",\"광주\"],\"answer\":1}\n";
    let (_d, path) = write("l.jsonl", list.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    let item = &ds.items[0];
    assert_eq!(
        (item.choices.notation(), item.gold.position()),
        (Notation::Circled, 1)
    );
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    assert!(item.fields.iter().all(|(k, _)| k != "choices"));
    // KMMLU's O/X-pairing stem lists no options: its A–D columns are still read.
    let ox = "question,answer,A,B,C,D\n\"옳은 것(○)과 옳지 않은 것(×)을 바르게 연결한 것은?\",3,ㄱ(○),ㄴ(×),ㄷ(○),ㄹ(×)\n";
    let (_d, path) = write("k.csv", ox.as_bytes());
    let item = &read_dataset(&path, &ColumnMap::default()).unwrap().items[0];
    assert_eq!((item.choices.len(), item.gold.position()), (4, 3));
}

/// Trial 45, D11: `보기1`, `보기2`, `보기4` read as two-option items with `보기4` a grouping
/// field. The missing option is named.
#[test]
fn a_gap_in_option_columns_is_named() {
    let e = read_err(
        "g.csv",
        "문제,정답,보기1,보기2,보기4\n수도는?,1,서울,부산,광주\n",
        &ColumnMap {
            question: Some("문제".into()),
            answer: Some("정답".into()),
            ..ColumnMap::default()
        },
    );
    assert!(e.contains("`보기1`–`보기2` then `보기4`"), "{e}");
}

/// Trial 45, D4 and trial 46: in a file that gives answers as option texts (CLIcK), a number
/// may be an index or an option's text ("2" among the options 1, 2, 3, 12); either reading
/// grades some file wrong without a word, so such a file is refused.
#[test]
fn a_file_mixing_text_and_integer_answers_is_refused() {
    let rows = "{\"question\":\"수도는?\",\"choices\":[\"서울\",\"부산\",\"대구\",\"광주\"],\"answer\":\"서울\"}\n{\"question\":\"설날은 몇 월?\",\"choices\":[\"1\",\"2\",\"3\",\"12\"],\"answer\":\"1\"}\n";
    let e = read_err("c.jsonl", rows, &ColumnMap::default());
    assert!(
        e.contains("an integer may be an index or an option's text"),
        "{e}"
    );
    let texts = "{\"question\":\"수도는?\",\"choices\":[\"서울\",\"부산\"],\"answer\":\"부산\"}\n";
    let (_d, path) = write("t.jsonl", texts.as_bytes());
    assert_eq!(
        read_dataset(&path, &ColumnMap::default()).unwrap().items[0]
            .gold
            .position(),
        2
    );
}

/// Trial 45, D9 and D10: a comma-separated file named `.tsv` was refused; options written
/// as objects (`{"label", "text"}`, ARC's `{"text": […], "label": […]}`) were refused as a
/// nested record. Both are read.
#[test]
fn a_csv_named_tsv_and_options_as_objects() {
    let (_d, path) = write("k.tsv", b"question,answer,A,B,C,D\nq,2,w,x,y,z\n");
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.items[0].gold.position(), 2);
    let rows = "{\"question\":\"q\",\"choices\":[{\"label\":\"A\",\"text\":\"서울\"},{\"label\":\"B\",\"text\":\"부산\"}],\"answer\":\"B\"}\n{\"question\":\"r\",\"choices\":{\"text\":[\"사과\",\"배\"],\"label\":[\"A\",\"B\"]},\"answer\":\"A\"}\n";
    let (_d, path) = write("o.jsonl", rows.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.items[0].choices.options(), ["서울", "부산"]);
    assert_eq!(ds.items[0].gold.position(), 2);
    assert_eq!(ds.items[1].choices.options(), ["사과", "배"]);
}

/// Trial 47 (S3, R3): beside a question showing ①–④, A–D columns of selection rates and
/// three rater-flag columns `A`–`C` were read as the options (3/6 for 6/6) or refused
/// ("missing column D"). Figures (decimals, repeated numbers) and a set with a column
/// missing give way to the question's own options; counts `1`–`4` stay options.
#[test]
fn figures_beside_a_question_showing_its_options_are_not_its_options() {
    let stem = "\"옳은 것은?\n① 서울\n② 부산\n③ 대구\n④ 광주\"";
    for (header, values) in [
        ("A,B,C,D", "12.5,40.1,30.2,17.2"),
        ("A,B,C", "0,1,1"),
        ("A,B,C,D", "0,1,1,0"),
    ] {
        let text = format!("question,answer,{header}\n{stem},2,{values}\n");
        let (_d, path) = write("s.csv", text.as_bytes());
        let item = &read_dataset(&path, &ColumnMap::default()).unwrap().items[0];
        assert_eq!(item.choices.options()[1], "부산", "{header}: {values}");
        assert_eq!(item.gold.position(), 2);
    }
    let counts = format!("question,answer,A,B,C,D\n{stem},2,1,2,3,4\n");
    let (_d, path) = write("c.csv", counts.as_bytes());
    let item = &read_dataset(&path, &ColumnMap::default()).unwrap().items[0];
    assert_eq!(item.choices.options()[1], "2");
}

/// Trial 47 (S1): columns `option0`–`option3` (pandas' `add_prefix` on a list) lost
/// `option0`, and their 0-based answers were read as 1-based: 0/9 for 9/9, exit 0. A family
/// numbered from 0 is four options, and an integer answer names its column.
#[test]
fn option_columns_numbered_from_zero_are_all_read_and_answered_by_number() {
    let text = "question,option0,option1,option2,option3,answer\n옳은 것은?,가,나,다,라,1\n옳은 것은?,마,바,사,아,3\n";
    let (_d, path) = write("z.csv", text.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    let read: Vec<(usize, String)> = ds
        .items
        .iter()
        .map(|i| {
            (
                i.choices.len(),
                i.choices.options()[i.gold.position() - 1].clone(),
            )
        })
        .collect();
    assert_eq!(read, [(4, "나".to_string()), (4, "아".to_string())]);
    let e = read_err(
        "z4.csv",
        "question,option0,option1,option2,option3,answer\n옳은 것은?,가,나,다,라,4\n",
        &ColumnMap::default(),
    );
    assert!(e.contains("0-based position (0–3)"), "{e}");
}

/// Trial 47 (R1): CLIcK-style text answers that are years were refused as integers mixed
/// with texts. A number past its row's options, whichever base, that is exactly one
/// option's text is that text; one that may be an index ("1" among 1, 2, 3, 12) is still
/// refused.
#[test]
fn a_number_that_can_be_no_index_beside_text_answers_is_its_option_s_text() {
    let years = "{\"question\":\"수도는?\",\"choices\":[\"부산\",\"서울\"],\"answer\":\"서울\"}\n{\"question\":\"광복은?\",\"choices\":[\"1919\",\"1945\",\"1950\"],\"answer\":\"1945\"}\n";
    let (_d, path) = write("y.jsonl", years.as_bytes());
    let ds = read_dataset(&path, &ColumnMap::default()).unwrap();
    assert_eq!(ds.items[1].gold.position(), 2);
    let small = "{\"question\":\"수도는?\",\"choices\":[\"부산\",\"서울\"],\"answer\":\"서울\"}\n{\"question\":\"설날은?\",\"choices\":[\"1\",\"2\",\"3\",\"12\"],\"answer\":\"1\"}\n";
    let e = read_err("s.jsonl", small, &ColumnMap::default());
    assert!(e.contains("may be an index"), "{e}");
}
