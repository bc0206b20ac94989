//! A dataset's identity: its content hash, and the subject key of a dataset file's name.

use super::dataset_files;
use std::path::Path;

/// A dataset's identity by content (blake3, hex): the file's bytes, or for a folder each
/// dataset file's name and bytes in name order. Runs graded from copies of one dataset at
/// different paths have the same hash; a file edited in place gets another.
pub fn content_hash(path: &Path) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    if path.is_dir() {
        for file in dataset_files(path)? {
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
            hasher.update(name.unwrap_or_default().as_bytes());
            hasher.update(&[0]);
            hasher.update_reader(std::fs::File::open(&file)?)?;
            hasher.update(&[0]);
        }
    } else {
        hasher.update_reader(std::fs::File::open(path)?)?;
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// A subject's key: lower case, words joined by `_` (`Public-Safety` → `public_safety`), as
/// lm-eval's task names end (`kmmlu_direct_public_safety`).
pub fn subject_key(label: &str) -> String {
    label
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect()
}
