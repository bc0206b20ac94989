//! lm-evaluation-harness `--log_samples` lines (checked against files lm-eval 0.4.13 wrote):
//! `doc_id`, `arguments` (`{"gen_args_0": {"arg_0": prompt, "arg_1": …}}`), `resps`,
//! `filtered_resps`, `filter`, `metrics` and one value per metric.
//!
//! - Generation tasks: `resps` is `[[text, …]]`, one text per repeat (`--repeats` /
//!   `repeats:`); every one is a sample. kgrade extracts from the raw text itself and ignores
//!   `filtered_resps`.
//! - Loglikelihood (`multiple_choice`) tasks: one `[[logprob, is_greedy]]` per option (lm-eval
//!   writes both as strings), the options' continuations in `arguments.gen_args_i.arg_1`.
//! - A task with several filters writes one line per filter for the same document and the
//!   same answers: the answers are read once; each line's own metric values are tallied per
//!   filter so reports can show lm-eval's figures beside kgrade's. A document that comes
//!   again under a filter it already had is another run of the task (two samples files
//!   concatenated): its answers are read again, as samples their item already had.

use super::{id_of, Generation, LineProblem, Loglikelihoods, ReadState, Shape};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub(super) struct LmEval;

/// lm-eval's own per-document metrics, summed per task and `metric,filter`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LmEvalTally {
    pub tasks: BTreeMap<String, TaskTally>,
}

/// One task's sums: `metric,filter` → (sum, documents).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskTally {
    pub sums: BTreeMap<String, (f64, u64)>,
}

impl LmEvalTally {
    /// Add another file's sums.
    pub fn merge(&mut self, other: LmEvalTally) {
        for (task, tally) in other.tasks {
            let mine = self.tasks.entry(task).or_default();
            for (key, (sum, n)) in tally.sums {
                let e = mine.sums.entry(key).or_default();
                e.0 += sum;
                e.1 += n;
            }
        }
    }

    /// Task → `metric,filter` → mean, as lm-eval's results would show it.
    pub fn means(&self) -> BTreeMap<String, BTreeMap<String, f64>> {
        self.tasks
            .iter()
            .map(|(task, t)| {
                let means = t
                    .sums
                    .iter()
                    .map(|(k, (sum, n))| (k.clone(), if *n == 0 { 0.0 } else { sum / *n as f64 }))
                    .collect();
                (task.clone(), means)
            })
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
}

/// `arguments` as (context, continuation-or-settings) pairs, in request order. lm-eval 0.4
/// writes `{"gen_args_0": {"arg_0", "arg_1"}, …}`; older versions a list of lists.
fn arguments(v: &Value) -> Vec<(Option<&Value>, Option<&Value>)> {
    match v.get("arguments") {
        Some(Value::Object(map)) => {
            let mut args: Vec<(u64, &Value)> = map
                .iter()
                .filter_map(|(k, a)| {
                    k.strip_prefix("gen_args_")
                        .and_then(|n| n.parse().ok())
                        .map(|n| (n, a))
                })
                .collect();
            args.sort_by_key(|(n, _)| *n);
            args.into_iter()
                .map(|(_, a)| (a.get("arg_0"), a.get("arg_1")))
                .collect()
        }
        Some(Value::Array(list)) => list.iter().map(|a| (a.get(0), a.get(1))).collect(),
        _ => Vec::new(),
    }
}

/// The prompt's text. A text model's prompt is a string. A chat model's (`--model
/// local-chat-completions --apply_chat_template`) is its messages: lm-eval 0.4.13 writes them
/// as a list holding one JSON string of `[{"role", "content"}, …]`; the messages' contents
/// are the prompt, in order, so the options the model saw decide the labels as they do for
/// a text prompt.
fn prompt_text(arg: &Value) -> Option<String> {
    fn contents(messages: &[Value]) -> Option<String> {
        let parts: Option<Vec<&str>> = messages
            .iter()
            .map(|m| m.get("content").and_then(Value::as_str))
            .collect();
        parts.filter(|p| !p.is_empty()).map(|p| p.join("\n\n"))
    }
    match arg {
        Value::String(s) => {
            let chat = s.trim_start().starts_with("[{").then(|| {
                serde_json::from_str::<Vec<Value>>(s)
                    .ok()
                    .and_then(|m| contents(&m))
            });
            Some(chat.flatten().unwrap_or_else(|| s.clone()))
        }
        Value::Array(items) if items.iter().all(Value::is_object) => contents(items),
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items.iter().map(prompt_text).collect();
            parts.filter(|p| !p.is_empty()).map(|p| p.join("\n\n"))
        }
        _ => None,
    }
}

/// A number lm-eval may have written as a string.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

impl Shape for LmEval {
    fn name(&self) -> &'static str {
        "lm-eval"
    }

    fn detects(&self, line: &Value) -> bool {
        line.get("doc_id").is_some() && line.get("resps").is_some()
    }

    fn parse(&self, v: &Value, state: &mut ReadState) -> Result<Vec<Generation>, LineProblem> {
        let line = state.line;
        let id = id_of(v.get("doc_id"))
            .ok_or(LineProblem::field("doc_id", "missing or not a number"))?;
        let task = state.task.clone().unwrap_or_default();
        let filter = v.get("filter").and_then(Value::as_str).unwrap_or("none");
        if let Some(metrics) = v.get("metrics").and_then(Value::as_array) {
            let tally = state.lm_eval.tasks.entry(task).or_default();
            for metric in metrics.iter().filter_map(Value::as_str) {
                if let Some(x) = v.get(metric).and_then(number) {
                    let e = tally.sums.entry(format!("{metric},{filter}")).or_default();
                    e.0 += x;
                    e.1 += 1;
                }
            }
        }
        let named = state
            .named
            .entry((id.clone(), filter.to_string()))
            .or_default();
        *named += 1;
        let reads = state.reads.entry(id.clone()).or_default();
        if *named <= *reads {
            // The same document under another filter: the same answers, already read.
            return Ok(Vec::new());
        }
        *reads += 1;
        let resps = v
            .get("resps")
            .and_then(Value::as_array)
            .ok_or(LineProblem::field("resps", "missing or not a list"))?;
        let args = arguments(v);
        let prompt = args.first().and_then(|(p, _)| p.and_then(prompt_text));
        let question = v
            .get("doc")
            .and_then(|d| d.get("question"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let loglikelihood =
            !args.is_empty() && args.iter().all(|(_, a)| a.is_some_and(Value::is_string));
        if loglikelihood {
            let mut logprobs = Vec::with_capacity(resps.len());
            for (i, r) in resps.iter().enumerate() {
                // [[logprob, is_greedy]] per option (or [logprob, is_greedy]).
                let pair = match r.get(0) {
                    Some(inner @ Value::Array(_)) => inner,
                    _ => r,
                };
                let lp = pair.get(0).and_then(number).ok_or_else(|| {
                    LineProblem::field("resps", format!("option {i} has no log-probability"))
                })?;
                logprobs.push(lp);
            }
            let texts: Vec<String> = args
                .iter()
                .map(|(_, a)| {
                    let c = a.and_then(Value::as_str).unwrap_or("");
                    // lm-eval normalises by doc_to_choice's text, without the target
                    // delimiter (a space by default) it prepends to the continuation.
                    c.strip_prefix(' ').unwrap_or(c).to_string()
                })
                .collect();
            if texts.len() != logprobs.len() {
                return Err(LineProblem::field(
                    "resps",
                    format!(
                        "{} log-probabilities for {} options",
                        logprobs.len(),
                        texts.len()
                    ),
                ));
            }
            return Ok(vec![Generation {
                prompt,
                question,
                sample: Some(0),
                loglik: Some(Loglikelihoods { logprobs, texts }),
                ..Generation::text(id, String::new(), line)
            }]);
        }
        let mut out = Vec::new();
        for (i, r) in resps.iter().enumerate() {
            let texts: Vec<&str> = match r {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if texts.is_empty() {
                return Err(LineProblem::field(
                    "resps",
                    format!("request {i} has no text answer"),
                ));
            }
            for text in texts {
                // The repeat is the sample: a document read again (another run of the task
                // concatenated) names samples its item already had, which the join reports.
                out.push(Generation {
                    prompt: prompt.clone(),
                    question: question.clone(),
                    sample: Some(out.len() as u32),
                    ..Generation::text(id.clone(), text.to_string(), line)
                });
            }
        }
        Ok(out)
    }
}
