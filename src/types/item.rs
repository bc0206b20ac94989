//! One dataset row ready to grade: its id, the question as shown to the model, the choice set
//! and the gold choice, and the columns reports group by.

use crate::verify::{Choice, ChoiceSet};

/// One dataset row ready to grade.
#[derive(Clone, Debug)]
pub struct Item {
    /// The id column's value, or the 0-based row index (lm-eval's `doc_id`).
    pub id: String,
    /// The question as shown to the model, options included.
    pub question: String,
    pub choices: ChoiceSet,
    pub gold: Choice,
    /// Grouping columns (domain, sub_domain, format, lang, Category, …) in file order.
    pub fields: Vec<(String, String)>,
}
