//! Character classes the tokeniser reads by: Hangul, spaces, markdown and TeX decoration,
//! full-width digits and letters, punctuation normalised to ASCII, and middle dots.

/// Middle dots, which list ("①·④", "1ㆍ4번"); ㆍ is a Hangul jamo, so it is tested first.
pub(super) fn is_middle_dot(c: char) -> bool {
    matches!(c, '·' | 'ㆍ' | '・' | '∙' | '‧')
}

pub(super) fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7A3}' | '\u{3131}'..='\u{318E}' | '\u{1100}'..='\u{11FF}')
}

pub(super) fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\r' | '\u{A0}' | '\u{3000}' | '\u{2000}'
            ..='\u{200D}' | '\u{202F}' | '\u{205F}' | '\u{FEFF}'
    )
}

/// Characters that carry no meaning for answer extraction: markdown and TeX decoration.
pub(super) fn is_ignorable(c: char) -> bool {
    matches!(
        c,
        '*' | '_' | '`' | '#' | '$' | '\\' | '\u{FE0F}' | '\u{20E3}'
    )
}

/// ASCII value of a (possibly full-width) digit.
pub(super) fn digit_value(c: char) -> Option<u8> {
    match c {
        '0'..='9' => Some(c as u8 - b'0'),
        '\u{FF10}'..='\u{FF19}' => Some((c as u32 - 0xFF10) as u8),
        _ => None,
    }
}

/// ASCII form of a (possibly full-width) Latin letter.
pub(super) fn latin(c: char) -> Option<char> {
    match c {
        'A'..='Z' | 'a'..='z' => Some(c),
        '\u{FF21}'..='\u{FF3A}' => char::from_u32(c as u32 - 0xFF21 + 'A' as u32),
        '\u{FF41}'..='\u{FF5A}' => char::from_u32(c as u32 - 0xFF41 + 'a' as u32),
        _ => None,
    }
}

pub(super) fn normalise_punct(c: char) -> char {
    match c {
        '：' => ':',
        '（' => '(',
        '）' => ')',
        '［' => '[',
        '］' => ']',
        '．' | '。' => '.',
        '，' | '、' => ',',
        '！' => '!',
        '？' => '?',
        '～' | '〜' => '~',
        '／' => '/',
        '＝' => '=',
        '【' | '「' | '『' | '〔' | '《' | '〈' => '[',
        '】' | '」' | '』' | '〕' | '》' | '〉' => ']',
        '“' | '”' | '‘' | '’' => '"',
        '→' | '⇒' | '⟶' | '➔' | '➜' | '➡' | '👉' | '▶' | '►' | '➤' | '▷' | '⇨' | '⮕' | '➙'
        | '➝' | '➞' => '>',
        '–' | '—' | '―' | '－' => '-',
        _ => c,
    }
}
