//! Keeping credentials out of what kgrade prints and stores. A server may echo the bearer key
//! it was sent (some proxies and gateways put it in a 401 message, or echo the whole
//! `Authorization` header in a 500 body), and a user may write a key into an endpoint URL
//! (`http://user:key@host/v1`). Server text is scrubbed where it enters kgrade (the client
//! reads every body), and URLs are shown without their user-info; nothing downstream has to
//! remember to do it. Not for hiding anything else: prompts and answers are the user's data.

use std::borrow::Cow;

/// What a credential is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are scrubbed from error messages only: a short test key (`x`,
/// `test`) matched inside a model's answer would corrupt the answer, and such a key guards
/// nothing worth the damage.
const MIN_KEY_IN_REPLIES: usize = 8;

/// A token holding this many characters of a secret in a row gives it away.
const PIECE: usize = 12;

/// Secrets shorter than this are not scrubbed at all: a one- or two-letter password in a URL
/// would garble every message it occurs in ("e[redacted]ceeds") and hides nothing.
const MIN_KEY: usize = 4;

/// `text` with every occurrence of each of `secrets` replaced by [`REDACTED`], and in an error
/// message every token that gives part of one away too: a masked form (`sk-AUDI****CRET`: a
/// `*` after at least four characters of the secret's beginning), or a cut piece holding
/// [`PIECE`] characters of it in a row (a server that prints the header from the wrong
/// offset, a truncated key). `in_reply`
/// says the text is a successful reply (a model's answer): there only the secrets themselves
/// are replaced, and only those of eight characters or more.
///
/// ```
/// use kgrade::client::redact::redact;
/// let m = "Incorrect API key provided: sk-abc123secret. Also sk-abc1*****cret.";
/// assert_eq!(
///     redact(m, &["sk-abc123secret"], false),
///     "Incorrect API key provided: [redacted]. Also [redacted]"
/// );
/// ```
pub fn redact<'a>(text: &'a str, secrets: &[impl AsRef<str>], in_reply: bool) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for key in secrets {
        let key = key.as_ref();
        let len = key.chars().count();
        if len < MIN_KEY || (in_reply && len < MIN_KEY_IN_REPLIES) {
            continue;
        }
        if out.contains(key) {
            out = Cow::Owned(out.replace(key, REDACTED));
        }
        if !in_reply {
            if let Cow::Owned(m) = redact_pieces(&out, key) {
                out = Cow::Owned(m);
            }
        }
    }
    out
}

/// The credentials a request to `url` carries in its user-info: the password as written and
/// the `Authorization: Basic` token made from it (servers echo either).
pub fn url_secrets(url: &str) -> Vec<String> {
    let Some((scheme_end, at)) = userinfo_span(url) else {
        return Vec::new();
    };
    let userinfo = &url[scheme_end..at];
    let mut out = vec![base64(userinfo.as_bytes())];
    if let Some((_, password)) = userinfo.split_once(':') {
        out.push(password.to_string());
    } else {
        out.push(userinfo.to_string());
    }
    out
}

/// Standard base64 with padding (the form of an `Authorization: Basic` token).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= n {
                out.push(char::from(ALPHABET[((v >> (18 - 6 * k)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Where the user-info of `url` lies: the index after `://` and the index of the last `@`
/// in the authority.
fn userinfo_span(url: &str) -> Option<(usize, usize)> {
    let scheme_end = url.find("://")? + 3;
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let at = rest[..authority_end].rfind('@')?;
    Some((scheme_end, scheme_end + at))
}

/// Whitespace- or quote-delimited tokens that give part of `key` away: masked forms and cut
/// pieces (see [`redact`]).
fn redact_pieces<'a>(text: &'a str, key: &str) -> Cow<'a, str> {
    let key_chars: Vec<char> = key.chars().collect();
    let pieces: Vec<String> = key_chars
        .windows(PIECE)
        .map(|w| w.iter().collect())
        .collect();
    let gives_away = |token: &str| {
        let masked = token.find('*').is_some_and(|star| {
            let shown = &token[..star];
            shown.chars().count() >= 4 && key.starts_with(shown)
        });
        masked || pieces.iter().any(|p| token.contains(p.as_str()))
    };
    let is_edge = |c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ',' | '(' | ')');
    let mut out = String::new();
    let mut copied = 0;
    let mut start = 0;
    let mut tokens = Vec::new();
    for (i, c) in text.char_indices() {
        if is_edge(c) {
            if start < i {
                tokens.push((start, i));
            }
            start = i + c.len_utf8();
        }
    }
    if start < text.len() {
        tokens.push((start, text.len()));
    }
    for (s, e) in tokens {
        if gives_away(&text[s..e]) {
            out.push_str(&text[copied..s]);
            out.push_str(REDACTED);
            copied = e;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// `url` without its user-info (`http://user:key@host/v1` → `http://host/v1`), for messages
/// and records; the request itself still goes to the URL as given.
///
/// ```
/// use kgrade::client::redact::without_userinfo;
/// assert_eq!(without_userinfo("http://u:sk-1@127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
/// assert_eq!(without_userinfo("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
/// ```
pub fn without_userinfo(url: &str) -> Cow<'_, str> {
    match userinfo_span(url) {
        Some((scheme_end, at)) => Cow::Owned(format!("{}{}", &url[..scheme_end], &url[at + 1..])),
        None => Cow::Borrowed(url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_masked_keys_are_replaced() {
        let key = &["sk-AUDIT19-SECRET"];
        for (text, want) in [
            (
                "Incorrect API key provided: sk-AUDIT19-SECRET. You can find",
                "Incorrect API key provided: [redacted]. You can find",
            ),
            (
                "headers: {\"authorization\": \"Bearer sk-AUDIT19-SECRET\"}",
                "headers: {\"authorization\": \"Bearer [redacted]\"}",
            ),
            ("key sk-AUDI*********CRET.", "key [redacted]"),
            // Stars that do not follow the key's beginning are left alone.
            ("5 * 3 = 15, **bold**", "5 * 3 = 15, **bold**"),
            ("no key here", "no key here"),
        ] {
            assert_eq!(redact(text, key, false), want);
        }
        assert_eq!(redact("a sk-x b", &[] as &[&str], false), "a sk-x b");
        // A short key is scrubbed from errors but not from model answers.
        assert_eq!(redact("정답은 abc", &["abc"], true), "정답은 abc");
        assert_eq!(
            redact("bad key abcd", &["abcd"], false),
            "bad key [redacted]"
        );
        // Too short to scrub anywhere; masked forms only in errors.
        assert_eq!(redact("exceeds", &["x"], false), "exceeds");
        // A piece of the Basic token, as a server slicing the header at the wrong offset
        // prints it, gives the password away too.
        assert_eq!(
            redact(
                "provided: Tpzay1BVURJVDE5LVVSTFNFQ1JFVA==. You can",
                &["dTpzay1BVURJVDE5LVVSTFNFQ1JFVA=="],
                false
            ),
            "provided: [redacted] You can"
        );
        assert_eq!(
            redact("test****, sk-AUDI**", &["sk-AUDIT19-SECRET"], true),
            "test****, sk-AUDI**"
        );
    }

    #[test]
    fn userinfo_is_dropped_from_urls() {
        assert_eq!(
            without_userinfo("https://user:pw@example.com/v1?x=a@b"),
            "https://example.com/v1?x=a@b"
        );
        assert_eq!(without_userinfo("http://a@b@host:1"), "http://host:1");
        assert_eq!(without_userinfo("notaurl"), "notaurl");
        assert_eq!(without_userinfo("http://host/p@q"), "http://host/p@q");
        assert_eq!(
            url_secrets("http://user:pass@host/v1"),
            ["dXNlcjpwYXNz", "pass"]
        );
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
        assert!(url_secrets("http://host/v1").is_empty());
    }
}
