//! How a dataset is read, shared by the commands that read one (`grade`, `generate`): the
//! column map and a fixed choice set.

use anyhow::Context;
use clap::Args;
use kgrade::inputs::dataset::ColumnMap;
use kgrade::verify::ChoiceSet;

#[derive(Args, Clone)]
pub struct ColumnArgs {
    /// Dataset id column (default: `id` if present, else the 0-based row index; `@row` for the
    /// row index whatever id column the file has, as lm-eval's doc_id counts).
    #[arg(long)]
    id_col: Option<String>,
    /// Dataset question column (default: `question`).
    #[arg(long)]
    question_col: Option<String>,
    /// Dataset answer column (default: `answer`).
    #[arg(long)]
    answer_col: Option<String>,
    /// Choice set for every item (circled:N, number:N, letter:N, ox) instead of detecting it.
    #[arg(long)]
    choices: Option<String>,
}

impl ColumnArgs {
    /// The column map these options describe; a bad `--choices` is an error naming it.
    pub fn column_map(&self) -> anyhow::Result<ColumnMap> {
        let choices = self
            .choices
            .as_deref()
            .map(str::parse::<ChoiceSet>)
            .transpose()
            .context("--choices")?;
        Ok(ColumnMap {
            id: self.id_col.clone(),
            question: self.question_col.clone(),
            answer: self.answer_col.clone(),
            choices,
        })
    }
}
