//! How a JSON parse error about one line of a file is worded. serde_json ends its messages
//! with its own "at line 1 column 37", counted inside the one line it was given (and "line 2
//! column 0" when the line's newline was part of the text), which reads as a contradiction
//! beside kgrade's `FILE:LINE`. The caller names the file and line; this gives the rest.

/// serde's message without its own line count: with the column where the problem is, or,
/// when the line ended too early, without a position (the message says EOF).
///
/// ```
/// let e = serde_json::from_str::<serde_json::Value>("{\"a\": 1} x").unwrap_err();
/// assert_eq!(kgrade::types::json::line_error(&e), "trailing characters at column 10");
/// let e = serde_json::from_str::<serde_json::Value>("{\"a\": \"b").unwrap_err();
/// assert_eq!(kgrade::types::json::line_error(&e), "EOF while parsing a string");
/// ```
pub fn line_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let message = full
        .rsplit_once(" at line ")
        .map_or(full.as_str(), |(m, _)| m);
    if e.is_eof() {
        message.to_string()
    } else {
        format!("{message} at column {}", e.column())
    }
}
