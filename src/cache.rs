//! The model-call cache: sled (pinned at 0.34.7), keyed by a blake3 hash of everything that
//! determines a call. Judge verdicts live in sled's default tree, candidate answers from
//! `kgrade generate` in a tree of their own ([`GENERATIONS_TREE`]). A record is flushed before
//! it counts as done, so a killed run repeats no finished call. All storage sits behind this one small type so it can move to
//! another store without touching the rest. Never stores API keys: callers build keys and
//! values from request content only.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The cache directory when none is given: `$KGRADE_CACHE`, else `$XDG_CACHE_HOME/kgrade`,
/// else `~/.cache/kgrade`, so that runs from any directory share their verdicts. (Relative
/// to the working directory, `.kgrade/cache`, only when no home directory is known.)
pub fn default_path() -> PathBuf {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(p) = env("KGRADE_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = env("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("kgrade");
    }
    if let Some(home) = env("HOME") {
        return PathBuf::from(home).join(".cache").join("kgrade");
    }
    PathBuf::from(".kgrade/cache")
}

/// What is kept for one judgement.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CachedVerdict {
    /// The parsed verdict: `{"choice": …, "reason": …}` or `{"score": …, "reason": …}`.
    pub verdict: serde_json::Value,
    /// The judge's raw reply text.
    pub raw: String,
    pub latency_ms: u64,
    /// Seconds since the Unix epoch when the verdict was stored.
    pub time: u64,
    pub backend: String,
    pub model: String,
    pub rubric: String,
    pub rubric_version: u32,
}

/// The sled tree that holds `kgrade generate`'s answers, apart from judge verdicts.
pub const GENERATIONS_TREE: &str = "generations";

/// What is kept for one generated answer: enough to write its generations line again.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CachedGeneration {
    /// The answer text (`message.content`, or `text` from `/completions`).
    pub response: String,
    /// Reasoning the server returned apart from the answer (`reasoning_content`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The provider declined to answer (OpenAI's `message.refusal`, or `content_filter`
    /// with no content): a final reply with an empty `response`, not a malformed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    /// The model asked for.
    pub model: String,
    pub latency_ms: u64,
    /// Seconds since the Unix epoch when the answer was stored.
    pub time: u64,
}

/// A cache problem, with the path.
#[derive(Debug, thiserror::Error)]
#[error("cache {path}: {message}")]
pub struct CacheError {
    pub path: PathBuf,
    pub message: String,
}

/// Counts for `kgrade cache stats`.
#[derive(Debug, Serialize)]
pub struct CacheStats {
    pub path: String,
    pub entries: usize,
    pub size_on_disk: u64,
    pub by_model: std::collections::BTreeMap<String, usize>,
    /// Answers stored by `kgrade generate`.
    #[serde(default)]
    pub generations: usize,
}

/// The verdict cache.
pub struct Cache {
    db: sled::Db,
    generations: sled::Tree,
    path: PathBuf,
}

impl Cache {
    /// Open (or create) the cache at `path`. Fails at once, with a plain message, when
    /// another kgrade process holds it.
    pub fn open(path: &Path) -> Result<Cache, CacheError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| CacheError {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        }
        let db = sled::open(path).map_err(|e| {
            let text = e.to_string();
            let message = if text.contains("could not acquire lock") || text.contains("WouldBlock")
            {
                "another kgrade process is using this cache; wait for it to finish, or give this run its own --cache DIR".to_string()
            } else {
                text
            };
            CacheError {
                path: path.to_path_buf(),
                message,
            }
        })?;
        let generations = db.open_tree(GENERATIONS_TREE).map_err(|e| CacheError {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(Cache {
            db,
            generations,
            path: path.to_path_buf(),
        })
    }

    /// Open a cache that must already exist (to inspect or clear it): a mistyped path is an
    /// error, never a new empty cache.
    pub fn open_existing(path: &Path) -> Result<Cache, CacheError> {
        if !path.join("db").exists() && !path.join("conf").exists() {
            return Err(CacheError {
                path: path.to_path_buf(),
                message: "no kgrade cache here".to_string(),
            });
        }
        Cache::open(path)
    }

    /// Where the cache lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: impl std::fmt::Display) -> CacheError {
        CacheError {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// The cache key for a judgement: a hash of its parts, in order.
    pub fn key(parts: &[&str]) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        for p in parts {
            // Length-prefixed, so that ("ab","c") and ("a","bc") differ.
            h.update(&(p.len() as u64).to_le_bytes());
            h.update(p.as_bytes());
        }
        *h.finalize().as_bytes()
    }

    pub fn get(&self, key: &[u8; 32]) -> Result<Option<CachedVerdict>, CacheError> {
        match self.db.get(key).map_err(|e| self.err(e))? {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.err(format!("corrupt entry: {e}"))),
        }
    }

    /// Store a verdict and flush it to disk before returning.
    pub async fn put(&self, key: &[u8; 32], value: &CachedVerdict) -> Result<(), CacheError> {
        let bytes = serde_json::to_vec(value).map_err(|e| self.err(e))?;
        self.db.insert(key, bytes).map_err(|e| self.err(e))?;
        self.flush().await
    }

    /// A generated answer, if this exact request was answered before.
    pub fn get_generation(&self, key: &[u8; 32]) -> Result<Option<CachedGeneration>, CacheError> {
        match self.generations.get(key).map_err(|e| self.err(e))? {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| self.err(format!("corrupt generation entry: {e}"))),
        }
    }

    /// Store a generated answer and flush it to disk before returning.
    pub async fn put_generation(
        &self,
        key: &[u8; 32],
        value: &CachedGeneration,
    ) -> Result<(), CacheError> {
        let bytes = serde_json::to_vec(value).map_err(|e| self.err(e))?;
        self.generations
            .insert(key, bytes)
            .map_err(|e| self.err(e))?;
        self.flush().await
    }

    /// Flush every tree to disk (sled flushes the whole database at once).
    async fn flush(&self) -> Result<(), CacheError> {
        // sled's `flush_async` was seen to never complete under many concurrent writers (the
        // judge benchmark hung on it); the blocking flush on a blocking thread does not.
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || db.flush())
            .await
            .map_err(|e| self.err(e))?
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    pub fn stats(&self) -> Result<CacheStats, CacheError> {
        let mut by_model = std::collections::BTreeMap::new();
        let mut entries = 0;
        for kv in self.db.iter() {
            let (_, v) = kv.map_err(|e| self.err(e))?;
            entries += 1;
            if let Ok(c) = serde_json::from_slice::<CachedVerdict>(&v) {
                *by_model
                    .entry(format!(
                        "{}:{} {}@{}",
                        c.backend, c.model, c.rubric, c.rubric_version
                    ))
                    .or_default() += 1;
            }
        }
        Ok(CacheStats {
            path: self.path.display().to_string(),
            entries,
            size_on_disk: self.db.size_on_disk().unwrap_or(0),
            by_model,
            generations: self.generations.len(),
        })
    }

    /// Every entry as a JSON line `{"key": hex, …value}`.
    pub fn export(&self, out: &mut impl std::io::Write) -> Result<usize, CacheError> {
        let mut n = 0;
        for kv in self.db.iter() {
            let (k, v) = kv.map_err(|e| self.err(e))?;
            let mut value: serde_json::Value =
                serde_json::from_slice(&v).map_err(|e| self.err(format!("corrupt entry: {e}")))?;
            let hex: String = k.iter().map(|b| format!("{b:02x}")).collect();
            if let Some(obj) = value.as_object_mut() {
                obj.insert("key".to_string(), serde_json::Value::String(hex));
            }
            serde_json::to_writer(&mut *out, &value).map_err(|e| self.err(e))?;
            out.write_all(b"\n").map_err(|e| self.err(e))?;
            n += 1;
        }
        Ok(n)
    }

    /// Remove every entry (judge verdicts and generated answers).
    pub fn clear(&self) -> Result<usize, CacheError> {
        let n = self.db.len() + self.generations.len();
        self.db.clear().map_err(|e| self.err(e))?;
        self.generations.clear().map_err(|e| self.err(e))?;
        self.db.flush().map_err(|e| self.err(e))?;
        Ok(n)
    }
}
