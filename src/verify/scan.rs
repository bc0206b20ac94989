//! Tokens of an answer's final text: choice marks (③, (3), 3번, C, ○, 두 번째), Hangul and
//! Latin word runs, numbers that cannot be choices (2023년, 3억원, 1,000) and punctuation.
//!
//! Width and spacing are normalised here, token by token (full-width digits and letters,
//! full-width colons and brackets, NBSP and other spaces); markdown emphasis, headers, code
//! ticks and TeX dollars are skipped. Spans always index the original text, so a verdict can
//! point at the bytes that decided it. There is no blanket NFKC: it would turn ① into 1.

use super::chars::{
    digit_value, is_hangul, is_ignorable, is_middle_dot, is_space, latin, normalise_punct,
};
use super::cues::{CueScan, Cues};
use super::ordinal::ordinal_at;
use super::particles::{
    alternative_len, article_follows, english_count_follows, particle_may_follow_choice,
};

/// A written choice, before it is matched against a choice set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    /// ①…⑳ in any circled form; 1-based.
    Circled(u8),
    /// A standalone small number: `3`, `(3)`, `3번`, `3.`; 1-based.
    Num(u8),
    /// A standalone capital `A`…`Z` (O and X read as O/X marks); 1-based.
    Letter(u8),
    /// ○ / O (`true`) or × / X (`false`).
    Ox(bool),
    /// 첫 번째, 두 번째, 2번째, 셋째 …; 1-based.
    Ordinal(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Mark(Mark),
    /// A run of Hangul syllables or jamo (one eojeol or its part after a mark).
    Hangul,
    /// A run of Latin letters that is not a mark.
    Latin,
    /// Digits that cannot be a choice: years, amounts, decimals, long numbers.
    Number,
    /// Punctuation, normalised to ASCII where a full-width form exists.
    Punct(char),
    /// A line break (consecutive breaks collapse into one).
    Break,
    /// Anything else (Hanja, emoji, symbols).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tok {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
}

impl Tok {
    pub fn text<'a>(&self, s: &'a str) -> &'a str {
        &s[self.start as usize..self.end as usize]
    }
    pub fn mark(&self) -> Option<Mark> {
        match self.kind {
            Kind::Mark(m) => Some(m),
            _ => None,
        }
    }
    pub fn is_punct(&self, c: char) -> bool {
        self.kind == Kind::Punct(c)
    }
    pub fn is_sentence_end(&self) -> bool {
        matches!(
            self.kind,
            Kind::Break | Kind::Punct('.') | Kind::Punct('!') | Kind::Punct('?')
        )
    }
}

/// The length of the bracket at `at` when it holds the alternative of the particle the
/// Hangul word glued before it ends in (see [`alternative_len`]).
fn bracketed_particle(text: &str, at: usize, toks: &[Tok]) -> Option<usize> {
    let (word, before) = toks.split_last()?;
    if word.kind != Kind::Hangul || word.end as usize != at {
        return None;
    }
    let after_mark = before
        .last()
        .is_some_and(|m| m.mark().is_some() && m.end == word.start);
    alternative_len(word.text(text), after_mark, &text[at..])
}

/// The byte length of a Markdown strikethrough at the start of `rest` ("~~B~~"): a closing
/// "~~" on the same line, with text between that does not start with a space.
fn struck_len(rest: &[u8]) -> Option<usize> {
    let inner = rest.strip_prefix(b"~~")?;
    let line = &inner[..memchr::memchr(b'\n', inner).unwrap_or(inner.len())];
    let close = memchr::memmem::find(line, b"~~")?;
    (close > 0 && !matches!(line[0], b' ' | b'~')).then_some(2 + close + 2)
}

/// Split `text` into tokens. Never panics on any UTF-8 input.
#[cfg(test)]
pub(crate) fn tokenize(text: &str) -> Vec<Tok> {
    tokenize_with_cues(text).0
}

/// Is an ordinal about to be pushed counted from the end ("뒤에서 두 번째", "끝에서 2번째")?
/// Then it is no label: which option it means depends on how many there are, and reading
/// it from the start named the wrong one.
fn counted_from_end(text: &str, toks: &[Tok]) -> bool {
    toks.last().is_some_and(|t| {
        t.kind == Kind::Hangul
            && matches!(
                t.text(text),
                "뒤에서"
                    | "끝에서"
                    | "마지막에서"
                    | "아래에서"
                    | "밑에서"
                    | "뒤로부터"
                    | "끝으로부터"
                    | "뒤부터"
            )
    })
}

/// Split `text` into tokens and find its cue words in the same pass (see [`CueScan`]).
pub(crate) fn tokenize_with_cues(text: &str) -> (Vec<Tok>, Cues) {
    let mut cues = CueScan::default();
    let mut toks: Vec<Tok> = Vec::with_capacity(text.len() / 4 + 4);
    let bytes = text.as_bytes();
    let mut i = 0;
    let push = |toks: &mut Vec<Tok>, kind: Kind, start: usize, end: usize| {
        toks.push(Tok {
            kind,
            start: start as u32,
            end: end as u32,
        })
    };
    while i < bytes.len() {
        let b = bytes[i];
        // ASCII fast paths.
        if b < 0x80 {
            match b {
                b' ' | b'\t' | b'\r' | b'*' | b'_' | b'`' | b'#' | b'$' | b'\\' => {
                    i += 1;
                    continue;
                }
                b'\n' => {
                    if !matches!(toks.last(), Some(t) if t.kind == Kind::Break) {
                        push(&mut toks, Kind::Break, i, i + 1);
                    }
                    i += 1;
                    continue;
                }
                b'0'..=b'9' => {
                    i = scan_number(text, i, &mut toks);
                    continue;
                }
                b'A'..=b'Z' | b'a'..=b'z' => {
                    i = scan_latin(text, i, &mut toks, &mut cues);
                    continue;
                }
                // "1번이(가)": a particle's bracketed alternative is skipped.
                b'(' => {
                    match bracketed_particle(text, i, &toks) {
                        Some(len) => i += len,
                        None => {
                            push(&mut toks, Kind::Punct('('), i, i + 1);
                            i += 1;
                        }
                    }
                    continue;
                }
                // "정답: ~~B~~ D": struck-out text is taken back, and not read.
                b'~' => {
                    match struck_len(&bytes[i..]) {
                        Some(len) => i += len,
                        None => {
                            push(&mut toks, Kind::Punct('~'), i, i + 1);
                            i += 1;
                        }
                    }
                    continue;
                }
                // What the char path below does with the rest of ASCII, without decoding.
                _ if b.is_ascii_punctuation() => {
                    if b == b'?' {
                        cues.question_mark();
                    }
                    push(&mut toks, Kind::Punct(b as char), i, i + 1);
                    i += 1;
                    continue;
                }
                _ if b.is_ascii_control() => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
        }
        // Hangul runs, byte by byte: most of a Korean answer's bytes are read here.
        if (0xEA..=0xED).contains(&b) {
            let (end, has_jjae) = hangul_run(text, i, &mut cues);
            if end > i {
                let run = &text[i..end];
                // Every ordinal ends in 째, in the run or in "번째" after it: a byte test rules
                // out most runs before `ordinal_at` is called.
                let may_be_ordinal = has_jjae || {
                    let after = &bytes[end..];
                    let spaces = after.iter().take_while(|&&b| b == b' ').count();
                    after[spaces..].starts_with("번째".as_bytes())
                };
                if let Some((n, len)) = may_be_ordinal
                    .then(|| ordinal_at(run, &text[end..], Some(has_jjae)))
                    .flatten()
                    .filter(|_| !counted_from_end(text, &toks))
                {
                    push(&mut toks, Kind::Mark(Mark::Ordinal(n)), i, i + len);
                    i += len;
                    continue;
                }
                push(&mut toks, Kind::Hangul, i, end);
                i = end;
                continue;
            }
        }
        let c = match text[i..].chars().next() {
            Some(c) => c,
            None => break,
        };
        let clen = c.len_utf8();
        if b >= 0x80 {
            cues.other(text, i, c);
        }
        if is_space(c) || is_ignorable(c) {
            i += clen;
            continue;
        }
        if let Some(n) = crate::verify::choice::circled_value(c) {
            push(&mut toks, Kind::Mark(Mark::Circled(n)), i, i + clen);
            i += clen;
            continue;
        }
        if let '\u{2474}'..='\u{2487}' = c {
            // ⑴…⒇: parenthesised digits.
            let n = (c as u32 - 0x2474 + 1) as u8;
            push(&mut toks, Kind::Mark(Mark::Num(n)), i, i + clen);
            i += clen;
            continue;
        }
        if digit_value(c).is_some() {
            i = scan_number(text, i, &mut toks);
            continue;
        }
        if latin(c).is_some() {
            i = scan_latin(text, i, &mut toks, &mut cues);
            continue;
        }
        // "①·④", "1ㆍ4번": a middle dot lists; read as "/" (ㆍ is a jamo, so before Hangul).
        if is_middle_dot(c) {
            push(&mut toks, Kind::Punct('/'), i, i + clen);
            i += clen;
            continue;
        }
        if is_hangul(c) {
            let start = i;
            let mut end = i;
            for ch in text[i..].chars() {
                if !is_hangul(ch) {
                    break;
                }
                if let Some(index) = (ch as u32).checked_sub(0xAC00).filter(|&x| x < 11172) {
                    cues.syllable(text, end, index);
                }
                end += ch.len_utf8();
            }
            let run = &text[start..end];
            if let Some((n, len)) =
                ordinal_at(run, &text[end..], None).filter(|_| !counted_from_end(text, &toks))
            {
                push(&mut toks, Kind::Mark(Mark::Ordinal(n)), start, start + len);
                i = start + len;
                continue;
            }
            push(&mut toks, Kind::Hangul, start, end);
            i = end;
            continue;
        }
        match c {
            '○' | '◯' | '⭕' | '〇' => {
                push(&mut toks, Kind::Mark(Mark::Ox(true)), i, i + clen)
            }
            '×' | '✕' | '✖' | '✗' | '✘' | '❌' | '╳' => {
                push(&mut toks, Kind::Mark(Mark::Ox(false)), i, i + clen)
            }
            _ if c.is_ascii_punctuation() || !c.is_alphanumeric() && !c.is_control() => {
                let p = normalise_punct(c);
                if p.is_ascii_punctuation() {
                    push(&mut toks, Kind::Punct(p), i, i + clen);
                } else {
                    push(&mut toks, Kind::Other, i, i + clen);
                }
            }
            _ if c.is_control() => {}
            _ => push(&mut toks, Kind::Other, i, i + clen),
        }
        i += clen;
    }
    (toks, cues.finish(text))
}

/// The end of the run of Hangul syllables (U+AC00…U+D7A3) at byte `start`, read a byte
/// triple at a time (no char decoding), testing each syllable for cue words. A run that goes
/// on in jamo is left to the char-by-char path (the caller sees `start` back when the first
/// character is not a syllable).
#[inline]
/// Also says whether the run has a 째 (every ordinal ends in one).
fn hangul_run(text: &str, start: usize, cues: &mut CueScan) -> (usize, bool) {
    const JJAE: u32 = '째' as u32;
    let bytes = text.as_bytes();
    let mut end = start;
    let mut has_jjae = false;
    // A lead byte EA…ED starts a three-byte character (valid UTF-8): one slice pattern
    // takes the three bytes with one bounds check.
    let mut rest = &bytes[start..];
    while let [b0 @ 0xEA..=0xED, b1, b2, tail @ ..] = rest {
        let cp =
            (u32::from(*b0) & 0x0F) << 12 | (u32::from(*b1) & 0x3F) << 6 | u32::from(*b2) & 0x3F;
        if !(0xAC00..=0xD7A3).contains(&cp) {
            break;
        }
        cues.syllable(text, end, cp - 0xAC00);
        has_jjae |= cp == JJAE;
        end += 3;
        rest = tail;
    }
    // A syllable run that continues in jamo or old Hangul (lead bytes E1, E3): let the char
    // path read it whole.
    if end > start
        && matches!(bytes.get(end), Some(0xE1 | 0xE3))
        && text[end..].chars().next().is_some_and(is_hangul)
    {
        return (start, false);
    }
    (end, has_jjae)
}

fn next_char(text: &str, at: usize) -> Option<char> {
    text.get(at..).and_then(|s| s.chars().next())
}

fn prev_char(text: &str, at: usize) -> Option<char> {
    text.get(..at).and_then(|s| s.chars().next_back())
}

/// Scan a digit run at `start`; decide whether it can be a choice. Returns the next index.
fn scan_number(text: &str, start: usize, toks: &mut Vec<Tok>) -> usize {
    let mut end = start;
    let mut value: u32 = 0;
    let mut ndigits = 0;
    for ch in text[start..].chars() {
        match digit_value(ch) {
            Some(d) => {
                value = value.saturating_mul(10).saturating_add(d as u32);
                ndigits += 1;
                end += ch.len_utf8();
            }
            None => break,
        }
    }
    let before = prev_char(text, start);
    let after = next_char(text, end);
    let after2 = after.and_then(|c| next_char(text, end + c.len_utf8()));
    let small = ndigits <= 2 && (1..=20).contains(&value);
    let push_kind = |toks: &mut Vec<Tok>, kind: Kind, s: usize, e: usize| {
        toks.push(Tok {
            kind,
            start: s as u32,
            end: e as u32,
        })
    };
    // "(3)": absorb the brackets into one mark.
    let open_before =
        matches!(toks.last(), Some(t) if t.kind == Kind::Punct('(') && t.end as usize == start);
    if small && open_before && matches!(after, Some(')' | '）')) {
        let open = toks.pop().map_or(start, |t| t.start as usize);
        let close_len = after.map_or(0, char::len_utf8);
        push_kind(
            toks,
            Kind::Mark(Mark::Num(value as u8)),
            open,
            end + close_len,
        );
        return end + close_len;
    }
    // "10-2", "3×4", "1/2", "2^3": the digits are part of an expression.
    let before2 = before.and_then(|c| prev_char(text, start - c.len_utf8()));
    let in_expression = matches!(before, Some('-' | '×' | '/' | '^' | '+' | '*' | '÷'))
        && before2.is_some_and(|c| digit_value(c).is_some() || c.is_ascii_alphabetic());
    let digit_glued_before = in_expression
        || ["sup>", "sub>", "SUP>", "SUB>"]
            .iter()
            .any(|t| text[..start].ends_with(t))
        || before.is_some_and(|c| {
            c.is_ascii_alphanumeric()
                || latin(c).is_some()
                || matches!(c, '제' | '.' | ',' | '￦' | '₩' | '$')
        });
    let after_ok = match after {
        None => true,
        // "Answer: 2 options seem correct": a count.
        Some(' ') if english_count_follows(&text[end..]) => false,
        Some(c) if is_space(c) || c == '\n' || is_ignorable(c) => true,
        Some(')' | '）' | ']' | '】' | '」' | '!' | '?' | '"' | '\'' | '}' | '。' | '、') => {
            true
        }
        // "1·4번": a middle dot lists; no number has one.
        Some(c) if is_middle_dot(c) => true,
        Some('.' | ',' | ':' | '：' | '/' | '-' | '~' | '～') => {
            after2.is_none_or(|c| digit_value(c).is_none())
        }
        // "<answer>4</answer>", "4<br>": a markup tag, not "4<5", nor a power or index
        // ("3<sup>2</sup>", "x<sub>4</sub>").
        Some('<') => {
            let tag = text[end + 1..].trim_start_matches('/');
            after2.is_some_and(|c| c == '/' || c.is_ascii_alphabetic())
                && !["sup", "sub", "SUP", "SUB"]
                    .iter()
                    .any(|t| tag.starts_with(t))
        }
        Some(c) if is_hangul(c) => {
            let rest = &text[end..];
            if rest.starts_with("번째") {
                if small && !digit_glued_before && !counted_from_end(text, toks) {
                    let len = "번째".len();
                    push_kind(
                        toks,
                        Kind::Mark(Mark::Ordinal(value as u8)),
                        start,
                        end + len,
                    );
                    return end + len;
                }
                false
            } else {
                particle_may_follow_choice(rest)
            }
        }
        Some(_) => false,
    };
    let kind = if small && after_ok && !digit_glued_before {
        Kind::Mark(Mark::Num(value as u8))
    } else {
        Kind::Number
    };
    // "2)가 옳습니다": the bracket goes with the label, so the particle follows it.
    if kind != Kind::Number
        && after == Some(')')
        && after2.is_some_and(is_hangul)
        && particle_may_follow_choice(&text[end + 1..])
    {
        push_kind(toks, kind, start, end + 1);
        return end + 1;
    }
    push_kind(toks, kind, start, end);
    end
}

/// Scan a Latin run at `start`: a standalone capital A–Z is a letter mark, a standalone O/X an
/// O/X mark, anything else a word.
fn scan_latin(text: &str, start: usize, toks: &mut Vec<Tok>, cues: &mut CueScan) -> usize {
    let mut end = start;
    let mut first = None;
    let mut count = 0;
    for ch in text[start..].chars() {
        match latin(ch) {
            Some(l) => {
                first.get_or_insert(l);
                count += 1;
                end += ch.len_utf8();
            }
            None => break,
        }
    }
    cues.latin(text, start, end);
    let before = prev_char(text, start);
    let after = next_char(text, end);
    // "A.k.a.", "E.g.", "D.C.", "O.K.": a letter of a dotted abbreviation is no label.
    // Each neighbour is one letter too: "reconsider.A" is two sentences run together.
    let single = |s: &str| {
        let mut c = s.chars();
        c.next().is_some_and(|l| l.is_ascii_alphabetic())
            && !c.next().is_some_and(|n| n.is_ascii_alphabetic())
    };
    let dotted = (after == Some('.') && single(&text[end + 1..]))
        || (before == Some('.') && {
            let b: String = text[..start - 1].chars().rev().take(2).collect();
            single(&b)
        });
    let standalone = count == 1
        && !dotted
        && !before.is_some_and(|c| c.is_ascii_alphanumeric() || latin(c).is_some())
        && match after {
            None => true,
            // "X일 수도", "C일까": the copula's 일 after a letter (after a number it is 일,
            // a day).
            Some(c) if is_hangul(c) => {
                // "A인 것 같습니다" (not O/X: "O인 것 같은데" is read by the O/X words).
                particle_may_follow_choice(&text[end..])
                    || text[end..].starts_with('일')
                    || (text[end..].starts_with('인')
                        && !matches!(first, Some('O' | 'o' | 'X' | 'x')))
            }
            Some(c) => !(c.is_alphanumeric() || c == '\'' || c == '-'),
        };
    let kind = match (standalone, first) {
        (true, Some('O' | 'o')) => Kind::Mark(Mark::Ox(true)),
        (true, Some('X' | 'x')) => Kind::Mark(Mark::Ox(false)),
        // A lone "I" is the English pronoun unless it is written as a label: "(I)", "I.",
        // "I)", "I - 텍스트", "I: 텍스트", "I입니다", or "I" ending its line ("Answer: I").
        (true, Some('I'))
            if !matches!(after, None | Some('.' | ')' | ':' | '\n' | '\r' | '*'))
                && !after.is_some_and(is_hangul)
                && !text[end..].starts_with(" - ") =>
        {
            Kind::Latin
        }
        // "A careful reading points to D": the article.
        (true, Some('A')) if article_follows(&text[end..]) => Kind::Latin,
        (true, Some(l @ 'A'..='Z')) => Kind::Mark(Mark::Letter(l as u8 - b'A' + 1)),
        _ => Kind::Latin,
    };
    // "(C)": absorb the brackets into one mark.
    if let Kind::Mark(Mark::Letter(_)) = kind {
        let open_before =
            matches!(toks.last(), Some(t) if t.kind == Kind::Punct('(') && t.end as usize == start);
        if open_before && matches!(after, Some(')' | '）')) {
            let open = toks.pop().map_or(start, |t| t.start as usize);
            let close = end + after.map_or(0, char::len_utf8);
            toks.push(Tok {
                kind,
                start: open as u32,
                end: close as u32,
            });
            return close;
        }
    }
    toks.push(Tok {
        kind,
        start: start as u32,
        end: end as u32,
    });
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(s: &str) -> Vec<Mark> {
        tokenize(s).iter().filter_map(Tok::mark).collect()
    }

    #[test]
    fn numbers_that_are_quantities_are_not_marks() {
        assert!(marks("2023년 3억원 1,000명 3.5% 제3조 4가지 C4H10").is_empty());
        assert_eq!(marks("3번이 정답"), vec![Mark::Num(3)]);
        assert_eq!(marks("(2)"), vec![Mark::Num(2)]);
        assert_eq!(marks("３번"), vec![Mark::Num(3)]);
    }

    #[test]
    fn circled_letters_ox_and_ordinals() {
        assert_eq!(
            marks("① (B) 두 번째 셋째 2번째 ○ X"),
            vec![
                Mark::Circled(1),
                Mark::Letter(2),
                Mark::Ordinal(2),
                Mark::Ordinal(3),
                Mark::Ordinal(2),
                Mark::Ox(true),
                Mark::Ox(false)
            ]
        );
        assert!(marks("A사 B형 I think").is_empty());
        assert_eq!(marks("B가 답"), vec![Mark::Letter(2)]);
    }

    #[test]
    fn spans_index_the_original_text() {
        let s = "정답：\u{a0}**③**";
        let t = tokenize(s);
        let m = t.iter().find(|t| t.mark().is_some()).unwrap();
        assert_eq!(m.text(s), "③");
        assert_eq!(t[1].kind, Kind::Punct(':'));
    }
}
