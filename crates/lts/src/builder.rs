//! [`LtsBuilder`]: collects transitions one at a time (from a file or a state-space explorer)
//! and packs them into an [`Lts`].

use crate::chunked::Chunked;
use crate::lts::{Lts, TAU};
use crate::ranges::{Ranges, pack_row};
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
    store: Store,
    num_states: u32,
}

/// Where the transitions wait for [`LtsBuilder::finish`].
#[derive(Debug)]
enum Store {
    /// While the sources come in ascending order (as a state-space explorer or a `.aut` file
    /// written by one hands them over): already the rows of the LTS, 8 bytes a transition, so
    /// that reading a file never holds more than the LTS it makes. `starts[s]` is where the
    /// row of source `s` starts, for the sources up to the last one given.
    Rows {
        starts: Vec<u32>,
        labels: Chunked,
        targets: Chunked,
    },
    /// After the first source out of order: the transitions as (from, label, to), 12 bytes a
    /// transition, kept apart by ranges of sources (`ranges.rs`), which
    /// [`LtsBuilder::finish`] puts in order one at a time.
    Ranges(Ranges),
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
            store: Store::new(),
            num_states: 0,
        }
    }

    /// A builder sharing the label table of `lts` (no copy until a new label is interned;
    /// the lookup index is built only if [`LtsBuilder::intern`] is called).
    pub fn with_labels_of(lts: &Lts) -> Self {
        LtsBuilder {
            labels: lts.labels.clone(),
            index: FxHashMap::default(),
            store: Store::new(),
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
        self.store.add(from, label, to);
    }

    /// Makes room for `m` transitions given in source order, before any is given: then the
    /// rows are filled in place, with no copy at [`LtsBuilder::finish`] if `m` come. A hint:
    /// more or fewer transitions are fine.
    pub fn reserve_transitions(&mut self, m: usize) {
        if let Store::Rows { labels, .. } = &self.store
            && labels.len() == 0
        {
            self.store = Store::Rows {
                starts: Vec::new(),
                labels: Chunked::with_first(m),
                targets: Chunked::with_first(m),
            };
        }
    }

    /// Makes room for the rows of `n` sources given in order (a hint, as for
    /// [`LtsBuilder::reserve_transitions`]): the row starts then never move while they grow.
    pub fn reserve_sources(&mut self, n: usize) {
        if let Store::Rows { starts, .. } = &mut self.store {
            starts.reserve(n.saturating_sub(starts.len()) + 1);
        }
    }

    /// Makes sure the LTS has at least `n` states (states without transitions are deadlocks).
    pub fn require_states(&mut self, n: usize) {
        self.num_states = self.num_states.max(n as u32);
    }

    /// The number of transitions added so far (duplicates included).
    pub fn num_transitions(&self) -> usize {
        match &self.store {
            Store::Rows { labels, .. } => labels.len(),
            Store::Ranges(ranges) => ranges.len(),
        }
    }

    /// Packs the transitions into an [`Lts`] with the given initial state.
    pub fn finish(mut self, initial: u32) -> Lts {
        self.require_states(initial as usize + 1);
        let n = self.num_states as usize;
        let (offsets, trans_label, trans_to) =
            match std::mem::replace(&mut self.store, Store::new()) {
                Store::Rows {
                    starts,
                    labels,
                    targets,
                } => sort_csr(starts, labels.into_vec(), targets.into_vec(), n),
                Store::Ranges(ranges) => ranges.into_rows(n),
            };
        Lts {
            initial,
            labels: self.labels,
            offsets,
            trans_label,
            trans_to,
        }
    }
}

impl Store {
    fn new() -> Self {
        Store::Rows {
            starts: Vec::new(),
            labels: Chunked::default(),
            targets: Chunked::default(),
        }
    }

    fn add(&mut self, from: u32, label: u32, to: u32) {
        match self {
            Store::Rows {
                starts,
                labels,
                targets,
            } if from as usize + 1 >= starts.len() => {
                // Rows of the sources up to `from` that had no transition are empty.
                starts.resize(from as usize + 1, labels.len() as u32);
                labels.push(label);
                targets.push(to);
            }
            Store::Rows { .. } => {
                *self = Store::Ranges(self.ranges());
                self.add(from, label, to);
            }
            Store::Ranges(ranges) => ranges.push(from, label, to),
        }
    }

    /// The rows given so far by source range (only called once, on the first source out of
    /// order).
    fn ranges(&mut self) -> Ranges {
        let Store::Rows {
            starts,
            labels,
            targets,
        } = std::mem::replace(self, Store::Ranges(Ranges::default()))
        else {
            unreachable!("only rows turn into ranges")
        };
        let mut ranges = Ranges::default();
        for (s, &start) in starts.iter().enumerate() {
            let end = starts.get(s + 1).map_or(labels.len(), |&e| e as usize);
            for i in start as usize..end {
                ranges.push(s as u32, labels.get(i), targets.get(i));
            }
        }
        ranges
    }
}

/// The LTS's rows from rows given in source order: each sorted by (label, target) and rid of
/// duplicates in place, compacted to the front. Returns (offsets, labels, targets).
fn sort_csr(
    mut starts: Vec<u32>,
    mut labels: Vec<u32>,
    mut targets: Vec<u32>,
    n: usize,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    starts.resize(n + 1, labels.len() as u32);
    let mut offsets = starts;
    let mut row: Vec<u64> = Vec::new();
    let (mut write, mut start) = (0usize, 0usize);
    for s in 0..n {
        let end = offsets[s + 1] as usize;
        offsets[s] = write as u32;
        write = pack_row(&mut labels, &mut targets, start..end, write, &mut row);
        start = end;
    }
    offsets[n] = write as u32;
    for v in [&mut labels, &mut targets] {
        v.truncate(write);
        v.shrink_to_fit();
    }
    (offsets, labels, targets)
}
