//! `kgrade compare`: several graded runs of different models on the same dataset, side by
//! side. Reads each run's `verdicts.jsonl` and `run.json` (nothing else, and nothing is
//! graded again), reduces every run's answers to one item to one right or wrong
//! ([`outcome`]: majority vote over samples, all orderings of a circular run), and builds a
//! [`Leaderboard`]: accuracy with Wilson intervals, Bradley–Terry ratings with bootstrap
//! intervals, optional online Elo, per-group accuracy, and exact McNemar tests between every
//! pair. Runs over different datasets or item sets, and circular runs beside plain ones, are
//! refused, naming the difference. The statistics live in [`stats`], the renderers in
//! [`render`].

mod identity;
pub mod outcome;
pub mod render;
pub mod stats;

pub use identity::DatasetIdentity;
pub use outcome::{CircularOutcome, Outcome};

use super::accuracy::wilson_of;
use super::{for_each_verdict, ReportError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The `schema` value of `leaderboard.json`.
pub const LEADERBOARD_SCHEMA: &str = "kgrade.leaderboard";
pub const LEADERBOARD_VERSION: u32 = 2;
/// Bootstrap resamples allowed besides 0 (no intervals): fewer put the 2.5th and 97.5th
/// percentiles on the one or two most extreme resamples (with 1 the "interval" is a single
/// resample, which may not even hold the estimate); more take long for no visible gain
/// (10,000,000 took 21 s on two runs of 100 items, growing with items × runs²).
pub const BOOTSTRAP_MIN: u32 = 100;
pub const BOOTSTRAP_MAX: u32 = 100_000;
/// Shuffled match orders averaged by `--elo`.
pub const ELO_ORDERS: u32 = 100;

/// Why runs could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("compare needs at least two runs, got {0}")]
    TooFewRuns(usize),
    #[error("--bootstrap {0}: give 0 (no rating intervals) or {BOOTSTRAP_MIN} to {BOOTSTRAP_MAX} resamples")]
    Bootstrap(u32),
    #[error("{a} and {b} are the same run; compare different runs")]
    SameRun { a: String, b: String },
    #[error("{dir}: no verdicts.jsonl here; run `kgrade grade` first")]
    NotARun { dir: PathBuf },
    #[error("{path}: no such run directory or verdicts file")]
    NotFound { path: PathBuf },
    #[error("{dir}/run.json: {message}")]
    BadRunJson { dir: PathBuf, message: String },
    #[error(
        "the runs are over different datasets: {a} uses `{dataset_a}`, {b} uses `{dataset_b}`{}",
        if .dataset_a == .dataset_b { " (the same path, but its content changed between the runs)" } else { " (their contents differ)" }
    )]
    DatasetsDiffer {
        a: String,
        dataset_a: String,
        b: String,
        dataset_b: String,
    },
    #[error(
        "the runs are over different datasets: {differing} of the {shared} items they share differ \
         between {a} and {b} (first {first})"
    )]
    ItemsContentDiffer {
        a: String,
        b: String,
        differing: usize,
        shared: usize,
        first: String,
    },
    #[error("the runs cover different items: {0} (pass --common-items to compare on the items they share)")]
    ItemsDiffer(String),
    #[error("the runs share no items")]
    NoCommonItems,
    #[error(
        "{circular} is a circular run (items shown in up to {orderings} orderings, ranked on \
         items right in all of them) and {plain} is not: the two outcomes are not alike. \
         Compare circular runs with circular runs, or pass --circular-outcome original to rank \
         circular runs on their original ordering only (OpenCompass's acc_origin)"
    )]
    MixedCircular {
        circular: String,
        orderings: u64,
        plain: String,
    },
    #[error(
        "{a} shows items in up to {a_orderings} orderings and {b} in up to {b_orderings} \
         (OpenCompass's circular rotations and all_possible permutations): being right in all of \
         them is not the same outcome. Compare runs made with the same --circular mode, or pass \
         --circular-outcome original to rank them on their original ordering only"
    )]
    CircularModes {
        a: String,
        a_orderings: u64,
        b: String,
        b_orderings: u64,
    },
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// How to compare.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// Grouping columns for the per-group tables.
    pub by: Vec<String>,
    /// Bootstrap resamples for the rating intervals (0: no intervals).
    pub bootstrap: u32,
    pub seed: u64,
    /// Also compute online Elo.
    pub elo: bool,
    /// Compare on the items every run has instead of refusing different item sets.
    pub common_items: bool,
    /// How circular runs are read.
    pub circular: CircularOutcome,
}

/// One run on the leaderboard.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ModelRow {
    /// The run's directory, as given.
    pub run: String,
    /// `model` from run.json, or the directory's name.
    pub model: String,
    /// Items compared, and the answers behind them.
    pub items: u64,
    pub answers: u64,
    /// What each item's right or wrong is ([`outcome`]), and the most samples (or
    /// orderings) one item's outcome was reduced from.
    pub outcome: Outcome,
    pub answers_per_item: u64,
    /// Share of items right under `outcome`, with its Wilson 95% interval over items.
    pub accuracy: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Rank by `bt_rating`, 1 best; equal ratings share a rank (1, 2, 2, 4).
    pub rank: u32,
    /// Bradley–Terry rating (Elo scale, mean 1000) and its bootstrap 95% interval (null
    /// with `--bootstrap 0`).
    pub bt_rating: f64,
    pub bt_ci_low: Option<f64>,
    pub bt_ci_high: Option<f64>,
    /// Online Elo averaged over shuffled orders (only with `--elo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    /// grouping column → value → accuracy (mean per-item accuracy within the group).
    pub groups: BTreeMap<String, BTreeMap<String, f64>>,
}

/// One pair of runs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PairRow {
    pub a: String,
    pub b: String,
    /// Items `a` got right and `b` wrong (under each run's outcome).
    pub a_only: u64,
    pub b_only: u64,
    /// Items both got right or both wrong.
    pub ties: u64,
    /// Exact two-sided McNemar p-value on `a_only` against `b_only`.
    pub mcnemar_p: f64,
}

/// What `leaderboard.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Leaderboard {
    pub schema: String,
    pub version: u32,
    /// The dataset `run.json` names (empty when no run has one).
    pub dataset: String,
    /// How the runs were found to be over one dataset.
    pub dataset_identity: DatasetIdentity,
    /// Runs without a `run.json` (their dataset is known only by their items).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs_without_run_json: Vec<String>,
    /// Items compared (every run has all of them).
    pub items: u64,
    /// Items left out by `--common-items`, per run directory.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dropped_items: BTreeMap<String, u64>,
    pub bootstrap: u32,
    pub seed: u64,
    pub group_by: Vec<String>,
    /// Best Bradley–Terry rating first.
    pub models: Vec<ModelRow>,
    /// Every pair, in the order of `models`.
    pub pairs: Vec<PairRow>,
}

/// One run, read: its answers per item and the items' grouping fields.
struct Run {
    dir: String,
    model: String,
    dataset: Option<String>,
    /// `dataset_blake3` from run.json (runs graded before it was recorded have none).
    dataset_hash: Option<String>,
    items: outcome::ItemAnswers,
    fields: BTreeMap<String, BTreeMap<String, String>>,
    /// Each item's gold answer and columns, to tell datasets apart without run.json.
    keys: BTreeMap<String, identity::ItemKey>,
    has_run_json: bool,
}

/// A run as given on the command line, as `kgrade report` takes it: a run directory, or the
/// verdicts file in one. Returns the directory and the verdicts file.
fn run_paths(path: &Path) -> Result<(PathBuf, PathBuf), CompareError> {
    if path.is_dir() {
        let verdicts = path.join("verdicts.jsonl");
        if !verdicts.is_file() {
            return Err(CompareError::NotARun {
                dir: path.to_path_buf(),
            });
        }
        return Ok((path.to_path_buf(), verdicts));
    }
    if !path.is_file() {
        return Err(CompareError::NotFound {
            path: path.to_path_buf(),
        });
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, path.to_path_buf()))
}

fn read_run_dir(dir: &Path, verdicts: &Path, by: &[String]) -> Result<Run, CompareError> {
    // run.json is read loosely: `model` is not written by every producer of a run.
    let run_json: Option<serde_json::Value> = match std::fs::read_to_string(dir.join("run.json")) {
        Ok(text) => Some(
            serde_json::from_str(&text).map_err(|e| CompareError::BadRunJson {
                dir: dir.to_path_buf(),
                message: e.to_string(),
            })?,
        ),
        Err(_) => None,
    };
    let field = |k: &str| {
        run_json
            .as_ref()
            .and_then(|v| v.get(k))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    };
    // Generations naming several models are one run of all of them, and named so.
    let models: Vec<&str> = run_json
        .as_ref()
        .and_then(|v| v.get("models"))
        .and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    let several =
        (models.len() > 1).then(|| format!("{} ({} models)", models.join(", "), models.len()));
    let model = field("model").or(several).unwrap_or_else(|| {
        // `.` (a verdicts file given in the current directory) names no directory itself.
        let named = match dir.file_name() {
            Some(_) => dir.to_path_buf(),
            None => std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()),
        };
        named.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    });
    let mut items = outcome::RunAnswers::default();
    let mut fields: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut keys = BTreeMap::new();
    for_each_verdict(verdicts, |_, v| {
        items.add(&v);
        keys.entry(v.id.clone())
            .or_insert_with(|| identity::ItemKey::of(&v));
        fields.entry(v.id).or_insert_with(|| {
            by.iter()
                .filter_map(|c| v.fields.get(c).map(|x| (c.clone(), x.clone())))
                .collect()
        });
        Ok(())
    })?;
    Ok(Run {
        dir: dir.display().to_string(),
        model,
        dataset: field("dataset"),
        dataset_hash: field("dataset_blake3"),
        items: items.finish(),
        fields,
        keys,
        has_run_json: run_json.is_some(),
    })
}

/// The same file (or folder), however it was named.
fn same_path(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

fn describe_difference(a: &Run, b: &Run) -> String {
    let only = |x: &Run, y: &Run| -> (usize, Vec<String>) {
        let ids: Vec<&String> = x.items.ids().filter(|k| !y.items.contains(k)).collect();
        (
            ids.len(),
            ids.iter().take(5).map(|s| format!("`{s}`")).collect(),
        )
    };
    let (na, first_a) = only(a, b);
    let (nb, first_b) = only(b, a);
    let mut parts = vec![format!(
        "{} has {} items, {} has {}",
        a.dir,
        a.items.len(),
        b.dir,
        b.items.len()
    )];
    if na > 0 {
        parts.push(format!("{na} only in {} ({})", a.dir, first_a.join(", ")));
    }
    if nb > 0 {
        parts.push(format!("{nb} only in {} ({})", b.dir, first_b.join(", ")));
    }
    parts.join("; ")
}

/// Compare the graded runs in `dirs`.
pub fn compare(dirs: &[PathBuf], opts: &CompareOptions) -> Result<Leaderboard, CompareError> {
    if dirs.len() < 2 {
        return Err(CompareError::TooFewRuns(dirs.len()));
    }
    if opts.bootstrap != 0 && !(BOOTSTRAP_MIN..=BOOTSTRAP_MAX).contains(&opts.bootstrap) {
        return Err(CompareError::Bootstrap(opts.bootstrap));
    }
    let paths: Vec<(PathBuf, PathBuf)> = dirs
        .iter()
        .map(|d| run_paths(d))
        .collect::<Result<_, _>>()?;
    for (i, (_, a)) in paths.iter().enumerate() {
        for (k, (_, b)) in paths.iter().enumerate().skip(i + 1) {
            if same_path(&a.display().to_string(), &b.display().to_string()) {
                return Err(CompareError::SameRun {
                    a: dirs[i].display().to_string(),
                    b: dirs[k].display().to_string(),
                });
            }
        }
    }
    let runs: Vec<Run> = paths
        .iter()
        .map(|(dir, verdicts)| read_run_dir(dir, verdicts, &opts.by))
        .collect::<Result<_, _>>()?;
    let first = &runs[0];
    let mut common: BTreeSet<&String> = first.items.ids().collect();
    let mut items_differ = None;
    for r in &runs[1..] {
        let differ =
            r.items.len() != first.items.len() || r.items.ids().any(|k| !first.items.contains(k));
        if differ && !opts.common_items && items_differ.is_none() {
            items_differ = Some(CompareError::ItemsDiffer(describe_difference(first, r)));
        }
        common.retain(|k| r.items.contains(k));
    }
    // Different datasets first: different item sets are then no surprise.
    let dataset_identity = identity::check(&runs, &common)?;
    if let Some(e) = items_differ {
        return Err(e);
    }
    if opts.circular == CircularOutcome::AllOrderings {
        if let (Some(c), Some(p)) = (
            runs.iter().find(|r| r.items.is_circular()),
            runs.iter().find(|r| !r.items.is_circular()),
        ) {
            return Err(CompareError::MixedCircular {
                circular: c.dir.clone(),
                orderings: c.items.orderings,
                plain: p.dir.clone(),
            });
        }
        let circular: Vec<&_> = runs.iter().filter(|r| r.items.is_circular()).collect();
        if let Some(b) = circular
            .iter()
            .find(|r| r.items.orderings != circular[0].items.orderings)
        {
            let a = circular[0];
            return Err(CompareError::CircularModes {
                a: a.dir.clone(),
                a_orderings: a.items.orderings,
                b: b.dir.clone(),
                b_orderings: b.items.orderings,
            });
        }
    }
    let outcomes: Vec<(Outcome, u64)> = runs
        .iter()
        .map(|r| r.items.outcome(opts.circular))
        .collect();
    if common.is_empty() {
        return Err(CompareError::NoCommonItems);
    }
    let ids: Vec<&String> = common.into_iter().collect();
    let m = runs.len();
    let scores: Vec<Vec<f64>> = ids
        .iter()
        .map(|id| {
            runs.iter()
                .zip(&outcomes)
                .map(|(r, &(o, _))| f64::from(u8::from(r.items.right(id, o))))
                .collect()
        })
        .collect();
    let ratings = stats::bradley_terry(&stats::win_matrix(&scores, m));
    let intervals = (opts.bootstrap > 0)
        .then(|| stats::bootstrap_intervals(&scores, m, opts.bootstrap, opts.seed));
    let elo = opts
        .elo
        .then(|| stats::online_elo(&scores, m, ELO_ORDERS, opts.seed));
    let n = ids.len() as u64;

    let mut models: Vec<ModelRow> = Vec::with_capacity(m);
    for (k, run) in runs.iter().enumerate() {
        let accuracy = scores.iter().map(|s| s[k]).sum::<f64>() / n as f64;
        let (ci_low, ci_high) = wilson_of(accuracy, n);
        let mut groups: BTreeMap<String, BTreeMap<String, (f64, u64)>> = BTreeMap::new();
        for (id, s) in ids.iter().zip(&scores) {
            for (col, value) in first.fields.get(*id).into_iter().flatten() {
                let e = groups
                    .entry(col.clone())
                    .or_default()
                    .entry(value.clone())
                    .or_default();
                e.0 += s[k];
                e.1 += 1;
            }
        }
        models.push(ModelRow {
            run: run.dir.clone(),
            model: run.model.clone(),
            items: n,
            answers: ids.iter().map(|id| run.items.answers(id)).sum(),
            outcome: outcomes[k].0,
            answers_per_item: outcomes[k].1,
            accuracy,
            ci_low,
            ci_high,
            bt_rating: ratings[k],
            rank: 0,
            bt_ci_low: intervals.as_ref().map(|i| i[k].0),
            bt_ci_high: intervals.as_ref().map(|i| i[k].1),
            elo: elo.as_ref().map(|e| e[k]),
            groups: groups
                .into_iter()
                .map(|(c, vals)| {
                    let vals = vals
                        .into_iter()
                        .map(|(v, (sum, count))| (v, sum / count as f64))
                        .collect();
                    (c, vals)
                })
                .collect(),
        });
    }
    // Two models with the same name would be indistinguishable in every table.
    let mut seen = BTreeMap::new();
    for row in &models {
        *seen.entry(row.model.clone()).or_insert(0) += 1;
    }
    for row in &mut models {
        if seen[&row.model] > 1 {
            row.model = row.run.clone();
        }
    }
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| {
        models[b]
            .bt_rating
            .total_cmp(&models[a].bt_rating)
            .then(a.cmp(&b))
    });
    let mut pairs = Vec::new();
    for (x, &i) in order.iter().enumerate() {
        for &j in &order[x + 1..] {
            let a_only = scores.iter().filter(|s| s[i] > s[j]).count() as u64;
            let b_only = scores.iter().filter(|s| s[j] > s[i]).count() as u64;
            pairs.push(PairRow {
                a: models[i].model.clone(),
                b: models[j].model.clone(),
                a_only,
                b_only,
                ties: n - a_only - b_only,
                mcnemar_p: stats::mcnemar_exact(a_only, b_only),
            });
        }
    }
    let mut dropped_items = BTreeMap::new();
    for r in &runs {
        let d = r.items.len() as u64 - n;
        if d > 0 {
            dropped_items.insert(r.dir.clone(), d);
        }
    }
    // Only the grouping columns the runs have are named.
    let group_by: Vec<String> = opts
        .by
        .iter()
        .filter(|c| models.iter().any(|m: &ModelRow| m.groups.contains_key(*c)))
        .cloned()
        .collect();
    let mut models: Vec<ModelRow> = order.into_iter().map(|i| models[i].clone()).collect();
    rank_by_rating(&mut models);
    Ok(Leaderboard {
        schema: LEADERBOARD_SCHEMA.to_string(),
        version: LEADERBOARD_VERSION,
        dataset: runs
            .iter()
            .find_map(|r| r.dataset.clone())
            .unwrap_or_default(),
        dataset_identity,
        runs_without_run_json: runs
            .iter()
            .filter(|r| !r.has_run_json)
            .map(|r| r.dir.clone())
            .collect(),
        items: n,
        dropped_items,
        bootstrap: opts.bootstrap,
        seed: opts.seed,
        group_by,
        models,
        pairs,
    })
}

/// Standard competition ranking of rows sorted best first: a row ties the one above when the
/// ratings agree to within 1e-6 points (identical runs fit to the same rating up to the
/// last bits of the iteration).
fn rank_by_rating(models: &mut [ModelRow]) {
    for k in 0..models.len() {
        models[k].rank = if k > 0 && (models[k - 1].bt_rating - models[k].bt_rating).abs() < 1e-6 {
            models[k - 1].rank
        } else {
            k as u32 + 1
        };
    }
}

/// Write `leaderboard.json`, `leaderboard.md` and `leaderboard.html` into `out`.
pub fn write(board: &Leaderboard, out: &Path) -> Result<(), ReportError> {
    let io_err = |path: PathBuf| move |error| ReportError::Io { path, error };
    let json_path = out.join("leaderboard.json");
    let json = serde_json::to_string_pretty(board)
        .map_err(|e| io_err(json_path.clone())(std::io::Error::other(e)))?;
    std::fs::write(&json_path, json + "\n").map_err(io_err(json_path.clone()))?;
    let md_path = out.join("leaderboard.md");
    std::fs::write(&md_path, render::markdown(board)).map_err(io_err(md_path.clone()))?;
    let html_path = out.join("leaderboard.html");
    std::fs::write(&html_path, render::html(board)).map_err(io_err(html_path.clone()))?;
    Ok(())
}
