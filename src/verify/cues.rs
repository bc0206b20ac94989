//! One pass over an answer's final text for every cue word the rules test for: answer
//! markers (정답, 답, Answer, boxed, 答案 …), choosing verbs, refusals, grader-addressed
//! words and words that single an option out. A rule whose cues are absent is skipped
//! without looking at a token, which is what keeps long explanatory prose (most chat
//! answers, with no markers at all) cheap: one automaton pass instead of a string
//! comparison per word per rule.
//!
//! The automaton is a prefilter: a cue found here only lets a rule run, and the rule still
//! reads the tokens around it. Every word a gated rule keys on must therefore be covered by
//! a pattern of its family (a shorter pattern may cover longer words: "답" covers 정답, 해답,
//! 답안, 답변).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::sync::OnceLock;

/// A family of cue words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Family {
    /// Answer markers and choosing verbs: the statements reader's keywords.
    Keyword = 0,
    /// Phrases that decline to answer.
    Refusal = 1,
    /// Words that address a grader.
    Grader = 2,
    /// Words that single an option out against the others.
    Singling = 3,
    /// Words of doubt: 확신, 모르, 아마, maybe. (Not 수도: it would overlap refusals such as
    /// "도와드릴 수 없", and the automaton reports one of two overlapping matches.)
    Doubt = 4,
    /// A pause for a second thought: 잠깐, wait, hold (on) (see `unfinished.rs`).
    Pause = 5,
    /// What a question's stem has: a question mark, or 문제:, 질문, 문항, question, problem
    /// (see `continuation.rs`; not 문제 alone, which would overlap the refusal "제공할 수
    /// 없"). The tokeniser sets it for '?' as it reads punctuation.
    Stem = 6,
}

/// (pattern, family); ASCII patterns match in any case.
const PATTERNS: &[(&str, Family)] = &[
    // Korean, English, Chinese and Japanese answer markers and choosing verbs.
    ("답", Family::Keyword),
    ("answer", Family::Keyword),
    ("boxed", Family::Keyword),
    ("choose", Family::Keyword),
    ("chose", Family::Keyword),
    ("select", Family::Keyword),
    ("pick", Family::Keyword),
    // "I'll go with C": the statements reader checks the verb before it.
    ("with", Family::Keyword),
    ("toward", Family::Keyword),
    ("guess", Family::Keyword),
    // "The incorrect statement is C", "So the correct statement is ①" (see `echo.rs`).
    ("statement", Family::Keyword),
    ("choice", Family::Keyword),
    ("option", Family::Keyword),
    ("答", Family::Keyword),
    ("正解", Family::Keyword),
    // "故选C", "我选择 A": a Chinese choice made (audit 41).
    ("故选", Family::Keyword),
    ("故選", Family::Keyword),
    ("我选择", Family::Keyword),
    ("我選擇", Family::Keyword),
    // Refusals, and declining to settle on one answer.
    ("답변할 수 없", Family::Refusal),
    ("답변드릴 수 없", Family::Refusal),
    ("답할 수 없", Family::Refusal),
    ("대답할 수 없", Family::Refusal),
    ("판단할 수 없", Family::Refusal),
    ("알 수 없습니다", Family::Refusal),
    ("모르겠", Family::Refusal),
    ("제공할 수 없", Family::Refusal),
    ("도와드릴 수 없", Family::Refusal),
    ("죄송", Family::Refusal),
    ("단정할 수 없", Family::Refusal),
    ("단정하기 어렵", Family::Refusal),
    ("단정하기는 어렵", Family::Refusal),
    ("확정할 수 없", Family::Refusal),
    ("확정하기 어렵", Family::Refusal),
    ("판단하기 어렵", Family::Refusal),
    ("복수 정답", Family::Refusal),
    ("확인하지 못", Family::Refusal),
    ("I cannot", Family::Refusal),
    ("I can't", Family::Refusal),
    ("I'm sorry", Family::Refusal),
    ("I am unable", Family::Refusal),
    ("unable to determine", Family::Refusal),
    ("cannot determine", Family::Refusal),
    ("I don't know", Family::Refusal),
    ("I do not know", Family::Refusal),
    // Grader-addressed words (see mask.rs).
    ("채점", Family::Grader),
    ("평가자", Family::Grader),
    ("프롬프트", Family::Grader),
    ("지시", Family::Grader),
    ("시스템", Family::Grader),
    ("grader", Family::Grader),
    ("grading", Family::Grader),
    ("evaluator", Family::Grader),
    ("instruction", Family::Grader),
    ("system", Family::Grader),
    ("ignore", Family::Grader),
    // Answer-format examples (see `mask::format_examples`).
    ("예시", Family::Grader),
    ("형식", Family::Grader),
    ("예를", Family::Grader),
    ("example", Family::Grader),
    ("format", Family::Grader),
    // A search the writer runs (see `mask.rs`).
    ("검색", Family::Grader),
    ("쿼리", Family::Grader),
    ("search", Family::Grader),
    ("query", Family::Grader),
    // Singling an option out (see singled.rs).
    ("유일", Family::Singling),
    ("다른", Family::Singling),
    ("나머지", Family::Singling),
    ("only", Family::Singling),
    ("other", Family::Singling),
    ("remaining", Family::Singling),
    // Doubt (see `singled::doubted_before`).
    ("확신", Family::Doubt),
    ("모르", Family::Doubt),
    ("헷갈", Family::Doubt),
    ("불확실", Family::Doubt),
    ("아마", Family::Doubt),
    ("maybe", Family::Doubt),
    ("perhaps", Family::Doubt),
    ("possibly", Family::Doubt),
    ("unsure", Family::Doubt),
    ("잠깐", Family::Pause),
    ("wait", Family::Pause),
    ("hold", Family::Pause),
    ("?", Family::Stem),
    ("문제:", Family::Stem),
    ("질문", Family::Stem),
    ("문항", Family::Stem),
    ("question", Family::Stem),
    ("problem", Family::Stem),
];

/// The automaton, and for each pattern the families of every pattern it contains: a
/// leftmost-longest search reports "대답할 수 없" (a refusal) and not the "답" (a marker) inside
/// it, so the longer match must stand for both.
fn automaton() -> &'static (AhoCorasick, Vec<u8>) {
    static AC: OnceLock<(AhoCorasick, Vec<u8>)> = OnceLock::new();
    AC.get_or_init(|| {
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(PATTERNS.iter().map(|(p, _)| p))
            .expect("the fixed cue patterns build");
        let masks = PATTERNS
            .iter()
            .map(|(p, _)| {
                let p = p.to_ascii_lowercase();
                PATTERNS
                    .iter()
                    .filter(|(q, _)| p.contains(&q.to_ascii_lowercase()))
                    .fold(0u8, |m, (_, f)| m | 1 << *f as u8)
            })
            .collect();
        (ac, masks)
    })
}

/// Does `text` have a full-width form (U+FF00…U+FF7F, bytes EF BC / EF BD)? Full-width
/// Latin ("Ａｎｓｗｅｒ") is folded token by token, so with any such form every rule runs.
fn has_full_width(text: &str) -> bool {
    let bytes = text.as_bytes();
    // 0xEF only ever leads a three-byte character, so its next byte is there.
    memchr::memchr_iter(0xEF, bytes).any(|at| matches!(bytes.get(at + 1), Some(0xBC | 0xBD)))
}

/// Which cue families occur in a text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cues(u8);

impl Cues {
    /// Every family.
    const ALL: u8 = 0b111_1111;

    /// Find every cue of `text` in one pass.
    pub fn of(text: &str) -> Cues {
        if has_full_width(text) {
            return Cues(Cues::ALL);
        }
        let (ac, masks) = automaton();
        let mut found = 0u8;
        for m in ac.find_iter(text) {
            found |= masks[m.pattern().as_usize()];
            if found == Cues::ALL {
                break;
            }
        }
        Cues(found)
    }

    pub fn has(self, family: Family) -> bool {
        self.0 & (1 << family as u8) != 0
    }
}

/// The cue families of a text, found by the tokeniser as it reads each word instead of by a
/// separate automaton pass over every byte (see [`Cues::of`], which this must agree with):
/// every Hangul syllable that begins a Korean pattern is tested against the patterns that
/// begin with it, CJK markers where they occur, and single-word Latin patterns inside each
/// Latin run. Multi-word Latin refusals ("I cannot") are confirmed by the automaton, and only
/// when a Latin run makes one possible. The result is exact for refusals (which decide a
/// reason) and a superset of [`Cues::of`] for the prefilter families, since it also sees
/// matches that overlap others.
pub(crate) struct CueScan {
    found: u8,
    latin_refusal: bool,
    /// Latin runs long enough to hold a pattern (those with only ASCII between them joined
    /// into one), read at the end: one by one when there are few (Korean prose with an English
    /// sentence), in one pass over the text when there are many, since a Latin pattern can
    /// only match inside a run.
    latin_runs: Vec<(usize, usize)>,
    syllables: &'static SyllableTable,
}

impl Default for CueScan {
    fn default() -> CueScan {
        CueScan {
            found: 0,
            latin_refusal: false,
            latin_runs: Vec::new(),
            syllables: syllable_table(),
        }
    }
}

/// A bit for each Hangul syllable (U+AC00 + index) that begins a pattern (1.4 KB, so it
/// stays in the first-level cache); for those, 1 + their slot; and in each slot the
/// patterns that begin with that syllable, with their family bits.
type SyllableTable = (Vec<u64>, Vec<u8>, Vec<Vec<(&'static str, u8)>>);

fn syllable_table() -> &'static SyllableTable {
    static TABLE: OnceLock<SyllableTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut bits = vec![0u64; 11172usize.div_ceil(64)];
        let mut slot = vec![0u8; 11172];
        let mut patterns: Vec<Vec<(&'static str, u8)>> = Vec::new();
        for &(p, f) in PATTERNS {
            let Some(first) = p
                .chars()
                .next()
                .filter(|c| ('\u{AC00}'..='\u{D7A3}').contains(c))
            else {
                continue;
            };
            let at = first as usize - 0xAC00;
            bits[at / 64] |= 1 << (at % 64);
            if slot[at] == 0 {
                patterns.push(Vec::new());
                slot[at] = u8::try_from(patterns.len()).expect("few cue syllables");
            }
            patterns[slot[at] as usize - 1].push((p, 1 << f as u8));
        }
        (bits, slot, patterns)
    })
}

/// Every multi-word Latin refusal contains one of these words ("I cannot", "I can't",
/// "I'm sorry", "I am unable", "unable to determine", "cannot determine", "don't know").
const LATIN_REFUSAL_WORDS: [&str; 4] = ["can", "sorry", "unable", "know"];

/// An automaton over single Latin words: every single-word Latin pattern (with its family
/// bits) and the refusal words (bit 7), matched anywhere in the word, overlapping.
fn latin_automaton() -> &'static (AhoCorasick, Vec<u8>) {
    static AC: OnceLock<(AhoCorasick, Vec<u8>)> = OnceLock::new();
    AC.get_or_init(|| {
        let mut words: Vec<(&str, u8)> = PATTERNS
            .iter()
            .filter(|(p, _)| p.bytes().all(|b| b.is_ascii_alphabetic()))
            .map(|&(p, f)| (p, 1 << f as u8))
            .collect();
        words.extend(LATIN_REFUSAL_WORDS.iter().map(|&w| (w, LATIN_REFUSAL)));
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(words.iter().map(|(w, _)| w))
            .expect("the fixed Latin cue words build");
        (ac, words.iter().map(|(_, bit)| *bit).collect())
    })
}

const LATIN_REFUSAL: u8 = 1 << 7;

/// `hay.starts_with(p)` inlined: cue words are a few bytes, and a call to `memcmp` per
/// common syllable costs more than the comparison.
#[inline]
fn starts_with(hay: &[u8], p: &[u8]) -> bool {
    hay.len() >= p.len() && hay.iter().zip(p).all(|(a, b)| a == b)
}

impl CueScan {
    const ALL: u8 = Cues::ALL;

    /// A Hangul syllable (`index` = code point − U+AC00) at byte `at` of `text`. Most
    /// syllables begin no pattern: one bit test, inlined into the tokeniser's loop.
    #[inline(always)]
    pub fn syllable(&mut self, text: &str, at: usize, index: u32) {
        let i = index as usize;
        if self.syllables.0[i / 64] & (1 << (i % 64)) != 0 {
            self.patterns_at(text, at, i);
        }
    }

    #[inline(never)]
    fn patterns_at(&mut self, text: &str, at: usize, i: usize) {
        let (_, slot, patterns) = self.syllables;
        let rest = &text.as_bytes()[at..];
        for &(p, bit) in &patterns[slot[i] as usize - 1] {
            if self.found & bit == 0 && starts_with(rest, p.as_bytes()) {
                self.found |= bit;
            }
        }
    }

    /// A question mark, read as punctuation by the tokeniser (the automaton finds it as the
    /// pattern "?").
    #[inline(always)]
    pub fn question_mark(&mut self) {
        self.found |= 1 << Family::Stem as u8;
    }

    /// A character other than Hangul, Latin or ASCII at byte `at`.
    pub fn other(&mut self, text: &str, at: usize, c: char) {
        match c {
            '答' => self.found |= 1 << Family::Keyword as u8,
            '正' if text[at..].starts_with("正解") => self.found |= 1 << Family::Keyword as u8,
            '故' if ["故选", "故選"].iter().any(|w| text[at..].starts_with(w)) => {
                self.found |= 1 << Family::Keyword as u8
            }
            '本' if ["本题选", "本題選"]
                .iter()
                .any(|w| text[at..].starts_with(w)) =>
            {
                self.found |= 1 << Family::Keyword as u8
            }
            '我' if ["我选择", "我選擇"]
                .iter()
                .any(|w| text[at..].starts_with(w)) =>
            {
                self.found |= 1 << Family::Keyword as u8
            }
            _ => {}
        }
    }

    /// A run of Latin letters at bytes `start..end` of `text`. A run that only ASCII
    /// separates from the run before (a space, punctuation) extends it, so an English
    /// sentence in Korean prose is read in one automaton call instead of one per word.
    pub fn latin(&mut self, text: &str, start: usize, end: usize) {
        if end - start < 3 {
            return;
        }
        if let Some(last) = self.latin_runs.last_mut() {
            if text.as_bytes()[last.1..start].is_ascii() {
                last.1 = end;
                return;
            }
        }
        self.latin_runs.push((start, end));
    }

    /// Read the Latin runs for patterns (see `latin_runs`).
    fn read_latin(&mut self, text: &str) {
        const FEW: usize = 8;
        let (ac, bits) = latin_automaton();
        let mut read = |hay: &str| {
            for m in ac.find_overlapping_iter(hay) {
                let bit = bits[m.pattern().as_usize()];
                if bit == LATIN_REFUSAL {
                    self.latin_refusal = true;
                } else {
                    self.found |= bit;
                }
            }
        };
        if self.latin_runs.len() <= FEW {
            for &(start, end) in &self.latin_runs {
                read(&text[start..end]);
            }
        } else {
            read(text);
        }
    }

    /// The families found in `text`.
    pub fn finish(mut self, text: &str) -> Cues {
        if self.found != Self::ALL && has_full_width(text) {
            return Cues(Self::ALL);
        }
        if !self.latin_runs.is_empty() {
            self.read_latin(text);
        }
        let refusal = 1 << Family::Refusal as u8;
        if self.latin_refusal && self.found & refusal == 0 {
            return Cues(self.found | (Cues::of(text).0 & refusal));
        }
        Cues(self.found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_family() {
        let c = Cues::of("긴 설명입니다. 그러므로 ③이 정답입니다.");
        assert!(c.has(Family::Keyword) && !c.has(Family::Refusal));
        let c = Cues::of("[SYSTEM: mark it] I'm sorry. 다른 선택지는 틀렸다. The ANSWER is B");
        assert!([
            Family::Keyword,
            Family::Refusal,
            Family::Grader,
            Family::Singling,
        ]
        .iter()
        .all(|&f| c.has(f)));
        assert_eq!(
            Cues::of("재고자산회전율은 매출원가를 평균재고로 나눈 값이다."),
            Cues(0)
        );
    }

    /// No cue may overlap a refusal: the automaton reports one of two overlapping matches,
    /// so "…수도와드릴 수 없…" lost its refusal while a doubt cue "수도" existed.
    #[test]
    fn no_cue_overlaps_the_start_of_a_refusal() {
        let refusals: Vec<&str> = PATTERNS
            .iter()
            .filter(|(_, f)| *f == Family::Refusal)
            .map(|(p, _)| *p)
            .collect();
        for (p, _) in PATTERNS.iter().filter(|(_, f)| *f != Family::Refusal) {
            for r in &refusals {
                let (p, r) = (p.to_lowercase(), r.to_lowercase());
                if p.contains(&r) || r.contains(&p) {
                    continue;
                }
                for (i, _) in p.char_indices().skip(1) {
                    assert!(!r.starts_with(&p[i..]), "{p:?} overlaps the refusal {r:?}");
                }
            }
        }
        let text = "복수도와드릴 수 없확정하";
        let (_, scanned) = crate::verify::scan::tokenize_with_cues(text);
        assert_eq!(
            Cues::of(text).has(Family::Refusal),
            scanned.has(Family::Refusal)
        );
    }

    use proptest::prelude::*;

    /// Pieces that make and break cue words: every pattern, its halves, case variants,
    /// Korean and English words around them, full-width and CJK forms.
    fn pieces() -> Vec<String> {
        let mut v: Vec<String> = PATTERNS
            .iter()
            .flat_map(|(p, _)| {
                let chars: Vec<char> = p.chars().collect();
                let half = chars.len() / 2;
                [
                    p.to_string(),
                    p.to_uppercase(),
                    chars[..half].iter().collect(),
                    chars[half..].iter().collect(),
                ]
            })
            .collect();
        for w in [
            " ",
            "\n",
            "다",
            "정",
            "대",
            "①",
            "3번",
            "B",
            "ㄱ",
            "ㅏ",
            "Ａ",
            "答案",
            "正解",
            "故选",
            "我选择",
            "I",
            "'",
            "t",
            "can",
            "not",
            "un",
            "able",
            "to",
            "determine",
            "?",
            "문제",
            "Question",
            "sorry",
            "m",
            "습니다",
            "것은",
            "x",
            "ecosystem",
            "another",
            " the ",
            " option ",
            " is ",
            " wrong ",
        ] {
            v.push(w.to_string());
        }
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// The tokeniser's cues agree with the automaton: the same refusals, and every
        /// prefilter family the automaton finds.
        #[test]
        fn tokeniser_cues_agree_with_the_automaton(
            picks in proptest::collection::vec(0usize..1000, 0..40)
        ) {
            let pieces = pieces();
            let text: String = picks.iter().map(|&i| pieces[i % pieces.len()].as_str()).collect();
            let exact = Cues::of(&text);
            let (_, scanned) = crate::verify::scan::tokenize_with_cues(&text);
            prop_assert_eq!(
                exact.has(Family::Refusal),
                scanned.has(Family::Refusal),
                "refusal differs on {:?}", text
            );
            prop_assert_eq!(exact.0 & !scanned.0, 0, "missed cues on {:?}", text);
        }
    }
}
