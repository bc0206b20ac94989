//! Escaping text for HTML and SVG (both are markup with the same five special characters).
//! Every piece of data that reaches `report.html` or `leaderboard.html` — answers with
//! `<think>` and `<|channel|>` markers, group names, judge reasons — goes through [`escape`];
//! markup is only ever written by the renderers themselves.

use std::fmt::Write as _;

/// `s` with `& < > " '` replaced by entities, safe inside element text and quoted attributes.
///
/// ```
/// # use kgrade::report::escape::escape;
/// assert_eq!(escape(r#"<think>"a" & 'b'</think>"#),
///            "&lt;think&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/think&gt;");
/// ```
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    escape_into(&mut out, s);
    out
}

/// [`escape`], appending to `out`.
pub fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and newlines are not allowed in HTML text.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => {
                let _ = write!(out, "&#xFFFD;");
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_quotes_and_ampersands_are_inert() {
        let cases = [
            ("<think>x</think>", "&lt;think&gt;x&lt;/think&gt;"),
            (
                "<|channel|>final<|message|>",
                "&lt;|channel|&gt;final&lt;|message|&gt;",
            ),
            ("a & b && c", "a &amp; b &amp;&amp; c"),
            ("\"q\" 'q'", "&quot;q&quot; &#39;q&#39;"),
            ("&amp;", "&amp;amp;"),
            ("정답은 ③", "정답은 ③"),
            (
                "<script>alert(1)</script>",
                "&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            ("a\u{0}b\u{7}", "a&#xFFFD;b&#xFFFD;"),
            ("line\nnext\ttab", "line\nnext\ttab"),
        ];
        for (input, want) in cases {
            assert_eq!(escape(input), want, "{input:?}");
        }
    }
}
