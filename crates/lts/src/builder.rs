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
    triples: Vec<(u32, u32, u32)>,
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
        self.triples.push((from, label, to));
    }

    /// Makes sure the LTS has at least `n` states (states without transitions are deadlocks).
    pub fn require_states(&mut self, n: usize) {
        self.num_states = self.num_states.max(n as u32);
    }

    /// The number of transitions added so far (duplicates included).
    pub fn num_transitions(&self) -> usize {
        self.triples.len()
    }

    /// Packs the transitions into an [`Lts`] with the given initial state.
    pub fn finish(mut self, initial: u32) -> Lts {
        self.require_states(initial as usize + 1);
        let n = self.num_states as usize;
        let mut offsets = vec![0u32; n + 1];
        for &(s, _, _) in &self.triples {
            offsets[s as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut rows = vec![(0u32, 0u32); self.triples.len()];
        let mut fill = offsets.clone();
        for (s, l, t) in std::mem::take(&mut self.triples) {
            rows[fill[s as usize] as usize] = (l, t);
            fill[s as usize] += 1;
        }
        let (offsets, rows) = sort_rows(offsets, rows);
        let (trans_label, trans_to) = rows.into_iter().unzip();
        Lts {
            initial,
            labels: self.labels,
            offsets,
            trans_label,
            trans_to,
        }
    }
}

/// Sorts every row and removes duplicates, compacting the rows in place.
fn sort_rows(mut offsets: Vec<u32>, mut rows: Vec<(u32, u32)>) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut write = 0usize;
    let mut start = 0usize;
    for s in 0..offsets.len() - 1 {
        let end = offsets[s + 1] as usize;
        rows[start..end].sort_unstable();
        offsets[s] = write as u32;
        for i in start..end {
            if i == start || rows[i] != rows[i - 1] {
                rows[write] = rows[i];
                write += 1;
            }
        }
        start = end;
    }
    *offsets.last_mut().unwrap() = write as u32;
    rows.truncate(write);
    rows.shrink_to_fit();
    (offsets, rows)
}
