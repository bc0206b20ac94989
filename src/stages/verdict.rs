//! The verify step of the stream: one answer to one item becomes a [`Verdict`]. The labels
//! are the ones the model saw (when the answer carries its prompt, the prompt decides the
//! notation: lm-eval shows KMMLU as `A. …`–`D. …`); a failed request is a `request_error`,
//! counted apart from model mistakes; a loglikelihood item is scored as lm-eval scores it
//! (`acc`: the most likely option; `acc_norm`: the most likely per character of the option's
//! text); reasoning with no final content is `reasoning_only`, shown as it was given.

use crate::inputs::generations::{Generation, Loglikelihoods};
use crate::types::{tail, Item, NormChoice, Source, Verdict, NOT_JUDGED};
use crate::verify::{verify, Choice, ChoiceSet, Extraction};
use std::borrow::Cow;

/// The choice set as the model saw it: the notation of the options in `prompt` (near the
/// item's own question, so that few-shot examples before it do not count), with the item's
/// own option texts. `None` when the prompt shows no option list of the item's size.
pub(crate) fn seen_choices(item: &Item, prompt: &str) -> Option<ChoiceSet> {
    let detected = prompt_options(item, prompt)?;
    if detected.len() != item.choices.len() || detected.notation() == item.choices.notation() {
        return None;
    }
    Some(in_notation(item, detected.notation()).unwrap_or(detected))
}

/// The item's options, with their texts, labelled in `notation` (another than the
/// dataset's); `None` when the item's options have no texts or the notation cannot label
/// them all.
fn in_notation(item: &Item, notation: crate::verify::Notation) -> Option<ChoiceSet> {
    let set = ChoiceSet::new(notation, u8::try_from(item.choices.len()).ok()?).ok()?;
    let texts: Option<Vec<String>> = item
        .choices
        .choices()
        .map(|c| item.choices.option_text(c).map(str::to_string))
        .collect();
    Some(set.with_options(texts?).with_question(&item.question))
}

/// The order the prompt shows the item's options in, when it is another than the dataset's:
/// each option of the prompt's list (near the item's question) has the text of exactly one
/// of the item's options, and not all in their own place. `ordering[k]` is the dataset's
/// option shown k-th, as a circular run's ordering. `None` when the texts do not all match
/// (a prompt that shortens or rewords them says nothing sure about their order).
pub(crate) fn shown_ordering(item: &Item, prompt: &str) -> Option<Vec<u8>> {
    prompt_ordering(item, prompt).filter(|o| !super::circular::is_identity(o))
}

/// The order the prompt shows the item's options in, the dataset's own included; `None`
/// when the texts do not all match.
pub(crate) fn prompt_ordering(item: &Item, prompt: &str) -> Option<Vec<u8>> {
    let detected = prompt_options(item, prompt)?;
    let n = item.choices.len();
    if detected.len() != n {
        return None;
    }
    let key = |t: &str| -> String {
        t.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mine: Vec<String> = (item.choices.choices())
        .map(|c| item.choices.option_text(c).map(key))
        .collect::<Option<_>>()?;
    let mut ordering = Vec::with_capacity(n);
    for c in detected.choices() {
        let theirs = key(detected.option_text(c)?);
        let mut at = mine.iter().enumerate().filter(|(_, m)| **m == theirs);
        let (first, _) = at.next()?;
        if at.next().is_some() || ordering.contains(&(first as u8)) {
            return None;
        }
        ordering.push(first as u8);
    }
    Some(ordering)
}

/// The option list of `prompt` that follows the item's own question (few-shot examples
/// before it do not count).
fn prompt_options(item: &Item, prompt: &str) -> Option<ChoiceSet> {
    let stem: String = item
        .question
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .chars()
        .take(40)
        .collect();
    let from = if stem.is_empty() {
        0
    } else {
        prompt.rfind(stem.as_str()).unwrap_or(0)
    };
    let shown = &prompt[from..];
    // lm-eval's `arc_challenge_chat` writes its prompt in single quotes in YAML, so its
    // line breaks reach the model as a backslash and an `n`: a prompt with no line break
    // of its own lists its options after those (the fixture `9_arc_chat_local`).
    if !shown.contains('\n') && shown.contains("\\n") {
        return ChoiceSet::detect(&shown.replace("\\n", "\n"));
    }
    ChoiceSet::detect(shown)
}

/// The most likely option (the first of equals, as numpy's argmax), by `score`.
fn argmax(scores: impl Iterator<Item = f64>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in scores.enumerate() {
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.map(|(i, _)| i)
}

/// The verdict on one answer, and the text a judge would read if it is escalated.
pub fn verdict_of(item: &Item, sample: u32, g: &Generation) -> (Verdict, String) {
    // The labels the model saw: its prompt's, or those its batch custom_id names (`#n=`).
    let seen = (g.prompt.as_deref().and_then(|p| seen_choices(item, p))).or_else(|| {
        g.shown
            .filter(|&n| n != item.choices.notation())
            .and_then(|n| in_notation(item, n))
    });
    let choices: Cow<ChoiceSet> = match seen {
        Some(set) => Cow::Owned(set),
        None => Cow::Borrowed(&item.choices),
    };
    let mut fields: std::collections::BTreeMap<String, String> =
        item.fields.iter().cloned().collect();
    if let Some(task) = &g.task {
        fields.insert("task".to_string(), task.clone());
    }
    let mut v = Verdict {
        id: item.id.clone(),
        sample,
        status: String::new(),
        rule: String::new(),
        span: None,
        chosen: None,
        gold: choices.label(item.gold),
        chosen_index: None,
        gold_index: item.gold.position(),
        correct: false,
        source: Source::Unresolved,
        choices: choices.to_string(),
        fields,
        candidates: None,
        tail: None,
        note: None,
        line: g.line,
        judge: None,
        acc_norm: None,
        ordering: g.ordering.clone(),
        draw: g.sample,
    };
    let decide = |v: &mut Verdict, chosen: Option<Choice>| {
        v.chosen = chosen.map(|c| choices.label(c));
        v.chosen_index = chosen.map(Choice::position);
        v.correct = chosen == Some(item.gold);
        if chosen.is_some() {
            v.source = Source::Verifier;
        }
    };
    if let Some(error) = &g.error {
        v.status = "request_error".into();
        v.rule = "request_error".into();
        v.note = Some(format!("request failed: {error}"));
        return (v, String::new());
    }
    if let Some(loglik) = &g.loglik {
        score_loglikelihoods(&mut v, &choices, item, loglik);
        return (v, String::new());
    }
    if g.response.trim().is_empty() {
        // The model declined in the provider's own field (OpenAI's `message.refusal`): a
        // final answer that states no choice, with its words kept.
        if let Some(refusal) = g.refusal.as_deref().filter(|r| !r.trim().is_empty()) {
            v.status = "no_answer".into();
            v.rule = "refusal".into();
            v.tail = Some(tail(refusal));
            v.note = Some(format!("the model declined: {}", tail(refusal)));
            return (v, refusal.to_string());
        }
        if let Some(reasoning) = g.reasoning.as_deref().filter(|r| !r.trim().is_empty()) {
            // The server kept reasoning apart and gave no final content (vLLM does this
            // when its reasoning parser never sees the end of the reasoning): the judge
            // may read the reasoning, but nothing is made up here.
            v.status = "no_answer".into();
            v.rule = "reasoning_only".into();
            v.tail = Some(tail(reasoning));
            v.note = Some(NOT_JUDGED.to_string());
            return (v, reasoning.to_string());
        }
    }
    let e = verify(&g.response, &choices);
    v.status = e.status().to_string();
    v.rule = e.rule_name().to_string();
    v.span = e.span().map(|s| [s.start, s.end]);
    decide(&mut v, e.choice());
    if let Extraction::Ambiguous { candidates, .. } = &e {
        v.candidates = Some(candidates.iter().map(|&c| choices.label(c)).collect());
    }
    if v.chosen.is_none() {
        v.tail = Some(tail(&g.response));
        v.note = Some(NOT_JUDGED.to_string());
    }
    (v, g.response.clone())
}

fn score_loglikelihoods(v: &mut Verdict, choices: &ChoiceSet, item: &Item, l: &Loglikelihoods) {
    v.status = "loglikelihood".into();
    v.rule = "acc".into();
    if l.logprobs.len() != choices.len() {
        v.status = "invalid".into();
        v.note = Some(format!(
            "{} option log-likelihoods for {} options",
            l.logprobs.len(),
            choices.len()
        ));
        return;
    }
    let at = |i: Option<usize>| i.and_then(|i| choices.at_position(i + 1));
    let chosen = at(argmax(l.logprobs.iter().copied()));
    // lm-eval's acc_norm divides by the option text's length in characters.
    let norm = at(argmax(
        l.logprobs
            .iter()
            .zip(&l.texts)
            .map(|(lp, t)| lp / t.chars().count().max(1) as f64),
    ));
    v.chosen = chosen.map(|c| choices.label(c));
    v.chosen_index = chosen.map(Choice::position);
    v.correct = chosen == Some(item.gold);
    v.source = Source::Verifier;
    v.acc_norm = norm.map(|c| NormChoice {
        chosen: choices.label(c),
        correct: c == item.gold,
    });
}
