//! The statistics behind `kgrade compare`, pure and deterministic: Bradley–Terry ratings
//! fitted by Hunter's MM algorithm and put on the Elo scale, bootstrap intervals over items,
//! online Elo averaged over shuffled orders, and the exact McNemar test. Inputs are
//! per-item outcomes (1.0 right, 0.0 wrong; see [`super::outcome`]), one row per item, one
//! column per run; nothing here reads files.

/// Elo scale: 400 points per factor of 10 in odds, mean rating 1000.
pub const ELO_SCALE: f64 = 400.0;
pub const ELO_MEAN: f64 = 1000.0;
/// Virtual wins added both ways to every pair before fitting, so a run that never loses
/// (or never wins) gets a finite rating. Small against any real count: with 20 wins to 0
/// the gap is 400·log10(20.1/0.1) ≈ 920 points instead of infinity.
pub const PSEUDO_WINS: f64 = 0.1;
/// The online-Elo step.
pub const ELO_K: f64 = 32.0;

/// `wins[i][j]`: items on which run `i` beat run `j` (a higher per-item score; equal
/// scores are ties and skipped).
pub fn win_matrix(scores: &[Vec<f64>], runs: usize) -> Vec<Vec<f64>> {
    let mut wins = vec![vec![0.0; runs]; runs];
    for item in scores {
        add_item(&mut wins, item, 1.0);
    }
    wins
}

fn add_item(wins: &mut [Vec<f64>], item: &[f64], weight: f64) {
    for i in 0..item.len() {
        for j in 0..item.len() {
            if item[i] > item[j] {
                wins[i][j] += weight;
            }
        }
    }
}

/// Bradley–Terry strengths from a win matrix by the MM iteration of Hunter (2004),
/// `p_i ← W_i / Σ_j n_ij / (p_i + p_j)`, with [`PSEUDO_WINS`] added to every pair, returned
/// as Elo-scaled ratings (`400·log10 p`, shifted to mean 1000).
pub fn bradley_terry(wins: &[Vec<f64>]) -> Vec<f64> {
    let m = wins.len();
    if m == 0 {
        return Vec::new();
    }
    let w = |i: usize, j: usize| wins[i][j] + PSEUDO_WINS;
    let total_wins: Vec<f64> = (0..m)
        .map(|i| (0..m).filter(|&j| j != i).map(|j| w(i, j)).sum())
        .collect();
    let mut p = vec![1.0; m];
    for _ in 0..100_000 {
        let mut next: Vec<f64> = (0..m)
            .map(|i| {
                let denom: f64 = (0..m)
                    .filter(|&j| j != i)
                    .map(|j| (w(i, j) + w(j, i)) / (p[i] + p[j]))
                    .sum();
                if denom > 0.0 {
                    total_wins[i] / denom
                } else {
                    p[i]
                }
            })
            .collect();
        // Strengths are defined up to a factor: fix the geometric mean at 1.
        let log_mean = next.iter().map(|x| x.ln()).sum::<f64>() / m as f64;
        for x in &mut next {
            *x /= log_mean.exp();
        }
        let change = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a / b - 1.0).abs())
            .fold(0.0, f64::max);
        p = next;
        if change < 1e-12 {
            break;
        }
    }
    elo_scale(&p)
}

fn elo_scale(p: &[f64]) -> Vec<f64> {
    let r: Vec<f64> = p.iter().map(|x| ELO_SCALE * x.log10()).collect();
    let mean = r.iter().sum::<f64>() / r.len().max(1) as f64;
    r.iter().map(|x| x - mean + ELO_MEAN).collect()
}

/// A small deterministic generator (xorshift64*, seeded through splitmix64 so that every
/// seed, 0 included, starts well mixed): bootstrap and shuffles need reproducibility for a
/// given `--seed`, not cryptographic quality.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)).max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is below 2^-40 for any item count here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// 2.5th and 97.5th percentiles of each run's rating over `rounds` bootstrap resamples of
/// the items (with replacement, refitted each time); NaN with no rounds or no items.
pub fn bootstrap_intervals(
    scores: &[Vec<f64>],
    runs: usize,
    rounds: u32,
    seed: u64,
) -> Vec<(f64, f64)> {
    if rounds == 0 || scores.is_empty() {
        return vec![(f64::NAN, f64::NAN); runs];
    }
    let mut rng = Rng::new(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds as usize); runs];
    for _ in 0..rounds {
        let mut wins = vec![vec![0.0; runs]; runs];
        for _ in 0..scores.len() {
            add_item(&mut wins, &scores[rng.below(scores.len())], 1.0);
        }
        for (i, r) in bradley_terry(&wins).into_iter().enumerate() {
            samples[i].push(r);
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            (percentile(&s, 0.025), percentile(&s, 0.975))
        })
        .collect()
}

/// The `q` quantile of sorted values, interpolating linearly between neighbours.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

/// Online Elo (K = 32, start 1000) over every decisive head-to-head (item × pair, ties
/// skipped as for Bradley–Terry), averaged over `orders` shuffled match orders: the
/// classic recipe, order-dependent by nature, shown beside the order-free fit.
pub fn online_elo(scores: &[Vec<f64>], runs: usize, orders: u32, seed: u64) -> Vec<f64> {
    let mut matches: Vec<(usize, usize)> = Vec::new();
    for item in scores {
        for i in 0..runs {
            for j in 0..runs {
                if item[i] > item[j] {
                    matches.push((i, j));
                }
            }
        }
    }
    let mut rng = Rng::new(seed);
    let mut sum = vec![0.0; runs];
    let orders = orders.max(1);
    for _ in 0..orders {
        // Fisher–Yates.
        for k in (1..matches.len()).rev() {
            matches.swap(k, rng.below(k + 1));
        }
        let mut r = vec![ELO_MEAN; runs];
        for &(winner, loser) in &matches {
            let expected = 1.0 / (1.0 + 10f64.powf((r[loser] - r[winner]) / ELO_SCALE));
            r[winner] += ELO_K * (1.0 - expected);
            r[loser] -= ELO_K * (1.0 - expected);
        }
        for (s, x) in sum.iter_mut().zip(r) {
            *s += x;
        }
    }
    sum.iter().map(|s| s / f64::from(orders)).collect()
}

/// Exact two-sided McNemar test on the discordant pairs: `b` items only the first run got
/// right, `c` only the second. `p = min(1, 2·P(X ≤ min(b, c)))` with `X ~ Bin(b + c, ½)`.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k_max = b.min(c);
    // Terms in log space: 0.5^n underflows past n ≈ 1074.
    let mut log_term = -(n as f64) * std::f64::consts::LN_2;
    let mut tail = log_term.exp();
    for k in 1..=k_max {
        log_term += ((n - k + 1) as f64).ln() - (k as f64).ln();
        tail += log_term.exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_matches_hand_computed_values() {
        // b = 1, c = 6: n = 7, P(X ≤ 1) = (1 + 7) / 128, p = 16/128.
        assert!((mcnemar_exact(1, 6) - 0.125).abs() < 1e-12);
        // b = 8, c = 2: P(X ≤ 2) = (1 + 10 + 45) / 1024, p = 112/1024.
        assert!((mcnemar_exact(8, 2) - 0.109_375).abs() < 1e-12);
        // Balanced or empty: no evidence of a difference.
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // 0 vs 10: 2 / 1024.
        assert!((mcnemar_exact(0, 10) - 2.0 / 1024.0).abs() < 1e-15);
        // Large counts stay finite and tiny.
        let p = mcnemar_exact(100, 3000);
        assert!(p.is_finite() && p < 1e-300 || p == 0.0);
    }

    #[test]
    fn two_runs_rate_by_the_ratio_of_their_wins() {
        // a beats b on 6 items, b beats a on 2, 2 ties: p_a / p_b = 6.1 / 2.1.
        let scores: Vec<Vec<f64>> = [[1.0, 0.0]; 6]
            .iter()
            .chain([[0.0, 1.0]; 2].iter())
            .chain([[1.0, 1.0], [0.0, 0.0]].iter())
            .map(|r| r.to_vec())
            .collect();
        let wins = win_matrix(&scores, 2);
        assert_eq!(wins, vec![vec![0.0, 6.0], vec![2.0, 0.0]]);
        let r = bradley_terry(&wins);
        let gap = ELO_SCALE * (6.1f64 / 2.1).log10();
        assert!((r[0] - r[1] - gap).abs() < 1e-6, "{r:?}");
        assert!(((r[0] + r[1]) / 2.0 - ELO_MEAN).abs() < 1e-9);
    }

    #[test]
    fn a_run_that_never_loses_stays_finite_and_on_top() {
        let scores = vec![
            vec![1.0, 0.0, 0.0],
            vec![1.0, 1.0, 0.0],
            vec![1.0, 0.0, 1.0],
        ];
        let r = bradley_terry(&win_matrix(&scores, 3));
        assert!(r.iter().all(|x| x.is_finite()));
        assert!(r[0] > r[1] && r[0] > r[2]);
        assert!((r[1] - r[2]).abs() < 1e-6);
    }

    #[test]
    fn three_runs_order_follows_the_counts() {
        // Strengths 4 : 2 : 1 give, on many items, ratings spaced by 400·log10 2.
        let mut wins = vec![vec![0.0; 3]; 3];
        let p = [4.0, 2.0, 1.0];
        for i in 0..3 {
            for j in 0..3 {
                if i != j {
                    wins[i][j] = 10_000.0 * p[i] / (p[i] + p[j]);
                }
            }
        }
        let r = bradley_terry(&wins);
        let step = ELO_SCALE * 2f64.log10();
        assert!(
            (r[0] - r[1] - step).abs() < 0.5 && (r[1] - r[2] - step).abs() < 0.5,
            "{r:?}"
        );
    }

    #[test]
    fn bootstrap_is_reproducible_and_brackets_the_fit() {
        let scores: Vec<Vec<f64>> = (0..40)
            .map(|k| {
                vec![
                    f64::from(u8::from(k % 3 != 0)),
                    f64::from(u8::from(k % 2 == 0)),
                ]
            })
            .collect();
        let a = bootstrap_intervals(&scores, 2, 200, 7);
        assert_eq!(a, bootstrap_intervals(&scores, 2, 200, 7));
        assert_ne!(a, bootstrap_intervals(&scores, 2, 200, 8));
        let fit = bradley_terry(&win_matrix(&scores, 2));
        for (r, (lo, hi)) in fit.iter().zip(&a) {
            assert!(lo <= r && r <= hi, "{lo} {r} {hi}");
        }
    }

    #[test]
    fn online_elo_agrees_on_direction_and_percentiles_interpolate() {
        let scores: Vec<Vec<f64>> = (0..30)
            .map(|k| vec![1.0, f64::from(u8::from(k % 4 == 0))])
            .collect();
        let e = online_elo(&scores, 2, 50, 1);
        assert!(e[0] > e[1]);
        assert!(((e[0] + e[1]) / 2.0 - ELO_MEAN).abs() < 1e-9);
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5), 3.0);
        assert!((percentile(&[0.0, 10.0], 0.025) - 0.25).abs() < 1e-12);
    }
}
