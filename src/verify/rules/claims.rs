//! Claims made by a label itself: choosing verbs ("③을 선택합니다", strong), conclusions
//! ("따라서 4번입니다", strong) and weaker claims ("③이 맞습니다", "②로 보입니다", "(B) is
//! correct", "④번입니다."), read where the statements reader meets a label.

use super::words::{
    english_asks_untrue, is_alternative_connector, is_subject_or_object_particle, lower,
    option_noun_particle, strip_beon, truth_phrase, VIEW_VERBS,
};
use super::{Ctx, Resolved, Statement, Strength};
use crate::verify::cues::Family;
use crate::verify::scan::{Kind, Mark};
use crate::verify::{Notation, Rule};

/// Verbs of correcting an answer to a label: "②로 정정합니다", "②로 바꿉니다".
const CORRECTING: [&str; 9] = [
    "정정", "수정", "바꾸", "바꿉", "바꿨", "변경", "고치", "고칩", "고쳤",
];

impl Ctx<'_> {
    /// Does a conclusion adverb start the sentence right before the label at `k` ("따라서
    /// ④", "그러므로 4번입니다", "결론적으로 ③")?
    pub(super) fn concluded_at(&self, k: usize) -> bool {
        // "So ①.", "Therefore, D.": the English adverbs, a comma allowed after them.
        let at = if k > 1 && self.toks[k - 1].is_punct(',') {
            k - 1
        } else {
            k
        };
        let adverb = at > 0
            && ((self.is_hangul(at - 1)
                && [
                    "따라서",
                    "그러므로",
                    "결론적으로",
                    "결국",
                    "그러니까",
                    "그래서",
                ]
                .contains(&self.word(at - 1)))
                || (self.is_latin(at - 1)
                    && matches!(
                        lower(self.word(at - 1)).as_str(),
                        "so" | "thus" | "hence" | "therefore"
                    ))
                // "∴ ③": the sign for "therefore".
                || self.toks[at - 1].text(self.text) == "∴");
        adverb && (at == 1 || self.toks[at - 2].is_sentence_end())
    }

    /// The last token of the label at `k` with the 번 or ")" glued to it: "2번", "2)".
    fn label_end(&self, k: usize) -> usize {
        let glued = |j: usize| self.tok(j + 1).is_some_and(|t| t.start == self.toks[j].end);
        let mut j = k;
        if glued(j) && self.is_hangul(j + 1) && self.word(j + 1) == "번" {
            j += 1;
        }
        if glued(j) && self.toks[j + 1].is_punct(')') {
            j += 1;
        }
        j
    }

    /// Does the text end after token `j`, but for closing punctuation and emphasis?
    fn text_ends_after(&self, j: usize) -> bool {
        self.toks[j + 1..]
            .iter()
            .all(|t| t.is_sentence_end() || matches!(t.kind, Kind::Punct('*' | ')' | ']')))
    }

    /// From token `from` to the end of its sentence, is what came before judged right ("옳습니다",
    /// "정답입니다", "맞습니다", "바람직합니다") and not also called wrong?
    fn topic_judged_right(&self, from: usize) -> bool {
        let words = (from..self.toks.len())
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .filter(|&x| self.is_hangul(x));
        let mut right = false;
        for x in words {
            let w = self.word(x);
            if ["틀", "잘못", "실수", "오답", "함정", "아니", "아닙", "않"]
                .iter()
                .any(|p| w.starts_with(p))
            {
                return false;
            }
            right |= ["옳", "맞", "정답", "바람직", "적절", "타당"]
                .iter()
                .any(|p| w.starts_with(p));
        }
        right
    }

    /// Is the label at `k` the predicate of a topic that describes it as something other than
    /// the answer: "헷갈리기 쉬운 것은 ②입니다", "함정은 ②입니다", "제가 처음 고른 것은
    /// ②입니다"? A label that opens its sentence has no topic.
    fn described_topic_before(&self, k: usize) -> bool {
        let mut j = k;
        while j > 0 && matches!(self.toks[j - 1].kind, Kind::Punct(':' | '"' | '\'' | '-')) {
            j -= 1;
        }
        let topic = j > 0
            && self.is_hangul(j - 1)
            && ["은", "는", "이", "가"]
                .iter()
                .any(|e| self.word(j - 1).ends_with(e))
            && !is_subject_or_object_particle(self.word(j - 1));
        if !topic {
            return false;
        }
        // "잘못 고른 답은 ②입니다": the answer word itself is someone's wrong choice.
        if ["답", "정답"]
            .iter()
            .any(|a| self.word(j - 1).starts_with(a))
            && self.wrong_before(j - 1)
        {
            return true;
        }
        // "헷갈리기 쉬운 것은", "함정은", "처음 고른 것은", "다음으로 가까운 것은": a remark on
        // the option, not its choice. Other topics ("조건을 만족하는 것은") may name the answer.
        // The topic's last few words only: the remark modifies it.
        let mut words = (j.saturating_sub(8)..j)
            .rev()
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .filter(|&x| self.is_hangul(x))
            .map(|x| self.word(x));
        words.any(|w| {
            [
                "쉬운",
                "쉽",
                "헷갈",
                "혼동",
                "함정",
                "처음",
                "흔히",
                "자주",
                "실수",
                "착각",
                "다음으로",
                "예시",
                "오답",
                // The option as text, not as an answer: "가장 긴 보기는", "선택률이 가장 높은
                // 보기는", "글자 수가 가장 적은", "답안지에서 지워진".
                "선택률",
                "정답률",
                "글자",
                "길이",
                "지워진",
            ]
            .iter()
            .any(|d| w.contains(d))
                || matches!(w, "긴" | "짧은" | "길고" | "짧고" | "첫")
        }) || self.topic_is_own_text(k, j)
    }

    /// Does the topic before token `j` (ending in 보기는, 선택지는) name the option of the
    /// label at `k` by its own text ("무죄판결에 해당하는 보기는 ①입니다" when ① reads
    /// 무죄판결)? It says which option holds that text, not which is the answer.
    fn topic_is_own_text(&self, k: usize, j: usize) -> bool {
        if j == 0
            || !super::words::OPTION_NOUN_WORDS
                .iter()
                .any(|n| self.word(j - 1).starts_with(n))
        {
            return false;
        }
        let Some(own) = self.choice_at(k).and_then(|c| self.squashed_option(c)) else {
            return false;
        };
        let start = (j.saturating_sub(8)..j)
            .rev()
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .last()
            .unwrap_or(j - 1);
        let topic = super::option_text::squash(
            &self.text[self.toks[start].start as usize..self.toks[j - 1].start as usize],
        );
        own.chars().count() >= 2 && topic.contains(own)
    }

    /// "③을 선택합니다" (strong), "③이 맞습니다", "②로 보입니다", "(B) is correct" (weak).
    pub(super) fn choose_or_weak(&self, k: usize) -> Option<Statement> {
        let r = self.label_at(k)?;
        if let Some(s) = self.forced_pick(k) {
            return Some(s);
        }
        // Most labels in prose make no statement: the alternatives to their left are read
        // only for one that does.
        let make = |strength, rule, last| {
            let (said, first) = self.said_with_left_alternatives(k, r);
            Statement {
                said,
                strength,
                rule,
                first,
                last,
                is_final: self.final_before(k),
                judges: false,
                view: false,
            }
        };
        let judging = |last| Statement {
            judges: true,
            ..make(Strength::Weak, Rule::WeakStatement, last)
        };
        if self.is_hangul(k + 1) {
            // "③번 선택지가 옳지 않은 …", "③ 보기를 고릅니다": a noun for the option between
            // the label and its particle; `q` is the word that ends in the particle.
            let noun_at = |j: usize| {
                self.is_hangul(j)
                    .then(|| option_noun_particle(self.word(j)))
            };
            let (q, p) = match noun_at(k + 1).flatten() {
                Some(p) => (k + 1, p),
                None if self.word(k + 1) == "번" => match noun_at(k + 2).flatten() {
                    Some(p) => (k + 2, p),
                    None => (k + 1, ""),
                },
                None => (k + 1, strip_beon(self.word(k + 1))),
            };
            let next = if self.is_hangul(q + 1) {
                self.word(q + 1)
            } else {
                ""
            };
            let starts = |w: &str, list: &[&str]| list.iter().any(|s| w.starts_with(s));
            // "③번으로 하겠습니다", "③으로 정했습니다", "정답을 ②로 정정합니다": settling on it.
            let corrects = starts(next, &CORRECTING);
            let settles = matches!(p, "로" | "으로")
                && (corrects
                    || starts(
                        next,
                        &["하겠", "할게", "할래", "정하", "정했", "정합", "결정"],
                    ));
            if (matches!(p, "을" | "를" | "로" | "으로")
                && starts(
                    next,
                    &["선택", "고르", "고릅", "골라", "골랐", "고를", "택"],
                ))
                || settles
            {
                // "③을 선택하는 것은 실수입니다": choosing it, as a topic, is judged; only a
                // judgement of right ("…것이 옳습니다", "…것이 정답입니다") makes it a choice.
                // "흔히 ③을 고르는 실수를 합니다", "③을 고르는 학생이 많다": the choosing
                // describes a mistake or people, not the writer's choice.
                let adnominal = (next.ends_with('는') || next.ends_with('한') || next == "고른")
                    && self.is_hangul(q + 2);
                let noun = if adnominal { self.word(q + 2) } else { "" };
                if noun.starts_with('것') && !self.topic_judged_right(q + 3) {
                    return None;
                }
                if [
                    "실수",
                    "오류",
                    "함정",
                    "오답",
                    "경우",
                    "사람",
                    "학생",
                    "분",
                    "수험생",
                    "응시자",
                ]
                .iter()
                .any(|p| noun.starts_with(p))
                {
                    return None;
                }
                // "정답을 ②로 정정합니다": a correction replaces what came before it.
                let mut s = make(Strength::Strong, Rule::Statement, q + 1);
                s.is_final |= settles && corrects;
                return Some(s);
            }
            // "A인 것 같습니다": a hedged single choice, as "③번 같습니다" below.
            // A closing form only: not "같기도 하고" (one of two), "같은데" or "같지".
            if p == "인"
                && next == "것"
                && self.is_hangul(q + 2)
                && starts(
                    self.word(q + 2),
                    &["같습", "같아요", "같다", "같네", "같음"],
                )
                && !self.questioned_after(k)
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, q + 2));
            }
            // "③번 같습니다", "③ 같아요": a hedged single choice.
            let seems = if p.is_empty() { next } else { p };
            if seems.starts_with('같') && !seems.starts_with("같지") && !self.questioned_after(k)
            {
                let last = if p.is_empty() { q + 1 } else { q };
                return Some(make(Strength::Weak, Rule::WeakStatement, last));
            }
            // "저는 ①이라고 생각합니다", "①이 맞다고 봅니다": the writer's view, now.
            let holds = |w: &str| starts(w, &VIEW_VERBS) && !self.questioned_after(k);
            if matches!(p, "이라고" | "라고") && holds(next) {
                let s = make(Strength::Weak, Rule::WeakStatement, q + 1);
                return Some(Statement { view: true, ..s });
            }
            if matches!(p, "이" | "가")
                && starts(next, &["맞다고", "옳다고", "적절하다고", "타당하다고"])
                && self.is_hangul(q + 2)
                && holds(self.word(q + 2))
            {
                return Some(Statement {
                    view: true,
                    ..judging(q + 2)
                });
            }
            // "③번이 가장 적절해 보입니다", "②가 타당하다", "④가 더 적절합니다".
            let judged = if matches!(next, "가장" | "더") && self.is_hangul(q + 2) {
                self.word(q + 2)
            } else {
                next
            };
            if matches!(p, "이" | "가")
                && starts(judged, &["적절", "타당", "올바르", "올바릅", "옳"])
                && !starts(judged, &["적절하지", "타당하지", "올바르지", "옳지"])
            {
                return Some(judging(q + 1));
            }
            // "③이 가장 가능성이 높아 보입니다": the likeliest, a hedged choice.
            if matches!(p, "이" | "가")
                && judged.starts_with("가능성")
                && self.is_hangul(q + 2 + usize::from(next == "가장"))
                && starts(
                    self.word(q + 2 + usize::from(next == "가장")),
                    &["높", "크", "가장"],
                )
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, q + 2));
            }
            // "③번이 옳지 않은 설명입니다", "③이 틀렸습니다": on a question asking what is
            // not so, the judgement it asks for.
            if matches!(p, "이" | "가") && self.asks_negative() {
                let at = if next == "가장" { q + 2 } else { q + 1 };
                let denied_by_next = self.is_hangul(at + 1) && self.word(at + 1).starts_with('않');
                let wrong = starts(
                    judged,
                    &["틀린", "틀렸", "틀립", "틀리다", "틀림", "잘못", "부적절"],
                ) || (starts(
                    judged,
                    &[
                        "옳지",
                        "적절하지",
                        "맞지",
                        "바르지",
                        "올바르지",
                        "일치하지",
                        "해당하지",
                    ],
                ) && denied_by_next);
                if wrong {
                    return Some(make(Strength::Weak, Rule::WeakStatement, at));
                }
            }
            // Predicate forms only: "맞는 설명" and "맞고" describe an option, not a choice.
            let predicate = starts(
                next,
                &[
                    "맞다",
                    "맞습",
                    "맞아",
                    "맞네",
                    "맞음",
                    "맞는다",
                    "맞겠",
                    "맞죠",
                ],
            ) || (next == "맞는"
                && self.is_hangul(q + 2)
                && self.word(q + 2).starts_with('것')
                && self.is_hangul(q + 3)
                && self.word(q + 3).starts_with('같'));
            // Not quoted as a view: "①이 맞다는 견해도 있습니다", "맞다고 하는 사람".
            let quoted = next.ends_with("다는") || next.ends_with("다고");
            if matches!(p, "이" | "가") && predicate && !quoted {
                return Some(judging(q + 1));
            }
            // "④번입니다." as a sentence of its own (or closing a clause).
            let copula = [
                "입니다",
                "이다",
                "임",
                "이에요",
                "예요",
                "이야",
                "이죠",
                "입니다만",
            ];
            let after_label = k > 0 && self.is_label_mark(k - 1);
            // "오답은 ③번입니다": the wrong answer named, not the answer.
            let wrong_named =
                k > 0 && self.is_hangul(k - 1) && self.word(k - 1).starts_with("오답");
            // "따라서 4번입니다", "결론적으로 ③입니다": a conclusion.
            if copula.contains(&p)
                && !after_label
                && !wrong_named
                && self.concluded_at(k)
                && self
                    .tok(q + 1)
                    .is_none_or(|t| t.is_sentence_end() || t.is_punct(','))
            {
                let mut s = make(Strength::Strong, Rule::Statement, q);
                s.is_final = true;
                return Some(s);
            }
            if copula.contains(&p)
                && !after_label
                && !wrong_named
                && !self.answers_another_ask(k)
                && !self.described_topic_before(k)
                && self
                    .tok(q + 1)
                    .is_none_or(|t| t.is_sentence_end() || t.is_punct(','))
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, q));
            }
            if matches!(p, "로" | "으로")
                && starts(
                    next,
                    &[
                        "봤", "보았", "보인", "보입", "생각", "판단", "추정", "예상", "보여",
                    ],
                )
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, q + 1));
            }
        }
        // "그러므로 ④.", "따라서 2번" ending its sentence; "… → 3", "⇒ ③" ending the text.
        let end = self.label_end(k);
        // Not a chain "1 → 2 → 3 → 4", which goes through the options.
        let chained = k > 1
            && (k.saturating_sub(3)..k - 1)
                .any(|j| self.is_label_mark(j) && self.choice_at(j).is_some());
        let arrow = k > 0
            && !chained
            && ["→", "⇒", "=>", "->", "➡"]
                .iter()
                .any(|a| self.toks[k - 1].text(self.text).ends_with(a));
        let plain = || match r {
            Resolved::In(c) => !self.rejected_before(c, k),
            Resolved::Outside => true,
        };
        if ((self.concluded_at(k) && self.tok(end + 1).is_none_or(|t| t.is_sentence_end()))
            || (arrow && self.text_ends_after(end)))
            && plain()
            && !self.answers_posed_ask(k)
        {
            let mut s = make(Strength::Strong, Rule::Statement, end);
            s.is_final = true;
            return Some(s);
        }
        // "준칙주의. 2번.": a label (not an ordinal) as the text's last sentence claims it,
        // weakly; not after a refusal, nor after "혹은" / "or" (an alternative), nor on ○/×
        // items, whose words the O/X rule weighs.
        let after_alternative = k > 1
            && is_alternative_connector(&self.toks[k - 2], self.text)
            && !self.toks[k - 2].is_punct(',');
        if k > 0
            && self.toks[k - 1].is_sentence_end()
            && !after_alternative
            && self.set.notation() != Notation::Ox
            && !matches!(self.mark_at(k), Some(Mark::Ordinal(_)))
            && !self.cues.has(Family::Refusal)
            && self.text_ends_after(end)
            && plain()
            && !self.unnamed_rejection_before(k)
            && !self.answers_posed_ask(k)
            && !self.opens_line_after_invented_stem(k)
        {
            return Some(make(Strength::Weak, Rule::WeakStatement, end));
        }
        // "So which one is it? It's 1.", "No wait, it's 4.": "it is" and the label, ending
        // its sentence.
        let it_is = |at: usize| {
            at > 0
                && self.is_latin(at - 1)
                && matches!(lower(self.word(at - 1)).as_str(), "it" | "that")
        };
        let its =
            (k > 1 && self.is_latin(k - 1) && lower(self.word(k - 1)) == "is" && it_is(k - 1))
                || (k > 2
                    && self.is_latin(k - 1)
                    && lower(self.word(k - 1)) == "s"
                    && matches!(self.toks[k - 2].kind, Kind::Punct(_) | Kind::Other)
                    && it_is(k - 2));
        // Not "There's no way it's J", "I doubt it's C", "I don't think it's B".
        let denied = || {
            (0..k)
                .rev()
                .take_while(|&x| {
                    !self.toks[x].is_sentence_end()
                        && !matches!(self.toks[x].kind, Kind::Punct(';' | ','))
                })
                .any(|x| {
                    self.is_latin(x)
                        && match lower(self.word(x)).as_str() {
                            "not" | "never" | "doubt" | "unlikely" | "hardly" | "t" => true,
                            // "no way", not the interjection of "No wait, it's C".
                            "no" => self.is_latin(x + 1) && lower(self.word(x + 1)) == "way",
                            _ => false,
                        }
                })
        };
        if its && self.tok(end + 1).is_none_or(|t| t.is_sentence_end()) && plain() && !denied() {
            return Some(make(Strength::Weak, Rule::WeakStatement, end));
        }
        if self.is_latin(k + 1) && lower(self.word(k + 1)) == "is" && self.is_latin(k + 2) {
            let w = lower(self.word(k + 2));
            if w == "correct" || w == "right" {
                return Some(judging(k + 2));
            }
            // "(C) is the incorrect statement": on a question asking which is not true, the
            // judgement it asks for.
            // "(4) is the correct statement" on one asking which is so.
            if w == "the"
                && self.is_latin(k + 3)
                && self.is_latin(k + 4)
                && truth_phrase(self.word(k + 3), self.word(k + 4)).is_some_and(|p| {
                    self.asked_polarity() == Some(p) || (!p && english_asks_untrue(&self.ask))
                })
            {
                return Some(make(Strength::Weak, Rule::WeakStatement, k + 4));
            }
        }
        None
    }
}
