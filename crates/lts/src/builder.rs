//! [`LtsBuilder`]: collects transitions one at a time (from a file or a state-space explorer)
//! and packs them into an [`Lts`].

use crate::lts::{Lts, TAU};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Builds an [`Lts`] from transitions given in any order.
///
/// Labels are given as text and interned; the text `tau` is the silent action (label 0).
/// States are plain numbers; the LTS has `max(state) + 1` states, or more if
/// [`LtsBuilder::require_states`] asks for more. Duplicate transitions are merged.
///
/// ```
/// use agentpi_lts::LtsBuilder;
/// let mut b = LtsBuilder::new();
/// b.add_transition(0, "call(1, ok)", 1);
/// b.add_transition(1, "tau", 0);
/// let lts = b.finish(0);
/// assert_eq!((lts.num_states(), lts.num_transitions()), (2, 2));
/// ```
#[derive(Debug)]
pub struct LtsBuilder {
    labels: Arc<Vec<String>>,
    index: FxHashMap<String, u32>,
    /// The transitions as (from, label, to), flat: [`LtsBuilder::finish`] sorts them in place
    /// and packs them into the LTS in the same buffer, so that building an LTS of m transitions
    /// never holds more than 12m bytes of them (it held 20m).
    triples: Vec<u32>,
    num_states: u32,
}

impl Default for LtsBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl LtsBuilder {
    /// An empty builder whose label table holds only `tau`.
    pub fn new() -> Self {
        let mut index = FxHashMap::default();
        index.insert("tau".to_string(), TAU);
        LtsBuilder {
            labels: Arc::new(vec!["tau".to_string()]),
            index,
            triples: Vec::new(),
            num_states: 0,
        }
    }

    /// A builder sharing the label table of `lts` (no copy until a new label is interned;
    /// the lookup index is built only if [`LtsBuilder::intern`] is called).
    pub fn with_labels_of(lts: &Lts) -> Self {
        LtsBuilder {
            labels: lts.labels.clone(),
            index: FxHashMap::default(),
            triples: Vec::new(),
            num_states: 0,
        }
    }

    /// Interns a label text and returns its index (`tau` is 0).
    pub fn intern(&mut self, text: &str) -> u32 {
        if self.index.is_empty() {
            self.index = self
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| (l.clone(), i as u32))
                .collect();
        }
        if let Some(&id) = self.index.get(text) {
            return id;
        }
        let id = self.labels.len() as u32;
        Arc::make_mut(&mut self.labels).push(text.to_string());
        self.index.insert(text.to_string(), id);
        id
    }

    /// Adds `from --label--> to`, interning the label text.
    pub fn add_transition(&mut self, from: u32, label: &str, to: u32) {
        let label = self.intern(label);
        self.add_transition_id(from, label, to);
    }

    /// Adds `from --label--> to` for a label index returned by [`LtsBuilder::intern`].
    pub fn add_transition_id(&mut self, from: u32, label: u32, to: u32) {
        debug_assert!((label as usize) < self.labels.len());
        self.require_states(from.max(to) as usize + 1);
        self.triples.extend([from, label, to]);
    }

    /// Makes sure the LTS has at least `n` states (states without transitions are deadlocks).
    pub fn require_states(&mut self, n: usize) {
        self.num_states = self.num_states.max(n as u32);
    }

    /// The number of transitions added so far (duplicates included).
    pub fn num_transitions(&self) -> usize {
        self.triples.len() / 3
    }

    /// Packs the transitions into an [`Lts`] with the given initial state.
    pub fn finish(mut self, initial: u32) -> Lts {
        self.require_states(initial as usize + 1);
        let mut flat = std::mem::take(&mut self.triples);
        let (triples, _) = flat.as_chunks_mut::<3>();
        let mut offsets = bucket_by_source(triples, self.num_states as usize);
        let m = sort_rows(triples, &mut offsets);
        let (trans_label, trans_to) = split(flat, m);
        Lts {
            initial,
            labels: self.labels,
            offsets,
            trans_label,
            trans_to,
        }
    }
}

/// Groups the transitions by source in place (an American flag sort: every swap puts one
/// transition into its source's range for good) and returns where each source's range
/// starts (n + 1 entries).
fn bucket_by_source(triples: &mut [[u32; 3]], n: usize) -> Vec<u32> {
    let mut offsets = vec![0u32; n + 1];
    for t in triples.iter() {
        offsets[t[0] as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets[..n].to_vec();
    for s in 0..n {
        while next[s] < offsets[s + 1] {
            let i = next[s] as usize;
            let source = triples[i][0] as usize;
            if source != s {
                triples.swap(i, next[source] as usize);
            }
            next[source] += 1;
        }
    }
    offsets
}

/// Sorts every row by (label, target) and removes duplicates, compacting the rows to the
/// front; returns the number of transitions left.
fn sort_rows(triples: &mut [[u32; 3]], offsets: &mut [u32]) -> usize {
    let mut write = 0usize;
    let mut start = 0usize;
    for s in 0..offsets.len() - 1 {
        let end = offsets[s + 1] as usize;
        triples[start..end].sort_unstable();
        offsets[s] = write as u32;
        for i in start..end {
            if i == start || triples[i] != triples[i - 1] {
                triples[write] = triples[i];
                write += 1;
            }
        }
        start = end;
    }
    *offsets.last_mut().unwrap() = write as u32;
    write
}

/// The labels and targets of the first `m` triples of `flat`, as two arrays: pairs are packed
/// to the front and the rest freed before the targets are copied out, then the labels are
/// packed in place, so that at most 12m bytes are held at any time.
fn split(mut flat: Vec<u32>, m: usize) -> (Vec<u32>, Vec<u32>) {
    for i in 0..m {
        // Reading 3i + 1 and 3i + 2 before writing 2i and 2i + 1, which are never ahead.
        let (label, to) = (flat[3 * i + 1], flat[3 * i + 2]);
        (flat[2 * i], flat[2 * i + 1]) = (label, to);
    }
    flat.truncate(2 * m);
    flat.shrink_to_fit();
    let targets: Vec<u32> = (0..m).map(|i| flat[2 * i + 1]).collect();
    for i in 0..m {
        flat[i] = flat[2 * i];
    }
    flat.truncate(m);
    flat.shrink_to_fit();
    (flat, targets)
}
