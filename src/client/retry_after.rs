//! `Retry-After`: how long a server asked to wait before a retry, in seconds or as an HTTP
//! date (RFC 9110), bounded.

use std::time::{Duration, SystemTime};

/// The longest wait a `Retry-After` gets, as the backoff's cap (and the OpenAI SDK's):
/// a provider's daily-quota "come back tomorrow" must not stall a run without a word; the
/// request is retried after this and fails with the provider's message when retries run out.
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(60);

/// How long to wait before retrying, from a `Retry-After` header: seconds, or an HTTP date
/// (RFC 9110), at most [`RETRY_AFTER_CAP`].
pub fn retry_after(value: Option<&str>) -> Option<Duration> {
    let value = value?.trim();
    let wait = match value.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Duration::from_secs_f64(secs.min(1e6)),
        Ok(_) => return None,
        Err(_) => {
            let at = httpdate::parse_http_date(value).ok()?;
            at.duration_since(SystemTime::now()).unwrap_or_default()
        }
    };
    Some(wait.min(RETRY_AFTER_CAP))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds() {
        assert_eq!(retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(Some("0.5")), Some(Duration::from_millis(500)));
        // A date in the past: retry now; a date ahead: wait until it; a long wait: capped.
        assert_eq!(
            retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            Some(Duration::ZERO)
        );
        let ahead = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(5));
        let wait = retry_after(Some(&ahead)).unwrap();
        assert!(
            wait > Duration::from_secs(3) && wait <= Duration::from_secs(5),
            "{wait:?}"
        );
        assert_eq!(retry_after(Some("100000")), Some(RETRY_AFTER_CAP));
        assert_eq!(retry_after(Some("not a date")), None);
        assert_eq!(retry_after(None), None);
    }
}
