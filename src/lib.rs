//! kgrade: a grader for Korean multiple-choice LLM evaluations. A deterministic verifier
//! ([`verify`]) decides what a model's free-form answer chose, or abstains so that a judge
//! model decides; reports trace every number to the answers behind it.
//!
//! # Data flow
//!
//! ```text
//! dataset (CSV/JSONL) ──┐
//!                       ├─► join by id ─► verify ─► verdict ──────────────────────┐
//! generations (JSONL) ──┘                   │                                     ├─► verdicts.jsonl
//!                                           └─► escalate (+ audit) ─► judge ─► cache ┘   + report
//! ```
//!
//! One stream: each answer crosses read → join → verify → (escalate → judge) → verdict →
//! report once, in input order (`stages::stream`); `kgrade judge DIR` feeds a run's stored
//! verdicts into the same stream. No stage re-reads what an earlier stage of the same run
//! wrote.
//!
//! # Layers
//!
//! Each layer imports only the ones below it; `tests/architecture.rs` checks it.
//!
//! | layer | modules |
//! |---|---|
//! | stages | [`stages`]: generate (candidate answers over the HTTP client), grade, judge again, extract — one stream read → join → verify → judge → verdict → report |
//! | reports | [`report`]: accumulators over verdicts, JSON/Markdown/terminal renderers |
//! | judge | [`judge`]: rubrics, backends, strict reply parsing, judging with the cache |
//! | HTTP | [`client`]: the one client for model calls (limits, retries, accounting) |
//! | inputs | [`inputs`]: datasets and generations, one module per file shape |
//! | storage | [`cache`]: sled behind one small type |
//! | core | [`types`] (item, verdict, run record) over [`verify`] (choice sets, the pure verifier) |
//!
//! The binary (`src/main.rs`, with one module per command in `src/cli/`) only parses
//! arguments, calls into this library and maps errors to exit codes.

pub mod cache;
pub mod client;
pub mod inputs;
pub mod judge;
pub mod report;
pub mod stages;
pub mod types;
pub mod verify;
