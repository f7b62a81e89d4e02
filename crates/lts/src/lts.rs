//! The labelled transition system type: states `0..n`, interned labels, transitions in CSR form.

use std::sync::Arc;

/// The index of the silent action `tau` in every [`Lts`]'s label table.
pub const TAU: u32 = 0;

/// An explicit labelled transition system.
///
/// States are `0..num_states()`. Labels are interned strings; label [`TAU`] is always `tau`.
/// Outgoing transitions of state `s` are `offsets[s]..offsets[s + 1]` in the two parallel
/// arrays `trans_label` and `trans_to` (compressed sparse rows), sorted by (label, target)
/// and free of duplicates, so algorithms can rely on a canonical order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lts {
    pub(crate) initial: u32,
    /// Shared: quotients and contractions reuse their input's table.
    pub(crate) labels: Arc<Vec<String>>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) trans_label: Vec<u32>,
    pub(crate) trans_to: Vec<u32>,
}

impl Lts {
    /// The initial state.
    pub fn initial(&self) -> u32 {
        self.initial
    }

    /// The number of states.
    pub fn num_states(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of (distinct) transitions.
    pub fn num_transitions(&self) -> usize {
        self.trans_to.len()
    }

    /// The label table; index 0 is `tau`.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The text of a label.
    pub fn label_name(&self, label: u32) -> &str {
        &self.labels[label as usize]
    }

    /// The index of a label text, if the LTS uses it.
    pub fn label_id(&self, text: &str) -> Option<u32> {
        self.labels.iter().position(|l| l == text).map(|i| i as u32)
    }

    /// The outgoing transitions of `state` as (label, target) pairs, sorted.
    pub fn successors(&self, state: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.range(state);
        self.trans_label[range.clone()]
            .iter()
            .copied()
            .zip(self.trans_to[range].iter().copied())
    }

    /// The `tau`-successors of `state`.
    pub fn tau_successors(&self, state: u32) -> impl Iterator<Item = u32> + '_ {
        self.successors(state)
            .take_while(|&(l, _)| l == TAU)
            .map(|(_, t)| t)
    }

    /// All transitions as (source, label, target), ordered by source.
    pub fn transitions(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        (0..self.num_states() as u32)
            .flat_map(move |s| self.successors(s).map(move |(l, t)| (s, l, t)))
    }

    /// The outgoing transitions of `state` as two parallel slices (labels, targets).
    pub fn row(&self, state: u32) -> (&[u32], &[u32]) {
        let range = self.range(state);
        (&self.trans_label[range.clone()], &self.trans_to[range])
    }

    fn range(&self, state: u32) -> std::ops::Range<usize> {
        self.offsets[state as usize] as usize..self.offsets[state as usize + 1] as usize
    }

    /// The states reachable from the initial state, in breadth-first order.
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.num_states()];
        let mut queue = std::collections::VecDeque::from([self.initial]);
        seen[self.initial as usize] = true;
        while let Some(s) = queue.pop_front() {
            for (_, t) in self.successors(s) {
                if !std::mem::replace(&mut seen[t as usize], true) {
                    queue.push_back(t);
                }
            }
        }
        seen
    }

    /// Predecessor lists in CSR form: `(offsets, sources)`, one entry per transition, sources
    /// ascending per target.
    pub fn predecessors(&self) -> (Vec<u32>, Vec<u32>) {
        let offsets = self.in_offsets();
        let mut fill = offsets.clone();
        let mut sources = vec![0u32; self.trans_to.len()];
        for (s, _, t) in self.transitions() {
            sources[fill[t as usize] as usize] = s;
            fill[t as usize] += 1;
        }
        (offsets, sources)
    }

    /// Where each state's incoming transitions start in a CSR grouped by target (n + 1
    /// entries; the last is the number of transitions).
    pub(crate) fn in_offsets(&self) -> Vec<u32> {
        let n = self.num_states();
        let mut offsets = vec![0u32; n + 1];
        for &t in &self.trans_to {
            offsets[t as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        offsets
    }
}
