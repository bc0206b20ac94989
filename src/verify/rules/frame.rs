//! The frame a statement sits in, read from its clause: under a supposition ("만약 …라면
//! 정답은 ②", "If it asked the opposite, the answer would be 1"), someone else's ("해설서에서는
//! 정답을 ③이라고 했습니다", "Some sources say C"), a first belief ("처음에는 ③이라고
//! 생각했"), or the answer to another question ("앞 문제의 정답은 4번"). A statement in such a
//! frame states nothing of the writer's own.

use super::denial::is_clause_boundary;
use super::words::{is_conditional_negation, is_final_qualifier, lower, strip_beon};
use super::Ctx;
use crate::verify::scan::Kind;

impl Ctx<'_> {
    /// Does "X를 정답으로" followed by the word at `j` choose X ("선택합니다", "꼽겠습니다",
    /// "표기합니다"), rather than take it as the answer to see what follows: a conditional or
    /// concessive form ("고려하면", "선택하면", "골라도", "선택할 경우", "선택한다고 해
    /// 봅시다"), or a supposing verb ("가정하고", "놓고", "두고", "간주하면")?
    pub(super) fn chosen_as_answer(&self, j: usize) -> bool {
        if !self.is_hangul(j) {
            return true;
        }
        let w = self.word(j);
        let next = if self.is_hangul(j + 1) {
            self.word(j + 1)
        } else {
            ""
        };
        let supposing = ["가정", "간주", "상정", "놓", "두고", "보고"]
            .iter()
            .any(|p| w.starts_with(p))
            || w.ends_with('면')
            || w.ends_with('도')
            || (w.ends_with('게') && next.ends_with('면'))
            || (w.ends_with('할') && ["경우", "때", "시"].iter().any(|n| next.starts_with(n)))
            // "②를 정답으로 선택해 보겠습니다": tried, to be checked.
            || (['해', '어', '아', '여'].iter().any(|&e| w.ends_with(e))
                && ["보", "봅", "볼", "봐"].iter().any(|n| next.starts_with(n)))
            || ((w.ends_with("다고") || w.ends_with("라고"))
                && ["해", "하면", "하자", "치"]
                    .iter()
                    .any(|n| next.starts_with(n)));
        !supposing
    }

    pub(super) fn final_before(&self, k: usize) -> bool {
        (k.saturating_sub(2)..k).any(|j| is_final_qualifier(&self.toks[j], self.text))
    }

    /// Is the answer keyword at `k` called wrong ("틀린 답은 C", "옳지 않은 답은 C", "The wrong
    /// answer is C")? That names an answer that is not right. On a question asking what is
    /// not so, the echo of its ask has read such a phrase already.
    pub(super) fn wrong_before(&self, k: usize) -> bool {
        let Some(p) = k.checked_sub(1) else {
            return false;
        };
        // "잘못 고른 답은 ②", "흔히 고르는 답은 ②": an answer someone chose, not the writer's
        // ("제가 고른 답은 ②", "최종적으로 선택한 답은 ②").
        if self.is_hangul(p)
            && [
                "고른",
                "고르는",
                "선택한",
                "선택하는",
                "택한",
                "찍은",
                "찍는",
            ]
            .contains(&self.word(p))
        {
            let writer = (p.saturating_sub(3)..p).any(|x| {
                self.is_hangul(x)
                    && ["제가", "내가", "저는", "나는", "최종", "최종적으로", "결국"]
                        .contains(&self.word(x))
            });
            return !writer;
        }
        match self.toks[p].kind {
            Kind::Hangul => matches!(
                self.word(p),
                "틀린"
                    | "잘못된"
                    | "그릇된"
                    | "부적절한"
                    | "부정확한"
                    | "않은"
                    | "않는"
                    | "아닌"
            ),
            Kind::Latin => matches!(
                lower(self.word(p)).as_str(),
                "wrong" | "incorrect" | "false" | "bad" | "invalid" | "inaccurate" | "untrue"
            ),
            _ => false,
        }
    }

    /// Take back the statements whose clause denies them (see `takes_back`): their labels
    /// count as denied, and a weaker claim after one of them and a self-correction ("처음엔
    /// ②로 봤지만 다시 보니 ④가 맞다") corrects it.
    /// Does the sentence before token `first` say the statement answers another question
    /// ("앞 문제(7번)의 정답은 4번", "다음 문제의 답은 ③", "3번 문제의 정답은 ②", "그 문제의
    /// 정답은 B였던 것으로 기억합니다", "이전 질문의 답은 2번")?
    pub(super) fn about_another_question(&self, first: usize) -> bool {
        // From the start of the statement's clause: "3번 문제의 정답은 (2)이고, 이 문제의
        // 정답은 (3)" states (3).
        let start = (0..first)
            .rev()
            .find(|&x| {
                self.toks[x].is_sentence_end()
                    || self.toks[x].is_punct(',')
                    || (self.is_hangul(x)
                        && ["이고", "이며", "지만", "으나", "는데"]
                            .iter()
                            .any(|e| self.word(x).ends_with(e)))
            })
            .map_or(0, |x| x + 1);
        if start >= first {
            return false;
        }
        let before = &self.text[self.toks[start].start as usize..self.toks[first].start as usize];
        // "For the opposite question, the answer is C", "The reverse question's answer is C".
        let sentence_start = (0..first)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end())
            .map_or(0, |x| x + 1);
        if (sentence_start..first).any(|x| {
            self.is_latin(x)
                && ["opposite", "reverse", "inverse", "flipped"]
                    .iter()
                    .any(|w| self.word(x).eq_ignore_ascii_case(w))
                && self.is_latin(x + 1)
                && ["question", "questions", "version", "ask"]
                    .iter()
                    .any(|w| self.word(x + 1).eq_ignore_ascii_case(w))
        }) {
            return true;
        }
        const OTHER: [&str; 13] = [
            "반대",
            "정반대",
            "앞",
            "이전",
            "다음",
            "다른",
            "지난",
            "번",
            "그",
            "비슷한",
            "유사한",
            "유사",
            "예전",
        ];
        // "문" is in 문제, 문항 and 질문.
        finder!("문").find(before.as_bytes()).is_some()
            // "이번 문항의 답은 (4)", "이번 질문의 답은 3번": this one.
            && !before.contains("이번 문")
            && !before.contains("이번 질문")
            && ["문제", "문항", "질문"].iter().any(|noun| {
                before.match_indices(noun).any(|(at, _)| {
                    let head = before[..at].trim_end_matches(' ');
                    OTHER.iter().any(|o| {
                        head.strip_suffix(o)
                            .is_some_and(|h| h.is_empty() || h.ends_with([' ', '(', '\n']))
                            || (*o == "번" && head.ends_with(o))
                    })
                })
            })
    }

    /// "The key lists C as the answer", "the answer key gives B": a key as the subject.
    fn key_gives(&self, j: usize) -> bool {
        self.word(j).eq_ignore_ascii_case("key")
            && self.is_latin(j + 1)
            && matches!(
                lower(self.word(j + 1)).as_str(),
                "lists" | "list" | "gives" | "says" | "marks" | "shows" | "has" | "had" | "states"
            )
    }

    /// Is the dash at `j` after a clause of its own that judges what came before ("That's an
    /// error — the answer is D", "This is wrong — …"), so that what follows is a new clause?
    /// Not a heading's dash ("A common mistake — the answer is C").
    fn dash_after_clause(&self, j: usize) -> bool {
        if !(self.toks[j].is_punct('—') || self.toks[j].is_punct('–')) {
            return false;
        }
        let start = (0..j)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end())
            .map_or(0, |x| x + 1);
        let w = |x: usize| {
            if x < j && self.is_latin(x) {
                lower(self.word(x))
            } else {
                String::new()
            }
        };
        matches!(w(start).as_str(), "that" | "this" | "it" | "which")
            && (w(start + 1) == "is"
                || w(start + 1) == "was"
                || (self.toks.get(start + 1).is_some_and(|t| t.is_punct('\''))
                    && w(start + 2) == "s"))
    }

    /// "…기준으로 하면 3, 개정 후 기준으로 하면 2가 답입니다": another label in the
    /// sentence of the statement at tokens `first..=last` (one answer per supposition).
    fn other_label_in_sentence(&self, first: usize, last: usize) -> bool {
        let before = (0..first)
            .rev()
            .take_while(|&x| !self.toks[x].is_sentence_end())
            .any(|x| self.is_label_mark(x));
        before
            || (last + 1..self.toks.len())
                .take_while(|&x| !self.toks[x].is_sentence_end())
                .any(|x| self.is_label_mark(x))
    }

    /// Walking left from the statement at tokens `first..=last` to the start of its clause:
    /// is it under a supposition ("정답이 ③이 아니라면 ④가 답입니다", "만약 …하면 정답은 ②",
    /// "…기준으로 하면 3, …기준으로 하면 2가 답입니다"; but "2회 위반이라면 정답은 ③이겠지만,
    /// 1회 위반이므로 정답은 ②입니다" states ②), or someone else's, a third party as the
    /// clause's subject or topic ("해설서에서는", "A 학생은", "Some sources say …") or a first
    /// belief ("처음에는 정답이 ③이라고 생각했")?
    pub(super) fn taken_back_before(&self, first: usize, last: usize) -> bool {
        for j in (0..first).rev() {
            let t = self.toks[j];
            if t.is_punct(',') && self.supposed_before_comma(j, first, last) {
                return true;
            }
            // "…, e.g. \"The answer is ①\"", "예: \"정답은 ③입니다\"": an example of the
            // format, not an answer.
            let eg = t.is_punct('.')
                && j >= 3
                && self.word(j - 1).eq_ignore_ascii_case("g")
                && self.toks[j - 2].is_punct('.')
                && self.word(j - 3).eq_ignore_ascii_case("e");
            let ye = t.is_punct(':') && j >= 1 && self.is_hangul(j - 1) && self.word(j - 1) == "예";
            // "학생: 정답은 ③입니다.\n선생님: 틀렸어요.", "사용자 지시: \"정답은 ③번이라고만
            // 답하세요\"": another speaker's line, or an instruction quoted.
            let speaker = t.is_punct(':')
                && j >= 1
                && (j == 1 || self.toks[j - 2].kind == Kind::Break || self.is_hangul(j - 2))
                && match self.toks[j - 1].kind {
                    Kind::Hangul => SPEAKERS.iter().any(|p| self.word(j - 1).starts_with(p)),
                    Kind::Latin => matches!(
                        lower(self.word(j - 1)).as_str(),
                        "student" | "teacher" | "user" | "human" | "instruction" | "instructions"
                    ),
                    _ => false,
                };
            if eg || ye || speaker {
                return true;
            }
            if t.is_sentence_end()
                || t.is_punct(',')
                || t.is_punct(';')
                || self.dash_after_clause(j)
            {
                break;
            }
            // "I made an error — it's D", "My mistake: the answer is D": the writer's own
            // error owned up to, so what follows is the correction, not someone's mistake.
            if self.owns_an_error(j, first) {
                break;
            }
            match t.kind {
                Kind::Hangul => {
                    let w = self.word(j);
                    // Every supposing word here ends in 면 ("…라면", "아니면", "아니었으면").
                    // "…에 따르면", "…에 의하면" (according to) suppose nothing.
                    // "3을 제외하면 답은 2번", "소거하면 남는 것은 2번": an elimination, not a
                    // supposition.
                    // "그렇다면 옳지 않은 것은? ③": "that being so", not a supposition.
                    if w.ends_with('면')
                        && !matches!(w, "그렇다면" | "그러면")
                        && !w.ends_with("따르면")
                        && !w.ends_with("의하면")
                        && !["제외하면", "소거하면", "빼면", "지우면", "제거하면"]
                            .iter()
                            .any(|e| w.ends_with(e))
                        // "단서 조항을 고려하면 최종적으로 ③": reasoning, not a supposition.
                        && !is_reasoning(w, j.checked_sub(1).map(|p| self.toks[p].text(self.text)))
                        && (w.ends_with("라면")
                            || w.ends_with("다면")
                            || is_conditional_negation(w)
                            || self.other_label_in_sentence(first, last))
                    {
                        return true;
                    }
                    if ["만약", "만일", "가령"].contains(&w) {
                        return true;
                    }
                    // "정답표에 따르면 정답은 B", "해설에 의하면": an answer key's, not the
                    // writer's (but "법령에 따르면" is the writer's reasoning).
                    if (w == "따르면" || w == "의하면")
                        && j > 0
                        && self.is_hangul(j - 1)
                        && KEYS.iter().any(|p| self.word(j - 1).starts_with(p))
                    {
                        return true;
                    }
                    // The statement's own clause only: "처음엔 ②로 봤지만 | 다시 보니 ④가 맞다".
                    if is_clause_boundary(w) {
                        break;
                    }
                    // "학생 B는 ②를 골랐습니다": a party named by a label ("학생 B는").
                    let labelled_party = j + 2 < first
                        && PARTIES.iter().any(|p| w.starts_with(p))
                        && self.toks[j + 1].mark().is_some()
                        && self.is_hangul(j + 2)
                        && ["은", "는", "이", "가"].contains(&self.word(j + 2));
                    // "학생 답안: ③": a party's answer.
                    let party_answer =
                        j + 1 == first && ["학생", "수험생", "응시자", "친구", "타인"].contains(&w);
                    if labelled_party
                        || party_answer
                        || is_third_party(w)
                        || ["처음엔", "처음에는", "처음에", "원래는", "당초에는", "당초"]
                            .contains(&w)
                    {
                        return true;
                    }
                }
                Kind::Latin
                    if matches!(
                        lower(self.word(j)).as_str(),
                        // "Suppose the last choice is the answer; then …", "If C is the
                        // answer then B …": a supposition.
                        "suppose"
                            | "supposing"
                            | "assume"
                            | "assuming"
                            | "hypothetically"
                            | "imagine"
                            | "pretend"
                            | "if"
                            | "says"
                            | "said"
                            | "claim"
                            | "claims"
                            | "claimed"
                            | "suggests"
                            | "according"
                            | "sources"
                            | "others"
                            | "people"
                            | "friend"
                            | "teacher"
                            | "classmate"
                            | "he"
                            | "she"
                            | "they"
                            | "someone"
                            | "students"
                            | "student"
                            | "candidates"
                            | "examinees"
                            | "takers"
                            | "wrote"
                            | "writes"
                            | "mistake"
                            | "mistakes"
                            | "trap"
                            | "tempting"
                            | "error"
                            | "keys"
                            | "guides"
                            | "textbooks"
                            | "websites"
                    ) || self.key_gives(j)
                        || self.others_say(j) =>
                {
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// Does the clause that ends at the comma `comma` suppose what follows it: "만약 반대로
    /// 물었다면, 답은 1번이었을 것입니다", "If the question asked for the correct one, the
    /// answer would be 1" (a sentence opened by "if" and a statement with "would"; not "If I
    /// had to choose, …", which answers)?
    fn supposed_before_comma(&self, comma: usize, first: usize, last: usize) -> bool {
        if comma == 0 {
            return false;
        }
        if self.is_hangul(comma - 1) {
            let w = self.word(comma - 1);
            return w.ends_with("라면") || w.ends_with("다면") || is_conditional_negation(w);
        }
        let start = (0..comma)
            .rev()
            .find(|&x| self.toks[x].is_sentence_end())
            .map_or(0, |x| x + 1);
        let is = |x: usize, list: &[&str]| {
            self.is_latin(x) && list.iter().any(|l| self.word(x).eq_ignore_ascii_case(l))
        };
        // "According to the answer key, the answer is B": the key's, not the writer's.
        let keyed = is(start, &["according"])
            && (start..comma).any(|x| {
                is(
                    x,
                    &[
                        "key",
                        "solution",
                        "solutions",
                        "textbook",
                        "book",
                        "sources",
                        "teacher",
                    ],
                )
            });
        keyed
            || (is(start, &["if"])
                && !(start..comma).any(|x| is(x, &["had"]) && is(x + 1, &["to"]))
                && (comma..=first.max(last)).any(|x| is(x, &["would", "could", "might"])))
    }

    /// After the statement at tokens `first..=last` (its clause going on at `from`, past the
    /// label's own option text): is it someone else's, with people named right after it
    /// ("③을 정답으로 고른 분들이 많았습니다"), a quote attributed ("정답은 ③번이라고 적혀
    /// 있는데", "정답을 ③이라고 했습니다"), or an answer object set by another verb than a
    /// choosing one ("많은 사람들이 정답을 ③번으로 알고 있습니다")?
    pub(super) fn reported_after(&self, first: usize, last: usize, from: usize) -> bool {
        // "③을 정답으로 고른 분들이 많았습니다", "정답은 ③이라고 많은 사람들이 …": people
        // named right after it.
        // Only after the statement's own verb ("고른", "적은") or a quote ("…이라고"), not in
        // a remark ("정답: ② (학생들이 자주 틀리는 문제)").
        let after_verb = self.is_hangul(last)
            || self.is_hangul(from) && {
                let w = self.word(from);
                w.ends_with("라고") || w.ends_with("다고")
            };
        if after_verb
            && (from..self.toks.len().min(from + 3))
                .take_while(|&x| !self.toks[x].is_sentence_end() && !self.toks[x].is_punct('('))
                .any(|x| self.is_hangul(x) && is_people(self.word(x)))
        {
            return true;
        }
        // The verb after the label: attributed after a quotative, and for "정답을 ③으로 …" a
        // choosing verb, not another ("제시하고", "알고 있습니다").
        let object = self.is_hangul(first) && {
            let w = self.word(first);
            w.ends_with('을') || w.ends_with('를')
        };
        // "④가 정답이라고 가정해 봅시다": the keyword itself quoted.
        if self.is_hangul(last)
            && ["라고", "다고"]
                .iter()
                .any(|q| self.word(last).ends_with(q))
            && self.is_hangul(last + 1)
            && is_attribution(self.word(last + 1))
        {
            return true;
        }
        let mut j = last + 1;
        while let Some(t) = self.tok(j) {
            if t.kind != Kind::Hangul || j > last + 3 {
                return false;
            }
            let w = self.word(j);
            if ["라고", "다고"].iter().any(|q| w.ends_with(q)) {
                return self.is_hangul(j + 1) && is_attribution(self.word(j + 1));
            }
            let particle = strip_beon(w);
            if matches!(particle, "" | "으로" | "로") {
                j += 1;
                continue;
            }
            return object && !CHOOSING.iter().any(|v| w.starts_with(v));
        }
        false
    }
}

/// Verbs that make "정답을 ③으로 …" the writer's own choice.
const CHOOSING: [&str; 27] = [
    "선택",
    "고르",
    "고릅",
    "골라",
    "고를",
    "택",
    "하겠",
    "합니다",
    "한다",
    "할게",
    "정하",
    "정합",
    "봅니다",
    "본다",
    "보겠",
    "판단",
    "생각",
    "추정",
    "예상",
    "결론",
    "제출",
    "체크",
    "표시",
    "마킹",
    "적습",
    "적겠",
    "기재",
];

/// Is the word a third party as subject or topic ("해설서에서는", "많은 사람들이", "학생은",
/// "출제자는", "일부 교재에서는")?
fn is_third_party(w: &str) -> bool {
    const MARKED: [&str; 9] = [
        "은",
        "는",
        "이",
        "가",
        "에서는",
        "에서",
        "에는",
        "들이",
        "들은",
    ];
    PARTIES.iter().any(|p| w.starts_with(p)) && MARKED.iter().any(|m| w.ends_with(m))
}

/// Is the word people, as a subject ("분들이", "사람들이", "학생들은", "수험생이")?
fn is_people(w: &str) -> bool {
    ["분들", "사람", "학생", "수험생", "응시자"]
        .iter()
        .any(|p| w.starts_with(p))
        && ["이", "은", "는", "가", "도"]
            .iter()
            .any(|m| w.ends_with(m))
}

/// Is a word in 면 a step of the writer's reasoning ("고려하면", "종합하면", "다시 보면"), given
/// the word before it?
fn is_reasoning(w: &str, before: Option<&str>) -> bool {
    [
        "고려하면",
        "감안하면",
        "종합하면",
        "정리하면",
        "검토하면",
        "따져보면",
        "비교하면",
        "분석하면",
    ]
    .iter()
    .any(|e| w.ends_with(e))
        || (w == "보면" && before == Some("다시"))
}

/// Is the word after a quotative one that attributes the quote ("했습니다", "한다",
/// "적혀", "나와", "주장", "알려져") or supposes it ("가정해 봅시다", "치고")?
fn is_attribution(w: &str) -> bool {
    [
        "가정",
        "치고",
        "치면",
        "했",
        "한다",
        "합니다",
        "하는",
        "하더",
        "적혀",
        "적혔",
        "나와",
        "나옵",
        "주장",
        "알려",
        "쓰여",
        "써",
        "말하",
        "말했",
        "되어",
        "돼",
    ]
    .iter()
    .any(|a| w.starts_with(a))
}

/// Sources of someone else's answer: answer keys, solution books, textbooks.
const KEYS: [&str; 7] = [
    "정답표",
    "답안지",
    "정답지",
    "해설",
    "교재",
    "모범답안",
    "출제자",
];

/// Speakers other than the writer, and instructions, heading a line ("학생:", "지시사항:").
const SPEAKERS: [&str; 11] = [
    "학생",
    "선생님",
    "교사",
    "교수",
    "사용자",
    "질문자",
    "수험생",
    "응시자",
    "친구",
    "지시",
    "요청",
];

/// Third parties that may hold an answer: "해설서", "학생", "출제자" ….
const PARTIES: [&str; 18] = [
    "해설",
    "교재",
    "책",
    "학생",
    "사람",
    "출제",
    "수험생",
    "응시자",
    "누군가",
    "친구",
    "선생",
    "강사",
    "인터넷",
    "시중",
    "일부",
    "모범답안",
    "혹자",
    "일각",
];
