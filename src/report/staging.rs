//! A run's output files (verdicts, run record, reports) are written under temporary names in
//! the output folder and renamed into place only when the run completes, so a run that is
//! killed or fails midway leaves the previous complete run as it was: its verdicts and its
//! reports still agree. Not a transaction: each rename is atomic, the set of them is not (a
//! kill between two renames, a few microseconds, could mix runs).

use std::io;
use std::path::{Path, PathBuf};

/// Files being written for one run, renamed into place together by [`Staging::commit`]. If
/// it is dropped without being committed (an error, a panic), the temporary files are
/// removed; a killed process leaves them (`.NAME.partial`), and the next run overwrites them.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    names: Vec<String>,
    committed: bool,
}

impl Staging {
    /// Files for the folder `dir`.
    pub fn new(dir: &Path) -> Staging {
        Staging {
            dir: dir.to_path_buf(),
            names: Vec::new(),
            committed: false,
        }
    }

    /// Where to write the file `name` (`report.json`) until the run completes.
    pub fn path(&mut self, name: &str) -> PathBuf {
        if !self.names.iter().any(|n| n == name) {
            self.names.push(name.to_string());
        }
        self.dir.join(format!(".{name}.partial"))
    }

    /// Where the file `name` ends up.
    pub fn final_path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Rename every staged file into place.
    pub fn commit(mut self) -> io::Result<()> {
        for name in &self.names {
            let from = self.dir.join(format!(".{name}.partial"));
            std::fs::rename(&from, self.dir.join(name))?;
        }
        self.committed = true;
        Ok(())
    }
}

/// Create the output folder `dir` (and its parents) if it does not exist; a file of that name
/// is an error that says so (the system's own words, "File exists", leave a user guessing).
pub fn create_out_dir(dir: &Path) -> io::Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(io::Error::other(
            "exists and is not a folder (the output is a folder of files)",
        ));
    }
    std::fs::create_dir_all(dir)
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            for name in &self.names {
                let _ = std::fs::remove_file(self.dir.join(format!(".{name}.partial")));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_appear_only_on_commit_and_vanish_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "old").unwrap();
        let mut s = Staging::new(dir.path());
        std::fs::write(s.path("a.txt"), "new").unwrap();
        std::fs::write(s.path("b.txt"), "new").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "old"
        );
        drop(s);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "old"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut s = Staging::new(dir.path());
        std::fs::write(s.path("a.txt"), "new").unwrap();
        s.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "new"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
