//! Strongly connected components of the `tau`-graph and their contraction.
//!
//! States on a `tau`-cycle are branching (and weakly) bisimilar, so branching and weak
//! minimisation start by collapsing each `tau`-SCC into one state. The SCCs are numbered in
//! the order Tarjan's algorithm completes them, which is a reverse topological order: after
//! contraction every non-loop `tau`-transition goes from a higher to a lower state number.

use crate::builder::LtsBuilder;
use crate::lts::{Lts, TAU};

/// The `tau`-SCC of every state, numbered in reverse topological order, and the SCC count.
///
/// Pearce's one-array variant of Tarjan's algorithm ("A space-efficient algorithm for finding
/// strongly connected components", 2016): one number a state where Tarjan keeps three (index,
/// lowlink, component), 4 bytes a state instead of 12, which was the peak of branching
/// minimisation on large state spaces with few `tau`-cycles (philhide in docs/minimize.md).
/// `rindex[v]` is 0 while `v` is unseen, its lowest reachable index while it is on the
/// search path or the stack, and `n - 1 - c` once it is in component `c`: component
/// numbers count down from `n - 1` while indices count up and are handed back as states
/// complete, so that a completed state never looks lower than a live one. The search order,
/// and so the numbering, is Tarjan's.
pub fn tau_sccs(lts: &Lts) -> (Vec<u32>, u32) {
    let n = lts.num_states();
    let mut p = Pearce {
        lts,
        rindex: vec![0; n],
        stack: Vec::new(),
        next_index: 1,
        components: 0,
    };
    for root in 0..n as u32 {
        if p.rindex[root as usize] == 0 {
            p.search(root);
        }
    }
    let last = n as u32;
    let mut component = p.rindex;
    for c in &mut component {
        // `last - 1 - c`, as every state is in a component by now.
        *c = last - 1 - *c;
    }
    (component, p.components)
}

/// The search, with an explicit call stack (deep `tau`-chains would overflow the native one).
struct Pearce<'a> {
    lts: &'a Lts,
    rindex: Vec<u32>,
    /// The states visited whose component is not yet complete, but for those on the path.
    stack: Vec<u32>,
    next_index: u32,
    components: u32,
}

impl Pearce<'_> {
    fn search(&mut self, root: u32) {
        // Frames are (state, position of the next outgoing transition to look at, whether the
        // state is still the root of its component): 12 bytes, and a `tau`-path may be as
        // deep as there are states.
        let mut calls: Vec<(u32, u32, bool)> = vec![(root, 0, true)];
        self.enter(root);
        while let Some(&mut (v, ref mut child, _)) = calls.last_mut() {
            let (labels, targets) = self.lts.row(v);
            let i = *child as usize;
            let next = (i < labels.len() && labels[i] == TAU).then(|| targets[i]);
            *child += 1;
            match next {
                Some(w) if self.rindex[w as usize] == 0 => {
                    self.enter(w);
                    calls.push((w, 0, true));
                }
                Some(w) => self.lower(calls.last_mut().unwrap(), w),
                None => {
                    let (_, _, root) = calls.pop().unwrap();
                    self.leave(v, root);
                    if let Some(parent) = calls.last_mut() {
                        self.lower(parent, v);
                    }
                }
            }
        }
    }

    fn enter(&mut self, v: u32) {
        self.rindex[v as usize] = self.next_index;
        self.next_index += 1;
    }

    /// The edge from the frame's state to `w`, once `w` is seen and its search done.
    fn lower(&mut self, frame: &mut (u32, u32, bool), w: u32) {
        let v = frame.0 as usize;
        if self.rindex[w as usize] < self.rindex[v] {
            self.rindex[v] = self.rindex[w as usize];
            frame.2 = false;
        }
    }

    /// Completes the component rooted at `v` if `v` is a root, or else keeps `v` on the stack.
    fn leave(&mut self, v: u32, root: bool) {
        if !root {
            self.stack.push(v);
            return;
        }
        let c = self.rindex.len() as u32 - 1 - self.components;
        self.next_index -= 1;
        while let Some(&w) = self.stack.last() {
            if self.rindex[v as usize] > self.rindex[w as usize] {
                break;
            }
            self.stack.pop();
            self.rindex[w as usize] = c;
            self.next_index -= 1;
        }
        self.rindex[v as usize] = c;
        self.components += 1;
    }
}

/// Collapses every `tau`-SCC into one state.
///
/// `tau`-transitions inside an SCC disappear; with `keep_divergence` an SCC that has a
/// `tau`-cycle (or a `tau`-self-loop) keeps one `tau`-self-loop to mark the divergence.
/// Returns the contracted LTS and the map from original states to contracted states.
pub fn contract_tau_sccs(lts: &Lts, keep_divergence: bool) -> (Lts, Vec<u32>) {
    let (component, count) = tau_sccs(lts);
    contract(lts, component, count, keep_divergence)
}

/// [`contract_tau_sccs`] with the components (`component`, `count`) of [`tau_sccs`] given.
pub(crate) fn contract(
    lts: &Lts,
    component: Vec<u32>,
    count: u32,
    keep_divergence: bool,
) -> (Lts, Vec<u32>) {
    let mut builder = LtsBuilder::with_labels_of(lts);
    builder.require_states(count as usize);
    // Room for all rows and (at most) all transitions at once: grown by doubling, the row
    // starts (kept as the offsets) and the rows held up to twice their size, and old and new
    // buffer both at each step. Room not filled is never touched.
    builder.reserve_transitions(lts.num_transitions());
    builder.reserve_sources(count as usize);
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
