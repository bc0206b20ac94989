//! Cutting a response down to the text that states the final answer: gpt-oss's final channel,
//! or what follows the last `</think>`. Reasoning never decides anything, and reasoning that
//! never closes means the model ran out before answering.
//!
//! Uses `memchr::memmem` because this runs over every byte of long reasoning traces, and
//! SIMD substring search keeps it well below the cost of parsing the JSON line itself.

use memchr::memmem;

/// Where the final answer text lies in a response.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// The byte range of the final text in the response, and the end tokens in it that may
    /// have ended a turn the model went on from (neither at a turn's end nor quoted): the
    /// text before each may state another answer than the text read through it.
    Final {
        start: usize,
        end: usize,
        leaks: Vec<std::ops::Range<usize>>,
    },
    /// Reasoning started and never reached a final answer.
    Truncated,
    /// A transcript the answer opens by echoing, a prompt's turn answered by an assistant's
    /// marker later: which turn is the reply is unknown (trial 56).
    Transcript,
}

const GPT_OSS_FINAL: &[u8] = b"<|channel|>final<|message|>";
const GPT_OSS_CHANNEL: &[u8] = b"<|channel|>";
const THINK_CLOSE: &[u8] = b"</think>";
const THINK_OPEN: &[u8] = b"<think>";
/// gpt-oss output decoded with its special tokens dropped reads "analysis…assistantfinal…".
const STRIPPED_FINAL: &[u8] = b"assistantfinal";
/// Tokens that end a turn in the chat templates models leak as text (gpt-oss's harmony,
/// ChatML, Llama 3, Gemma, GPT-2's and Qwen's end of text). Where the template shows the turn
/// ended (the text ends, or another turn's template or role follows) the answer ends there:
/// what follows is a turn the model invented, which a server honouring its stop tokens never
/// sends (audit 43: ChatML's was cut and Llama 3's read through, so the same leaked turn
/// graded differently by model family). Anywhere else a token may be talked about (GPT-2's
/// `<|endoftext|>`, a template in backticks) or may end a turn the model went on from: the
/// text is read through it, and [`super::verify`] keeps an answer only when the text before
/// the token states no other (the cut's `leak`; trial 47). `</s>` (Llama 2, Mistral, Zephyr)
/// is one only with no `<s>` before it: after one it is HTML's end of strikethrough (`<s>②</s>
/// ③`). Audit 44 added DeepSeek's, Gemma's `<eos>` and Cohere's.
const END_TOKENS: [&[u8]; 13] = [
    b"<|end|>",
    b"<|return|>",
    b"<|call|>",
    b"<|start|>",
    b"<|im_end|>",
    b"<|eot_id|>",
    b"<|eom_id|>",
    b"<|end_of_text|>",
    b"<end_of_turn>",
    b"<|endoftext|>",
    "<｜end▁of▁sentence｜>".as_bytes(),
    b"<eos>",
    b"<|END_OF_TURN_TOKEN|>",
];
/// HTML's end of strikethrough, or Llama 2's end of sequence (see `END_TOKENS`).
const END_OF_SEQUENCE: &[u8] = b"</s>";

/// What opens a user's turn in the chat templates (Zephyr and Phi-3's `<|user|>`, DeepSeek's
/// `<｜User｜>`, Llama 2 and Mistral's `[INST]`, ChatML's, Llama 3's and Gemma's with their
/// role), and the role lines of plain-text templates (Vicuna's `USER:`, `Human:`, `###
/// Human:`; not Alpaca's `### Instruction:`, a heading a model's own markdown may use). A model that writes one has gone on to invent the user's next
/// message, with no end token or with one the list above lacks (audit 44: `정답: ②\n<|user|>\n
/// 혹시 ①은 아닌가요?\n<|assistant|>\n네, 다시 보니 ①이 정답입니다.` had graded ①): its
/// answer ends there, unless the opener is talked about (quoted, or a particle after it).
/// The plain ones count only at a line's start.
const USER_TURNS: [&[u8]; 10] = [
    b"<|user|>",
    "<｜User｜>".as_bytes(),
    b"[INST]",
    b"<|im_start|>user",
    b"<start_of_turn>user",
    b"<|start_header_id|>user",
    b"\nUSER:",
    b"\nHuman:",
    b"\n### Human:",
    b"\n### User:",
];

/// Could the text hold a template's token or role line: a `<`, a `[INST]`, a role line? One
/// packed (SIMD) pass of a multi-pattern searcher over the answer.
fn may_hold_template(bytes: &[u8]) -> bool {
    use aho_corasick::AhoCorasick;
    use std::sync::OnceLock;
    static ANY: OnceLock<AhoCorasick> = OnceLock::new();
    let any = ANY.get_or_init(|| {
        AhoCorasick::new(["<", "[INST]", "\nUSER:", "\nHuman:", "\n### "])
            .expect("fixed patterns build")
    });
    any.is_match(bytes)
}

/// Assistant role lines that close an exchange a plain-text template's user line opened.
const ASSISTANT_LINES: [&[u8]; 4] = [
    b"\nASSISTANT:",
    b"\nAssistant:",
    b"\n### Assistant:",
    b"\n### Response:",
];

/// Find the final answer text of `response` to `question` (its stem and options, or "").
pub(crate) fn cut(response: &str, question: &str) -> Cut {
    let bytes = response.as_bytes();
    // Every marker but gpt-oss's stripped form starts with '<': one memchr pass settles
    // most answers, instead of nine substring searches over every byte.
    if !bytes.starts_with(b"analysis") && !may_hold_template(bytes) {
        return Cut::Final {
            start: 0,
            end: bytes.len(),
            leaks: Vec::new(),
        };
    }
    let harmony = memmem::rfind(bytes, GPT_OSS_FINAL);
    let (start, end) = if let Some(p) = harmony {
        // Two final messages that say different things: which is the reply is unknown
        // (audit 46: "…final<|message|>①<|end|><|start|>assistant<|channel|>final<|message|>②").
        let first = memmem::find(bytes, GPT_OSS_FINAL).unwrap_or(p);
        if first < p {
            let message = |at: usize| {
                let text = &bytes[at + GPT_OSS_FINAL.len()..];
                let end = END_TOKENS[..4]
                    .iter()
                    .filter_map(|t| memmem::find(text, t))
                    .min()
                    .unwrap_or(text.len());
                text[..end].trim_ascii()
            };
            if message(first) != message(p) {
                return Cut::Transcript;
            }
        }
        (p + GPT_OSS_FINAL.len(), bytes.len())
    } else if memmem::find(bytes, GPT_OSS_CHANNEL).is_some() {
        return Cut::Truncated;
    } else if let Some(p) = memmem::rfind(bytes, THINK_CLOSE) {
        (p + THINK_CLOSE.len(), bytes.len())
    } else if memmem::find(bytes, THINK_OPEN).is_some() {
        return Cut::Truncated;
    } else if bytes.starts_with(b"analysis") {
        match memmem::rfind(bytes, STRIPPED_FINAL) {
            Some(p) => (p + STRIPPED_FINAL.len(), bytes.len()),
            None => return Cut::Truncated,
        }
    } else {
        (0, bytes.len())
    };
    // End tokens before any text (a reply that opens with a leaked `<|im_end|>`) end nothing.
    let mut start = start;
    loop {
        let rest = &bytes[start..end];
        let text = rest.len() - rest.trim_ascii_start().len();
        match END_TOKENS.iter().find(|t| rest[text..].starts_with(t)) {
            Some(t) => start += text + t.len(),
            None => break,
        }
    }
    let tail = &bytes[start..end];
    // A question that shows a token ("Which string opens a user's turn? B. [INST]", HTML's
    // `<s>` for `</s>`): the answer talks about that token, and it ends nothing (trial 53);
    // the others still do (trial 54).
    let q = question.as_bytes();
    let in_question = |token: &[u8]| {
        let token = token.trim_ascii_start();
        memmem::find(q, token).is_some()
            || (token == END_OF_SEQUENCE && memmem::find(q, b"<s>").is_some())
    };
    // A transcript the model echoes, opened by a prompt's turn that an assistant's turn then
    // answers ("Human: … Assistant: B … Human: …", "<<SYS>> … [/INST] …"): which of its
    // turns is the answer is unknown (an example's, the reply's, an invented one; trials 54
    // to 56), so it decides nothing. Opened by a prompt's turn with no assistant's marker
    // ("[INST] Example: … [INST] …"), no user's turn in it ends the answer.
    let (opened, answered) = echo(tail);
    if answered {
        return Cut::Transcript;
    }
    let mut leaks = Vec::new();
    let mut stop = tail.len();
    for (at, len) in tokens(tail) {
        // gpt-oss's final message ends at its first harmony token: the model cannot write
        // one as text, so it is never talked about.
        let token = &tail[at..at + len];
        let standing = if harmony.is_some() && END_TOKENS[..4].contains(&token) {
            Standing::TurnEnd
        } else if in_question(token) || (opened && USER_TURNS.contains(&token)) {
            Standing::TalkedAbout
        } else if USER_TURNS.contains(&token) {
            user_turn(tail, at, len)
        } else if token == END_OF_SEQUENCE && tail.trim_ascii_start().starts_with(b"<s>") {
            // After a `<s>` opening the text it may end strikethrough as well as a turn, so
            // text after it, a second `<s>` included, never ends the answer there (trial 58:
            // "<s>정답은 ③입니다.</s><s>정답은 ②입니다.</s>" was cut to ③).
            match standing(tail, at, len) {
                Standing::TurnEnd if tail[at + len..].trim_ascii().is_empty() => Standing::TurnEnd,
                Standing::TalkedAbout => Standing::TalkedAbout,
                _ => Standing::Unclear,
            }
        } else {
            standing(tail, at, len)
        };
        match standing {
            Standing::TurnEnd => {
                stop = at;
                break;
            }
            Standing::Unclear => leaks.push(start + at..start + at + len),
            Standing::TalkedAbout => {}
        }
    }
    Cut::Final {
        start,
        end: start + stop,
        leaks,
    }
}

/// Does `text` open with a prompt's turn (a user's opener: `<|im_start|>user`, `[INST]`,
/// `Human:` …, `<s>[INST]`, `<<SYS>>` or a system turn), and does an assistant's marker
/// answer it later? Not an answer that opens by naming a token ("<s> 태그가 취소선입니다").
fn echo(text: &[u8]) -> (bool, bool) {
    const ASSISTANT: [&[u8]; 10] = [
        b"[/INST]",
        b"<|im_start|>assistant",
        b"<start_of_turn>model",
        b"<|start_header_id|>assistant",
        b"<|assistant|>",
        "<｜Assistant｜>".as_bytes(),
        b"\nAssistant:",
        b"\nASSISTANT:",
        b"### Assistant:",
        b"### Response:",
    ];
    let text = text.trim_ascii_start();
    let opens = [
        b"<s>[INST]".as_slice(),
        b"<<SYS>>",
        b"<|system|>",
        b"<|im_start|>system",
    ]
    .iter()
    .chain(&USER_TURNS)
    .map(|t| t.trim_ascii_start())
    .find(|t| text.starts_with(t));
    let answered = opens.is_some_and(|t| {
        let rest = &text[t.len()..];
        ASSISTANT.iter().any(|a| memmem::find(rest, a).is_some())
    });
    (opens.is_some(), answered)
}

/// How a user turn's opener at `at` stands: it ends the answer where the model said
/// something before it (an echoed prompt opens the text: "[INST] 다음 중 … [/INST] 정답은
/// ③"), and a plain role line only where an assistant's line follows it, the exchange a
/// model invents ("Human: 인간 / Rights: 권리" in a glossary is no turn; trial 53).
fn user_turn(text: &[u8], at: usize, len: usize) -> Standing {
    let token = &text[at..at + len];
    let said_before = !text[..at].trim_ascii().is_empty();
    let plain = token.starts_with(b"\n");
    let answered = || {
        let after = &text[at + len..];
        ASSISTANT_LINES
            .iter()
            .any(|a| memmem::find(after, a).is_some())
    };
    match standing(text, at, len) {
        Standing::TalkedAbout => Standing::TalkedAbout,
        _ if said_before && (!plain || answered()) => Standing::TurnEnd,
        _ => Standing::TalkedAbout,
    }
}

/// Every end token and user turn's opener in `text`, in order, as (position, length).
fn tokens(text: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut found: Vec<(usize, usize)> = Vec::new();
    if may_hold_template(text) {
        let every = |t: &'static [u8]| memmem::find_iter(text, t).map(move |at| (at, t.len()));
        found.extend(END_TOKENS.iter().flat_map(|t| every(t)));
        found.extend(USER_TURNS.iter().flat_map(|t| every(t)));
        // `</s>` with no `<s>` before it. A `<s>` opening the text may be Llama 2's start of
        // sequence as well as strikethrough: its `</s>` is weighed as a token, so an answer
        // after it stands only when the text before states no other (stop 35: "<s>정답은
        // ③입니다.</s>다시 보니 정답은 ②입니다.").
        let opening = text.len() - text.trim_ascii_start().len();
        let from = if text[opening..].starts_with(b"<s>") {
            opening + 3
        } else {
            0
        };
        let html = memmem::find(&text[from..], b"<s>").map_or(text.len(), |at| from + at);
        found.extend(every(END_OF_SEQUENCE).filter(|&(at, _)| at < html));
    }
    found.sort_unstable();
    found.into_iter()
}

/// How a leaked end token stands in its text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Standing {
    /// The template shows the turn ended: the text ends after it, or another turn's
    /// template follows it (`<|im_start|>user`, `<|start_header_id|>`, `<start_of_turn>`,
    /// gpt-oss's `<|start|>assistant`, a role's name on a line of its own).
    TurnEnd,
    /// The answer quotes it: in quotes, backticks or a code block.
    TalkedAbout,
    /// Neither: text goes on after it ("입니다.<|endoftext|>다시 보니 …", "① <|im_end|>는 …").
    Unclear,
}

fn standing(text: &[u8], at: usize, len: usize) -> Standing {
    let before = &text[..at];
    let after = &text[at + len..];
    // In a span of inline code too ("`<|eot_id|><|start_header_id|>user`"): an odd number
    // of backticks on its line before it.
    let line = &before[memchr::memrchr(b'\n', before).map_or(0, |p| p + 1)..];
    let quoted = before
        .last()
        .is_some_and(|b| matches!(b, b'`' | b'"' | b'\''))
        || memchr::memchr_iter(b'`', line).count() % 2 == 1
        || memmem::find_iter(before, b"```").count() % 2 == 1;
    // `text` is a str and the token ASCII: what follows starts on a character boundary.
    let next = std::str::from_utf8(after).ok().and_then(|s| {
        let mut chars = s.trim_start_matches(' ').chars();
        chars.next().map(|c| (c, chars.next()))
    });
    // A particle or a closing quote after it says it is talked about, but an invented turn
    // may open with one too ("<|endoftext|>\"… 정답은 ③\""; trial 48).
    let particle = next.is_some_and(|(c, then)| {
        matches!(c, '`' | '"' | '\'' | ')' | ']' | '’' | '”')
            // Not 이, which is also "this" (…입니다.<|endoftext|>이 문제를 다시 보면 …).
            || ("를을는은가와과로의에도만".contains(c)
                && then.is_none_or(|t| !t.is_alphanumeric()))
    });
    // Glued to a sentence's end, it may end that turn even with a particle after it
    // ("…입니다.<|endoftext|>의 의미를 다시 보면 …"); inside a sentence it is talked about
    // ("GPT-2는 <|endoftext|>를 씁니다").
    let glued = before
        .last()
        .is_some_and(|b| matches!(b, b'.' | b'!' | b'?' | b'\n'));
    if quoted || (particle && !glued) {
        return Standing::TalkedAbout;
    }
    if particle {
        return Standing::Unclear;
    }
    let mut rest = after;
    loop {
        rest = rest.trim_ascii_start();
        // gpt-oss's `<|start|>` opens the next turn: it is the template that follows.
        match (END_TOKENS.iter())
            .filter(|t| **t != b"<|start|>")
            .find(|t| rest.starts_with(t))
        {
            Some(t) => rest = &rest[t.len()..],
            None => break,
        }
    }
    // A role opening a turn on a line of its own: "user\n", "<|im_start|>user".
    let role = ["user", "assistant", "system", "model", "developer"]
        .iter()
        .find(|r| rest.starts_with(r.as_bytes()))
        .map(|r| &rest[r.len()..]);
    let turn_end = rest.is_empty()
        || rest.starts_with(b"<|")
        || rest.starts_with("<｜".as_bytes())
        || rest.starts_with(b"<start_of_turn>")
        || rest.starts_with(b"<s>")
        || USER_TURNS
            .iter()
            .any(|t| rest.starts_with(t.trim_ascii_start()))
        || role.is_some_and(|r| {
            r.is_empty() || r.starts_with(b"<|") || r.starts_with(b"\n") || r.starts_with(b"\r\n")
        })
        || (&text[at..at + len] == b"<|start|>" && role.is_some());
    match turn_end {
        true => Standing::TurnEnd,
        false => Standing::Unclear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn final_of(s: &str) -> Option<&str> {
        match cut(s, "") {
            Cut::Final { start, end, .. } => Some(&s[start..end]),
            Cut::Truncated | Cut::Transcript => None,
        }
    }

    #[test]
    fn takes_gpt_oss_final_channel() {
        let s = "<|start|>assistant<|channel|>analysis<|message|>정답은 ②?<|end|><|start|>assistant<|channel|>final<|message|>정답은 ③<|return|>";
        assert_eq!(final_of(s), Some("정답은 ③"));
        assert_eq!(final_of("<|channel|>final<|message|>④"), Some("④"));
    }

    #[test]
    fn every_template_s_end_of_turn_ends_the_answer() {
        for end in [
            "<|im_end|>\n<|im_start|>user\n다시<|im_end|>\n<|im_start|>assistant\n",
            "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
            "<end_of_turn>\n<start_of_turn>model\n",
            "<|endoftext|>\nuser\n",
            "<|end|><|start|>assistant",
            // Audit 44: DeepSeek's, and a user's turn opened with no end token before it.
            "<｜end▁of▁sentence｜><｜User｜>다시<｜Assistant｜>",
            "\n<|user|>\n다시\n<|assistant|>\n",
            "</s>\n<|user|>\n다시</s>\n<|assistant|>\n",
            "\n[INST] 다시 [/INST] ",
            "\n\nHuman: 다시\n\nAssistant: ",
            "\nUSER: 다시\nASSISTANT: ",
        ] {
            let s = format!("정답은 ②입니다.{end}다시 보니 정답은 ③입니다.");
            let cut = final_of(&s).map(str::trim_end);
            assert_eq!(cut, Some("정답은 ②입니다."), "{end}");
        }
        assert_eq!(
            final_of("정답은 ①<|eot_id|>\nuser\n다시 풀어봐"),
            Some("정답은 ①")
        );
        assert_eq!(
            final_of("정답은 ①<|im_end|>\nuser\n다시 풀어봐"),
            Some("정답은 ①")
        );
        // Not HTML's strikethrough, and not a token before any text or at the end.
        assert_eq!(final_of("<s>②</s> ③"), Some("<s>②</s> ③"));
        assert_eq!(final_of("<|im_end|>\n정답: ③"), Some("\n정답: ③"));
        assert_eq!(final_of("정답: 3<|eot_id|>"), Some("정답: 3"));
        assert_eq!(
            final_of("정답: 3<|eot_id|>\n<|end_of_text|>"),
            Some("정답: 3")
        );
    }

    /// Trials 45 to 47: a token with text after it and no template showing the turn ended is
    /// read through. Where the text before it states another choice the answer is
    /// `leaked_turn`; where it is talked about, or nothing before it states a choice, the
    /// answer read through it stands.
    #[test]
    fn a_token_with_no_turn_after_it_is_read_through_and_weighed() {
        use crate::verify::{verify, ChoiceSet, Notation};
        let set = ChoiceSet::new(Notation::Circled, 4).unwrap();
        let read = |s: &str| {
            let e = verify(s, &set);
            (e.rule_name(), e.choice().map(|c| c.index()))
        };
        for s in [
            "정답은 ②입니다.<|endoftext|>다시 보니 정답은 ③입니다.",
            "정답은 ②입니다.<|end_of_text|>다시 보니 정답은 ③입니다.",
            "정답은 ①입니다.<|endoftext|>이 문제를 다시 보면 정답은 ③입니다.",
            "①번이 정답처럼 보입니다.\n<|eot_id|>(Llama 3 턴 종료)의 역할을 다시 보면, 정답은 ②입니다.",
            "정답은 ①<|im_end|> user: 다시 보니 정답은 ③",
            "정답은 ①<|eot_id|> user: 다시 보니 정답은 ③",
            // Trial 48: every token is weighed, not only the first; a refusal before one is
            // not "nothing"; a quote or a particle after one glued to a sentence's end may open
            // the invented turn.
            "The <|endoftext|> token ends a document. 정답은 ②입니다.<|endoftext|>다시 생각해 보면 정답은 ④입니다.",
            "먼저 보기를 살펴봅니다.<|im_end|>정답은 ②입니다.<|im_end|>다시 보니 정답은 ④입니다.",
            "이 문제는 답할 수 없습니다.<|endoftext|>정답은 ③입니다.",
            "정답은 ①입니다.<|endoftext|>\"다시 보면 정답은 ③입니다.\"",
            "정답은 ①입니다.<|endoftext|>의 의미를 다시 보면 정답은 ③입니다.",
        ] {
            assert_eq!(final_of(s), Some(s), "{s}");
            assert_eq!(read(s), ("leaked_turn", None), "{s}");
        }
        for (s, want) in [
            ("③ [SEP]은 BERT의 토큰입니다. 문서 끝은 `<|endoftext|>`이므로 정답은 ②.", 1),
            ("GPT-2는 문서 끝에 <|endoftext|> 토큰을 씁니다. 따라서 정답은 ②입니다.", 1),
            ("Llama 3은 <|eot_id|>로 턴을 닫습니다. 정답: ②", 1),
            ("① <|im_end|>는 ChatML, ② <|eot_id|>는 Llama 3의 것입니다. 따라서 정답은 ②입니다.", 1),
            ("문서 끝 토큰은 `.<|endoftext|>`처럼 붙습니다. 정답: ①", 0),
            ("토큰 설명입니다.<|endoftext|> 는 문서 끝을 뜻합니다. 따라서 정답은 ③입니다.", 2),
            ("정답은 ③입니다.<|endoftext|>\n감사합니다.", 2),
            ("① `<|eot_id|><|start_header_id|>user<|end_header_id|>`는 Llama 3의 것입니다. 정답은 ③입니다.", 2),
        ] {
            assert_eq!(read(s).1, Some(want), "{s}");
        }
    }

    #[test]
    fn unfinished_reasoning_is_truncated() {
        assert_eq!(
            cut("<|channel|>analysis<|message|>정답은 ②일까", ""),
            Cut::Truncated
        );
        assert_eq!(cut("<think>①인지 ②인지", ""), Cut::Truncated);
        assert_eq!(cut("analysisWe need to pick", ""), Cut::Truncated);
    }

    #[test]
    fn takes_text_after_last_think_close() {
        assert_eq!(final_of("<think>①?</think> 정답: ②"), Some(" 정답: ②"));
        assert_eq!(final_of("음 ①</think>②"), Some("②"));
        assert_eq!(
            final_of("analysisThink about it.assistantfinal③"),
            Some("③")
        );
        assert_eq!(final_of("그냥 ③"), Some("그냥 ③"));
    }
}
