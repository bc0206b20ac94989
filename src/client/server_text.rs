//! What a server's reply says when it is not an answer: the explanation in an error body
//! (OpenAI's, Azure's, FastAPI's shapes), and the start of a reply that is not JSON, as one
//! printable line for messages and files.

use serde_json::Value;

/// How many characters of a reply that is not JSON an error shows.
const BODY_SHOWN: usize = 200;

/// Why a successful reply could not be read, with what came instead: the status, the content
/// type and the start of the body (already scrubbed of keys), so that a proxy's HTML page or a
/// streamed (SSE) reply is recognisable at a glance.
pub(super) fn not_json(
    status: reqwest::StatusCode,
    content_type: &str,
    body: &str,
    error: &serde_json::Error,
) -> String {
    let trimmed = body.trim();
    let start = if trimmed.is_empty() {
        "an empty body".to_string()
    } else {
        let mut shown: String = trimmed.chars().take(BODY_SHOWN).collect();
        if shown.len() < trimmed.len() {
            shown = format!("{}…", shown.trim_end());
        }
        format!("body: {}", printable(&shown))
    };
    format!("reply is not JSON (HTTP {status}, {content_type}; {error}); {start}")
}

/// Server text as one printable line: line breaks and other control characters (a terminal's
/// escape sequences in an error page retitle and clear the terminal; trial 43) become spaces.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The explanation in a JSON error body: `{"error": {"message", "code"}}` (the code first
/// when the message does not hold it: Azure's `content_filter`), `{"error": "…"}`,
/// `{"message": …}`, or FastAPI's `{"detail": "…"}` and `{"detail": [{"loc", "msg"}]}`
/// (LiteLLM and other proxies' 422).
fn error_explanation(v: &Value) -> Option<String> {
    if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
        let message = e.get("message").and_then(Value::as_str).or(e.as_str())?;
        return Some(match e.get("code").and_then(Value::as_str) {
            Some(code) if !message.contains(code) => format!("{code}: {message}"),
            _ => message.to_string(),
        });
    }
    if let Some(m) = v.get("message").and_then(Value::as_str) {
        return Some(m.to_string());
    }
    match v.get("detail")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let each: Vec<String> = (items.iter())
                .filter_map(|d| {
                    let msg = d.get("msg").and_then(Value::as_str)?;
                    let loc: Vec<String> = (d.get("loc").and_then(Value::as_array))
                        .into_iter()
                        .flatten()
                        .map(|l| l.as_str().map_or_else(|| l.to_string(), str::to_string))
                        .collect();
                    Some(match loc.is_empty() {
                        true => msg.to_string(),
                        false => format!("{}: {msg}", loc.join(".")),
                    })
                })
                .collect();
            (!each.is_empty()).then(|| each.join("; "))
        }
        _ => None,
    }
}

/// `what`, followed by the server's own explanation when its error body gives one (see
/// [`error_explanation`]; or short plain text), so that a user sees why a server refused, not
/// only its status.
pub(super) fn with_server_message(what: &str, body: &str) -> String {
    let message = match serde_json::from_str::<Value>(body) {
        Ok(v) => error_explanation(&v),
        Err(_) => Some(body.trim().to_string()),
    };
    match message.filter(|m| !m.trim().is_empty()) {
        Some(m) => {
            let m: String = m.chars().take(300).collect();
            let lower = m.to_lowercase();
            // llama.cpp: "request (3031 tokens) exceeds the available context size";
            // OpenAI and vLLM: "maximum context length is 8192 tokens".
            let overflow = lower.contains("context")
                && (lower.contains("exceed") || lower.contains("maximum context length"));
            let what = if overflow {
                format!("{what}: the prompt does not fit the server's context")
            } else {
                what.to_string()
            };
            format!("{what}: {}", printable(&m))
        }
        None => what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_that_are_not_json_show_what_they_are() {
        let error = serde_json::from_str::<Value>("<html>").unwrap_err();
        let page = format!(
            "<html><body>502 Bad Gateway{}</body></html>",
            " x".repeat(150)
        );
        let reason = not_json(reqwest::StatusCode::OK, "text/html", &page, &error);
        assert!(
            reason.starts_with("reply is not JSON (HTTP 200 OK, text/html; expected value at line 1 column 1); body: <html><body>502 Bad Gateway x x"),
            "{reason}"
        );
        assert!(reason.ends_with(" x…"), "{reason}");
        assert!(
            not_json(reqwest::StatusCode::OK, "no content type", " ", &error)
                .ends_with("; an empty body")
        );
    }

    #[test]
    fn server_messages_are_kept() {
        assert_eq!(
            with_server_message(
                "HTTP 500",
                r#"{"error":{"code":500,"message":"response_format type must be one of \"text\" or \"json_object\""}}"#
            ),
            "HTTP 500: response_format type must be one of \"text\" or \"json_object\""
        );
        assert_eq!(
            with_server_message("HTTP 400", r#"{"error":"bad"}"#),
            "HTTP 400: bad"
        );
        assert_eq!(with_server_message("HTTP 502", ""), "HTTP 502");
        assert_eq!(
            with_server_message("HTTP 502", "Bad Gateway"),
            "HTTP 502: Bad Gateway"
        );
        // llama.cpp's own words, as its server answers an over-long prompt.
        assert_eq!(
            with_server_message(
                "HTTP 400",
                r#"{"error":{"code":400,"message":"request (3031 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error"}}"#
            ),
            "HTTP 400: the prompt does not fit the server's context: request (3031 tokens) exceeds the available context size (2048 tokens), try increasing it"
        );
        // Trial 43, D7, D9 and D10: a string code goes first (Azure's content filter);
        // FastAPI's list of details is kept; a terminal's escape sequences are not printed.
        assert_eq!(
            with_server_message(
                "HTTP 400",
                r#"{"error":{"message":"The response was filtered.","code":"content_filter"}}"#
            ),
            "HTTP 400: content_filter: The response was filtered."
        );
        assert_eq!(
            with_server_message(
                "HTTP 422",
                r#"{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required"}]}"#
            ),
            "HTTP 422: body.messages: Field required"
        );
        assert_eq!(
            with_server_message("HTTP 502", "Bad gateway \u{1b}]0;PWNED\u{7}\u{1b}[2J up"),
            "HTTP 502: Bad gateway  ]0;PWNED  [2J up"
        );
    }
}
