//! Statements the text never finishes: an answer cut off inside its own sentence ("정답은
//! ③번과", "정답은 ③이라고 보기 어", "The answer is C or": a token limit, or a draft), and a
//! second thought opened after the answer and left open ("정답: ③\n\n잠깐, 유치권은
//! 담보물권입니다. 다시 생각해 보겠습니다.", "The answer is C — hold on."). Neither states
//! a choice; the judge reads them.

use super::option_text::clip;
use super::words::{cjk_doubt, is_negation_word, lower, OPTION_NOUN_WORDS};
use super::Ctx;
use crate::verify::cues::Family;
use crate::verify::scan::{Kind, Mark};
use crate::verify::{Choice, Notation};

/// English words that cannot end a sentence: the text stopped after them.
const OPEN_LATIN: [&str; 30] = [
    "and", "or", "but", "because", "since", "so", "with", "of", "to", "the", "a", "an", "is",
    "are", "was", "were", "be", "not", "either", "than", "as", "for", "if", "unless", "although",
    "though", "whereas", "which", "that", "nor",
];

/// Korean words that cannot end a sentence: conjunctions and bound nouns that need a word
/// after them ("③번 및", "할 수", "③이라 할").
const OPEN_WORDS: [&str; 13] = [
    "및",
    "혹은",
    "또는",
    "내지",
    "아니면",
    "그리고",
    "수",
    "듯",
    "줄",
    "할",
    "될",
    "볼",
    "갈",
];

/// Final syllables of a connective ending or a case particle: a word ending in one needs
/// another after it ("③번과", "③이나", "③번으로", "③이라고", "보이지", "하는데", "하기",
/// "하기엔", "③번인").
const OPEN_ENDINGS: [char; 19] = [
    '과', '와', '고', '며', '면', '나', '지', '데', '기', '게', '도', '서', '록', '라', '로', '를',
    '을', '엔', '인',
];

/// Final syllables of a finished sentence or a noun phrase that may end one ("③번",
/// "③입니다", "③이에요", "③번임").
const CLOSED_ENDINGS: [char; 11] = [
    '다', '요', '죠', '음', '임', '함', '됨', '까', '네', '번', '오',
];

impl Ctx<'_> {
    /// Does the text stop inside the sentence of a statement ending at token `last`, on a
    /// word that needs another after it? A label at the end ("정답은 ③", "정답은 ③번") is
    /// finished; so is an option's text after it ("정답: ③ 위증죄").
    pub(super) fn cut_off_after(&self, last: usize) -> bool {
        let end = self.toks.len() - 1;
        // A comma closes the statement: "정답은 ③, 신법이 구법에 우선하므로" gives a reason.
        if end <= last
            || (last + 1..=end).any(|x| {
                self.toks[x].is_sentence_end()
                    || matches!(self.toks[x].kind, Kind::Punct(',' | ';'))
            })
        {
            return false;
        }
        // "정답은 ③ 국세를 포탈하려는 행위가 있다고 인정될 때": the option's own text.
        if self.starts_option_text(last + 1) {
            return false;
        }
        let t = self.toks[end];
        match t.kind {
            Kind::Punct(p) => matches!(p, '/' | '&' | '+'),
            Kind::Other => matches!(self.word(end), "·" | "ㆍ" | "・"),
            Kind::Latin => {
                OPEN_LATIN.contains(&lower(self.word(end)).as_str())
                    && !self.in_an_option_text(&lower(self.word(end)))
            }
            Kind::Hangul => {
                let w = self.word(end);
                if OPEN_WORDS.contains(&w) {
                    return true;
                }
                let Some(final_syllable) = w.chars().next_back() else {
                    return false;
                };
                if CLOSED_ENDINGS.contains(&final_syllable) {
                    return false;
                }
                // A quotative before it: the sentence must close on a predicate ("③이라고
                // 보기", "③이라고 단").
                let quoted = (last + 1..end).any(|x| {
                    self.is_hangul(x)
                        && ["라고", "다고", "이라"]
                            .iter()
                            .any(|e| self.word(x).ends_with(e))
                });
                quoted
                    || !(OPTION_NOUN_WORDS.contains(&w) || self.in_an_option_text(w))
                        && (OPEN_ENDINGS.contains(&final_syllable) || w.chars().nth(1).is_none())
            }
            _ => false,
        }
    }

    /// Is `w` (or the word it ends) part of an option's text ("정답: ③ 재고")?
    fn in_an_option_text(&self, w: &str) -> bool {
        (0..self.set.options().len())
            .filter_map(|i| self.squashed_option(Choice::from_index(i)?))
            .any(|o| o.contains(w))
    }

    /// "我认为答案是④，但不太确定。", "正解は④です。ただし、確信はありません。": a
    /// Chinese or Japanese doubt just after the statement.
    /// Read to the end of the next sentence, and not past a label: a doubt after another
    /// option is about that option ("答案是③。我对①不太确定"; trial 53).
    pub(super) fn cjk_doubt_after(&self, last: usize) -> bool {
        let mut ends = 0;
        let stop = (last + 1..self.toks.len()).find(|&x| {
            ends += usize::from(self.toks[x].is_sentence_end());
            self.is_label_mark(x) || ends == 2
        });
        // Up to a label, and the label itself: "不，B" takes back for B.
        let to = stop.map_or(self.text.len(), |x| {
            let t = self.toks[x];
            (if self.is_label_mark(x) {
                t.end
            } else {
                t.start
            }) as usize
        });
        let from = self.toks[last].end as usize;
        let doubted = cjk_doubt(clip(self.text, from, (to - from).min(160)));
        self.cjk_doubted.set(self.cjk_doubted.get() || doubted);
        doubted
    }

    /// After a statement ending at token `last`, is a second thought opened ("잠깐,",
    /// "잠깐만요", "wait", "hold on") and no label named after it? "The answer is C. Wait,
    /// let me check … yes, C." keeps C; another label after it is read as a correction.
    pub(super) fn second_thought_left_open(&self, last: usize) -> bool {
        if !self.cues.has(Family::Pause) {
            return false;
        }
        let Some(open) = (last + 1..self.toks.len()).find(|&j| self.opens_second_thought(j)) else {
            return false;
        };
        // "잠깐, ②의 단서 조항을 다시 확인해 봐야겠습니다.", "Wait, let me re-check B.": a
        // label in a last sentence that only means to check is not named as the answer.
        let end = self.checking_sentence_at_end().unwrap_or(self.toks.len());
        !(open + 1..end).any(|j| self.names_a_label(j))
    }

    /// Where the text's last sentence begins, when all it says is that the writer means to
    /// check ("다시 확인해 봐야겠습니다", "검토해 보겠습니다", "let me re-check B").
    fn checking_sentence_at_end(&self) -> Option<usize> {
        const CHECKING: [&str; 16] = [
            "확인해 봐야",
            "확인해봐야",
            "확인해 보겠",
            "확인해보겠",
            "확인이 필요",
            "검토해 봐야",
            "검토해 보겠",
            "검토가 필요",
            "살펴봐야",
            "살펴보겠",
            "다시 봐야",
            "let me check",
            "let me re-check",
            "let me recheck",
            "let me double-check",
            "need to check",
        ];
        let last = (0..self.toks.len())
            .rev()
            .find(|&x| !matches!(self.toks[x].kind, Kind::Punct(_) | Kind::Break))?;
        let start = (0..last)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end())
            .map_or(0, |x| x + 1);
        let span = self.toks[start].start as usize..self.toks[last].end as usize;
        let sentence = self.text[span].to_lowercase();
        // The sentence ends on the intention ("…확인해 봐야겠습니다", "let me re-check B"),
        // not on what the check found ("let me double-check: 7 has no divisors …, so C").
        CHECKING
            .iter()
            .filter_map(|c| sentence.find(c).map(|at| &sentence[at + c.len()..]))
            .any(|rest| !rest.contains(':') && rest.trim().len() <= 24)
            .then_some(start)
    }

    /// Is token `j` a label in the set's own notation, in the set or not ("(K)" of A–J)? A
    /// number in English prose on a lettered set ("7 might not be") is no label.
    fn names_a_label(&self, j: usize) -> bool {
        if self.choice_at(j).is_some() {
            return true;
        }
        matches!(
            (self.mark_at(j), self.set.notation()),
            (Some(Mark::Letter(_)), Notation::Letter)
                | (
                    Some(Mark::Num(_) | Mark::Circled(_)),
                    Notation::Number | Notation::Circled
                )
        ) && self.is_label_mark(j)
    }

    /// "잠깐", "잠깐만요" as an interjection (before punctuation or the end), "wait" before
    /// punctuation or the end, "hold on".
    fn opens_second_thought(&self, j: usize) -> bool {
        let t = self.toks[j];
        let then_pause = self
            .tok(j + 1)
            .is_none_or(|n| matches!(n.kind, Kind::Punct(_) | Kind::Break));
        match t.kind {
            Kind::Hangul => {
                let w = self.word(j);
                w.starts_with("잠깐만") || (w == "잠깐" && then_pause)
            }
            Kind::Latin => {
                let w = self.word(j);
                (w.eq_ignore_ascii_case("wait") && then_pause)
                    || (w == "hold"
                        && self.is_latin(j + 1)
                        && self.word(j + 1).eq_ignore_ascii_case("on"))
            }
            _ => false,
        }
    }

    /// Does the next line go on with the statement's own sentence after an ellipsis ("정답:
    /// ③\n\n…은 아닌 것 같습니다", "정답: ③\n\n...이라고 하고 싶지만 확신이 없습니다"),
    /// denying or quoting it? `j` is the line break after the statement.
    pub(super) fn continued_on_next_line(&self, j: usize) -> bool {
        let (mut n, dots) = self.dots_from(j + 1);
        if dots < 3 || !self.is_hangul(n) {
            return false;
        }
        let w = self.word(n);
        let w = match w {
            "이" | "가" | "은" | "는" => {
                n += 1;
                if self.is_hangul(n) {
                    self.word(n)
                } else {
                    return false;
                }
            }
            _ => w,
        };
        is_negation_word(w)
            || ["이라고", "라고", "이라는", "라는"]
                .iter()
                .any(|q| w.starts_with(q))
    }

    /// Does the rest of the statement's sentence, after token `last`, keep it from being
    /// said: quoted and then made a condition, an instruction or an intention ("정답은
    /// ③번입니다라고 쓰면 감점됩니다", "\"정답은 ③번\"이라고 답할 것", "…이라고만 답하세요"),
    /// the choosing put off ("정답 ③을 고르기 전에"), or called a joke ("… ㅋㅋ 장난이고")?
    pub(super) fn not_asserted_after(&self, last: usize) -> bool {
        let mut quoted = false;
        let mut words = 0;
        // From `last` itself: a label-first statement ends on its verb ("③을 고르기").
        for j in last..self.toks.len() {
            let t = self.toks[j];
            if t.is_sentence_end() {
                return false;
            }
            if t.kind != Kind::Hangul {
                continue;
            }
            let w = self.word(j);
            // The option's own words ("…경과하기 전이라도 …") say nothing of the answer.
            if self.in_an_option_text(w) {
                continue;
            }
            words += 1;
            // Asked, not said: "③ 답이 맞는지 확인해 보겠습니다", "③이 정답인지 찾아보겠습니다"
            // (not the noun 인지, "recognition").
            if words <= 2
                && w != "인지"
                && ["는지", "은지", "인지", "을지", "일지"]
                    .iter()
                    .any(|e| w.ends_with(e))
            {
                return true;
            }
            // Not "장난감" (a toy).
            if (w.starts_with("장난") && !w.starts_with("장난감")) || w.starts_with("농담") {
                return true;
            }
            if w.ends_with('기') && self.next_word(j).starts_with("전") {
                return true;
            }
            if ["라고", "다고", "라고만", "다고만"]
                .iter()
                .any(|q| w.ends_with(q))
            {
                quoted = true;
                continue;
            }
            let instructed = w.ends_with('면')
                || ["세요", "시오", "십시오", "려고", "려다", "려다가"]
                    .iter()
                    .any(|e| w.ends_with(e))
                || (w == "것" && j > 0 && self.is_hangul(j - 1) && ends_in_rieul(self.word(j - 1)));
            if quoted && instructed {
                return true;
            }
        }
        false
    }
}

/// Does the word end in a syllable with a final ㄹ ("할", "답할", "쓸"): a prospective
/// modifier, as in "답할 것"?
fn ends_in_rieul(w: &str) -> bool {
    w.chars()
        .next_back()
        .is_some_and(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c) && (c as u32 - 0xAC00) % 28 == 8)
}
