//! Mutation fuzzing, bounded in time: the bundled inputs with bytes flipped, inserted and
//! deleted, lines duplicated, dropped and cut short, fed to `extract` and `grade` in-process.
//! Neither may panic or hang (each case runs under a watchdog); bad input must come back as
//! located errors, never as a crash.

use kgrade::stages::grade::{run_grade, GradeOptions};
use kgrade::stages::Quiet;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

const WATCHDOG: Duration = Duration::from_secs(20);

fn bundled(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name),
    )
    .unwrap()
}

/// One edit to a byte string.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    DuplicateLine(usize),
    DropLine(usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop::sample::select(vec![
        b"\"".to_vec(),
        b"{".to_vec(),
        b"}".to_vec(),
        b"\n".to_vec(),
        b"\r\n".to_vec(),
        b",".to_vec(),
        b"\xff\xfe".to_vec(),
        "①".as_bytes().to_vec(),
        "</think>".as_bytes().to_vec(),
        "<|channel|>final<|message|>".as_bytes().to_vec(),
        b"null".to_vec(),
        b"\\u0000".to_vec(),
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<usize>(), interesting).prop_map(|(i, s)| Edit::Insert(i, s)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Edit::Delete(i, n)),
        any::<usize>().prop_map(Edit::DuplicateLine),
        any::<usize>().prop_map(Edit::DropLine),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len().max(1);
        match e {
            Edit::Flip(i, b) => {
                if !bytes.is_empty() {
                    bytes[i % len] ^= b;
                }
            }
            Edit::Insert(i, s) => {
                let at = i % (bytes.len() + 1);
                bytes.splice(at..at, s.iter().copied());
            }
            Edit::Delete(i, n) => {
                let at = i % len;
                let end = (at + n).min(bytes.len());
                if at < end {
                    bytes.drain(at..end);
                }
            }
            Edit::DuplicateLine(i) | Edit::DropLine(i) => {
                let mut lines: Vec<Vec<u8>> =
                    bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
                let k = i % lines.len();
                if matches!(e, Edit::DuplicateLine(_)) {
                    let line = lines[k].clone();
                    lines.insert(k, line);
                } else {
                    lines.remove(k);
                }
                bytes = lines.join(&b'\n');
            }
            Edit::Truncate(i) => bytes.truncate(i % len),
        }
    }
    bytes
}

/// Run `f` on another thread; fail if it panics or outlives the watchdog.
fn within_watchdog<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(WATCHDOG) {
        Ok(v) => {
            let _ = handle.join();
            v
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: still running after {WATCHDOG:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn extract_never_panics_or_hangs_on_mutated_answers(edits in prop::collection::vec(edit(), 1..12)) {
        let input = apply(bundled("sample_answers.jsonl"), &edits);
        let summary = within_watchdog("extract", move || {
            let mut out = Vec::new();
            kgrade::stages::extract::run("fuzz", input.as_slice(), &mut out, |_| {}).map(|s| (s, out))
        });
        let (summary, out) = summary.unwrap();
        // One output line per input line that was not blank.
        prop_assert_eq!(out.iter().filter(|&&b| b == b'\n').count() as u64, summary.lines);
    }

    #[test]
    fn grade_never_panics_or_hangs_on_mutated_inputs(
        data_edits in prop::collection::vec(edit(), 0..4),
        gen_edits in prop::collection::vec(edit(), 1..12),
        shape in 0usize..3,
    ) {
        let (dataset, generations) = [
            ("domain_eval_sample.csv", "generations_reasoning.jsonl"),
            ("domain_eval_sample.csv", "generations_terse.jsonl"),
            ("kmmlu_sample.csv", "kmmlu_lm_eval_samples.jsonl"),
        ][shape];
        let data = apply(bundled(dataset), &data_edits);
        let gens = apply(bundled(generations), &gen_edits);
        within_watchdog("grade", move || {
            let tmp = tempfile::tempdir().unwrap();
            let d = write(tmp.path(), dataset, &data);
            let g = write(tmp.path(), "g.jsonl", &gens);
            let out = tmp.path().join("out");
            let result = run_grade(
                GradeOptions {
                    dataset: &d,
                    columns: Default::default(),
                    generations: &g,
                    generations_format: None,
                    id_pattern: None,
                    out_dir: &out,
                    by: None,
                    strict: false,
                    judge: None,
                },
                &mut Quiet,
            );
            // Graded or refused with a located error; when graded, the reports exist.
            if result.is_ok() {
                assert!(out.join("report.json").exists() && out.join("verdicts.jsonl").exists());
            }
        });
    }
}
