//! Option-text matching: an option's text after a keyword ("정답은 금융위원회"), a label
//! written with another option's text ("③(기획재정부)"), a number that is also an option's
//! value, and an answer that names exactly one option's text and no label.

use super::words::{bare_word, is_negation_word, lower, OPTION_NOUN_WORDS};
use super::Ctx;
use crate::verify::scan::{Kind, Mark, Tok};
use crate::verify::{Choice, Extraction, Rule};

/// At most `max` bytes of `text` from `at`, cut on a character boundary.
pub(super) fn clip(text: &str, at: usize, max: usize) -> &str {
    let mut end = text.len().min(at + max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(at..end).unwrap_or("")
}

/// Normalised for option-text matching: no whitespace or decoration, ASCII lower case.
pub(super) fn squash(s: &str) -> String {
    squash_chars(s).collect()
}

/// The characters `squash` keeps, lower-cased, without collecting them.
pub(super) fn squash_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|&c| squash_keeps(c))
        .map(|c| c.to_ascii_lowercase())
}

/// Does `squash` keep the character?
fn squash_keeps(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '*' | '_' | '`' | '#' | '$' | '\\' | '"' | '\'')
}

/// Do the characters of `raw` that `squash` keeps, less those in `trimmable` (which a caller
/// may trim off afterwards), take more than `limit` bytes? A lower bound on the squashed,
/// trimmed text's length, so a caller can rule a long text out before squashing it; stops at
/// the limit.
pub(super) fn kept_longer_than(raw: &str, limit: usize, trimmable: &[char]) -> bool {
    let mut kept = 0;
    for c in raw.chars() {
        if squash_keeps(c) && !trimmable.contains(&c) {
            kept += c.len_utf8();
            if kept > limit {
                return true;
            }
        }
    }
    false
}

/// The first `max` bytes (or a little more, to a character boundary) of `squash(s)`:
/// enough to test whether it starts with any text of at most `max` bytes.
pub(super) fn squash_prefix(s: &str, max: usize) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if out.len() >= max {
            break;
        }
        if squash_keeps(c) {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// Is a squashed option text a combination of lettered items ("ㄱ,ㄴ", "가,다,라")?
fn is_combination(opt: &str) -> bool {
    opt.contains([',', '·', 'ㆍ'])
        && opt
            .chars()
            .all(|c| is_item_letter(c) || matches!(c, ',' | '·' | 'ㆍ' | '/'))
}

/// ㄱ…ㅎ, or 가…하 as an item letter.
fn is_item_letter(c: char) -> bool {
    ('\u{3131}'..='\u{314E}').contains(&c)
        || matches!(c, '가' | '나' | '다' | '라' | '마' | '바' | '사' | '아')
}

/// Does the text after a combination go on with another item ("ㄱ, ㄴ, ㄷ", "ㄷ, ㄹ, 그리고
/// ㄱ", "ㄱ, ㄴ 및 ㄷ")?
fn continues_combination(rest: &str) -> bool {
    let mut r = rest;
    loop {
        let before = r;
        r = r.trim_start_matches([' ', ',', '·', 'ㆍ', '/', '&']);
        for joiner in ["그리고", "및", "와", "과"] {
            if let Some(after) = r.strip_prefix(joiner) {
                r = after;
            }
        }
        if r.len() == before.len() {
            break;
        }
    }
    r.len() < rest.len()
        && r.chars()
            .next()
            .is_some_and(|c| ('\u{3131}'..='\u{314E}').contains(&c))
}

impl Ctx<'_> {
    fn squashed_options(&self) -> &(Vec<String>, usize) {
        self.squashed.get_or_init(|| {
            let squashed: Vec<String> = self.set.options().iter().map(|o| squash(o)).collect();
            let longest = squashed.iter().map(String::len).max().unwrap_or(0);
            (squashed, longest)
        })
    }

    /// Choice `c`'s option text, squashed; None when the question showed no texts.
    pub(super) fn squashed_option(&self, c: Choice) -> Option<&str> {
        self.squashed_options().0.get(c.index()).map(String::as_str)
    }

    /// The longest squashed option text, in bytes: how much of an answer an option can start.
    pub(super) fn longest_option(&self) -> usize {
        self.squashed_options().1
    }

    /// Option text written right after a keyword: "정답은 금융위원회입니다".
    pub(super) fn option_text_at(&self, k: usize) -> Option<Choice> {
        let at = self.tok(k)?.start as usize;
        let rest = squash_prefix(clip(self.text, at, 400), self.longest_option());
        let mut best: Option<(usize, Choice)> = None;
        for c in self.set.choices() {
            let opt = self.squashed_option(c)?;
            if opt.chars().count() >= 2
                && rest.starts_with(opt)
                && best.is_none_or(|(l, _)| opt.len() > l)
            {
                best = Some((opt.len(), c));
            }
        }
        best.map(|(_, c)| c)
    }

    /// Does option `c`'s text, starting at token `k`, end as an answer does: at the end of its
    /// sentence or line, before a copula or "이 정답", a bracket or a comma ("정답은
    /// 금융위원회입니다", "정답은 10일(②)"), and not as the subject of a sentence or one of
    /// two ("정답\n금융위원회는 …", "정답은 금융위원회일 수도 있고 …", "…가 아니라 …")?
    pub(super) fn option_text_ends_answer(&self, k: usize, c: Choice) -> bool {
        self.squashed_option(c)
            .is_some_and(|opt| self.text_ends_answer(k, opt))
    }

    /// Does the text `opt` (squashed), starting at token `k`, end as an answer does (see
    /// [`Self::option_text_ends_answer`])?
    pub(super) fn text_ends_answer(&self, k: usize, opt: &str) -> bool {
        let Some(t) = self.tok(k) else {
            return false;
        };
        let raw = &self.text[t.start as usize..];
        let mut kept = 0;
        let mut end = raw.len();
        for (i, ch) in raw.char_indices() {
            if kept >= opt.len() {
                end = i;
                break;
            }
            if squash_keeps(ch) {
                kept += ch.to_ascii_lowercase().len_utf8();
            }
        }
        let rest = raw[end..].trim_start_matches([
            ' ', '*', '"', '\'', '`', '‘', '’', '“', '”', '」', '』', '》', '〉',
        ]);
        const FRAMES: [&str; 26] = [
            "입니다",
            "이다",
            "이에요",
            "예요",
            "이죠",
            "임",
            "이요",
            "요",
            "이 정답",
            "가 정답",
            "이정답",
            "가정답",
            "이 답",
            "가 답",
            "즉",
            "다.",
            "이 맞",
            "가 맞",
            "로 보",
            "으로 보",
            "가 아닐까",
            "이 아닐까",
            "인 것 같",
            "일 것",
            "입니다만",
            "이라고 봅",
        ];
        // A longer combination or number: "정답: ㄱ, ㄴ, ㄷ" for "ㄱ, ㄴ", "10.33m" for "10".
        let longer_number = opt.ends_with(|ch: char| ch.is_ascii_digit())
            && rest
                .trim_start_matches(['.', ','])
                .starts_with(|ch: char| ch.is_ascii_digit());
        // "￦600,000 - ￦15,000 = ￦585,000": an amount a calculation goes on from (trial 53).
        let operand = opt.ends_with(|ch: char| ch.is_ascii_digit())
            && rest.starts_with(['-', '−', '–', '+', '×', '*', '/', '=', '→', '~'])
            && rest[rest.chars().next().map_or(0, char::len_utf8)..]
                .trim_start()
                .starts_with(|ch: char| ch.is_ascii_digit() || "￦₩$€£¥".contains(ch));
        if (is_combination(opt) && continues_combination(rest)) || longer_number || operand {
            return false;
        }
        // "정답은 기획재정부, 행정안전부입니다": another option's text after a comma or "와".
        if self.another_option_follows(rest) {
            return false;
        }
        rest.is_empty()
            || rest.starts_with([
                '\n', '.', '!', ',', '(', ')', ':', ';', '—', '-', '→', '[', '}',
            ])
            || FRAMES.iter().any(|f| rest.starts_with(f))
            || rest == "다"
    }

    /// After the label at `m` for `c` and its text, a label beside it (closed brackets:
    /// "(D)", or after "즉") at another position: "정답은 1번 '헌법개정제안권' (D)". Returns
    /// that label's choice when it is in the set.
    pub(super) fn other_label_beside(&self, c: Choice, m: usize) -> Option<Option<Choice>> {
        let x = self.first_label_in_sentence(m + 1, m + 2, m + 12)?;
        let closed = self.toks[x].text(self.text).ends_with(')')
            || self.tok(x + 1).is_some_and(|n| n.is_punct(')'));
        // "정답: (D) ((B) 아님)": a remark ruling another out names nothing.
        let bracketed = self.opens_bracket(x) && closed && !self.ruled_out_after(x);
        // "두 번째 선택지인 ④": an appositive noun ("선택지인", "보기인") joins like 즉.
        let namely = self.is_namely(x - 1) || self.is_appositive(x - 1);
        // Not the next clause's subject: "정답은 (1)이고, (3) 공인회계사는 …".
        let next_clause = (m + 1..x).any(|y| {
            (self.toks[y].is_punct(',') && !namely)
                || (self.is_hangul(y)
                    && ["고", "며", "지만", "는데", "으나"]
                        .iter()
                        .any(|e| self.word(y).ends_with(e)))
        });
        if next_clause {
            return None;
        }
        let position = match self.mark_at(x)? {
            Mark::Num(n) | Mark::Circled(n) | Mark::Letter(n) => n,
            _ => return None,
        };
        ((bracketed || namely) && usize::from(position) != c.position()).then(|| self.choice_at(x))
    }

    /// "네 번째 선택지, 즉 2번이 정답": a label before "즉" (with a noun for the option and a
    /// comma between) naming another choice than `c`, the one at `m`.
    pub(super) fn other_label_namely_before(&self, c: Choice, m: usize) -> Option<Choice> {
        if m == 0 || !(self.is_namely(m - 1) || self.is_appositive(m - 1)) {
            return None;
        }
        let x = (m.saturating_sub(5)..m - 1).rev().find(|&x| {
            self.is_label_mark(x)
                || !(self.toks[x].is_punct(',')
                    || (self.is_hangul(x)
                        && (self.word(x) == "번" || OPTION_NOUN_WORDS.contains(&self.word(x)))))
        })?;
        // "마지막 선택지": the last one.
        let named = if self.is_hangul(x) && self.word(x) == "마지막" {
            self.set.choices().last()
        } else if self.is_label_mark(x) {
            self.choice_at(x)
        } else {
            None
        };
        named.filter(|&o| o != c)
    }

    /// Is token `j` a noun for an option in the appositive "…인" ("선택지인", "보기인",
    /// "항목인"): "마지막 선택지인 A", "두 번째 선택지인 ④"?
    fn is_appositive(&self, j: usize) -> bool {
        self.is_hangul(j)
            && self
                .word(j)
                .strip_suffix('인')
                .is_some_and(|n| OPTION_NOUN_WORDS.contains(&n))
    }

    /// Does the text right after the label at `m` name another option than `c`'s?
    /// "정답은 ③(기획재정부)" when ③ is 국방부 and ② is 기획재정부.
    pub(super) fn text_names_other_option(&self, c: Choice, m: usize) -> Option<Choice> {
        if self.set.options().is_empty() {
            return None;
        }
        let mut j = m + 1;
        let mut said_namely = false;
        while let Some(t) = self.tok(j) {
            // "③, 즉 서울", "C, i.e. beta", "③, namely 서울".
            // "C, that is, Rome", "C, in other words Madrid", "C, 곧 배", "C, 다시 말해 배".
            let namely = (t.kind == Kind::Hangul
                && matches!(self.word(j), "즉" | "곧" | "다시" | "말해" | "다시말해"))
                || (t.kind == Kind::Latin
                    && [
                        "i", "e", "namely", "which", "is", "that", "in", "other", "words",
                    ]
                    .iter()
                    .any(|w| self.word(j).eq_ignore_ascii_case(w)));
            let skip = matches!(t.kind, Kind::Punct('(' | ':' | '-' | '.' | ')' | ',' | '"'))
                || namely
                || (t.kind == Kind::Hangul && self.word(j) == "번");
            if !skip {
                break;
            }
            said_namely |= namely;
            j += 1;
        }
        let t = self.tok(j)?;
        if t.is_sentence_end() {
            return None;
        }
        let rest = squash_prefix(
            clip(self.text, t.start as usize, 300),
            self.longest_option(),
        );
        // A one-character text ("2", "㉢") only as a whole token: "정답은 ②, 즉 2몰입니다"
        // where ③ reads "2", "정답: ① ㉡"; after "즉", with its copula or particle ("③, 즉
        // 배입니다", stop 35).
        let word = self.word(j);
        let word = if said_namely { bare_word(word) } else { word };
        let starts = |o: Choice| {
            self.squashed_option(o).is_some_and(|t| {
                if t.chars().nth(1).is_some() {
                    rest.starts_with(t)
                } else {
                    word == t
                }
            })
        };
        if starts(c) {
            return None;
        }
        self.set
            .choices()
            .find(|&o| o != c && starts(o))
            .or_else(|| self.bracketed_other_option(c, m))
            .or_else(|| self.partial_text_of_other(c, j))
    }

    /// "I would pick the one saying \"25°\", i.e. ②" where 25° is option 1's text: another
    /// option's whole text quoted before "i.e." / "즉" / "namely" and the label at `m`.
    pub(super) fn text_namely_before_label(&self, c: Choice, m: usize) -> Option<Choice> {
        let mut j = m;
        while j > 0 && matches!(self.toks[j - 1].kind, Kind::Punct('.' | ',' | '(')) {
            j -= 1;
        }
        let namely = j > 0
            && ((self.is_hangul(j - 1) && self.word(j - 1) == "즉")
                || (self.is_latin(j - 1)
                    && ["e", "namely"]
                        .iter()
                        .any(|w| self.word(j - 1).eq_ignore_ascii_case(w))));
        if !namely {
            return None;
        }
        let start = (0..j)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end() && !self.toks[x].is_punct('.'))
            .map_or(0, |x| x + 1);
        let before =
            squash(&self.text[self.toks[start].start as usize..self.toks[j - 1].start as usize]);
        let names = |o: Choice| {
            self.squashed_option(o)
                .is_some_and(|t| t.chars().count() >= 2 && before.contains(t))
        };
        if names(c) {
            return None;
        }
        let mut others = self.set.choices().filter(|&o| o != c && names(o));
        match (others.next(), others.next()) {
            (Some(o), None) => Some(o),
            _ => None,
        }
    }

    /// "정답: 1번 (가족관계증명서 1부)" where that text is part of option 2's and not of option
    /// 1's: the other option a bracket after the label at `m` quotes in part.
    fn bracketed_other_option(&self, c: Choice, m: usize) -> Option<Choice> {
        let mut j = m + 1;
        if self.is_hangul(j) && self.word(j) == "번" {
            j += 1;
        }
        if !self.tok(j)?.is_punct('(') {
            return None;
        }
        let close = (j + 1..self.toks.len().min(j + 40))
            .take_while(|&x| !self.toks[x].is_sentence_end() || self.toks[x].is_punct('.'))
            .find(|&x| self.toks[x].is_punct(')'))?;
        let quoted = squash(&self.text[self.toks[j].end as usize..self.toks[close].start as usize]);
        if quoted.chars().count() < 3 || self.squashed_option(c)?.contains(quoted.as_str()) {
            return None;
        }
        let mut others = self.set.choices().filter(|&o| {
            o != c
                && self
                    .squashed_option(o)
                    .is_some_and(|t| t.contains(quoted.as_str()))
        });
        match (others.next(), others.next()) {
            (Some(o), None) => Some(o),
            _ => None,
        }
    }

    /// "③ 감이 정답", "3번 '감'이 정답", "③(감)을 정답으로": a label opening its sentence or
    /// clause (or after "따라서"), its own option's whole text and a subject or object particle, ending at
    /// token `j`, the last word before the fillers `j + 1..k` that lead to the keyword at `k`.
    /// Returns the label's token. Another option's text, or a label joined to an earlier one
    /// ("② 배와 ③ 감이", "② 배가 아니라 ③ 감이"), reads as nothing here.
    pub(super) fn label_with_own_text_before(&self, j: usize, k: usize) -> Option<usize> {
        let longest = self.longest_option();
        if longest == 0 {
            return None;
        }
        let end = self.toks[j].end as usize;
        let m = (0..=j)
            .rev()
            .take_while(|&x| {
                !self.toks[x].is_sentence_end() && end - self.toks[x].start as usize <= longest + 40
            })
            .find(|&x| self.is_label_mark(x))?;
        // "…생각할 수 있지만, ② 배가 정답": a clause after a comma that ends one.
        let after_clause = m > 1
            && self.toks[m - 1].is_punct(',')
            && self.is_hangul(m - 2)
            && ["지만", "는데", "으나", "므로", "아니고", "이고"]
                .iter()
                .any(|e| self.word(m - 2).ends_with(e));
        // "네, 2번(…)이 정답", "검토 결과, 4번 '…'가": a lead-in of a word or two and a comma.
        let lead_words = (0..m.saturating_sub(1))
            .rev()
            .take_while(|&x| self.is_hangul(x))
            .count();
        let lead_in = m > 1
            && self.toks[m - 1].is_punct(',')
            && (1..=2).contains(&lead_words)
            && (m - 1 == lead_words || self.toks[m - 2 - lead_words].is_sentence_end());
        if !(m == 0
            || self.toks[m - 1].is_sentence_end()
            || self.concluded_at(m)
            || after_clause
            || lead_in)
        {
            return None;
        }
        let own = self.squashed_option(self.choice_at(m)?)?;
        let between = squash(&self.text[self.toks[m].end as usize..end]);
        let between = between.strip_prefix('번').unwrap_or(&between);
        let between = between
            .trim_start_matches(['.', ')', '-', ':', '(', '['])
            .trim_end_matches([')', ']']);
        let particle = |w: &str| matches!(w, "이" | "가" | "을" | "를");
        let glued = between.strip_prefix(own).is_some_and(particle);
        let apart =
            between == own && (j + 1..k).any(|x| self.is_hangul(x) && particle(self.word(x)));
        (!own.is_empty() && (glued || apart)).then_some(m)
    }

    /// Does an option's text begin at token `k` ("(3) 3" where an option reads "3")?
    pub(super) fn starts_option_text(&self, k: usize) -> bool {
        let Some(t) = self.tok(k) else { return false };
        let rest = squash_prefix(
            clip(self.text, t.start as usize, 300),
            self.longest_option(),
        );
        self.squashed_options()
            .0
            .iter()
            .any(|o| !o.is_empty() && rest.starts_with(o.as_str()))
    }

    /// Does option `c`'s own text begin at token `k` ("정답은 2번 10" where option 2 reads
    /// "10")?
    pub(super) fn starts_own_option_text(&self, c: Choice, k: usize) -> bool {
        let (Some(t), Some(own)) = (self.tok(k), self.squashed_option(c)) else {
            return false;
        };
        !own.is_empty()
            && squash_prefix(clip(self.text, t.start as usize, 300), own.len()).starts_with(own)
    }

    /// Are the labels at `a` and `b` written in two notations ("③ (3)", "3번(③)")? Only
    /// then is the second a restatement of the first; "(3) 3" may be a label and its text.
    pub(super) fn two_notations(&self, a: usize, b: usize) -> bool {
        let circled = |k: usize| matches!(self.tok(k).and_then(Tok::mark), Some(Mark::Circled(_)));
        circled(a) != circled(b)
    }

    pub(super) fn unique_option_text(&self) -> Option<Extraction> {
        if self.set.options().is_empty() || self.text.len() > 300 {
            return None;
        }
        // Labels only in brackets that name one choice ("형성권(①)입니다", "종속 변수(2번)"):
        // read without them, and the text must then name that choice.
        let mut bracketed: Option<Choice> = None;
        let mut without = String::new();
        let mut from = 0;
        for j in (0..self.toks.len()).filter(|&j| self.is_label_mark(j)) {
            let t = self.toks[j];
            let open = if t.text(self.text).starts_with('(') {
                t.start as usize
            } else if j > 0 && self.toks[j - 1].is_punct('(') {
                self.toks[j - 1].start as usize
            } else {
                return None;
            };
            let close = (j..self.toks.len().min(j + 3)).find(|&x| self.toks[x].is_punct(')'))?;
            let c = self.choice_at(j)?;
            if bracketed.is_some_and(|b| b != c) || open < from {
                return None;
            }
            bracketed = Some(c);
            without.push_str(&self.text[from..open]);
            from = self.toks[close].end as usize;
        }
        let text = if bracketed.is_some() {
            without.push_str(&self.text[from..]);
            without.as_str()
        } else {
            self.text
        };
        if self.toks.iter().enumerate().any(|(j, t)| {
            (t.kind == Kind::Hangul && is_negation_word(self.word(j)))
                || (t.kind == Kind::Latin && lower(self.word(j)) == "not")
        }) {
            return None;
        }
        let hay = squash(text);
        let found: Vec<(Choice, &str)> = self
            .set
            .choices()
            .filter_map(|c| {
                let o = self.squashed_option(c)?;
                (o.chars().count() >= 2 && hay.contains(o)).then_some((c, o))
            })
            .collect();
        // An option contained in a longer matched option is not named on its own.
        let named: Vec<&(Choice, &str)> = found
            .iter()
            .filter(|(c, o)| {
                !found
                    .iter()
                    .any(|(d, p)| d != c && p.len() > o.len() && p.contains(*o))
            })
            .collect();
        let span = 0..self.text.len();
        match named.as_slice() {
            [] => None,
            // The option's text must be the answer, not a word of a sentence about it:
            // "금융위원회입니다", "정답은 150만원", not "50만원은 너무 적습니다" or "과태료는 최대
            // 200만원이며 …".
            [(_, o)] if !is_framing(&hay.replacen(*o, "\u{0}", 1)) => None,
            [(c, _)] if bracketed.is_some_and(|b| b != *c) => Some(Extraction::Ambiguous {
                candidates: [*c].into_iter().chain(bracketed).collect(),
                rule: Rule::LabelTextMismatch,
                span,
            }),
            [(c, _)] => Some(Extraction::Answer {
                choice: *c,
                rule: Rule::OptionText,
                span,
            }),
            many => Some(Extraction::Ambiguous {
                candidates: many.iter().map(|(c, _)| *c).collect(),
                rule: Rule::MultipleOptionTexts,
                span,
            }),
        }
    }
}

/// Is what is left of a squashed answer around its one option text (marked by a NUL) only a
/// frame for it: an answer marker before ("정답은", "답:", "answer:"), a copula or "is the
/// answer" after ("입니다", "가정답입니다", "istheanswer"), and punctuation?
fn is_framing(rest: &str) -> bool {
    const BEFORE: [&str; 7] = [
        "정답은",
        "정답",
        "답은",
        "답",
        "answer",
        "theansweris",
        "itis",
    ];
    const AFTER: [&str; 15] = [
        "입니다",
        "이다",
        "다",
        "이에요",
        "예요",
        "요",
        "임",
        "이정답입니다",
        "가정답입니다",
        "이정답",
        "가정답",
        "이답입니다",
        "가답입니다",
        "istheanswer",
        "isthecorrectanswer",
    ];
    let rest: String = rest
        .chars()
        .filter(|c| !matches!(c, '.' | ',' | '!' | ':' | '(' | ')' | '[' | ']' | '-' | '~'))
        .collect();
    rest.split_once('\u{0}').is_some_and(|(before, after)| {
        (before.is_empty() || BEFORE.contains(&before))
            && (after.is_empty() || AFTER.contains(&after))
    })
}

/// The value of the first number in `text` (commas dropped): 525000 for "￦ 525,000", 8.1 for
/// "8.10m"; None when it has none.
pub(super) fn leading_value(text: &str) -> Option<f64> {
    let at = text.find(|c: char| c.is_ascii_digit())?;
    // "7, 200" (a space after a thousands comma, as some KMMLU options have) is 7200.
    let rest = &text[at..];
    let mut digits = String::new();
    for (i, c) in rest.char_indices() {
        let spaced_thousands = c == ' '
            && rest[..i].ends_with(',')
            && rest[i + 1..].bytes().take_while(u8::is_ascii_digit).count() == 3;
        if c.is_ascii_digit() || c == '.' {
            digits.push(c);
        } else if !(c == ',' || spaced_thousands) {
            break;
        }
    }
    digits.trim_end_matches('.').parse().ok()
}
