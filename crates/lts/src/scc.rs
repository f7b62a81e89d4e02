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
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut component = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let (mut next_index, mut next_component) = (0u32, 0u32);
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        calls.push((root, 0));
        while let Some(&mut (s, ref mut child)) = calls.last_mut() {
            let su = s as usize;
            if *child == 0 && index[su] == UNSEEN {
                index[su] = next_index;
                low[su] = next_index;
                next_index += 1;
                stack.push(s);
            }
            let (labels, targets) = lts.row(s);
            let next = (*child < labels.len() && labels[*child] == TAU).then(|| targets[*child]);
            *child += 1;
            match next {
                Some(t) if index[t as usize] == UNSEEN => calls.push((t, 0)),
                Some(t) => {
                    if component[t as usize] == UNSEEN {
                        low[su] = low[su].min(index[t as usize]);
                    }
                }
                None => {
                    calls.pop();
                    if let Some(&(parent, _)) = calls.last() {
                        low[parent as usize] = low[parent as usize].min(low[su]);
                    }
                    if low[su] == index[su] {
                        loop {
                            let v = stack.pop().unwrap();
                            component[v as usize] = next_component;
                            if v == s {
                                break;
                            }
                        }
                        next_component += 1;
                    }
                }
            }
        }
    }
    (component, next_component)
}

/// Collapses every `tau`-SCC into one state.
///
/// `tau`-transitions inside an SCC disappear; with `keep_divergence` an SCC that has a
/// `tau`-cycle (or a `tau`-self-loop) keeps one `tau`-self-loop to mark the divergence.
/// Returns the contracted LTS and the map from original states to contracted states.
pub fn contract_tau_sccs(lts: &Lts, keep_divergence: bool) -> (Lts, Vec<u32>) {
    let (component, count) = tau_sccs(lts);
    let mut builder = LtsBuilder::new();
    for label in &lts.labels()[1..] {
        builder.intern(label);
    }
    builder.require_states(count as usize);
    for (s, l, t) in lts.transitions() {
        let (cs, ct) = (component[s as usize], component[t as usize]);
        if l != TAU || cs != ct || keep_divergence {
            builder.add_transition_id(cs, l, ct);
        }
    }
    (builder.finish(component[lts.initial() as usize]), component)
}
