//! Prompt templates for candidate generation: minijinja files, with built-in defaults for the
//! two benchmark shapes (domain_eval's instruction + question with its inline options, and
//! KMMLU's `질문: … 선택지: (1) …`). A template renders the user message (or, with
//! `--api completions`, the whole prompt). Not for judge rubrics: see `judge::rubric`.
//!
//! Variables: `question` (as shown, options included), `stem` (the question without KMMLU's
//! appended option lines; otherwise the question), `choices` (list of `{label, text}`),
//! `options` (the option texts), `labels`, `id`, and `fields` (the dataset's other columns).

use super::GenerateError;
use crate::inputs::dataset::DatasetFormat;
use crate::types::Item;
use std::path::Path;

const DOMAIN_EVAL: &str = include_str!("templates/domain_eval.jinja");
const KMMLU: &str = include_str!("templates/kmmlu.jinja");

/// A loaded prompt template.
pub struct PromptTemplate {
    env: minijinja::Environment<'static>,
    /// `builtin:domain_eval`, `builtin:kmmlu` or the file's path, for messages.
    pub name: String,
    /// The template text (part of every cache key, so that editing it asks again).
    pub source: String,
    /// KMMLU items carry their options as appended lines; `stem` strips them.
    kmmlu: bool,
}

impl PromptTemplate {
    /// The built-in template for a dataset shape (generic datasets get domain_eval's, since
    /// their questions show their options inline).
    pub fn builtin(format: DatasetFormat) -> PromptTemplate {
        let (name, source) = match format {
            DatasetFormat::Kmmlu => ("builtin:kmmlu", KMMLU),
            _ => ("builtin:domain_eval", DOMAIN_EVAL),
        };
        // The built-in templates are compiled in and checked by the tests below.
        Self::from_source(name, source.to_string(), format).unwrap_or_else(|_| PromptTemplate {
            env: minijinja::Environment::new(),
            name: name.into(),
            source: String::new(),
            kmmlu: false,
        })
    }

    /// A template file (`--template`).
    pub fn load(path: &Path, format: DatasetFormat) -> Result<PromptTemplate, GenerateError> {
        let source = std::fs::read_to_string(path).map_err(|e| GenerateError::Template {
            name: path.display().to_string(),
            message: format!("cannot read: {e}"),
        })?;
        Self::from_source(&path.display().to_string(), source, format)
    }

    fn from_source(
        name: &str,
        source: String,
        format: DatasetFormat,
    ) -> Result<PromptTemplate, GenerateError> {
        let mut env = minijinja::Environment::new();
        // A misspelt variable is an error, not an empty string in every prompt.
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.add_template_owned("prompt".to_string(), source.clone())
            .map_err(|e| GenerateError::Template {
                name: name.to_string(),
                message: e.to_string(),
            })?;
        Ok(PromptTemplate {
            env,
            name: name.to_string(),
            source,
            kmmlu: matches!(format, DatasetFormat::Kmmlu | DatasetFormat::Listed),
        })
    }

    /// The prompt for `item` (already in the option order it is shown in).
    pub fn render(&self, item: &Item) -> Result<String, GenerateError> {
        let set = &item.choices;
        let labels: Vec<String> = set.choices().map(|c| set.label(c)).collect();
        let options = set.options().to_vec();
        let choices: Vec<minijinja::Value> = labels
            .iter()
            .zip(options.iter().map(Some).chain(std::iter::repeat(None)))
            .map(|(label, text)| minijinja::context! { label => label, text => text })
            .collect();
        let stem = if self.kmmlu {
            // As the dataset reader appends them: `(1) …` for numbers, `A. …` otherwise.
            let block: String = labels
                .iter()
                .zip(&options)
                .map(|(label, o)| match set.notation() {
                    crate::verify::Notation::Number => format!("\n({label}) {o}"),
                    _ => format!("\n{label}. {o}"),
                })
                .collect();
            item.question.strip_suffix(&block).unwrap_or(&item.question)
        } else {
            &item.question
        };
        let fields: std::collections::BTreeMap<String, String> =
            item.fields.iter().cloned().collect();
        let ctx = minijinja::context! {
            id => &item.id,
            question => &item.question,
            stem => stem,
            choices => choices,
            options => options,
            labels => labels,
            fields => fields,
        };
        self.env
            .get_template("prompt")
            .and_then(|t| t.render(ctx))
            .map_err(|e| GenerateError::Template {
                name: self.name.clone(),
                message: format!("item `{}`: {e}", item.id),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{ChoiceSet, Notation};

    #[test]
    fn builtin_templates_render_both_shapes() {
        let q = "기관은?\n① 금융위\n② 기재부";
        let choices = ChoiceSet::detect(q).unwrap();
        let item = Item {
            id: "a".into(),
            question: q.into(),
            gold: choices.at_position(1).unwrap(),
            choices,
            fields: vec![],
        };
        let t = PromptTemplate::builtin(DatasetFormat::DomainEval);
        assert_eq!(
            t.render(&item).unwrap(),
            "주어지는 객관식 문제에 대한 정답을 하나만 골라 해당 번호를 출력하세요.\n\n기관은?\n① 금융위\n② 기재부"
        );
        let choices = ChoiceSet::new(Notation::Number, 2)
            .unwrap()
            .with_options(vec!["부산".into(), "서울".into()]);
        let item = Item {
            id: "k".into(),
            question: "수도는?\n(1) 부산\n(2) 서울".into(),
            gold: choices.at_position(2).unwrap(),
            choices,
            fields: vec![],
        };
        let t = PromptTemplate::builtin(DatasetFormat::Kmmlu);
        assert_eq!(
            t.render(&item).unwrap(),
            "질문: 수도는?\n선택지:\n(1) 부산\n(2) 서울\n정답:"
        );
    }

    #[test]
    fn unknown_variables_are_errors() {
        let t =
            PromptTemplate::from_source("t", "{{ nope }}".into(), DatasetFormat::Generic).unwrap();
        let set = ChoiceSet::new(Notation::Number, 2).unwrap();
        let item = Item {
            id: "x".into(),
            question: "q".into(),
            gold: set.at_position(1).unwrap(),
            choices: set,
            fields: vec![],
        };
        let e = t.render(&item).unwrap_err().to_string();
        assert!(e.contains("item `x`"), "{e}");
    }
}
