//! `tau_sccs` (Pearce's one-array search) against Tarjan's algorithm as textbooks write it,
//! recursive with three numbers a state: the same components, numbered the same way.

mod common;

use agentpi_lts::{Lts, TAU, tau_sccs};
use common::random_lts;

/// Tarjan's algorithm, recursive: the component of every state in completion order.
struct Tarjan<'a> {
    lts: &'a Lts,
    index: Vec<Option<u32>>,
    low: Vec<u32>,
    component: Vec<Option<u32>>,
    stack: Vec<u32>,
    next_index: u32,
    components: u32,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: u32) {
        self.index[v as usize] = Some(self.next_index);
        self.low[v as usize] = self.next_index;
        self.next_index += 1;
        self.stack.push(v);
        for (label, w) in self.lts.successors(v) {
            if label != TAU {
                continue;
            }
            match self.index[w as usize] {
                None => {
                    self.visit(w);
                    self.low[v as usize] = self.low[v as usize].min(self.low[w as usize]);
                }
                Some(i) if self.component[w as usize].is_none() => {
                    self.low[v as usize] = self.low[v as usize].min(i);
                }
                Some(_) => {}
            }
        }
        if Some(self.low[v as usize]) == self.index[v as usize] {
            while let Some(w) = self.stack.pop() {
                self.component[w as usize] = Some(self.components);
                if w == v {
                    break;
                }
            }
            self.components += 1;
        }
    }
}

fn tarjan(lts: &Lts) -> (Vec<u32>, u32) {
    let n = lts.num_states();
    let mut t = Tarjan {
        lts,
        index: vec![None; n],
        low: vec![0; n],
        component: vec![None; n],
        stack: Vec::new(),
        next_index: 0,
        components: 0,
    };
    for v in 0..n as u32 {
        if t.index[v as usize].is_none() {
            t.visit(v);
        }
    }
    (
        t.component.into_iter().map(Option::unwrap).collect(),
        t.components,
    )
}

/// Seeds × sizes × densities of random LTSs (half of their steps `tau`): sparse ones have
/// many small components, dense ones a few large ones.
#[test]
fn pearce_numbers_components_as_tarjan_does() {
    let mut compared = 0;
    for seed in 0..300 {
        for (states, max_out) in [(1, 2), (5, 1), (12, 2), (40, 2), (40, 4), (200, 3)] {
            let lts = random_lts(seed, states, 3, max_out);
            assert_eq!(tau_sccs(&lts), tarjan(&lts), "seed {seed}, {states} states");
            compared += 1;
        }
    }
    assert_eq!(compared, 1800);
}
