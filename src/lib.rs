//! kgrade: a grader for Korean multiple-choice LLM evaluations. A deterministic verifier
//! ([`verify`]) decides what a model's free-form answer chose, or abstains so that a judge
//! model decides; reports trace every number to the answers behind it.
//!
//! The binary (`src/main.rs`) only parses arguments and calls into this library.

pub mod cache;
pub mod dataset;
pub mod escalate;
pub mod extract;
pub mod generations;
pub mod judge;
pub mod pipeline;
pub mod report;
pub mod verify;
