//! Unit tests of the generations readers: each shape, reasoning kept apart, located errors.

use super::*;

fn read_all(
    text: &str,
    format: Option<GenerationsFormat>,
) -> Vec<Result<Vec<Generation>, GenerationError>> {
    let mut r = GenerationReader::new(text.as_bytes(), "g.jsonl", format);
    std::iter::from_fn(|| r.next_line()).collect()
}

fn ok(lines: &[Result<Vec<Generation>, GenerationError>], i: usize) -> &Vec<Generation> {
    lines[i].as_ref().unwrap()
}

#[test]
fn reads_each_shape() {
    let plain = read_all("{\"id\":\"a\",\"response\":\"③\"}\n{\"id\":7,\"response\":\"②\",\"reasoning_content\":\"음\"}\n", None);
    assert_eq!(ok(&plain, 0)[0].response, "③");
    assert_eq!(ok(&plain, 1)[0].id, "7");
    assert_eq!(ok(&plain, 1)[0].response, "②");
    assert_eq!(ok(&plain, 1)[0].reasoning.as_deref(), Some("음"));

    let lm = read_all("{\"doc_id\":3,\"resps\":[[\"정답: ①\"],[\"②\"]],\"filtered_resps\":[\"①\",\"②\"],\"doc\":{}}\n", None);
    let lm = ok(&lm, 0);
    assert_eq!(
        (lm.len(), lm[0].id.as_str(), lm[1].response.as_str()),
        (2, "3", "②")
    );

    let batch = read_all(concat!(
        "{\"custom_id\":\"q1\",\"response\":{\"status_code\":200,\"body\":{\"choices\":[{\"message\":{\"content\":\"④\",\"reasoning_content\":\"생각\"}}]}},\"error\":null}\n",
        "{\"custom_id\":\"q2\",\"response\":null,\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"rate limited\"}}\n",
    ), None);
    assert_eq!(ok(&batch, 0)[0].response, "④");
    assert_eq!(ok(&batch, 0)[0].reasoning.as_deref(), Some("생각"));
    assert_eq!(ok(&batch, 1)[0].response, "");
    assert_eq!(
        ok(&batch, 1)[0].error.as_deref(),
        Some("rate_limit_exceeded: rate limited")
    );
}

#[test]
fn reasoning_without_content_stays_reasoning_with_no_made_up_markers() {
    let g = read_all("{\"id\":\"a\",\"response\":{\"choices\":[{\"message\":{\"content\":null,\"reasoning_content\":\"정답은 ②일까\"}}]}}\n", None);
    let g = &ok(&g, 0)[0];
    assert_eq!(g.response, "");
    assert_eq!(g.reasoning.as_deref(), Some("정답은 ②일까"));
}

#[test]
fn batch_with_n_choices_error_files_and_the_responses_api() {
    let lines = read_all(concat!(
        "{\"id\":\"batch_req_1\",\"custom_id\":\"q1\",\"response\":{\"status_code\":200,\"request_id\":\"r1\",\"body\":{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"①\"}},{\"index\":1,\"message\":{\"role\":\"assistant\",\"content\":\"정답은 ②\"}}]}},\"error\":null}\n",
        "{\"id\":\"batch_req_2\",\"custom_id\":\"q2\",\"response\":{\"status_code\":400,\"request_id\":\"r2\",\"body\":{\"error\":{\"message\":\"Invalid value for 'max_tokens'\",\"type\":\"invalid_request_error\",\"code\":null}}},\"error\":null}\n",
        "{\"id\":\"batch_req_3\",\"custom_id\":\"q3\",\"response\":{\"status_code\":200,\"body\":{\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"비교\"}]},{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"정답은 ③\"}]}]}},\"error\":null}\n",
    ), None);
    let two = ok(&lines, 0);
    assert_eq!(two.len(), 2);
    assert_eq!(two[1].response, "정답은 ②");
    assert_eq!(
        ok(&lines, 1)[0].error.as_deref(),
        Some("HTTP 400: invalid_request_error: Invalid value for 'max_tokens'")
    );
    assert_eq!(ok(&lines, 2)[0].response, "정답은 ③");
    assert_eq!(ok(&lines, 2)[0].reasoning.as_deref(), Some("비교"));
}

#[test]
fn ollama_lines_and_saved_ollama_replies() {
    let lines = read_all(
        "{\"id\":\"q1\",\"model\":\"gpt-oss:20b\",\"created_at\":\"2025-08-05T00:00:00Z\",\"message\":{\"role\":\"assistant\",\"content\":\"정답은 ④\",\"thinking\":\"음\"},\"done\":true,\"done_reason\":\"stop\"}\n",
        None,
    );
    assert_eq!(ok(&lines, 0)[0].response, "정답은 ④");
    assert_eq!(ok(&lines, 0)[0].reasoning.as_deref(), Some("음"));
    let plain = read_all(
        "{\"id\":\"q1\",\"response\":{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"①\"},\"done\":true}}\n",
        None,
    );
    assert_eq!(ok(&plain, 0)[0].response, "①");
}

#[test]
fn id_patterns_map_custom_ids_to_dataset_ids() {
    let mut r = GenerationReader::new(
        "{\"custom_id\":\"kmmlu-public-safety-17\",\"response\":{\"body\":{\"choices\":[{\"message\":{\"content\":\"B\"}}]}}}\n".as_bytes(),
        "g.jsonl",
        None,
    )
    .with_id_pattern(Some(regex::Regex::new(r"-(\d+)$").unwrap()));
    assert_eq!(r.next_line().unwrap().unwrap()[0].id, "17");
}

#[test]
fn bad_lines_are_located_and_the_stream_goes_on() {
    let out = read_all("{\"id\":\"a\",\"response\":\"③\"}\n{\"id\":\"b\",\"resp\n{\"response\":\"x\"}\n{\"id\":\"c\",\"response\":\"①\"}\n", None);
    assert_eq!(out.len(), 4);
    assert!(out[1]
        .as_ref()
        .unwrap_err()
        .to_string()
        .starts_with("g.jsonl:2: invalid JSON"));
    assert_eq!(
        out[2].as_ref().unwrap_err().to_string(),
        "g.jsonl:3: field `id`: missing or not a string/number"
    );
    assert_eq!(ok(&out, 3)[0].id, "c");
}

/// Audit 28, A4: item `a#s=1` (sample 0) and item `a` (sample 1) both had the custom_id
/// `a#s=1`, and `b#o=1,0,2,3` read back as an unknown item `b`.
#[test]
fn custom_ids_of_ids_with_kgrade_s_suffixes_are_distinct_and_read_back() {
    let ids = [
        "a#s=1",
        "a",
        "b#o=1,0,2,3",
        "b",
        "50%",
        "50%25",
        "%23",
        "#",
        "",
    ];
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        for sample in 0..3 {
            for ordering in [None, Some(vec![1u8, 0, 2, 3])] {
                for shown in [None, Some(Notation::Letter)] {
                    let c = custom_id(id, sample, ordering.as_deref(), shown);
                    assert!(seen.insert(c.clone()), "{c} twice");
                    let expected_sample = (sample > 0).then_some(sample);
                    assert_eq!(
                        split_custom_id(&c),
                        CustomId {
                            id: id.to_string(),
                            sample: expected_sample,
                            ordering: ordering.clone(),
                            shown
                        },
                        "{c}"
                    );
                }
            }
        }
    }
}

#[test]
fn custom_ids_map_back_to_item_and_ordering() {
    let named = |id: &str, sample, ordering: Option<Vec<u8>>, shown| CustomId {
        id: id.into(),
        sample,
        ordering,
        shown,
    };
    assert_eq!(custom_id("q1", 0, None, None), "q1");
    let id = custom_id("a#b", 2, Some(&[3, 0, 1, 2]), None);
    assert_eq!(id, "a%23b#s=2#o=3,0,1,2");
    // Another tool's custom_id with a `#` in it reads as it did.
    assert_eq!(
        split_custom_id("a#b#s=2#o=3,0,1,2"),
        named("a#b", Some(2), Some(vec![3, 0, 1, 2]), None)
    );
    assert_eq!(
        split_custom_id(&id),
        named("a#b", Some(2), Some(vec![3, 0, 1, 2]), None)
    );
    assert_eq!(split_custom_id("x#o=y"), named("x#o=y", None, None, None));
    assert_eq!(split_custom_id("x#s=z"), named("x#s=z", None, None, None));
    // Trial 42, defect 1: the notation a template showed travels in the custom_id.
    let id = custom_id("q2", 0, Some(&[1, 0]), Some(Notation::Letter));
    assert_eq!(id, "q2#o=1,0#n=letter");
    assert_eq!(
        split_custom_id(&id),
        named("q2", None, Some(vec![1, 0]), Some(Notation::Letter))
    );
    assert_eq!(
        split_custom_id("x#n=roman"),
        named("x#n=roman", None, None, None)
    );
    let batch = read_all("{\"custom_id\":\"q1#s=1#o=1,0\",\"response\":{\"body\":{\"choices\":[{\"message\":{\"content\":\"②\"}}]}}}\n", None);
    let g = &ok(&batch, 0)[0];
    assert_eq!(
        (g.id.as_str(), g.sample, g.ordering.clone()),
        ("q1", Some(1), Some(vec![1, 0]))
    );
    let plain = read_all(
        "{\"id\":\"q2\",\"sample\":3,\"response\":\"①\",\"ordering\":[1,0]}\n",
        None,
    );
    assert_eq!(ok(&plain, 0)[0].ordering, Some(vec![1, 0]));
    assert_eq!(ok(&plain, 0)[0].sample, Some(3));
}
