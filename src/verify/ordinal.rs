//! Native Korean ordinals as the tokeniser meets them in a Hangul run: "첫 번째", "두번째",
//! "셋째" name an option by its place. Not Sino-Korean numbers ("제3", "3번"), which are
//! digits to the tokeniser.

/// Native Korean ordinals: (word, value). "둘째", "셋째", "넷째" take the -째 form only.
const ORDINALS: [(&str, u8); 14] = [
    ("첫", 1),
    ("두", 2),
    ("세", 3),
    ("네", 4),
    ("다섯", 5),
    ("여섯", 6),
    ("일곱", 7),
    ("여덟", 8),
    ("아홉", 9),
    ("열", 10),
    ("둘", 2),
    ("셋", 3),
    ("넷", 4),
    ("한", 1),
];

/// If the Hangul run at `s` begins an ordinal, its value and byte length (covering "번째"/"째").
/// `next` is the text after the run, for "두 번째" written with a space.
/// `has_jjae` says whether the run has a 째, when the caller already knows.
pub(super) fn ordinal_at(
    run: &str,
    after_run: &str,
    has_jjae: Option<bool>,
) -> Option<(u8, usize)> {
    // Every ordinal ends in 째, in the run or in "번째" after a space: most runs of long
    // prose are ruled out here, before any character is decoded.
    let after = after_run.as_bytes();
    let spaces = after.iter().take_while(|&&b| b == b' ').count();
    if !has_jjae.unwrap_or_else(|| run.contains('째'))
        && !after[spaces..].starts_with("번째".as_bytes())
    {
        return None;
    }
    let first = run.chars().next()?;
    if !matches!(
        first,
        '첫' | '두' | '세' | '네' | '다' | '여' | '일' | '아' | '열' | '둘' | '셋' | '넷' | '한'
    ) {
        return None;
    }
    for (word, n) in ORDINALS {
        let Some(rest) = run.strip_prefix(word) else {
            continue;
        };
        if let Some(r) = rest.strip_prefix("번째") {
            return Some((n, run.len() - r.len()));
        }
        if let Some(r) = rest.strip_prefix('째') {
            if matches!(
                word,
                "첫" | "둘" | "셋" | "넷" | "다섯" | "여섯" | "일곱" | "여덟" | "아홉" | "열"
            ) {
                return Some((n, run.len() - r.len()));
            }
        }
        if rest.is_empty() && !matches!(word, "둘" | "셋" | "넷" | "한") {
            let trimmed = after_run.trim_start_matches(' ');
            if trimmed.starts_with("번째") {
                let len = run.len() + (after_run.len() - trimmed.len()) + "번째".len();
                return Some((n, len));
            }
        }
    }
    None
}
