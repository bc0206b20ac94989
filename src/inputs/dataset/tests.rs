//! Unit tests of the parent module.
use super::*;
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
    let starts: Vec<usize> = (0..5).map(|i| csv_field_start(record, i)).collect();
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
