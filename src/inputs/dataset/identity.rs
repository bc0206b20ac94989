//! A dataset's identity: its content hash, and the subject key of a dataset file's name.

use super::dataset_files;
use std::path::Path;

/// A dataset's identity by content (blake3, hex): the file's bytes, or for a folder each
/// dataset file's name and bytes in name order. Runs graded from copies of one dataset at
/// different paths have the same hash; a file edited in place gets another.
pub fn content_hash(path: &Path) -> std::io::Result<String> {
    let files = match path.is_dir() {
        true => Some(
            (dataset_files(path)?.into_iter())
                .map(|f| {
                    let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
                    (name.unwrap_or_default(), f)
                })
                .collect(),
        ),
        false => None,
    };
    crate::inputs::content_hash(path, files)
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
