//! The counterexample of a liveness check: a lasso, the shortest stem into a component that
//! holds a fair accepting cycle, then a short loop in it that meets every fairness obligation
//! and clears every eventuality (docs/check.md, *Liveness and fairness*).
//!
//! A shortest such loop is a covering tour (a travelling salesman's problem), so the loop is
//! built greedily: a shortest cycle through the entry node; while it leaves an obligation
//! unmet, the walk goes on from where it is by a shortest path to the nearest state or edge
//! that meets one, and the cycle is closed again by a shortest path back. An obligation met
//! on the walk stays met, so this ends after at most one detour per obligation.

use crate::graph::Graph;
use crate::product::{Fairness, Lasso, OverMemory, ProductEdge, Space, Step, bad_sccs, enabled};
use crate::strong::Obligation;
use agentpi_semantics::Actor;
use rustc_hash::FxHashSet;
use std::collections::VecDeque;

/// Searches the product for a path that stays in the avoid region forever (through an
/// accepting cycle), stops where stopping violates, or reaches a universal node. The cycle
/// search, with its numbers, may take `room` bytes (see `product::tarjan_within`), and so
/// may the stem's search with the components found; the components found are read on
/// `threads` threads.
pub fn find_lasso(
    product: &(impl Space + Sync),
    graph: &Graph,
    fair: Fairness,
    room: Option<u64>,
    threads: usize,
) -> Result<Option<Lasso>, OverMemory> {
    let cycles = bad_sccs(product, graph, fair, room, threads)?;
    // The nodes of the components, a bit each.
    let mut bad = vec![0u64; product.nodes().div_ceil(64)];
    // What the stem's search may take: the components' lists and their bits are held.
    let held: u64 = (cycles.iter())
        .map(|scc| 4 * scc.len() as u64 + 24)
        .sum::<u64>()
        + 8 * bad.len() as u64;
    let room = match room {
        Some(room) => Some(room.checked_sub(held).ok_or(OverMemory)?),
        None => None,
    };
    for &n in cycles.iter().flatten() {
        bad[n as usize / 64] |= 1 << (n % 64);
    }
    let in_bad = |n: u32| bad[n as usize / 64] & (1 << (n % 64)) != 0;
    // A state whose only steps fail is reported by the `assertions` check, not here.
    let faulty: FxHashSet<u32> = graph.faults.iter().map(|f| f.source).collect();
    // The flags first: a number no node takes (see `crate::lean`) has none, and no state.
    let stuck = |n: u32| {
        product.stutter(n) && {
            let s = product.state(n);
            graph.is_expanded(s) && graph.successors(s).is_empty() && !faulty.contains(&s)
        }
    };
    // The first node a shortest stem reaches (nodes are met breadth first) that lies in a
    // component, or where stopping violates, or every continuation does; in a component,
    // it is where the loop starts. When a check holds there is none, which a look at each
    // node by number finds without that search.
    let hit = |n: u32| in_bad(n) || stuck(n) || product.universal(n);
    if !any_node(product.nodes(), threads, &hit) {
        return Ok(None);
    }
    let Some((first, mut steps)) = product.first_reached(&hit, room)? else {
        return Ok(None);
    };
    if !in_bad(first) {
        return Ok(Some(Lasso {
            steps,
            loop_start: None,
        }));
    }
    let scc = cycles.iter().find(|scc| scc.binary_search(&first).is_ok());
    let scc = scc.expect("a component holds the node");
    let loop_start = steps.len();
    steps.extend(cycle_through(product, graph, scc, first, fair));
    Ok(Some(Lasso {
        steps,
        loop_start: Some(loop_start),
    }))
}

/// An edge of a walk, with the node it leaves.
type Walked = (u32, ProductEdge);

/// A fair accepting cycle from `start` back to itself inside `scc` (see the module's
/// comment). Every goal the cycle could miss is met somewhere in the SCC (that is what makes
/// it fair and accepting), so each detour is found.
fn cycle_through(
    product: &impl Space,
    graph: &Graph,
    scc: &[u32],
    start: u32,
    fair: Fairness,
) -> Vec<Step> {
    // `scc` is sorted: membership is a binary search (no set of its nodes).
    let members = scc;
    let mut walk: Vec<Walked> = Vec::new();
    let mut at = start;
    loop {
        let mut cycle = walk.clone();
        if walk.is_empty() || at != start {
            let back = |_: u32, e: Option<&ProductEdge>| e.is_some_and(|e| e.to == start);
            cycle.extend(search(product, members, at, &back).0);
        }
        let unmet = Unmet::on(product, graph, fair, &cycle);
        if unmet.is_empty() {
            return cycle.iter().map(|(_, e)| e.step).collect();
        }
        let meets = |n: u32, e: Option<&ProductEdge>| match e {
            None => unmet.met_at(graph, product.state(n)),
            Some(e) => unmet.met_by(graph, e),
        };
        let (path, end) = search(product, members, at, &meets);
        if path.is_empty() {
            // Not reached: the SCC meets every goal, and `at` lies on the cycle.
            debug_assert!(false, "a goal of a fair SCC out of reach");
            return cycle.iter().map(|(_, e)| e.step).collect();
        }
        walk.extend(path);
        at = end;
    }
}

/// The goals a closed cycle leaves unmet: obligations held to strong fairness enabled in one
/// of its states and taken on none of its edges; instances (held to weak fairness) enabled
/// in all its states and moving on none of its edges; eventualities pending on all its edges.
struct Unmet {
    strong: Vec<Obligation>,
    weak: Vec<Actor>,
    pending: u64,
}

impl Unmet {
    fn on(product: &impl Space, graph: &Graph, fair: Fairness, cycle: &[Walked]) -> Unmet {
        let nodes: Vec<u32> = cycle.iter().map(|&(n, _)| n).collect();
        let states: Vec<u32> = nodes.iter().map(|&n| product.state(n)).collect();
        let strong = match fair {
            Fairness::Strong(selection) => {
                let taken: FxHashSet<Obligation> = (cycle.iter())
                    .flat_map(|(_, e)| crate::strong::taken_by(graph, e.step.state, e.step.edge))
                    .collect();
                let enabled = crate::strong::obligations_of(graph, &states, selection);
                enabled.into_iter().filter(|o| !taken.contains(o)).collect()
            }
            _ => Vec::new(),
        };
        let weak = match fair.weak_goals() {
            true => {
                let moved: FxHashSet<Actor> = (cycle.iter())
                    .flat_map(|(_, e)| actors(graph, e).iter().copied())
                    .collect();
                let mut always = always_enabled(graph, &states);
                always.retain(|a| !moved.contains(a));
                always
            }
            false => Vec::new(),
        };
        let pending = cycle.iter().fold(u64::MAX, |all, (_, e)| all & e.pending);
        Unmet {
            strong,
            weak,
            pending,
        }
    }

    fn is_empty(&self) -> bool {
        self.strong.is_empty() && self.weak.is_empty() && self.pending == 0
    }

    /// System state `state` meets a goal: an unmet instance is disabled there.
    fn met_at(&self, graph: &Graph, state: u32) -> bool {
        let here = enabled(graph, state);
        self.weak.iter().any(|a| !here.contains(a))
    }

    /// Edge `e` meets a goal: it takes an unmet obligation, moves an unmet instance or clears
    /// an eventuality pending on the whole cycle.
    fn met_by(&self, graph: &Graph, e: &ProductEdge) -> bool {
        let (state, edge) = (e.step.state, e.step.edge);
        let takes = |o: &Obligation| crate::strong::takes(graph, (state, edge), o);
        self.strong.iter().any(takes)
            || actors(graph, e).iter().any(|a| self.weak.contains(a))
            || self.pending & !e.pending != 0
    }
}

/// The instances that move on product edge `e`.
fn actors<'g>(graph: &'g Graph, e: &ProductEdge) -> &'g [Actor] {
    let edge = graph.successors(e.step.state).get(e.step.edge as usize);
    &graph.actor_sets[edge.actors as usize]
}

/// The instances enabled in every one of `states`, sorted.
fn always_enabled(graph: &Graph, states: &[u32]) -> Vec<Actor> {
    let mut always: Vec<Actor> = match states.first() {
        Some(&s) => enabled(graph, s).into_iter().collect(),
        None => Vec::new(),
    };
    for &s in &states[1.min(states.len())..] {
        let here = enabled(graph, s);
        always.retain(|a| here.contains(a));
    }
    always.sort_unstable();
    always
}

/// Breadth-first search inside the SCC `members` (sorted) from `from` for the nearest state
/// (`goal(n, None)`) or edge (`goal(source, Some(edge))`, which is then taken), edges in
/// their stored order. Returns the edges taken, each with its source, and the end node.
///
/// Each node reached keeps only the node it was reached from (4 bytes, by its position in
/// `members`): the edge is found again when the path is unwound, the first inside edge of
/// that node into it, which is the one the search took.
fn search(
    product: &impl Space,
    members: &[u32],
    from: u32,
    goal: &dyn Fn(u32, Option<&ProductEdge>) -> bool,
) -> (Vec<Walked>, u32) {
    let at = |n: u32| members.binary_search(&n).ok();
    let mut prev = vec![UNSEEN; members.len()];
    if let Some(i) = at(from) {
        prev[i] = from;
    }
    let mut queue = VecDeque::from([from]);
    while let Some(n) = queue.pop_front() {
        if goal(n, None) {
            return (unwind(product, members, &prev, from, n), n);
        }
        for e in product.edges(n).filter(|e| e.inside) {
            let Some(i) = at(e.to) else {
                continue;
            };
            if goal(n, Some(&e)) {
                let mut path = unwind(product, members, &prev, from, n);
                path.push((n, e));
                return (path, e.to);
            }
            if prev[i] == UNSEEN {
                prev[i] = n;
                queue.push_back(e.to);
            }
        }
    }
    (Vec::new(), from)
}

/// A node of [`search`] not reached yet.
const UNSEEN: u32 = u32::MAX;

fn unwind(
    product: &impl Space,
    members: &[u32],
    prev: &[u32],
    from: u32,
    mut n: u32,
) -> Vec<Walked> {
    let mut path = Vec::new();
    while n != from {
        let p = prev[members.binary_search(&n).expect("a member")];
        let e = product.edges(p).find(|e| e.inside && e.to == n);
        path.push((p, e.expect("the edge the search took")));
        n = p;
    }
    path.reverse();
    path
}

/// Whether `hit` holds of any of `nodes` nodes, read by pieces on `threads` threads.
fn any_node(nodes: usize, threads: usize, hit: &(impl Fn(u32) -> bool + Sync)) -> bool {
    const PIECE: usize = 1 << 14;
    let piece = |k: usize| (k * PIECE) as u32..((k + 1) * PIECE).min(nodes) as u32;
    let pieces = crate::lean::parallel::run(threads, nodes.div_ceil(PIECE), |k| piece(k).any(hit));
    pieces.contains(&true)
}
