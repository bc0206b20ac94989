//! Accuracy with its 95% interval: the Wilson score interval over answers when each item has
//! one, over items when items have several (answers to one item are not independent). Used by
//! the reports ([`super::metrics`]) and by `kgrade compare` ([`super::leaderboard`]), so the two
//! give the same interval for the same run. Pure arithmetic.

use serde::{Deserialize, Serialize};

/// Correct out of total, with the accuracy and its Wilson 95% interval.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Accuracy {
    pub n: u64,
    pub correct: u64,
    pub accuracy: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The n the interval uses: `n` (answers) when every item has one answer, else the
    /// number of items (see [`Accuracy::over_items`]).
    #[serde(default)]
    pub ci_n: u64,
    /// With several answers per item: the accuracy's standard error over the items (see
    /// [`ItemSpread`]), which `results.json` gives as lm-eval's `acc_stderr`. `None` with one
    /// answer per item. Not written to `report.json`.
    #[serde(skip)]
    pub item_stderr: Option<f64>,
}

impl Accuracy {
    /// `correct` of `n` independent answers (one per item): the Wilson interval over `n`.
    pub fn new(correct: u64, n: u64) -> Accuracy {
        Accuracy::over_items(correct, n, n)
    }

    /// `correct` of `n` answers to `items` items. Answers to one item are not independent
    /// (3000 copies of one run are not 3000 times the evidence), so when items have several
    /// answers the interval is the Wilson interval at this accuracy over the items, as
    /// `kgrade compare` makes it ([`wilson_of`] over items); with one answer per item it is
    /// the plain Wilson interval over the answers.
    pub fn over_items(correct: u64, n: u64, items: u64) -> Accuracy {
        let accuracy = if n == 0 {
            0.0
        } else {
            correct as f64 / n as f64
        };
        let ci_n = if items > 0 && items < n { items } else { n };
        let (ci_low, ci_high) = if ci_n == n {
            wilson(correct, n)
        } else {
            wilson_of(accuracy, ci_n)
        };
        Accuracy {
            n,
            correct,
            accuracy,
            ci_low,
            ci_high,
            ci_n,
            item_stderr: None,
        }
    }

    /// With the spread of its items' scores: when items have several answers, the standard
    /// error over them.
    pub fn with_spread(mut self, spread: &ItemSpread) -> Accuracy {
        if self.ci_n < self.n {
            self.item_stderr = spread.stderr(self.accuracy, self.n);
        }
        self
    }

    /// What the reports add after the interval when it is over items (empty otherwise).
    pub fn interval_basis(&self) -> String {
        if self.ci_n < self.n {
            format!(" over the {} items", self.ci_n)
        } else {
            String::new()
        }
    }
}

/// The spread of per-item scores behind an accuracy over answers, when items have several
/// answers: sums of correct² (Σc²), correct×answers (Σcn) and answers² (Σn²) over the items.
/// The standard error of the accuracy p = Σc/Σn over m items is then
/// √(Σ(cᵢ − p·nᵢ)² · m/(m − 1)) / Σn, the cluster (item) standard error of a ratio. When every
/// item has k answers it is lm-eval's `mean_stderr` of the per-document mean scores (their
/// sample deviation over √m), and with one answer each, √(p(1 − p)/(n − 1)).
#[derive(Clone, Copy, Debug, Default)]
pub struct ItemSpread {
    items: u64,
    cc: f64,
    cn: f64,
    nn: f64,
}

impl ItemSpread {
    /// One item with `correct` of its `n` answers right.
    pub fn add(&mut self, correct: u64, n: u64) {
        let (c, n) = (correct as f64, n as f64);
        self.items += 1;
        self.cc += c * c;
        self.cn += c * n;
        self.nn += n * n;
    }

    /// The standard error at accuracy `p` over `answers`; `None` below two items.
    pub fn stderr(&self, p: f64, answers: u64) -> Option<f64> {
        if self.items < 2 || answers == 0 {
            return None;
        }
        let squares = (self.cc - 2.0 * p * self.cn + p * p * self.nn).max(0.0);
        let m = self.items as f64;
        Some((squares * m / (m - 1.0)).sqrt() / answers as f64)
    }
}

/// Wilson score interval at 95% (z = 1.96): sound near 0 and 1 and for small n, unlike
/// the normal approximation.
pub fn wilson(correct: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    wilson_of(correct as f64 / n as f64, n)
}

/// [`wilson`] for a proportion `p` over `n` trials (a mean of per-item accuracies when items
/// have several samples).
pub fn wilson_of(p: f64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At the ends the bounds are exactly 0 and 1 (floating point would give 5.55e-17).
    let low = if p <= 0.0 {
        0.0
    } else {
        (center - half).clamp(0.0, 1.0)
    };
    let high = if p >= 1.0 {
        1.0
    } else {
        (center + half).clamp(0.0, 1.0)
    };
    (low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        // 8 of 10: the textbook Wilson interval is 0.490..0.943.
        let (lo, hi) = wilson(8, 10);
        assert!(
            (lo - 0.4902).abs() < 1e-3 && (hi - 0.9433).abs() < 1e-3,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 0.0));
        let (lo, hi) = wilson(0, 5);
        assert!(lo == 0.0 && hi > 0.4);
        // The ends are exact, not 5.55e-17 or 0.9999999999999999.
        assert_eq!(wilson(0, 3).0, 0.0);
        assert_eq!(wilson(3, 3).1, 1.0);
        assert_eq!(wilson(7, 7).1, 1.0);
    }

    /// The item standard error is the sample deviation of the per-item scores over √m when
    /// items have as many answers (lm-eval's `mean_stderr` of per-document means; trial 39:
    /// the binomial figure at the answers' accuracy over items was larger), and lm-eval's
    /// √(p(1 − p)/(n − 1)) with one answer each.
    #[test]
    fn item_standard_error_is_the_per_item_means_standard_error() {
        let se = |items: &[(u64, u64)]| {
            let mut s = ItemSpread::default();
            items.iter().for_each(|&(c, n)| s.add(c, n));
            let (c, n) = items.iter().fold((0, 0), |a, &(c, n)| (a.0 + c, a.1 + n));
            s.stderr(c as f64 / n as f64, n).unwrap()
        };
        // Per-item means 2/3, 1/3, 1: mean 2/3, sample deviation 1/3, over √3.
        let want = (1.0_f64 / 3.0) / 3.0_f64.sqrt();
        assert!((se(&[(2, 3), (1, 3), (3, 3)]) - want).abs() < 1e-12);
        assert!((se(&[(3, 3), (0, 3)]) - 0.5).abs() < 1e-12);
        // One answer per item: √(p(1 − p)/(n − 1)) at p = 3/4, n = 4.
        let want = (0.75_f64 * 0.25 / 3.0).sqrt();
        assert!((se(&[(1, 1), (1, 1), (1, 1), (0, 1)]) - want).abs() < 1e-12);
        // Every item alike: no spread.
        assert!(se(&[(2, 3), (2, 3)]).abs() < 1e-12);
        assert!(ItemSpread::default().stderr(0.5, 3).is_none());
        // The accuracy carries it only when items have several answers.
        let mut s = ItemSpread::default();
        s.add(2, 3);
        s.add(1, 3);
        assert!(Accuracy::over_items(3, 6, 2)
            .with_spread(&s)
            .item_stderr
            .is_some());
        assert!(Accuracy::new(3, 6).with_spread(&s).item_stderr.is_none());
    }
}
