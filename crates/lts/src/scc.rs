//! Strongly connected components of the `tau`-graph and their contraction.
//!
//! States on a `tau`-cycle are branching (and weakly) bisimilar, so branching and weak
//! minimisation start by collapsing each `tau`-SCC into one state. The SCCs are numbered in
//! the order Tarjan's algorithm completes them, which is a reverse topological order: after
//! contraction every non-loop `tau`-transition goes from a higher to a lower state number.

use crate::builder::LtsBuilder;
use crate::lts::{Lts, TAU};

const UNSEEN: u32 = u32::MAX;

/// The `tau`-SCC of every state, numbered in reverse topological order, and the SCC count.
pub fn tau_sccs(lts: &Lts) -> (Vec<u32>, u32) {
    let n = lts.num_states();
    let mut t = Tarjan {
        lts,
        index: vec![UNSEEN; n],
        low: vec![0; n],
        component: vec![UNSEEN; n],
        stack: Vec::new(),
        next_index: 0,
        next_component: 0,
    };
    for root in 0..n as u32 {
        if t.index[root as usize] == UNSEEN {
            t.search(root);
        }
    }
    (t.component, t.next_component)
}

/// Tarjan's algorithm with an explicit call stack (deep `tau`-chains would overflow the
/// native one).
struct Tarjan<'a> {
    lts: &'a Lts,
    index: Vec<u32>,
    low: Vec<u32>,
    component: Vec<u32>,
    stack: Vec<u32>,
    next_index: u32,
    next_component: u32,
}

impl Tarjan<'_> {
    fn search(&mut self, root: u32) {
        // Frames are (state, position of the next outgoing transition to look at).
        // 8 bytes a frame: a `tau`-path may be as deep as there are states.
        let mut calls: Vec<(u32, u32)> = vec![(root, 0)];
        self.enter(root);
        while let Some(&mut (s, ref mut child)) = calls.last_mut() {
            let (labels, targets) = self.lts.row(s);
            let i = *child as usize;
            let next = (i < labels.len() && labels[i] == TAU).then(|| targets[i]);
            *child += 1;
            match next {
                Some(t) if self.index[t as usize] == UNSEEN => {
                    self.enter(t);
                    calls.push((t, 0));
                }
                Some(t) if self.component[t as usize] == UNSEEN => {
                    self.low[s as usize] = self.low[s as usize].min(self.index[t as usize]);
                }
                Some(_) => {}
                None => {
                    calls.pop();
                    if let Some(&(parent, _)) = calls.last() {
                        self.low[parent as usize] =
                            self.low[parent as usize].min(self.low[s as usize]);
                    }
                    self.leave(s);
                }
            }
        }
    }

    fn enter(&mut self, s: u32) {
        self.index[s as usize] = self.next_index;
        self.low[s as usize] = self.next_index;
        self.next_index += 1;
        self.stack.push(s);
    }

    /// Pops the SCC rooted at `s`, if `s` is a root.
    fn leave(&mut self, s: u32) {
        if self.low[s as usize] != self.index[s as usize] {
            return;
        }
        loop {
            let v = self.stack.pop().unwrap();
            self.component[v as usize] = self.next_component;
            if v == s {
                break;
            }
        }
        self.next_component += 1;
    }
}

/// Collapses every `tau`-SCC into one state.
///
/// `tau`-transitions inside an SCC disappear; with `keep_divergence` an SCC that has a
/// `tau`-cycle (or a `tau`-self-loop) keeps one `tau`-self-loop to mark the divergence.
/// Returns the contracted LTS and the map from original states to contracted states.
pub fn contract_tau_sccs(lts: &Lts, keep_divergence: bool) -> (Lts, Vec<u32>) {
    let (component, count) = tau_sccs(lts);
    let mut builder = LtsBuilder::with_labels_of(lts);
    builder.require_states(count as usize);
    // Component by component, so that the builder gets its rows in order (8 bytes a
    // transition, no sort) rather than transitions in any order (12, and a sort); each row
    // rid of duplicates first, for the states of a large component share most of their moves.
    let (starts, members) = members_by_component(&component, count as usize);
    let mut row: Vec<u64> = Vec::new();
    for c in 0..count as usize {
        row.clear();
        for &s in &members[starts[c] as usize..starts[c + 1] as usize] {
            for (l, t) in lts.successors(s) {
                let ct = component[t as usize];
                if l != TAU || c as u32 != ct || keep_divergence {
                    row.push((u64::from(l) << 32) | u64::from(ct));
                }
            }
        }
        row.sort_unstable();
        row.dedup();
        for &k in &row {
            builder.add_transition_id(c as u32, (k >> 32) as u32, k as u32);
        }
    }
    (builder.finish(component[lts.initial() as usize]), component)
}

/// The states of every component in CSR form: those of component `c` are
/// `members[starts[c]..starts[c + 1]]`, ascending.
fn members_by_component(component: &[u32], count: usize) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; count + 1];
    for &c in component {
        starts[c as usize + 1] += 1;
    }
    for c in 0..count {
        starts[c + 1] += starts[c];
    }
    let mut fill = starts.clone();
    let mut members = vec![0u32; component.len()];
    for (s, &c) in component.iter().enumerate() {
        members[fill[c as usize] as usize] = s as u32;
        fill[c as usize] += 1;
    }
    (starts, members)
}
