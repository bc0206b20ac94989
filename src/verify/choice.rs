//! Choice sets: which answers exist for a question, how they are written, and how to find
//! them in the question text. Not for reading answers: that is the verifier's job.

use super::{ask, options};
use std::fmt;
use std::str::FromStr;

/// How a question writes its options, and so how a choice is printed back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// ① ② ③ … (up to ⑳), the usual Korean exam form.
    Circled,
    /// 1 2 3 … (up to 20), written `(1) …` or `1. …` in the question.
    Number,
    /// A B C … (up to Z), written `A. …` or `(A) …` in the question.
    Letter,
    /// ○ / × (also written O / X): index 1 is ○, index 2 is ×.
    Ox,
}

impl Notation {
    /// The stable name used in `choices` specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Circled => "circled",
            Notation::Number => "number",
            Notation::Letter => "letter",
            Notation::Ox => "ox",
        }
    }

    /// The most choices this notation can write: ⑳ and 20 for circled and numbered sets
    /// (MMLU-Pro variants go past ten), Z for letters, 2 for O/X.
    pub fn max_choices(self) -> u8 {
        match self {
            Notation::Circled | Notation::Number => 20,
            Notation::Letter => MAX_CHOICES,
            Notation::Ox => 2,
        }
    }
}

/// One option of a choice set, as a 0-based position; print it with [`ChoiceSet::label`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choice(u8);

impl Choice {
    /// The choice at 0-based position `index`.
    pub fn from_index(index: usize) -> Option<Choice> {
        u8::try_from(index).ok().map(Choice)
    }
    /// 0-based position in the set.
    pub fn index(self) -> usize {
        self.0 as usize
    }
    /// 1-based position in the set (○ = 1, × = 2), as reports print it.
    pub fn position(self) -> usize {
        self.0 as usize + 1
    }
}

/// The answers a question allows, with the option texts when the question shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoiceSet {
    notation: Notation,
    count: u8,
    options: Vec<String>,
    /// How many options the question shows when that is more than the notation can hold
    /// (the set keeps the first [`Notation::max_choices`]).
    truncated_from: Option<usize>,
    /// The question's ask phrase, the predicate before its "…것은?" ("적절하지 않은"), so
    /// that an answer echoing it ("적절하지 않은 것은 ③") reads as a statement.
    ask: Option<String>,
    /// The question asks no judgement at all ("…몇 mm 이내인가?"): no "것", no negation
    /// anywhere in it (see [`ChoiceSet::asks_nothing`]).
    asks_nothing: bool,
    /// The question's text (its first [`ChoiceSet::QUESTION_KEPT`] bytes), so that an answer
    /// that goes on into another question can tell it from this one.
    question: Option<Box<str>>,
}

/// Why a `choices` spec or a choice set could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ChoiceSetError {
    #[error("unknown choice notation `{0}` (expected circled:N, number:N, letter:N or ox)")]
    UnknownNotation(String),
    #[error("choice count `{0}` is not a number from 2 to 20 (to 26 for letters)")]
    BadCount(String),
}

/// The most options any notation supports (Z); circled and numbered sets stop at 20
/// (see [`Notation::max_choices`]).
pub const MAX_CHOICES: u8 = 26;

impl ChoiceSet {
    /// A set of `count` choices (2..=20, 2..=26 for letters; O/X always has 2) without
    /// option texts.
    pub fn new(notation: Notation, count: u8) -> Result<ChoiceSet, ChoiceSetError> {
        let count = if notation == Notation::Ox { 2 } else { count };
        if !(2..=notation.max_choices()).contains(&count) {
            return Err(ChoiceSetError::BadCount(count.to_string()));
        }
        Ok(ChoiceSet {
            notation,
            count,
            options: Vec::new(),
            truncated_from: None,
            ask: None,
            asks_nothing: false,
            question: None,
        })
    }

    /// Remember what `question` asks for (its ask phrase, see [`ChoiceSet::ask`]); call this
    /// once per item when the set was built from a spec or dataset columns rather than by
    /// [`ChoiceSet::detect`] or [`ChoiceSet::for_question`], which do it already.
    pub fn with_question(mut self, question: &str) -> ChoiceSet {
        self.ask = ask::ask_phrase(question);
        self.asks_nothing = ask::asks_nothing(question);
        let mut kept = question.len().min(Self::QUESTION_KEPT);
        while !question.is_char_boundary(kept) {
            kept -= 1;
        }
        self.question = Some(question[..kept].into());
        self
    }

    /// How much of a question's text a set keeps.
    const QUESTION_KEPT: usize = 2048;

    /// The question's text (its first 2 KB), when the set was built with it.
    pub(crate) fn question(&self) -> Option<&str> {
        self.question.as_deref()
    }

    /// Does the question ask for no judgement at all (a value, a name: "…몇 mm 이내인가?")?
    /// Only when it holds no "것" and no negation anywhere, so that an ask phrase the
    /// reader missed ("…아닌 것  은?") never passes for none.
    pub fn asks_nothing(&self) -> bool {
        self.asks_nothing
    }

    /// The question's ask phrase: the predicate before "…것은?" / "…것을 고르면?"
    /// ("적절하지 않은", "옳은", "일치하지 않는"), if the question has one.
    pub fn ask(&self) -> Option<&str> {
        self.ask.as_deref()
    }

    /// When the question shows more options than the notation can hold, how many it shows;
    /// the set then has only the first [`Notation::max_choices`] and callers should say so.
    pub fn truncated_from(&self) -> Option<usize> {
        self.truncated_from
    }

    /// Attach option texts (one per choice, in order); a list of the wrong length is ignored,
    /// since a partial list would make "unique option text" decisions unsound.
    pub fn with_options(mut self, options: Vec<String>) -> ChoiceSet {
        if options.len() == self.count as usize {
            self.options = options;
        }
        self
    }

    /// How the set is written.
    pub fn notation(&self) -> Notation {
        self.notation
    }

    /// How many choices the set has.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// A set is never empty; present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Every choice, in order.
    pub fn choices(&self) -> impl Iterator<Item = Choice> {
        (0..self.count).map(Choice)
    }

    /// The choice at 1-based `position`, if the set has it.
    pub fn at_position(&self, position: usize) -> Option<Choice> {
        (1..=self.len())
            .contains(&position)
            .then(|| Choice((position - 1) as u8))
    }

    /// The option text the question shows for `choice`, if known.
    pub fn option_text(&self, choice: Choice) -> Option<&str> {
        self.options.get(choice.index()).map(String::as_str)
    }

    /// All option texts (empty when the question did not show them).
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// `choice` in the set's own notation: `③`, `3`, `C`, `○`.
    pub fn label(&self, choice: Choice) -> String {
        label_in(self.notation, choice.index())
    }

    /// Parse a label in any common notation back to a choice of this set: `③`, `3`, `3번`,
    /// `(3)`, `C`, `○`, `O`, `X`, `×`. Used for gold answers in datasets.
    pub fn parse_label(&self, label: &str) -> Option<Choice> {
        let t = label.trim().trim_end_matches('번').trim();
        let t = t
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(t);
        let mut chars = t.chars();
        let first = chars.next()?;
        if self.notation == Notation::Ox {
            if chars.next().is_some() {
                return None;
            }
            return match first {
                'O' | 'o' | '○' | '◯' | '〇' | 'Ｏ' => Some(Choice(0)),
                'X' | 'x' | '×' | '✕' | 'Ｘ' => Some(Choice(1)),
                _ => None,
            };
        }
        let position = if let Some(n) = circled_value(first) {
            (chars.next().is_none()).then_some(n as usize)?
        } else if first.is_ascii_uppercase() && t.len() == 1 {
            if self.notation != Notation::Letter {
                return None;
            }
            (first as u8 - b'A') as usize + 1
        } else {
            let n: usize = t.parse().ok()?;
            if self.notation == Notation::Letter {
                return None;
            }
            n
        };
        self.at_position(position)
    }

    /// Detect the choice set from a question's text: inline circled options (①…⑳), numbered
    /// options (`1번 - …`, `1. …`, `1) …`, `(1) …` lines, Markdown table rows, `(1)` inline),
    /// lettered options (`A. …`, `(A) …`), or an O/X question. Options after a `선택지:` /
    /// `보기:` / `Options:` header are preferred over numbered lines in the stem. Returns
    /// `None` when the question shows no recognisable options.
    pub fn detect(question: &str) -> Option<ChoiceSet> {
        if let Some(found) = options::find(question) {
            let count = u8::try_from(found.options.len()).ok()?;
            let mut set = ChoiceSet::new(found.notation, count)
                .ok()?
                .with_options(found.options);
            set.truncated_from = found.truncated_from;
            return Some(set.with_question(question));
        }
        // Last: KMMLU's "옳은 것(○)과 옳지 않은 것(×)을 연결한 것은?" has numbered options.
        if ask::asks_for_ox(question) {
            return ChoiceSet::new(Notation::Ox, 2)
                .ok()
                .map(|s| s.with_question(question));
        }
        None
    }

    /// The set for `question` given an optional explicit spec: the spec fixes notation and
    /// count; option texts still come from the question when it writes them in that notation.
    pub fn for_question(question: &str, spec: Option<&ChoiceSet>) -> Option<ChoiceSet> {
        let detected = ChoiceSet::detect(question);
        match spec {
            None => detected,
            Some(spec) => {
                let options = detected
                    .filter(|d| d.notation == spec.notation && d.count == spec.count)
                    .map(|d| d.options)
                    .unwrap_or_default();
                Some(spec.clone().with_options(options).with_question(question))
            }
        }
    }
}

impl FromStr for ChoiceSet {
    type Err = ChoiceSetError;

    /// `circled:5`, `number:4`, `letter:4`, `ox`.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let spec = spec.trim();
        let (name, count) = match spec.split_once(':') {
            Some((name, count)) => (name.trim(), Some(count.trim())),
            None => (spec, None),
        };
        let notation = match name.to_ascii_lowercase().as_str() {
            "circled" => Notation::Circled,
            "number" => Notation::Number,
            "letter" => Notation::Letter,
            "ox" => Notation::Ox,
            _ => return Err(ChoiceSetError::UnknownNotation(spec.to_string())),
        };
        let count = match (notation, count) {
            (Notation::Ox, None) => 2,
            (_, Some(c)) => c
                .parse::<u8>()
                .map_err(|_| ChoiceSetError::BadCount(c.to_string()))?,
            (_, None) => return Err(ChoiceSetError::BadCount(String::new())),
        };
        ChoiceSet::new(notation, count)
    }
}

impl fmt::Display for ChoiceSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.notation {
            Notation::Ox => f.write_str("ox"),
            n => write!(f, "{}:{}", n.name(), self.count),
        }
    }
}

/// The label of the 0-based `index` in `notation`.
pub fn label_in(notation: Notation, index: usize) -> String {
    match notation {
        Notation::Circled if index < 20 => char::from_u32(0x2460 + index as u32)
            .map(String::from)
            .unwrap_or_else(|| (index + 1).to_string()),
        Notation::Circled | Notation::Number => (index + 1).to_string(),
        Notation::Letter if index < 26 => char::from(b'A' + index as u8).to_string(),
        Notation::Letter => (index + 1).to_string(),
        Notation::Ox => if index == 0 { "○" } else { "×" }.to_string(),
    }
}

/// 1-based value of a circled digit in any of its Unicode forms (①, ❶, ➀, ⓵).
pub(crate) fn circled_value(c: char) -> Option<u8> {
    let v = c as u32;
    let n = match v {
        // ①…⑳ and ⓫…⓴ go to twenty; the other forms stop at ten.
        0x2460..=0x2473 => v - 0x2460,
        0x24EB..=0x24F4 => v - 0x24EB + 10,
        0x2776..=0x277F => v - 0x2776,
        0x2780..=0x2789 => v - 0x2780,
        0x278A..=0x2793 => v - 0x278A,
        0x24F5..=0x24FE => v - 0x24F5,
        _ => return None,
    };
    Some(n as u8 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_inline_circled_options_with_texts() {
        let set =
            ChoiceSet::detect("다음 중 옳은 것은? ① 금융위원회 ② 기획재정부 ③ 국방부 ④ 행정안전부")
                .unwrap();
        assert_eq!(set.notation(), Notation::Circled);
        assert_eq!(set.len(), 4);
        assert_eq!(set.options()[1], "기획재정부");
        assert_eq!(set.options()[3], "행정안전부");
    }

    #[test]
    fn detects_numbered_and_lettered_lines() {
        let q = "질문?\n(1) 10 60\n(2) 10 120\n(3) 25 60\n(4) 25 120";
        let set = ChoiceSet::detect(q).unwrap();
        assert_eq!((set.notation(), set.len()), (Notation::Number, 4));
        assert_eq!(set.options()[2], "25 60");
        let q = "Which city?\nA. Seoul\nB. Busan\nC. Daegu\nD. Gwangju";
        let set = ChoiceSet::detect(q).unwrap();
        assert_eq!((set.notation(), set.len()), (Notation::Letter, 4));
        assert_eq!(set.options()[3], "Gwangju");
    }

    #[test]
    fn detects_ox_questions() {
        for q in [
            "다음 설명이 옳으면 O, 틀리면 X로 답하시오.",
            "맞으면 ○, 틀리면 ×를 고르시오.",
            "(O/X) 공공기관은 예산을 공개해야 한다.",
        ] {
            assert_eq!(
                ChoiceSet::detect(q).unwrap().notation(),
                Notation::Ox,
                "{q}"
            );
        }
        assert!(ChoiceSet::detect("OECD 국가의 수는?").is_none());
    }

    #[test]
    fn parses_specs_and_labels() {
        let set: ChoiceSet = "circled:5".parse().unwrap();
        assert_eq!(set.label(Choice(2)), "③");
        assert_eq!(set.parse_label("3"), Some(Choice(2)));
        assert_eq!(set.parse_label("③"), Some(Choice(2)));
        assert_eq!(set.parse_label("6"), None);
        let ox: ChoiceSet = "ox".parse().unwrap();
        assert_eq!(ox.parse_label("X"), Some(Choice(1)));
        assert_eq!(ox.label(Choice(0)), "○");
        assert!("circled:21".parse::<ChoiceSet>().is_err());
        assert!("letter:27".parse::<ChoiceSet>().is_err());
        let long: ChoiceSet = "letter:12".parse().unwrap();
        assert_eq!(long.parse_label("L"), Some(Choice(11)));
        assert_eq!(long.label(Choice(11)), "L");
        let circled: ChoiceSet = "circled:20".parse().unwrap();
        assert_eq!(circled.label(Choice(19)), "⑳");
        assert_eq!(circled.parse_label("⑮"), Some(Choice(14)));
        assert!("roman:4".parse::<ChoiceSet>().is_err());
        let letters: ChoiceSet = "letter:4".parse().unwrap();
        assert_eq!(letters.parse_label("D"), Some(Choice(3)));
        assert_eq!(letters.parse_label("4"), None);
    }
}
