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
/// Tokens that end a final message; anything after them is not the answer.
const END_TOKENS: [&[u8]; 5] = [
    b"<|end|>",
    b"<|return|>",
    b"<|call|>",
    b"<|start|>",
    b"<|im_end|>",
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
    let tail = &bytes[start..end];
    let stop = END_TOKENS
        .iter()
        .filter_map(|t| memmem::find(tail, t))
        .min()
        .unwrap_or(tail.len());
    Cut::Final(start, start + stop)
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
