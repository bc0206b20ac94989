//! The join: generations matched with dataset items by id, in file order. Unknown ids,
//! items without generations and unreadable lines are counted in the [`JoinReport`] (and the
//! first of each listed), never silently dropped.

use super::Observer;
use crate::inputs::dataset::Dataset;
use crate::inputs::generations::{Generation, Generations};
use crate::types::JoinReport;

/// How many unknown ids and unreadable lines are listed by name.
pub(crate) const LISTED: usize = 200;
/// Models kept for run.json when generations name several.
const MODELS_LISTED: usize = 20;

/// Letters and digits of a question's first line compared with the question a generation
/// line carries: enough to tell two questions apart, few enough that a template's wording
/// after them does not matter.
const QUESTION_KEY: usize = 24;

/// A question's first line (its options follow on later lines), letters and digits only,
/// lower-cased, at most [`QUESTION_KEY`] of them: spacing, punctuation and markup differ
/// between a dataset file and the copy a harness shows the model.
fn question_key(text: &str) -> String {
    text.trim_start()
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .take(QUESTION_KEY)
        .collect()
}

/// A question's first line, shortened for a message.
fn question_start(text: &str) -> String {
    let first = text.trim_start().lines().next().unwrap_or("").trim();
    let mut out: String = first.chars().take(40).collect();
    if first.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// Does the generation's own question (lm-eval's `doc.question`, else its prompt) fit the
/// dataset question? `None` when the line carries neither or the keys are too short to say.
fn question_fits(dataset_question: &str, g: &Generation) -> Option<bool> {
    let mine = question_key(dataset_question);
    if mine.chars().count() < 4 {
        return None;
    }
    if let Some(theirs) = g.question.as_deref().map(question_key) {
        let n = mine.chars().count().min(theirs.chars().count());
        if n < 4 {
            return None;
        }
        return Some(mine.chars().take(n).eq(theirs.chars().take(n)));
    }
    // A prompt may put instructions or examples first: the question must be in it.
    let prompt: String = g
        .prompt
        .as_deref()?
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    Some(prompt.contains(&mine))
}

/// How an OpenCompass task's keys map to its rows ([`Joiner::opencompass_row`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Keys {
    /// One entry a row, the rows over again for each sample.
    Rows,
    /// One entry a row and ordering, `per` entries a row once known.
    Circular { per: Option<u64> },
}

/// Generations joined with dataset items, in file order: what `grade` verifies and what
/// `judge` pairs with the verdicts it re-reads. Unknown ids and unreadable lines are counted
/// in `join` and skipped.
pub struct Joiner<'a> {
    dataset: &'a Dataset,
    reader: Generations,
    pending: std::vec::IntoIter<Generation>,
    samples: Vec<u32>,
    /// Per item, the (sample, ordering) pairs its lines named, hashed: a pair named twice is
    /// an answer given twice (a file concatenated with itself, a retry beside its failure).
    named: Vec<Vec<u64>>,
    /// The rows of each task's dataset, for OpenCompass's keys, and how each task's keys
    /// map to rows; a task's first entry, held until the next shows that.
    task_rows: std::collections::HashMap<String, u64>,
    oc_keys: std::collections::HashMap<String, Keys>,
    held: Option<Generation>,
    /// Pending entries already mapped to their rows (a held entry and the one after it).
    premapped: usize,
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
            named: vec![Vec::new(); dataset.items.len()],
            task_rows: std::collections::HashMap::new(),
            oc_keys: std::collections::HashMap::new(),
            held: None,
            premapped: 0,
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
            while let Some(mut g) = self.pending.next() {
                if self.reader.opencompass && self.premapped > 0 {
                    self.premapped -= 1;
                } else if self.reader.opencompass {
                    let ready = self.opencompass_row(&mut g);
                    // A held first entry goes out before this one, once this one has shown
                    // the layout (or is another task's first entry: then it is one row).
                    if let Some(mut held) = self.held.take() {
                        if !ready || held.task != g.task {
                            let task = held.task.clone().unwrap_or_default();
                            self.oc_keys.entry(task).or_insert(Keys::Rows);
                        }
                        self.opencompass_row(&mut held);
                        self.premapped = if ready { 2 } else { 1 };
                        let rest: Vec<Generation> =
                            [held, g].into_iter().chain(self.pending.by_ref()).collect();
                        self.pending = rest.into_iter();
                        continue;
                    }
                    if !ready {
                        self.held = Some(g);
                        continue;
                    }
                }
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
                self.check_question(index, &g);
                self.note_model(g.model.as_deref());
                self.note_repeat(index, &g);
                let sample = self.samples[index];
                self.samples[index] += 1;
                self.join.answers += 1;
                // A failed request (`error` on the line) is graded as `request_error`.
                self.join.request_errors += u64::from(g.error.is_some());
                return Some((index, sample, g));
            }
            let Some(result) = self.reader.next_line() else {
                // The end: a held first entry is a task of one entry.
                let mut held = self.held.take()?;
                let task = held.task.clone().unwrap_or_default();
                self.oc_keys.entry(task).or_insert(Keys::Rows);
                self.opencompass_row(&mut held);
                self.premapped = 1;
                self.pending = vec![held].into_iter();
                continue;
            };
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

    /// OpenCompass keys each entry by its row in the dataset it built, which repeats the
    /// dataset's rows in one of two ways, told apart by the first entry past key 0 (the
    /// question its prompt carries is row 1's or still row 0's):
    /// - several samples per question (`n`): the dataset over again, key `k` is row `k % N`,
    ///   sample `k / N` (`N` the dataset's rows);
    /// - a circular run: each row once per ordering, `per` entries a row (its `n` rotations,
    ///   or all `n!` orderings, told apart by the entry after the first row's rotations),
    ///   key `g` is row `g / per`, in the ordering its prompt shows
    ///   (`opencompass/datasets/circular.py`).
    ///
    /// The question each entry carries is then checked against its row as any other's, so a
    /// layout read wrong is refused, not graded. `false`: the task's first entry, held until
    /// the next shows the layout.
    fn opencompass_row(&mut self, g: &mut Generation) -> bool {
        let Ok(k) = g.id.parse::<u64>() else {
            return true;
        };
        let task = g.task.clone().unwrap_or_default();
        let rows = self.task_rows(&task);
        if rows == 0 {
            return true;
        }
        let keys = match self.oc_keys.get(&task) {
            Some(&keys) => keys,
            None if k == 0 => return false,
            None => {
                let circular = !(k < rows && self.fits(g, k)) && self.fits(g, 0);
                let keys = match circular {
                    true => Keys::Circular { per: None },
                    false => Keys::Rows,
                };
                self.oc_keys.insert(task.clone(), keys);
                keys
            }
        };
        match keys {
            Keys::Rows => {
                // A key past the rows is a later sample's only if the entry's question is
                // that row's (trial 48: a dataset with fewer rows than OpenCompass read
                // graded its last entries against the first rows); else it stays an id the
                // dataset does not have.
                if k >= rows && self.fits_or_cannot_say(g, k % rows) {
                    g.id = (k % rows).to_string();
                    if g.sample.is_none() {
                        g.sample = u32::try_from(k / rows).ok();
                    }
                }
            }
            Keys::Circular { per } => {
                let n = self.options_of(g, 0).max(1);
                let all = (1..=n).product::<u64>();
                let per = match per {
                    Some(per) => per,
                    // Row 0 either way until its rotations are past.
                    None if k < n => n,
                    None => {
                        let per = match !self.fits(g, k / n) && self.fits(g, k / all) {
                            true => all,
                            false => n,
                        };
                        self.oc_keys.insert(task, Keys::Circular { per: Some(per) });
                        per
                    }
                };
                let row = k / per;
                g.id = row.to_string();
                g.sample = Some(0);
                let shown = (self.dataset.find(g.task.as_deref(), &g.id))
                    .zip(g.prompt.as_deref())
                    .and_then(|(i, p)| super::verdict::prompt_ordering(&self.dataset.items[i], p));
                let mode = match per == n {
                    true => super::circular::CircularMode::Circular,
                    false => super::circular::CircularMode::AllPossible,
                };
                g.ordering = shown.or_else(|| {
                    (super::circular::orderings(mode, n as usize).get((k % per) as usize)).cloned()
                });
            }
        }
        true
    }

    /// The rows of a task's dataset.
    fn task_rows(&mut self, task: &str) -> u64 {
        if let Some(&n) = self.task_rows.get(task) {
            return n;
        }
        let n = self.dataset.task_items(task) as u64;
        self.task_rows.insert(task.to_string(), n);
        n
    }

    /// Does the question `g`'s prompt carries fit row `row` of its task?
    fn fits(&self, g: &Generation, row: u64) -> bool {
        self.dataset
            .find(g.task.as_deref(), &row.to_string())
            .and_then(|i| question_fits(&self.dataset.items[i].question, g))
            .unwrap_or(false)
    }

    /// As [`Joiner::fits`], but true also when `g` carries no question to compare.
    fn fits_or_cannot_say(&self, g: &Generation, row: u64) -> bool {
        self.dataset
            .find(g.task.as_deref(), &row.to_string())
            .is_none_or(|i| question_fits(&self.dataset.items[i].question, g) != Some(false))
    }

    /// How many options row `row` of `g`'s task has.
    fn options_of(&self, g: &Generation, row: u64) -> u64 {
        self.dataset
            .find(g.task.as_deref(), &row.to_string())
            .map_or(0, |i| self.dataset.items[i].choices.len() as u64)
    }

    /// The next answer with its item as the model saw it (in the ordering a circular run
    /// showed). A line whose ordering does not fit its item (not a permutation of its
    /// options, or an item that cannot be re-rendered) is an unreadable line: reported,
    /// counted, and skipped, so the rest is still graded.
    pub fn next_shown<'i>(
        &mut self,
        items: &'i [crate::types::Item],
        observer: &mut dyn Observer,
    ) -> Option<(
        usize,
        std::borrow::Cow<'i, crate::types::Item>,
        u32,
        Generation,
    )> {
        loop {
            let (index, sample, g) = self.next(observer)?;
            // A prompt that shows the options in another order than the dataset's (a harness
            // that shuffles them once): the answer's labels are the prompt's.
            let shuffled = match (&g.ordering, &g.prompt) {
                (None, Some(prompt)) => super::verdict::shown_ordering(&items[index], prompt)
                    .and_then(|o| super::circular::permute(&items[index], &o).ok()),
                _ => None,
            };
            if let Some(item) = shuffled {
                self.join.prompts_reordered += 1;
                if self.join.prompts_reordered_first.is_none() {
                    self.join.prompts_reordered_first =
                        Some(format!("{}:{}", self.reader.current_name(), g.line));
                }
                return Some((index, std::borrow::Cow::Owned(item), sample, g));
            }
            match g.ordering.as_ref() {
                None => return Some((index, std::borrow::Cow::Borrowed(&items[index]), sample, g)),
                Some(o) => match super::circular::permute(&items[index], o) {
                    Ok(item) => return Some((index, std::borrow::Cow::Owned(item), sample, g)),
                    Err(e) => {
                        self.join.answers -= 1;
                        self.samples[index] -= 1;
                        let error = crate::inputs::generations::GenerationError {
                            source_name: self.reader.current_name().to_string(),
                            line: g.line,
                            field: Some("custom_id".into()),
                            message: e.to_string(),
                        };
                        observer.unreadable(&error);
                        self.join.unreadable_lines += 1;
                        if self.join.unreadable_listed.len() < LISTED {
                            self.join.unreadable_listed.push(error.to_string());
                        }
                    }
                },
            }
        }
    }

    /// Count a line that names a sample (and ordering) its item already had.
    fn note_repeat(&mut self, index: usize, g: &Generation) {
        let Some(sample) = g.sample else {
            self.note_same_answer(index, g);
            return;
        };
        let key = {
            use std::hash::BuildHasher;
            foldhash::fast::FixedState::with_seed(0).hash_one((sample, &g.ordering, &g.task))
        };
        let named = &mut self.named[index];
        if named.contains(&key) {
            self.join.repeated_samples += 1;
            let at = format!("{}:{}", self.reader.current_name(), g.line);
            // A line of several answers (lm-eval's repeats) is listed once.
            if self.join.repeated_samples_listed.len() < LISTED
                && self.join.repeated_samples_listed.last() != Some(&at)
            {
                self.join.repeated_samples_listed.push(at);
            }
        } else {
            named.push(key);
        }
    }

    /// Count an answer that names no sample and repeats an earlier answer to its item word
    /// for word. Short answers ("②") are left out: samples say them alike all the time.
    fn note_same_answer(&mut self, index: usize, g: &Generation) {
        if g.response.len() < 40 {
            return;
        }
        let key = {
            use std::hash::BuildHasher;
            foldhash::fast::FixedState::with_seed(1).hash_one((&g.response, &g.ordering, &g.task))
        };
        let named = &mut self.named[index];
        if !named.contains(&key) {
            named.push(key);
            return;
        }
        self.join.repeated_answers += 1;
        if self.join.repeated_answers_first.is_none() {
            self.join.repeated_answers_first =
                Some(format!("{}:{}", self.reader.current_name(), g.line));
        }
    }

    /// Remember the model an answer names; run.json records it, or all of them when several.
    fn note_model(&mut self, model: Option<&str>) {
        let Some(model) = model else { return };
        if self.join.models.len() < MODELS_LISTED && !self.join.models.iter().any(|m| m == model) {
            self.join.models.push(model.to_string());
        }
    }

    /// Count an answer whose line carries a question that is not its dataset row's.
    fn check_question(&mut self, index: usize, g: &Generation) {
        let item = &self.dataset.items[index];
        let Some(fits) = question_fits(&item.question, g) else {
            return;
        };
        self.join.questions_compared += 1;
        let task =
            (g.task.as_ref()).map(|t| self.join.task_questions.entry(t.clone()).or_default());
        if let Some(task) = task {
            task.0 += 1;
            task.1 += u64::from(!fits);
        }
        if fits {
            return;
        }
        self.join.questions_differing += 1;
        let task_first = g
            .task
            .as_ref()
            .and_then(|t| self.join.task_questions.get(t))
            .is_some_and(|t| t.2.is_none());
        if self.join.question_differs_first.is_none() || task_first {
            let theirs = g.question.as_deref().or(g.prompt.as_deref()).unwrap_or("");
            let first = format!(
                "{}:{}: id `{}`: the line's question \"{}\" is not the dataset's \"{}\"",
                self.reader.current_name(),
                g.line,
                g.id,
                question_start(theirs),
                question_start(&item.question)
            );
            if let Some(task) = g
                .task
                .as_ref()
                .and_then(|t| self.join.task_questions.get_mut(t))
            {
                task.2.get_or_insert_with(|| first.clone());
            }
            self.join.question_differs_first.get_or_insert(first);
        }
    }

    /// The I/O error that ended the generations early, with its file, if one did.
    pub fn take_io_error(&mut self) -> Option<(std::path::PathBuf, std::io::Error)> {
        self.reader.take_io_error()
    }

    /// The join report, with the items that got no generation (a later row with a repeated
    /// id cannot get one: it is counted as a repeated id, not as an item without answers).
    pub fn finish(mut self, observer: &mut dyn Observer) -> JoinReport {
        observer.bytes_read(self.reader.bytes_read());
        self.join.tasks.clone_from(&self.reader.tasks);
        self.join.opencompass = self.reader.opencompass;
        self.join.files_not_read = (self.reader.not_read.iter().take(LISTED))
            .map(|p| p.display().to_string())
            .collect();
        self.join.task_items = (self.reader.tasks.iter())
            .map(|t| (t.clone(), self.dataset.task_items(t) as u64))
            .collect();
        self.join.lm_eval = self.reader.lm_eval().means();
        // A samples file not named `samples_<task>_<date>.jsonl` names no task: its scores
        // are the dataset's, as results.json names the run (walkthrough 50, F4: a blank task).
        if let Some(scores) = self.join.lm_eval.remove("") {
            let stem = std::path::Path::new(&self.join.dataset).file_stem();
            let task = stem.and_then(|s| s.to_str()).unwrap_or("kgrade");
            self.join.lm_eval.insert(task.to_string(), scores);
        }
        if self.join.models.len() == 1 {
            self.join.model = self.join.models.pop();
        }
        self.join.items_without_generations = self
            .dataset
            .items
            .iter()
            .zip(&self.samples)
            .enumerate()
            .filter(|(i, (item, &n))| n == 0 && self.dataset.index.get(&item.id) == Some(i))
            .map(|(_, (item, _))| item.id.clone())
            .collect();
        let items = &self.dataset.items;
        self.join.row_number_ids = self.dataset.subjects.is_empty()
            && !items.is_empty()
            && items[0].id == "0"
            && items[items.len() - 1].id == (items.len() - 1).to_string();
        if self.dataset.subjects.is_empty() && self.dataset.duplicate_ids.is_empty() {
            self.join.id_range = whole_number_range(items.iter().map(|i| i.id.as_str()));
        }
        if self.join.row_number_ids {
            self.join.counting_column = (items[0].fields.iter())
                .map(|(name, _)| name)
                .find(|name| {
                    (items.iter().enumerate()).all(|(row, item)| {
                        (item.fields.iter())
                            .any(|(n, v)| n == *name && v.trim() == (row + 1).to_string())
                    })
                })
                .cloned();
        }
        self.join
    }
}

/// `(lo, hi)` when `ids` are the whole numbers `lo..=hi`, each written plainly (`7`, not
/// `07`) and each once (the caller has checked there are no repeats).
fn whole_number_range<'a>(ids: impl Iterator<Item = &'a str>) -> Option<(i64, i64)> {
    let mut range: Option<(i64, i64)> = None;
    let mut n = 0i64;
    for id in ids {
        let v: i64 = id.parse().ok()?;
        if v.to_string() != id {
            return None;
        }
        n += 1;
        range = Some(range.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
    }
    range.filter(|(lo, hi)| hi - lo + 1 == n)
}
