//! Remarks right after a statement's label that say it is not the answer after all: a mark
//! or a bracket calling it wrong ("정답: ③ ✗", "정답: ③ (오답)", "Answer: B (incorrect)"), a
//! probability ("정답 ③ 확률 0%"), a range ("정답 4 ~ 5분"), the label used as a reference
//! point ("정답은 ③ 다음인 ④", "③보다 ②에 가깝다", "③ 빼고 전부"), an ordinal that counts
//! something else ("3번째 줄에"), a near miss ("③을 선택할 뻔했습니다") and a Japanese "not
//! ③" ("③ではなく②").

use super::words::{is_negation_word, strip_beon, OPTION_NOUN_WORDS};
use super::Ctx;
use crate::verify::scan::{Kind, Mark};

/// Nouns an ordinal may count that are not options: "3번째 줄", "두 번째 문단", "세 번째 이유".
const COUNTED_NOT_OPTIONS: [&str; 11] = [
    "줄",
    "문장",
    "문단",
    "단락",
    "행",
    "쪽",
    "페이지",
    "단계",
    "이유",
    "조건",
    "근거",
];

impl Ctx<'_> {
    /// Does the text right after the label at `last` (its clause going on at `from`) call it
    /// off: a mark of wrong, a probability, a range, a near miss or a Japanese negation? Also
    /// an ordinal label that counts lines or reasons rather than options.
    pub(super) fn called_off_after(&self, last: usize, from: usize) -> bool {
        // "정답: 3번 X": past the 번 of the label.
        let from = if self.is_hangul(from) && self.word(from) == "번" {
            from + 1
        } else {
            from
        };
        let Some(t) = self.tok(from) else {
            return false;
        };
        if matches!(self.mark_at(last), Some(Mark::Ordinal(_)))
            && self.is_hangul(from)
            && !OPTION_NOUN_WORDS
                .iter()
                .any(|n| self.word(from).starts_with(n))
            && COUNTED_NOT_OPTIONS
                .iter()
                .any(|n| self.word(from).starts_with(n))
        {
            return true;
        }
        let called_off = match t.kind {
            // "정답 ③ ✗", "정답: 3번 X, 4번 O".
            Kind::Other => {
                let rest = &self.text[t.start as usize..];
                [
                    "✗",
                    "✘",
                    "❌",
                    "❎",
                    "ではなく",
                    "でなく",
                    "じゃなく",
                    "ではな",
                    "ではあり",
                ]
                .iter()
                .any(|m| rest.starts_with(m))
            }
            Kind::Mark(Mark::Ox(false)) => true,
            // "정답 4 ~ 5분 소요": a range of numbers.
            Kind::Punct('~') => self
                .tok(from + 1)
                .is_some_and(|n| matches!(n.kind, Kind::Number | Kind::Mark(Mark::Num(_)))),
            // "정답 ③ 확률 0%", "③을 선택할 뻔했습니다", "정답은 ③일 뻔했다".
            Kind::Hangul => {
                let w = self.word(from);
                ["확률", "가능성", "뻔"].iter().any(|p| w.starts_with(p))
                    || (w == "일"
                        && self.is_hangul(from + 1)
                        && self.word(from + 1).starts_with('뻔'))
            }
            _ => false,
        };
        called_off || self.cjk_taken_back(from)
    }

    /// "正解は③…いや、②です", "答案是③，不对", "正解：③（誤り）": a Chinese or Japanese word
    /// of denial right after the label (past punctuation).
    fn cjk_taken_back(&self, from: usize) -> bool {
        let Some(t) = self.tok(from) else {
            return false;
        };
        if !matches!(t.kind, Kind::Other | Kind::Punct(_)) {
            return false;
        }
        let rest = self.text[t.start as usize..].trim_start_matches(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '…' | '、' | '，' | ',' | '。' | '.' | '(' | '（' | ':' | '：'
                )
        });
        [
            "いや", "不对", "不對", "不是", "誤り", "错", "錯", "違う", "違い",
        ]
        .iter()
        .any(|d| rest.starts_with(d))
    }

    /// In a bracket `(open..close)` after a statement's label, does the word at `x` call the
    /// label wrong: "(오답)", "(이 답은 틀렸음)", and on a question asking what is so "(틀림)",
    /// "(거짓)"? Not a remark on another label ("정답: B (C는 오답)"), nor, on a question
    /// asking what is not so, "(틀린 설명)", which describes the option as asked.
    pub(super) fn calls_bracketed_label_wrong(&self, open: usize, close: usize, x: usize) -> bool {
        if !self.is_hangul(x) || (open + 1..close).any(|y| self.toks[y].mark().is_some()) {
            return false;
        }
        // "(수험생이 자주 틀리는 문제)": a remark on the question, not a verdict on the label.
        let on_the_question = (open + 1..close).any(|y| {
            self.is_hangul(y)
                && ["자주", "흔히", "많이", "수험생", "학생", "쉬운", "문제"]
                    .iter()
                    .any(|d| self.word(y).contains(d))
        });
        if on_the_question {
            return false;
        }
        let w = self.word(x);
        let wrong = [
            "틀림",
            "틀렸",
            "틀립",
            "틀린",
            "잘못됨",
            "잘못되",
            "잘못된",
            "잘못임",
            "거짓",
            "오류",
        ]
        .iter()
        .any(|p| w.starts_with(p));
        let of_the_answer =
            (open + 1..x).any(|y| self.is_hangul(y) && self.word(y).starts_with('답'));
        w.starts_with("오답") || (wrong && (of_the_answer || !self.asks_negative()))
    }

    /// Is the label before token `j` (the first words of its clause, from `from`) a reference
    /// point for another choice rather than the choice: "③보다 ②에 가깝다", "③이라기보다는
    /// ④", "③ 다음인 ④", "③의 앞 번호인 ②", "③ 빼고 전부", "③만 말고"?
    pub(super) fn label_as_reference(&self, j: usize, from: usize) -> bool {
        if j > from + 1 {
            return false;
        }
        let w = self.word(j);
        let w = w.strip_prefix('번').unwrap_or(w);
        let w = w.strip_prefix('만').unwrap_or(w);
        if [
            "보다",
            "빼고",
            "제외",
            "말고",
            "라기보다",
            "이라기보다",
            "대신",
        ]
        .iter()
        .any(|p| w.starts_with(p))
            || ["다음인", "앞인", "뒤인", "이전인"].contains(&w)
        {
            return true;
        }
        w == "의"
            && self.is_hangul(j + 1)
            && ["앞", "뒤", "다음", "이전", "반대"]
                .iter()
                .any(|p| self.word(j + 1).starts_with(p))
    }

    /// Is the label at `j` judged, in its own sentence, the opposite of what the question asks
    /// for, and so not the answer: "②는 옳은 설명입니다" / "① is actually accurate" on a
    /// question asking what is not so, "②는 틀린 설명입니다" on one asking what is? Not when
    /// the sentence also denies ("②는 옳은 설명이 아닙니다").
    pub(super) fn judged_not_the_answer(&self, j: usize) -> bool {
        let Some(negative) = self.asked_polarity().map(|p| !p) else {
            return false;
        };
        let words: Vec<usize> = (j + 1..self.toks.len().min(j + 10))
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .filter(|&x| self.is_hangul(x) || self.is_latin(x))
            .collect();
        let denied = self.any_denial(&words);
        let asked = (j + 1..self.toks.len())
            .find(|&x| self.toks[x].is_sentence_end())
            .is_some_and(|x| self.toks[x].is_punct('?'));
        if denied || asked {
            return false;
        }
        // On a question asking what is not so only a description counts ("옳은 설명",
        // "accurate", "a correct statement"): "③이 맞습니다" and "C is correct" name the answer.
        let noun = |x: usize| {
            (self.is_hangul(x)
                && ["설명", "내용", "진술", "서술", "문장", "지문"]
                    .iter()
                    .any(|n| self.word(x).starts_with(n)))
                || (self.is_latin(x)
                    && ["statement", "description", "claim"]
                        .iter()
                        .any(|n| self.word(x).eq_ignore_ascii_case(n)))
        };
        let is_any = |w: &str, list: &[&str]| list.iter().any(|e| w.eq_ignore_ascii_case(e));
        words.iter().enumerate().any(|(i, &x)| {
            let w = self.word(x);
            let next_is_noun = words.get(i + 1).is_some_and(|&n| noun(n));
            if negative {
                (self.is_hangul(x)
                    && ["옳은", "맞는", "정확한", "적절한", "타당한", "올바른"].contains(&w)
                    && next_is_noun)
                    || (self.is_latin(x)
                        && (is_any(w, &["accurate", "true", "factual"])
                            || (is_any(w, &["correct", "right", "valid"]) && next_is_noun)))
            } else {
                (self.is_hangul(x)
                    && [
                        "틀린",
                        "틀렸",
                        "틀립",
                        "틀리다",
                        "잘못",
                        "오류",
                        "거짓",
                        "부적절",
                        "오답",
                    ]
                    .iter()
                    .any(|p| w.starts_with(p)))
                    || (self.is_latin(x)
                        && is_any(w, &["wrong", "incorrect", "false", "inaccurate", "invalid"]))
            }
        })
    }

    /// Does the remark in brackets from `open` to `close` doubt or call off the answer before
    /// it: "(확실하지 않음)", "(아마)", "(철회)", "(오답 예시)", "(just kidding, I honestly
    /// don't know)"? Not "(학생들이 자주 틀리는 문제)" nor "(… 그 취소는 …)", an option's words.
    pub(super) fn bracket_doubts(&self, open: usize, close: usize) -> bool {
        (open + 1..close).any(|x| {
            (self.is_hangul(x)
                && ([
                    "확실", "모르", "추정", "수도", "아마", "틀릴", "농담", "확률", "가능성", "오타",
                    "동의하지",
                ]
                .iter()
                .any(|d| self.word(x).contains(d))
                    // "(확신도: 낮음)", "(확신도 30%)", "(자신 없음)": a confidence below a
                    // half, as "(confidence: low)" (audit 41); not "(확신도: 높음)".
                    || ((["확신", "신뢰도"].iter().any(|d| self.word(x).starts_with(d))
                        || ["자신", "자신감"].contains(&self.word(x)))
                        && !self.confident(open, close))
                    // "(예시)", "(오답 예시)": an example; not "(예시 문장에 해당)".
                    || (close - open <= 3 && self.word(x).starts_with("예시"))
                    || self.calls_bracketed_label_wrong(open, close, x)
                    || ["철회", "취소", "삭제", "폐기", "무효"].iter().any(|d| {
                        self.word(x).strip_prefix(d).is_some_and(|r| {
                            r.is_empty()
                                || ["함", "됨", "합", "했", "하겠", "할"]
                                    .iter()
                                    .any(|e| r.starts_with(e))
                        })
                    })))
                || (self.is_latin(x)
                    && [
                        "kidding",
                        "know",
                        "unsure",
                        "sure",
                        "joke",
                        "joking",
                        "retracted",
                        "withdrawn",
                        "wrong",
                        "incorrect",
                        "probability",
                        "chance",
                        "typo",
                    ]
                    .iter()
                    .any(|d| self.word(x).eq_ignore_ascii_case(d)))
                // "(confidence: 0.3)", "(10% confidence)" doubt; "(confidence: 0.85)",
                // "(confidence: high)" do not.
                || (self.is_latin(x)
                    && self.word(x).eq_ignore_ascii_case("confidence")
                    && !self.confident(open, close))
        })
    }

    /// Does the bracket from `open` to `close` give a confidence of at least a half: "high"
    /// ("높음", "있음"), a number from 0.5 to 1, or from 50 to 100 (a percentage)?
    fn confident(&self, open: usize, close: usize) -> bool {
        let inner = &self.text[self.toks[open].end as usize..self.toks[close].start as usize];
        if inner.to_ascii_lowercase().contains("high")
            || ["높", "있음", "매우 확실"]
                .iter()
                .any(|h| inner.contains(h))
        {
            return true;
        }
        let number: String = inner
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        number
            .parse::<f64>()
            .is_ok_and(|v| (0.5..=1.0).contains(&v) || (50.0..=100.0).contains(&v))
    }

    /// Is the word at `j` (in a statement's clause) a verb that names the choice as a mistake
    /// or as a past choice given up: "③을 정답으로 고르는 실수", "③을 선택했던 작년과 달리"?
    pub(super) fn choice_as_a_mistake(&self, j: usize) -> bool {
        let w = self.word(j);
        if !self.is_hangul(j + 1) {
            return false;
        }
        let next = self.word(j + 1);
        (["는", "던"].iter().any(|e| w.ends_with(e))
            && ["실수", "함정", "오류", "오답", "착각"]
                .iter()
                .any(|m| next.starts_with(m)))
            || (w.ends_with("던")
                && ["작년", "예전", "과거", "이전", "지난"]
                    .iter()
                    .any(|m| next.starts_with(m)))
    }

    /// Is the label at `k`, right after an answer marker, the subject of a clause that
    /// rules it out: "결론: ③번 보기는 옳은 설명이다" or "정답: ③은 옳다" on a question
    /// asking what is not so, "최종 답: ②번 선지는 … 제외합니다", "Final answer: B is a
    /// party, so B is excluded", "Answer: C is …, so it is not the answer"?
    pub(super) fn subject_ruled_out(&self, k: usize) -> bool {
        let topic = |w: &str| matches!(w, "은" | "는" | "이" | "가");
        let mut j = k + 1;
        let subject = match self.tok(j).map(|t| t.kind) {
            Some(Kind::Hangul) => {
                if self.word(j) == "번" {
                    j += 1;
                }
                let w = if self.is_hangul(j) { self.word(j) } else { "" };
                let noun_topic = OPTION_NOUN_WORDS
                    .iter()
                    .chain(&["지문", "설명", "진술", "선지"])
                    .any(|n| w.strip_prefix(n).is_some_and(topic));
                // "결론: 3번 위증죄는 …": the option's own one-word text as the topic.
                let own_topic = self.choice_at(k).is_some_and(|c| {
                    w.char_indices().next_back().is_some_and(|(at, _)| {
                        topic(&w[at..])
                            && self
                                .squashed_option(c)
                                .is_some_and(|o| !o.is_empty() && o == &w[..at])
                    })
                });
                topic(strip_beon(w)) && !strip_beon(w).is_empty() || noun_topic || own_topic
            }
            Some(Kind::Latin) => self.word(j).eq_ignore_ascii_case("is"),
            _ => false,
        };
        if !subject {
            return false;
        }
        let clause: Vec<usize> = (j + 1..self.toks.len().min(j + 24))
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .filter(|&x| self.is_hangul(x) || self.is_latin(x))
            .collect();
        let excluded = clause.iter().enumerate().any(|(i, &x)| {
            let w = self.word(x);
            let next = clause.get(i + 1).map_or("", |&y| self.word(y));
            (self.is_hangul(x)
                && (w.starts_with("제외")
                    || (matches!(w, "정답이" | "답이" | "정답은" | "답은")
                        && next.starts_with("아니"))))
                || (self.is_latin(x)
                    && (["excluded", "eliminated", "ruled"]
                        .iter()
                        .any(|e| w.eq_ignore_ascii_case(e))
                        || (w.eq_ignore_ascii_case("not")
                            && clause
                                .get(i + 2)
                                .is_some_and(|&y| self.word(y).eq_ignore_ascii_case("answer")))))
        });
        if excluded {
            return true;
        }
        // On a question asking what is not so, the subject called right ("옳다", "옳은
        // 지문", "적절한 설명"), with no denial in the clause.
        let denied = self.any_denial(&clause);
        if !denied && self.affirms_the_negated_ask(&clause) {
            return true;
        }
        self.asked_polarity() == Some(false)
            && !denied
            && clause.iter().any(|&x| {
                let w = self.word(x);
                (self.is_hangul(x)
                    && ["옳", "적절", "타당", "올바르", "올바른", "바른"]
                        .iter()
                        .any(|p| w.starts_with(p)))
                    || (self.is_latin(x)
                        && ["true", "correct", "accurate"]
                            .iter()
                            .any(|e| w.eq_ignore_ascii_case(e)))
            })
    }

    /// Does the Hangul word `j` call something wrong as a judgement ("틀린", "잘못된", "옳지
    /// 않음", "해당하지 않는") rather than deny a claim ("어렵다", "없다", "아니다")?
    pub(super) fn describes_as_wrong(&self, j: usize) -> bool {
        let w = self.word(j);
        w.starts_with('틀')
            || w.starts_with("잘못")
            || (w.starts_with('않')
                && j > 0
                && self.is_hangul(j - 1)
                && [
                    "옳",
                    "적절",
                    "맞",
                    "바르",
                    "올바르",
                    "타당",
                    "일치",
                    "부합",
                    "해당",
                ]
                .iter()
                .any(|p| self.word(j - 1).starts_with(p)))
            // "한국전력공사는 국가기관이 아니다" for "…국가기관이 아닌 것은?": the ask's own words.
            || (w.starts_with("아니")
                && j > 0
                && self.is_hangul(j - 1)
                && matches!(self.ask[..], [noun, "아닌"] if self.word(j - 1) == noun))
    }

    /// On a question asking "…죄가 아닌 것은?" or "…에 해당하지 않는 것은?", do the words say
    /// the subject is that noun ("…에 관한 죄이다", "죄가 맞다") or does fall under it
    /// ("해당한다")? The caller has checked that no word of the clause denies.
    fn affirms_the_negated_ask(&self, clause: &[usize]) -> bool {
        let [noun, neg] = self.ask[..] else {
            return false;
        };
        let hangul = |x: usize| self.is_hangul(x);
        if neg == "아닌" {
            let Some(stem) = noun.strip_suffix(['가', '이']).filter(|n| !n.is_empty()) else {
                return false;
            };
            clause.iter().enumerate().any(|(i, &x)| {
                let Some(rest) = self.word(x).strip_prefix(stem).filter(|_| hangul(x)) else {
                    return false;
                };
                matches!(
                    rest,
                    "이다" | "입니다" | "이며" | "임" | "이에요" | "예요" | "다"
                ) || (matches!(rest, "가" | "이")
                    && clause
                        .get(i + 1)
                        .is_some_and(|&y| self.word(y).starts_with('맞')))
            })
        } else {
            noun.starts_with("해당")
                && matches!(neg, "않는" | "않은")
                && clause.iter().any(|&x| {
                    hangul(x)
                        && ["해당한", "해당합", "해당된", "해당됩", "해당함"]
                            .iter()
                            .any(|p| self.word(x).starts_with(p))
                })
        }
    }

    /// Does any of the words deny: a Korean negation ("아니다", "않다") or "not", "isn",
    /// "never"?
    fn any_denial(&self, words: &[usize]) -> bool {
        words.iter().any(|&x| {
            (self.is_hangul(x)
                && (is_negation_word(self.word(x)) || self.word(x).starts_with('않')))
                || (self.is_latin(x)
                    && ["not", "isn", "never"]
                        .iter()
                        .any(|n| self.word(x).eq_ignore_ascii_case(n)))
        })
    }
}
