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
    /// The byte range of the final text in the response.
    Final(usize, usize),
    /// Reasoning started and never reached a final answer.
    Truncated,
}

const GPT_OSS_FINAL: &[u8] = b"<|channel|>final<|message|>";
const GPT_OSS_CHANNEL: &[u8] = b"<|channel|>";
const THINK_CLOSE: &[u8] = b"</think>";
const THINK_OPEN: &[u8] = b"<think>";
/// gpt-oss output decoded with its special tokens dropped reads "analysis…assistantfinal…".
const STRIPPED_FINAL: &[u8] = b"assistantfinal";
/// Tokens that end a turn in the chat templates models leak as text (gpt-oss's harmony,
/// ChatML, Llama 3, Gemma, GPT-2's and Qwen's end of text): the model's answer ends there, and
/// anything after one is a continuation it invented (another user turn, another go at the
/// question) that a server honouring its stop tokens would never have sent. Every template
/// is cut alike (audit 43: ChatML's cut and Llama 3's was read through, so the same leaked
/// turn graded differently by model family). `</s>` is not one: it is also HTML's end of
/// strikethrough (`<s>②</s> ③`). The first five (gpt-oss's harmony and ChatML's) end the
/// answer wherever they stand, as they always did; the others are also words an answer may
/// talk about (GPT-2's `<|endoftext|>`), so they end it only where the turn ended
/// ([`first_leaked`]).
const END_TOKENS: [&[u8]; 10] = [
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
];

/// Find the final answer text of `response`.
pub(crate) fn cut(response: &str) -> Cut {
    let bytes = response.as_bytes();
    // Every marker but gpt-oss's stripped form starts with '<': one memchr pass settles
    // most answers, instead of nine substring searches over every byte.
    if !bytes.starts_with(b"analysis") && memchr::memchr(b'<', bytes).is_none() {
        return Cut::Final(0, bytes.len());
    }
    let (start, end) = if let Some(p) = memmem::rfind(bytes, GPT_OSS_FINAL) {
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
    let stop = END_TOKENS
        .iter()
        .enumerate()
        .filter_map(|(i, t)| match i < 5 {
            true => memmem::find(tail, t),
            false => first_leaked(tail, t),
        })
        .min()
        .unwrap_or(tail.len());
    Cut::Final(start, start + stop)
}

/// The first place `token` ends the model's turn in `text`: where the text ends after it,
/// another turn's template follows it (`<|im_start|>user`, `<|start_header_id|>`,
/// `<start_of_turn>`, gpt-oss's `<|start|>assistant`, a role's name on its own), or it is glued
/// to the end of a sentence ("입니다.<|endoftext|>다시 보니 …", a new document invented after
/// the end of text). A token the answer talks about ("GPT-2는 <|endoftext|> 토큰을 씁니다", in
/// backticks) ends nothing (trial 45: cutting there committed the option named before it).
fn first_leaked(text: &[u8], token: &[u8]) -> Option<usize> {
    memmem::find_iter(text, token).find(|&at| {
        let after = &text[at + token.len()..];
        // Talked about: a particle or a quote right after it ("<|endoftext|>를", "`").
        // `text` is a str and the token ASCII: what follows starts on a character boundary.
        let next = std::str::from_utf8(after).ok().and_then(|s| {
            let mut chars = s.trim_start_matches(' ').chars();
            chars.next().map(|c| (c, chars.next()))
        });
        let talked_about = next.is_some_and(|(c, then)| {
            matches!(c, '`' | '"' | '\'' | ')' | ']' | '’' | '”')
                || ("를을는은이가와과로의에도만".contains(c)
                    && then.is_none_or(|t| !t.is_alphanumeric()))
        });
        if talked_about {
            return false;
        }
        // Glued on both sides: "입니다.<|endoftext|>다시 보니 …", a new document invented
        // after the end of text (or a new line); with a space after it, the sentence may go on
        // about the token.
        let glued = (text[..at].last()).is_some_and(|b| matches!(b, b'.' | b'!' | b'?' | b'\n'))
            && after.first().is_some_and(|b| !matches!(b, b' ' | b'\t'));
        let rest = after.trim_ascii_start();
        // A role opening a turn: "user" on its own line, "user:", "<|im_start|>user".
        let role = ["user", "assistant", "system", "model", "developer"]
            .iter()
            .find(|r| rest.starts_with(r.as_bytes()))
            .map(|r| &rest[r.len()..]);
        glued
            || rest.is_empty()
            || rest.starts_with(b"<|")
            || rest.starts_with(b"<start_of_turn>")
            || rest.starts_with(b"<end_of_turn>")
            || rest.starts_with(b"<s>")
            || role.is_some_and(|r| {
                r.is_empty()
                    || r.starts_with(b"<|")
                    || r.starts_with(b":")
                    || r.trim_ascii_start().is_empty()
                    || r.starts_with(b"\n")
                    || r.starts_with(b"\r\n")
            })
            || (token == b"<|start|>" && role.is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn final_of(s: &str) -> Option<&str> {
        match cut(s) {
            Cut::Final(a, b) => Some(&s[a..b]),
            Cut::Truncated => None,
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
            "<|endoftext|>",
            "<|end_of_text|>",
        ] {
            let s = format!("정답은 ②입니다.{end}다시 보니 정답은 ③입니다.");
            assert_eq!(final_of(&s), Some("정답은 ②입니다."), "{end}");
        }
        // A token the answer talks about ends nothing.
        for s in [
            "③ [SEP]은 BERT의 토큰입니다. 문서 끝은 `<|endoftext|>`이므로 정답은 ②.",
            "GPT-2는 문서 끝에 <|endoftext|> 토큰을 씁니다. 따라서 정답은 ②입니다.",
            "Llama 3은 <|eot_id|>로 턴을 닫습니다. 정답: ②",
        ] {
            assert_eq!(final_of(s), Some(s), "{s}");
        }
        // Trial 46: glued to a sentence's end but talked about; a role with a colon or on its
        // own line opens a turn.
        for s in [
            "정답은 ②입니다.<|endoftext|>를 쓰는 GPT-2라면 다시 확인하면 정답은 ①",
            "문서 끝 토큰은 `.<|endoftext|>`처럼 붙습니다. 정답: ①",
            "토큰 설명입니다.<|endoftext|> 는 문서 끝을 뜻합니다. 따라서 정답은 ③입니다.",
            "처음엔 ②라고 생각했습니다.<|endoftext|> 토큰 처리를 다시 보면, 정답은 ③입니다.",
        ] {
            assert_eq!(final_of(s), Some(s), "{s}");
        }
        assert_eq!(
            final_of("정답은 ①<|im_end|> user: 다시 보니 정답은 ③"),
            Some("정답은 ①")
        );
        assert_eq!(
            final_of("정답은 ①<|eot_id|> user: 다시 보니 정답은 ③"),
            Some("정답은 ①")
        );
        assert_eq!(
            final_of("정답은 ①<|eot_id|>\nuser\n다시 풀어봐"),
            Some("정답은 ①")
        );
        assert_eq!(
            final_of("정답은 ①<|im_end|>\nuser\n다시 풀어봐"),
            Some("정답은 ①")
        );
        // Not HTML's strikethrough, and not a token before any text.
        assert_eq!(final_of("<s>②</s> ③"), Some("<s>②</s> ③"));
        assert_eq!(final_of("<|im_end|>\n정답: ③"), Some("\n정답: ③"));
        assert_eq!(final_of("정답: 3<|eot_id|>"), Some("정답: 3"));
    }

    #[test]
    fn unfinished_reasoning_is_truncated() {
        assert_eq!(
            cut("<|channel|>analysis<|message|>정답은 ②일까"),
            Cut::Truncated
        );
        assert_eq!(cut("<think>①인지 ②인지"), Cut::Truncated);
        assert_eq!(cut("analysisWe need to pick"), Cut::Truncated);
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
