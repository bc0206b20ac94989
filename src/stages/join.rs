//! The join: generations matched with dataset items by id, in file order. Unknown ids,
//! items without generations and unreadable lines are counted in the [`JoinReport`] (and the
//! first of each listed), never silently dropped.

use super::Observer;
use crate::inputs::dataset::Dataset;
use crate::inputs::generations::{Generation, Generations};
use crate::types::JoinReport;

/// How many unknown ids and unreadable lines are listed by name.
const LISTED: usize = 200;

/// Generations joined with dataset items, in file order: what `grade` verifies and what
/// `judge` pairs with the verdicts it re-reads. Unknown ids and unreadable lines are counted
/// in `join` and skipped.
pub struct Joiner<'a> {
    dataset: &'a Dataset,
    reader: Generations,
    pending: std::vec::IntoIter<Generation>,
    samples: Vec<u32>,
    lines: u64,
    pub join: JoinReport,
}

impl<'a> Joiner<'a> {
    pub fn new(dataset: &'a Dataset, reader: Generations, generations_name: &str) -> Self {
        Joiner {
            dataset,
            reader,
            pending: Vec::new().into_iter(),
            samples: vec![0; dataset.items.len()],
            lines: 0,
            join: JoinReport {
                dataset: dataset.path.display().to_string(),
                generations: generations_name.to_string(),
                items: dataset.items.len(),
                duplicate_dataset_ids: dataset.duplicate_ids.clone(),
                judge: "not configured".to_string(),
                ..JoinReport::default()
            },
        }
    }

    /// The next answer: its item's index, its sample number, and the generation.
    pub fn next(&mut self, observer: &mut dyn Observer) -> Option<(usize, u32, Generation)> {
        loop {
            for g in self.pending.by_ref() {
                let Some(index) = self.dataset.find(g.task.as_deref(), &g.id) else {
                    self.join.unknown_ids += 1;
                    if self.join.unknown_ids_listed.len() < LISTED {
                        self.join.unknown_ids_listed.push(match &g.task {
                            Some(task) => format!("{task}/{}", g.id),
                            None => g.id,
                        });
                    }
                    continue;
                };
                let sample = self.samples[index];
                self.samples[index] += 1;
                self.join.answers += 1;
                return Some((index, sample, g));
            }
            let result = self.reader.next_line()?;
            self.lines += 1;
            if self.lines.is_multiple_of(1024) {
                observer.bytes_read(self.reader.bytes_read());
            }
            match result {
                Ok(batch) => self.pending = batch.into_iter(),
                Err(e) => {
                    observer.unreadable(&e);
                    self.join.unreadable_lines += 1;
                    if self.join.unreadable_listed.len() < LISTED {
                        self.join.unreadable_listed.push(e.to_string());
                    }
                }
            }
        }
    }

    /// The I/O error that ended the generations early, with its file, if one did.
    pub fn take_io_error(&mut self) -> Option<(std::path::PathBuf, std::io::Error)> {
        self.reader.take_io_error()
    }

    /// The join report, with the items that got no generation.
    pub fn finish(mut self, observer: &mut dyn Observer) -> JoinReport {
        observer.bytes_read(self.reader.bytes_read());
        self.join.tasks.clone_from(&self.reader.tasks);
        self.join.lm_eval = self.reader.lm_eval().means();
        self.join.items_without_generations = self
            .dataset
            .items
            .iter()
            .zip(&self.samples)
            .filter(|(_, &n)| n == 0)
            .map(|(item, _)| item.id.clone())
            .collect();
        self.join
    }
}
