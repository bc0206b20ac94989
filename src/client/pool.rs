//! Several servers for one model (replicas): each request goes to the live endpoint with the
//! fewest requests outstanding, and an endpoint whose calls keep failing is taken out of
//! rotation so the run goes on with the rest. The last live endpoint is never taken out: with
//! nowhere else to go, its failures end as task failures instead. Not a client: calls still
//! go through the one [`super::Client`] and its limits.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// How many failed calls in a row take an endpoint out of rotation.
pub const FAILURES_TO_REMOVE: u32 = 3;

struct Endpoint {
    base: String,
    outstanding: AtomicUsize,
    failures_in_a_row: AtomicU32,
    removed: AtomicBool,
    succeeded: AtomicU64,
    failed: AtomicU64,
}

/// The endpoints of a run.
pub struct Endpoints {
    list: Vec<Endpoint>,
    /// Rotates the starting point of the search so that ties do not always favour the first.
    turn: AtomicUsize,
}

/// One endpoint taken for one call; counts as outstanding until dropped.
pub struct Lease<'a> {
    pool: &'a Endpoints,
    index: usize,
}

impl Lease<'_> {
    /// The endpoint's base URL (e.g. `http://127.0.0.1:8000/v1`).
    pub fn base(&self) -> &str {
        &self.pool.list[self.index].base
    }

    /// The base URL as messages show it: without user-info, which may hold a key.
    pub fn shown(&self) -> String {
        super::redact::shown_url(self.base()).into_owned()
    }

    /// Its position in the list given to [`Endpoints::new`].
    pub fn index(&self) -> usize {
        self.index
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.pool.list[self.index]
            .outstanding
            .fetch_sub(1, Ordering::Relaxed);
    }
}

/// How one endpoint fared, for the run's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointStats {
    pub base: String,
    pub succeeded: u64,
    pub failed: u64,
    pub removed: bool,
}

impl Endpoints {
    /// The endpoints, by base URL (a trailing `/` is dropped).
    pub fn new(bases: &[String]) -> Endpoints {
        Endpoints {
            list: bases
                .iter()
                .map(|b| Endpoint {
                    base: b.trim_end_matches('/').to_string(),
                    outstanding: AtomicUsize::new(0),
                    failures_in_a_row: AtomicU32::new(0),
                    removed: AtomicBool::new(false),
                    succeeded: AtomicU64::new(0),
                    failed: AtomicU64::new(0),
                })
                .collect(),
            turn: AtomicUsize::new(0),
        }
    }

    /// How many endpoints there are, in rotation or not.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many endpoints are still in rotation.
    pub fn live(&self) -> usize {
        self.list
            .iter()
            .filter(|e| !e.removed.load(Ordering::Relaxed))
            .count()
    }

    /// The live endpoint with the fewest outstanding requests, skipping those in `tried`.
    pub fn acquire(&self, tried: &[usize]) -> Option<Lease<'_>> {
        let n = self.list.len();
        if n == 0 {
            return None;
        }
        let start = self.turn.fetch_add(1, Ordering::Relaxed) % n;
        let best = (0..n)
            .map(|k| (start + k) % n)
            .filter(|i| !tried.contains(i) && !self.list[*i].removed.load(Ordering::Relaxed))
            .min_by_key(|i| self.list[*i].outstanding.load(Ordering::Relaxed))?;
        self.list[best].outstanding.fetch_add(1, Ordering::Relaxed);
        Some(Lease {
            pool: self,
            index: best,
        })
    }

    /// The call on `lease` succeeded.
    pub fn succeeded(&self, lease: &Lease) {
        let e = &self.list[lease.index];
        e.failures_in_a_row.store(0, Ordering::Relaxed);
        e.succeeded.fetch_add(1, Ordering::Relaxed);
    }

    /// The call on `lease` failed after its retries. Returns a message when this failure took
    /// the endpoint out of rotation.
    pub fn failed(&self, lease: &Lease, reason: &str) -> Option<String> {
        let e = &self.list[lease.index];
        e.failed.fetch_add(1, Ordering::Relaxed);
        let in_a_row = e.failures_in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
        if in_a_row < FAILURES_TO_REMOVE || self.live() <= 1 {
            return None;
        }
        // Only the caller that flips the flag reports it.
        if e.removed.swap(true, Ordering::Relaxed) {
            return None;
        }
        if self.live() == 0 {
            // Two endpoints failing at once must not both go: keep this one.
            e.removed.store(false, Ordering::Relaxed);
            return None;
        }
        Some(format!(
            "endpoint {} taken out of rotation after {in_a_row} failed calls in a row (last: {reason}); {} left",
            super::redact::shown_url(&e.base),
            self.live()
        ))
    }

    /// How each endpoint fared.
    pub fn stats(&self) -> Vec<EndpointStats> {
        self.list
            .iter()
            .map(|e| EndpointStats {
                base: super::redact::shown_url(&e.base).into_owned(),
                succeeded: e.succeeded.load(Ordering::Relaxed),
                failed: e.failed.load(Ordering::Relaxed),
                removed: e.removed.load(Ordering::Relaxed),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize) -> Endpoints {
        Endpoints::new(
            &(0..n)
                .map(|i| format!("http://h{i}/v1/"))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn least_outstanding_first() {
        let p = pool(3);
        let a = p.acquire(&[]).unwrap();
        let b = p.acquire(&[]).unwrap();
        let c = p.acquire(&[]).unwrap();
        let mut seen = vec![a.index(), b.index(), c.index()];
        seen.sort();
        assert_eq!(
            seen,
            vec![0, 1, 2],
            "each endpoint takes one before any takes two"
        );
        let freed = b.index();
        drop(b);
        assert_eq!(p.acquire(&[]).unwrap().index(), freed);
        assert!(a.base().ends_with("/v1"));
    }

    #[test]
    fn failing_endpoint_leaves_rotation_but_the_last_one_stays() {
        let p = pool(2);
        let mut removed = None;
        for _ in 0..FAILURES_TO_REMOVE {
            let l = p.acquire(&[1]).unwrap();
            assert_eq!(l.index(), 0);
            removed = p.failed(&l, "could not connect");
        }
        assert!(removed
            .unwrap()
            .contains("http://h0/v1 taken out of rotation"));
        assert_eq!(p.live(), 1);
        assert!(p.acquire(&[1]).is_none(), "endpoint 0 is out");
        for _ in 0..10 {
            let l = p.acquire(&[]).unwrap();
            assert_eq!(l.index(), 1);
            assert!(p.failed(&l, "boom").is_none());
        }
        assert_eq!(p.live(), 1);
        let s = p.stats();
        assert_eq!((s[0].failed, s[0].removed, s[1].removed), (3, true, false));
    }
}
