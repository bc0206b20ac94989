//! Statements taken back at once: asked ("정답은 ②입니다?"), retracted by the next sentence
//! ("아, 아닙니다.", "아니, 잠깐만요.", "Wait, no.", "확실하지 않네요", "그러나 이는
//! 오답이다"), or quoted and then denied ("…라고 하고 싶지만 확신이 없습니다", "-> 틀렸습니다").

use super::denial::is_denial;
use super::words::{is_called_error, is_negation_word, lower};
use super::Ctx;
use crate::verify::cues::Family;
use crate::verify::scan::Kind;

impl Ctx<'_> {
    /// Does the sentence after token `j` take back what came before: a bare "no" or "wait"
    /// ("아, 아닙니다.", "아니, 잠깐만요.", "Wait, no."), doubt ("확실하지 않네요",
    /// "확신이 없습니다"), or "this" called wrong after a contrast ("그러나 이는 오답이다")?
    pub(super) fn next_sentence_retracts(&self, j: usize) -> bool {
        let mut n = j + 1;
        while self
            .tok(n)
            .is_some_and(|t| t.is_sentence_end() || matches!(t.kind, Kind::Punct(_)))
        {
            n += 1;
        }
        if n == j + 1 {
            return false;
        }
        // Where the next sentence ends: only looked for when a reading below needs it.
        let end = || {
            (n..self.toks.len())
                .find(|&x| self.toks[x].is_sentence_end())
                .unwrap_or(self.toks.len())
        };
        // "…실제 정답은 알 수 없습니다", "잘 모르겠습니다", "I don't know the answer.": a
        // refusal in the next sentence.
        // Not an apology ("혼란을 드려 죄송합니다", "I'm sorry if this is unclear").
        if self.cues.has(Family::Refusal) && n < end() {
            let end = end();
            let span = self.toks[n].start as usize..self.toks[end - 1].end as usize;
            let sentence = self.text[span].to_ascii_lowercase();
            // "…실제 정답은 확인하지 못했습니다": the answer itself not checked.
            let unchecked = sentence.contains("확인하지 못")
                && (sentence.contains("정답") || sentence.contains("답은"));
            if unchecked
                || [
                    "모르겠",
                    "알 수 없",
                    "판단할 수 없",
                    "단정할 수 없",
                    "단정하기 어렵",
                    "확정할 수 없",
                    "i don't know",
                    "i do not know",
                    "i cannot",
                    "i can't",
                    "cannot determine",
                    "unable to determine",
                ]
                .iter()
                .any(|r| sentence.contains(r))
            {
                return true;
            }
        }
        // "The answer is C... or is it?"
        if self.calls_it_wrong(n, end) || self.calls_it_an_example(n, end) || self.doubting_or(n) {
            return true;
        }
        // Every reading below starts with one of these words: most sentences are ruled out by
        // their first, with nothing collected.
        let opens = self.tok(n).is_some_and(|t| match t.kind {
            Kind::Hangul => {
                let w = self.word(n);
                w.starts_with([
                    '아', '앗', '어', '음', '잠', '확', '자', '그', '하', '방', '앞', '취', '철',
                    '농', '다', '정', '재', '수',
                ])
            }
            Kind::Latin => matches!(
                lower(self.word(n)).as_str(),
                "no" | "wait"
                    | "nope"
                    | "hmm"
                    | "oh"
                    | "oops"
                    | "but"
                    | "actually"
                    | "i"
                    | "scratch"
                    | "never"
                    | "just"
                    | "correction"
                    | "on"
                    | "my"
                    | "sorry"
                    | "error"
            ),
            _ => false,
        });
        if !opens {
            return false;
        }
        let words: Vec<usize> = (n..self.toks.len())
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .filter(|&x| !matches!(self.toks[x].kind, Kind::Punct(_)))
            .collect();
        let Some(&first) = words.first() else {
            return false;
        };
        // "(농담입니다)", "농담이에요.": the answer was a joke.
        if words.len() <= 2 && self.is_hangul(first) && self.word(first).starts_with("농담") {
            return true;
        }
        const INTERJECTIONS: [&str; 8] = [
            "아",
            "앗",
            "어",
            "음",
            "잠깐",
            "잠깐만",
            "잠깐만요",
            "잠시만요",
        ];
        let takes_back = |x: usize| match self.toks[x].kind {
            Kind::Hangul => is_negation_word(self.word(x)) || self.word(x).starts_with("잠깐"),
            Kind::Latin => matches!(lower(self.word(x)).as_str(), "no" | "wait" | "nope"),
            _ => false,
        };
        // "Wait, no — let me reconsider": the words before a dash or colon.
        let head_end = (n..self.toks.len())
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .find(|&x| {
                matches!(self.toks[x].kind, Kind::Punct('-' | ':' | ';'))
                    || self.word(x) == "—"
                    || self.word(x) == "–"
            })
            .unwrap_or(usize::MAX);
        let words_head: Vec<usize> = words.iter().copied().filter(|&x| x < head_end).collect();
        let bare = words_head.iter().all(|&x| {
            takes_back(x)
                || match self.toks[x].kind {
                    Kind::Hangul => INTERJECTIONS.contains(&self.word(x)),
                    Kind::Latin => matches!(
                        lower(self.word(x)).as_str(),
                        "hmm" | "oh" | "oops" | "actually"
                    ),
                    _ => false,
                }
        });
        if bare && words_head.iter().any(|&x| takes_back(x)) {
            return true;
        }
        // "My mistake — D.", "I made an error: …", "Sorry, I made a mistake.": the writer owns
        // up to an error in what came before (audit 41).
        let owned: Vec<String> = (words_head.iter().take(7))
            .filter(|&&x| self.is_latin(x))
            .map(|&x| lower(self.word(x)))
            .collect();
        if words_head.len() <= 6
            && owned.iter().any(|w| w == "mistake" || w == "error")
            && owned.iter().any(|w| w == "my" || w == "made")
        {
            return true;
        }
        // "Actually, I'm not sure about ④ at all."
        let unsure = words.iter().enumerate().any(|(i, &x)| {
            self.is_latin(x)
                && match lower(self.word(x)).as_str() {
                    "unsure" => true,
                    "sure" | "certain" => i > 0 && lower(self.word(words[i - 1])) == "not",
                    _ => false,
                }
        });
        // "I take that back.", "Scratch that.": at the sentence's start.
        // Lower-cased only for an English sentence: a Korean one has no such phrase.
        let head: Vec<String> = if self.is_latin(first) {
            words.iter().take(5).map(|&x| lower(self.word(x))).collect()
        } else {
            Vec::new()
        };
        let taken_back = head.windows(2).any(|p| p == ["scratch", "that"])
            || head.windows(3).any(|t| {
                t[0] == "take" && matches!(t[1].as_str(), "that" | "it") && t[2] == "back"
            });
        // "방금 한 말은 취소합니다", "앞의 답은 철회합니다", "취소합니다.": the sentence takes
        // back what was said, not a disposition ("처분을 취소한다" names no saying).
        let withdrawn = words.iter().any(|&x| {
            self.is_hangul(x) && {
                let w = self.word(x);
                ["취소", "철회"].iter().any(|p| {
                    w.strip_prefix(p).is_some_and(|r| {
                        r.is_empty() || ["하", "합", "할", "했"].iter().any(|e| r.starts_with(e))
                    })
                })
            }
        }) && (words.len() <= 3
            || words.iter().any(|&x| {
                self.is_hangul(x)
                    && [
                        "방금", "앞의", "앞서", "위의", "말은", "말을", "답은", "답을",
                    ]
                    .contains(&self.word(x))
            }));
        // "Actually, I withdraw that answer.", "Never mind, I don't know.", "Just kidding."
        let withdrawn = withdrawn
            || words.iter().any(|&x| {
                self.is_latin(x)
                    && ["withdraw", "retract"]
                        .iter()
                        .any(|w| self.word(x).eq_ignore_ascii_case(w))
            })
            || head
                .windows(2)
                .any(|p| p == ["never", "mind"] || p == ["just", "kidding"]);
        if unsure || taken_back || withdrawn {
            return true;
        }
        let at = |i: usize| words.get(i).map(|&x| self.word(x));
        // "아, 확실하지 않네요", "하지만 확실하지 않습니다", "다만 확실하지는 않습니다": a doubt,
        // a conjunction before it or not (audit 41).
        const UNSURE: [&str; 6] = [
            "확실하지",
            "확실하지는",
            "확신이",
            "확신은",
            "자신이",
            "자신은",
        ];
        if at(0).is_some_and(|w| {
            INTERJECTIONS.contains(&w) || ["하지만", "다만", "그런데", "그러나", "단"].contains(&w)
        }) && at(1).is_some_and(|w| UNSURE.contains(&w))
            || self.is_hangul(first) && UNSURE.contains(&self.word(first))
        {
            return true;
        }
        if self.corrected_to_wrong(&words) {
            return true;
        }
        // "그러나 이는 오답이다", "But that is wrong."
        let contrast =
            at(0).is_some_and(|w| matches!(w, "그러나" | "하지만" | "그런데") || lower(w) == "but");
        let this = at(1).is_some_and(|w| {
            matches!(w, "이는" | "이것은" | "이건" | "그것은" | "그건")
                || matches!(lower(w).as_str(), "this" | "that" | "it")
        });
        contrast
            && this
            && words.iter().skip(2).any(|&x| {
                let w = self.word(x);
                w.starts_with("오답")
                    || w.starts_with('틀')
                    || is_called_error(w)
                    || is_negation_word(w)
                    || matches!(lower(w).as_str(), "wrong" | "incorrect" | "not")
            })
    }

    /// Is the sentence after the one holding token `last` a retraction (see
    /// [`Ctx::next_sentence_retracts`])?
    pub(super) fn retracted_by_next_sentence(&self, last: usize) -> bool {
        (last + 1..self.toks.len())
            .find(|&x| self.toks[x].is_sentence_end())
            .is_some_and(|end| self.next_sentence_retracts(end - 1))
            || self.answer_called_wrong_after(last)
    }

    /// After token `last`, does a sentence with no label call "this answer" wrong or tell the
    /// reader to ignore it ("이 답은 틀렸습니다", "방금 답은 무시해 주세요", "앞의 결론은
    /// 잘못되었습니다", "That answer is wrong", "Ignore my answer")?
    pub(super) fn answer_called_wrong_after(&self, last: usize) -> bool {
        let bytes = self.text.as_bytes();
        // The first reference after `last`, found by a byte test on each token's first
        // character (답 EB 8B B5, 결 EA B2 B0, a/A) before any slice or comparison.
        let Some(x) = (last + 1..self.toks.len()).find(|&x| {
            let t = self.toks[x];
            let at = t.start as usize;
            match t.kind {
                // 답 EB 8B B5, 결 EA B2 B0, 해 ED 95 B4.
                Kind::Hangul
                    if bytes[at..].starts_with(&[0xEB, 0x8B, 0xB5])
                        || bytes[at..].starts_with(&[0xEA, 0xB2, 0xB0])
                        || bytes[at..].starts_with(&[0xED, 0x95, 0xB4]) =>
                {
                    [
                        "답은",
                        "답이",
                        "답을",
                        "답변은",
                        "답변을",
                        "답안은",
                        "답안이",
                        "결론은",
                        "결론이",
                        "결론을",
                        "해설은",
                        "해설이",
                    ]
                    .contains(&self.word(x))
                        // "위 답변은", "위 AI 답변은": the reference within two words.
                        && (x.saturating_sub(2)..x).any(|y| {
                            self.is_hangul(y)
                                && ["이", "방금", "앞의", "위의", "위", "앞서", "제"]
                                    .contains(&self.word(y))
                        })
                }
                Kind::Latin if t.end - t.start == 6 && bytes[at] | 0x20 == b'a' => {
                    self.word(x).eq_ignore_ascii_case("answer")
                        && ["that", "this", "my", "previous", "above"]
                            .iter()
                            .any(|p| self.word(x - 1).eq_ignore_ascii_case(p))
                }
                _ => false,
            }
        }) else {
            return false;
        };
        let start = (0..x)
            .rev()
            .find(|&y| self.toks[y].is_sentence_end())
            .map_or(0, |y| y + 1);
        if start <= last {
            return false;
        }
        let sentence = start
            ..(x..self.toks.len())
                .find(|&y| self.toks[y].is_sentence_end())
                .unwrap_or(self.toks.len());
        !sentence.clone().any(|y| self.is_label_mark(y))
            && sentence.clone().any(|y| match self.toks[y].kind {
                Kind::Hangul => [
                    "틀",
                    "잘못",
                    "무시",
                    "오답",
                    "철회",
                    "취소",
                    "오류",
                    "검증되지",
                    "확인되지",
                ]
                .iter()
                .any(|p| self.word(y).starts_with(p)),
                Kind::Latin => [
                    "wrong",
                    "incorrect",
                    "ignore",
                    "disregard",
                    "retract",
                    "unverified",
                ]
                .iter()
                .any(|w| self.word(y).eq_ignore_ascii_case(w)),
                _ => false,
            })
    }

    /// Is the sentence starting at token `n` (and ending before `end()`) a short "that is
    /// wrong" with no label: "That is incorrect.", "This is wrong.", "이는 틀렸습니다.", "그건
    /// 오답입니다."?
    fn calls_it_wrong(&self, n: usize, end: impl Fn() -> usize) -> bool {
        // "That is incorrect.", "아니, 이건 틀렸네요.", "잠깐, 틀렸네요.", "Wait, that's wrong.":
        // opened by "this" or by an interjection.
        let this = self.tok(n).is_some_and(|t| match t.kind {
            Kind::Hangul => {
                [
                    "이는",
                    "이것은",
                    "이건",
                    "그건",
                    "그것은",
                    "아",
                    "아니",
                    "아니요",
                    "잠깐",
                    "잠깐만요",
                    "함정",
                    "함정입니다",
                ]
                .contains(&self.word(n))
                    // "이 선지는 틀렸다", "이 보기는 답이 아니다".
                    || (["이", "그"].contains(&self.word(n))
                        && self.is_hangul(n + 1)
                        && ["선지", "보기", "선택지", "답"]
                            .iter()
                            .any(|o| self.word(n + 1).starts_with(o)))
            }
            Kind::Latin => [
                "this", "that", "it", "wait", "oh", "no", "hmm", "oops", "actually", "trap",
            ]
            .iter()
            .any(|w| self.word(n).eq_ignore_ascii_case(w)),
            _ => false,
        });
        if !this {
            return false;
        }
        let words: Vec<usize> = (n..end())
            .filter(|&x| {
                matches!(
                    self.toks[x].kind,
                    Kind::Hangul | Kind::Latin | Kind::Mark(_)
                )
            })
            .collect();
        let wrong = |x: usize| match self.toks[x].kind {
            Kind::Hangul => {
                ["틀", "오답", "잘못", "함정"]
                    .iter()
                    .any(|p| self.word(x).starts_with(p))
                    || is_called_error(self.word(x))
            }
            Kind::Latin => matches!(
                lower(self.word(x)).as_str(),
                "wrong" | "incorrect" | "false" | "trap" | "error" | "mistake" | "mistaken"
            ),
            _ => false,
        };
        let not = |x: usize| {
            (self.is_latin(x) && matches!(lower(self.word(x)).as_str(), "not" | "isn" | "t"))
                || (self.is_hangul(x) && is_negation_word(self.word(x)))
        };
        // "이 선지는 답이 아니다", "Trap — not the answer.": the answer word denied.
        let not_the_answer = words.iter().enumerate().any(|(i, &x)| {
            let answer = |y: usize| {
                (self.is_hangul(y) && ["답이", "정답이"].contains(&self.word(y)))
                    || (self.is_latin(y) && self.word(y).eq_ignore_ascii_case("answer"))
            };
            answer(x)
                && (words.get(i + 1).is_some_and(|&n| not(n))
                    || words[..i].iter().rev().take(2).any(|&n| not(n)))
        });
        words.len() <= 6
            && !words.iter().any(|&x| self.is_label_mark(x))
            && (not_the_answer
                || (words.iter().any(|&x| wrong(x)) && !words.iter().skip(1).any(|&x| not(x))))
    }

    /// Does the sentence starting at token `n` call what is above an example ("(위는 답안 작성
    /// 형식의 예시입니다.)", "(The line above is only an example of the format.)")?
    fn calls_it_an_example(&self, n: usize, end: impl Fn() -> usize) -> bool {
        let above = |x: usize| {
            (self.is_hangul(x) && ["위", "상기"].iter().any(|p| self.word(x).starts_with(p)))
                || (self.is_latin(x) && self.word(x).eq_ignore_ascii_case("above"))
        };
        // "위는 …", "The line above …": the deictic opens the sentence or follows its subject.
        if !(n..self.toks.len().min(n + 3)).any(above) {
            return false;
        }
        // "…의 예시입니다", "예시일 뿐", "is only an example": called one, not "예시처럼".
        (n..end()).any(|x| {
            (self.is_hangul(x)
                && self.word(x).strip_prefix("예시").is_some_and(|r| {
                    ["입", "일", "이며", "이다", "임", "예요"]
                        .iter()
                        .any(|e| r.starts_with(e))
                }))
                || (self.is_latin(x)
                    && self.word(x).eq_ignore_ascii_case("example")
                    && x > 0
                    && self.is_latin(x - 1)
                    && ["an", "only", "just", "merely"]
                        .iter()
                        .any(|w| self.word(x - 1).eq_ignore_ascii_case(w)))
        })
    }

    /// Is the label at `j` the only one in its sentence, which calls it wrong ("1 doesn't hold
    /// up either", "3번은 틀렸습니다", "③은 정답이 아닙니다")?
    pub(super) fn denied_alone(&self, j: usize) -> bool {
        let s = self.sentence_around(j);
        let alone = s
            .clone()
            .all(|x| x == j || !self.is_label_mark(x) || self.choice_at(x) == self.choice_at(j));
        alone
            && (self.says_not_the_answer(&s)
                || s.clone().any(|x| match self.toks[x].kind {
                    Kind::Hangul => {
                        let w = self.word(x);
                        w.starts_with('틀') || w.starts_with("잘못") || is_negation_word(w)
                    }
                    Kind::Latin => matches!(
                        lower(self.word(x)).as_str(),
                        "wrong" | "incorrect" | "false" | "not" | "doesn" | "isn" | "cannot"
                    ),
                    _ => false,
                }))
    }

    /// After the clause that ends at token `j`, is the statement retracted at once: by an
    /// arrow to a denial ("정답은 ②입니다 -> 틀렸습니다"), or quoted and then conceded or
    /// denied ("정답은 ③번입니다... 라고 하고 싶지만 확신이 없습니다")?
    pub(super) fn retracted_after(&self, j: usize) -> bool {
        // "정답은 ②입니다?": asked, not stated.
        if self.tok(j + 1).is_some_and(|t| t.is_punct('?')) {
            return true;
        }
        if self.next_sentence_retracts(j)
            || self.answer_called_wrong_after(j)
            || self.quote_rejected_after(j)
        {
            return true;
        }
        // "정답은 ③이다(오답 예시)": a remark in brackets right after.
        if self.tok(j + 1).is_some_and(|t| t.is_punct('(')) {
            let close = (j + 2..self.toks.len().min(j + 17))
                .take_while(|&x| self.toks[x].kind != Kind::Break)
                .find(|&x| self.toks[x].is_punct(')'));
            if close.is_some_and(|c| self.bracket_doubts(j + 1, c)) {
                return true;
            }
        }
        let mut k = j + 1;
        let mut arrow = false;
        while let Some(t) = self.tok(k) {
            match t.kind {
                Kind::Punct('>') => arrow = true,
                Kind::Punct('-' | '.' | '~') => {}
                _ => break,
            }
            k += 1;
        }
        if !self.is_hangul(k) {
            return false;
        }
        if arrow {
            return is_denial(self.word(k));
        }
        let quoted = self.word(k).starts_with("라고") || self.word(k).starts_with("이라고");
        quoted
            && (k + 1..self.toks.len())
                .take_while(|&x| !self.toks[x].is_sentence_end())
                .any(|x| {
                    self.is_hangul(x) && {
                        let w = self.word(x);
                        is_denial(w) || w.ends_with("지만") || w.ends_with("으나")
                    }
                })
    }

    /// Is the statement ending at token `j` quoted in a Markdown blockquote and rejected by
    /// the first sentence after the quote ("> 정답은 ②\n하지만 이는 오류다", "> 정답은 ②\n\n
    /// 동의하지 않습니다", "> Answer: B\n\nThe quoted answer above is wrong")? The sentence
    /// names no label and points back at the quote, or is a bare verdict of a few words: "다른
    /// 선지는 모두 틀린 설명이다" under a quoted answer of one's own rejects nothing.
    pub(super) fn quote_rejected_after(&self, j: usize) -> bool {
        let line_start = (0..j)
            .rev()
            .find(|&x| self.toks[x].kind == Kind::Break)
            .map_or(0, |x| x + 1);
        if !self.tok(line_start).is_some_and(|t| t.is_punct('>')) {
            return false;
        }
        // The first line after the quote.
        let mut n = j;
        loop {
            let Some(br) = (n..self.toks.len()).find(|&x| self.toks[x].kind == Kind::Break) else {
                return false;
            };
            n = br + 1;
            if !self.tok(n).is_some_and(|t| t.is_punct('>')) {
                break;
            }
        }
        let end = (n..self.toks.len())
            .find(|&x| self.toks[x].is_sentence_end())
            .unwrap_or(self.toks.len());
        let words: Vec<usize> = (n..end)
            .filter(|&x| matches!(self.toks[x].kind, Kind::Hangul | Kind::Latin))
            .collect();
        if words.is_empty() || (n..end).any(|x| self.is_label_mark(x)) {
            return false;
        }
        let points_back = words.iter().take(3).any(|&x| {
            let w = self.word(x);
            matches!(
                w,
                "이는" | "이것은" | "이건" | "그건" | "그것은" | "위" | "위의" | "위와" | "위에"
                    | "위는" | "상기"
            )
                || w.starts_with("위 ")
                || matches!(
                    lower(w).as_str(),
                    "this" | "that" | "it" | "above" | "quoted" | "the"
                )
        }) || words.len() <= 3
            // "— 출처: 해커스 해설 (오류)": a source marked as wrong.
            || (n..end).any(|x| {
                self.is_hangul(x)
                    && x > 0
                    && self.toks[x - 1].is_punct('(')
                    && self.tok(x + 1).is_some_and(|t| t.is_punct(')'))
            });
        let negated = words.iter().any(|&x| {
            (self.is_hangul(x)
                && (is_negation_word(self.word(x)) || self.word(x).starts_with(['않', '없', '못'])))
                || (self.is_latin(x) && matches!(lower(self.word(x)).as_str(), "not" | "t"))
        });
        let wrong = words.iter().any(|&x| match self.toks[x].kind {
            Kind::Hangul => {
                let w = self.word(x);
                ["틀", "오답", "잘못", "착오"]
                    .iter()
                    .any(|p| w.starts_with(p))
                    || is_called_error(w)
            }
            _ => matches!(
                lower(self.word(x)).as_str(),
                "wrong" | "incorrect" | "false" | "mistaken" | "erroneous" | "disagree"
            ),
        });
        let disagreed = words.iter().any(|&x| {
            (self.is_hangul(x) && self.word(x).starts_with("동의하지"))
                || (self.is_latin(x) && lower(self.word(x)) == "agree")
        });
        // "The above is a student's response", "위와 같은 답안이 제출되었으나 …": someone
        // else's answer.
        let attributed = words.iter().any(|&x| match self.toks[x].kind {
            // "위 인용은 질문자의 의견입니다".
            Kind::Hangul => [
                "제출",
                "학생",
                "수험생",
                "검증되지",
                "검토가",
                "질문자",
                "의견",
            ]
            .iter()
            .any(|p| self.word(x).starts_with(p)),
            _ => matches!(
                lower(self.word(x)).as_str(),
                "student" | "response" | "submitted" | "unverified" | "someone" | "opinion"
            ),
        });
        // "위 의견에 동의합니다": someone else's answer, taken up.
        let agreed = !negated
            && words.iter().any(|&x| {
                (self.is_hangul(x) && self.word(x).starts_with("동의"))
                    || (self.is_latin(x) && lower(self.word(x)) == "agree")
            });
        points_back && ((wrong && !negated) || (disagreed && negated) || (attributed && !agreed))
    }
}
