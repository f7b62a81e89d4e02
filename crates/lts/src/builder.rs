//! [`LtsBuilder`]: collects transitions one at a time (from a file or a state-space explorer)
//! and packs them into an [`Lts`].

use crate::chunked::Chunked;
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
    /// After the first source out of order: the transitions as (from, label, to), flat.
    /// [`LtsBuilder::finish`] sorts them in place and packs them into the LTS in the same
    /// buffer, so that it never holds more than 12m bytes of them (it held 20m).
    Triples(Chunked),
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
            Store::Triples(triples) => triples.len() / 3,
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
                Store::Triples(triples) => sort_triples(triples.into_vec(), n),
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
                *self = Store::Triples(self.triples());
                self.add(from, label, to);
            }
            Store::Triples(flat) => flat.extend([from, label, to]),
        }
    }

    /// The rows given so far as triples (only called once, on the first source out of order).
    fn triples(&mut self) -> Chunked {
        let Store::Rows {
            starts,
            labels,
            targets,
        } = std::mem::replace(self, Store::Triples(Chunked::default()))
        else {
            unreachable!("only rows turn into triples")
        };
        let mut triples = Chunked::default();
        for (s, &start) in starts.iter().enumerate() {
            let end = starts.get(s + 1).map_or(labels.len(), |&e| e as usize);
            for i in start as usize..end {
                triples.extend([s as u32, labels.get(i), targets.get(i)]);
            }
        }
        triples
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
        let key = |i: usize| (u64::from(labels[i]) << 32) | u64::from(targets[i]);
        if (start + 1..end).all(|i| key(i - 1) < key(i)) {
            // Already sorted without duplicates (the usual case): move it down.
            labels.copy_within(start..end, write);
            targets.copy_within(start..end, write);
            write += end - start;
        } else {
            row.clear();
            row.extend((start..end).map(key));
            row.sort_unstable();
            row.dedup();
            for &k in &row {
                (labels[write], targets[write]) = ((k >> 32) as u32, k as u32);
                write += 1;
            }
        }
        start = end;
    }
    offsets[n] = write as u32;
    for v in [&mut labels, &mut targets] {
        v.truncate(write);
        v.shrink_to_fit();
    }
    (offsets, labels, targets)
}

/// The LTS's rows from triples in any order (see [`Store::Triples`]).
fn sort_triples(mut flat: Vec<u32>, n: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (triples, _) = flat.as_chunks_mut::<3>();
    let mut offsets = bucket_by_source(triples, n);
    let m = sort_rows(triples, &mut offsets);
    let (labels, targets) = split(flat, m);
    (offsets, labels, targets)
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
