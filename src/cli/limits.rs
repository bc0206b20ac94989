//! Parsers for numeric flags: every rate, count, fraction and duration is checked when the
//! arguments are parsed, so a bad value is a clear message and exit 2, never a hang (a rate
//! of 0 or NaN) or a panic (a duration too large to represent).

/// A number of requests per second: finite, from 0.001 to 100,000.
pub fn rate(s: &str) -> Result<f64, String> {
    let x = number(s)?;
    if (0.001..=100_000.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not a rate from 0.001 to 100000 per second"))
    }
}

/// Seconds: finite, above 0, at most a day.
pub fn seconds(s: &str) -> Result<f64, String> {
    let x = number(s)?;
    if x > 0.0 && x <= 86_400.0 {
        Ok(x)
    } else {
        Err(format!(
            "{s} is not a number of seconds above 0 and at most 86400"
        ))
    }
}

/// Milliseconds: a whole number from 0 to 600,000 (ten minutes).
pub fn millis(s: &str) -> Result<u64, String> {
    let x: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s} is not a whole number of milliseconds"))?;
    if x <= 600_000 {
        Ok(x)
    } else {
        Err(format!("{s} ms is more than 600000 (ten minutes)"))
    }
}

/// A fraction from 0 to 1.
pub fn fraction(s: &str) -> Result<f64, String> {
    let x = number(s)?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not a fraction from 0 to 1"))
    }
}

/// A whole number from `MIN` to `MAX`.
pub fn count<const MIN: u32, const MAX: u32>(s: &str) -> Result<u32, String> {
    let x: u32 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s} is not a whole number from {MIN} to {MAX}"))?;
    if (MIN..=MAX).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{s} is not a whole number from {MIN} to {MAX}"))
    }
}

/// Calls in flight: 1 to 1024 (0 is not a concurrency).
pub fn concurrency(s: &str) -> Result<usize, String> {
    count::<1, 1024>(s).map(|x| x as usize)
}

fn number(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s} is not a number"))?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("{s} is not a finite number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_refused() {
        for bad in ["0", "-1", "nan", "inf", "1e12", "1e-30", "x"] {
            assert!(rate(bad).is_err(), "{bad}");
        }
        assert_eq!(rate("2.5"), Ok(2.5));
        for bad in ["0", "1e30", "-3", "NaN"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert!(fraction("1.5").is_err() && fraction("0.25") == Ok(0.25));
        assert!(concurrency("0").is_err() && concurrency("8") == Ok(8));
        assert!(count::<0, 100>("101").is_err() && count::<0, 100>("0") == Ok(0));
        assert!(millis("-5").is_err() && millis("250") == Ok(250));
    }
}
