//! Deciding each kind of property on an explored graph.

use crate::explore::Graph;
use crate::pattern::{Bindings, match_label, rename_bindings};
use crate::product::{Lasso, Product, ProductEdge, Step, find_lasso};
use agentpi_ir::core::LabelPattern;
use agentpi_semantics::Semantics;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// The first transition in breadth-first order whose label matches: the end of a shortest
/// path to such a transition.
pub fn first_match(sem: &Semantics<'_>, graph: &Graph, pattern: &LabelPattern) -> Option<Step> {
    let matching: Vec<bool> = graph
        .labels
        .iter()
        .map(|l| match_label(sem, pattern, l, &Vec::new()).is_some())
        .collect();
    (0..graph.expanded as u32).find_map(|s| {
        let edges = graph.successors(s);
        edges
            .iter()
            .position(|e| matching[e.label as usize])
            .map(|i| Step {
                state: s,
                edge: i as u32,
            })
    })
}

/// The first state in breadth-first order with no transitions that is not a valid end.
pub fn first_deadlock(sem: &Semantics<'_>, graph: &Graph) -> Option<u32> {
    let faulty: rustc_hash::FxHashSet<u32> = graph.faults.iter().map(|f| f.source).collect();
    (0..graph.expanded as u32).find(|&s| {
        graph.successors(s).is_empty()
            && !faulty.contains(&s)
            && !sem.is_valid_end(&graph.states[s as usize])
    })
}

/// `eventually P`: a path from the start that never does `P` and stops or cycles.
pub fn eventually(
    sem: &Semantics<'_>,
    graph: &Graph,
    pattern: &LabelPattern,
    fair: bool,
) -> Option<Lasso> {
    let matching = label_mask(sem, graph, pattern);
    let mut product = Product::default();
    let mut node_of = FxHashMap::default();
    node_of.insert(0u32, product.add_node(0, true, None));
    let mut queue = VecDeque::from([0u32]);
    while let Some(n) = queue.pop_front() {
        let s = product.state[n as usize];
        for (i, e) in graph
            .successors(s)
            .iter()
            .enumerate()
            .filter(|(_, e)| !matching[e.label as usize])
        {
            let to = *node_of.entry(e.target).or_insert_with(|| {
                queue.push_back(product.state.len() as u32);
                product.add_node(e.target, true, Some((n, product.adj[n as usize].len())))
            });
            product.adj[n as usize].push(ProductEdge {
                to,
                step: Step {
                    state: s,
                    edge: i as u32,
                },
                inside: true,
            });
        }
    }
    find_lasso(&product, graph, true, fair)
}

/// `always eventually P`: a reachable cycle without `P`.
pub fn always_eventually(
    sem: &Semantics<'_>,
    graph: &Graph,
    pattern: &LabelPattern,
    fair: bool,
) -> Option<Lasso> {
    let matching = label_mask(sem, graph, pattern);
    let mut product = Product::default();
    for s in 0..graph.states.len() as u32 {
        let parent = (s > 0).then(|| graph.parent[s as usize - 1]);
        product.add_node(s, true, parent.map(|(p, e)| (p, e as usize)));
        let edges = graph.successors(s).iter().enumerate();
        product.adj[s as usize] = edges
            .map(|(i, e)| ProductEdge {
                to: e.target,
                step: Step {
                    state: s,
                    edge: i as u32,
                },
                inside: !matching[e.label as usize],
            })
            .collect();
    }
    find_lasso(&product, graph, false, fair)
}

fn label_mask(sem: &Semantics<'_>, graph: &Graph, pattern: &LabelPattern) -> Vec<bool> {
    graph
        .labels
        .iter()
        .map(|l| match_label(sem, pattern, l, &Vec::new()).is_some())
        .collect()
}

/// `L leads to R`: the product with a monitor that picks one `L` transition, remembers the
/// values it bound (renaming fresh channels as states are renumbered) and waits for `R`.
pub fn leads_to(
    sem: &Semantics<'_>,
    graph: &Graph,
    left: &LabelPattern,
    right: &LabelPattern,
    fair: bool,
) -> Option<Lasso> {
    type Key = (u32, Option<Bindings>);
    let mut product = Product::default();
    let mut keys: Vec<Key> = vec![(0, None)];
    let mut node_of: FxHashMap<Key, u32> = FxHashMap::default();
    node_of.insert((0, None), product.add_node(0, false, None));
    let mut next = 0usize;
    while next < keys.len() {
        let (s, watching) = keys[next].clone();
        let n = next as u32;
        next += 1;
        if !graph.is_expanded(s) {
            continue;
        }
        let transitions = sem
            .successors(&graph.states[s as usize])
            .into_iter()
            .filter(|t| t.fault.is_none());
        for (i, (t, e)) in transitions.zip(graph.successors(s)).enumerate() {
            let step = Step {
                state: s,
                edge: i as u32,
            };
            let mut moves: Vec<(Option<Bindings>, bool)> = Vec::new();
            match &watching {
                None => {
                    moves.push((None, false));
                    if let Some(theta) = match_label(sem, left, &t.label, &Vec::new()) {
                        moves.push((Some(rename_bindings(&theta, &t.renaming)), false));
                    }
                }
                Some(theta) if match_label(sem, right, &t.label, theta).is_some() => {
                    moves.push((None, false))
                }
                Some(theta) => moves.push((Some(rename_bindings(theta, &t.renaming)), true)),
            }
            for (m, inside) in moves {
                let key = (e.target, m);
                let to = match node_of.get(&key) {
                    Some(&to) => to,
                    None => {
                        let to = product.add_node(
                            e.target,
                            key.1.is_some(),
                            Some((n, product.adj[n as usize].len())),
                        );
                        node_of.insert(key.clone(), to);
                        keys.push(key);
                        to
                    }
                };
                product.adj[n as usize].push(ProductEdge { to, step, inside });
            }
        }
    }
    find_lasso(&product, graph, true, fair)
}
