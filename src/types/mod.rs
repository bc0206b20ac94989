//! The vocabulary every layer shares, at the bottom of the crate beside the verifier's choice
//! types ([`crate::verify::ChoiceSet`], [`crate::verify::Choice`],
//! [`crate::verify::Extraction`]): a dataset [`Item`], a [`Verdict`] and who decided it, and
//! what a run records about itself. Data and small helpers only; nothing here reads files or
//! talks to servers, and nothing here imports a module above it.

pub mod item;
pub mod json;
pub mod run;
pub mod verdict;

pub use item::Item;
pub use run::{read_run, write_run, JoinReport, RunInputs};
pub use verdict::{tail, JudgeInfo, NormChoice, Source, Verdict, NOT_JUDGED};
