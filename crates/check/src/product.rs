//! Liveness on the product of the state space with a property monitor.
//!
//! A liveness property fails when some path reaches the monitor's *avoid* region (a response is
//! owed, or the awaited action has not happened) and then either stops there (a stuck state) or
//! cycles there forever, under weak or strong fairness when asked. Cycles are found with
//! Tarjan's SCCs on the avoid region; an SCC holds a weakly fair cycle exactly when every
//! component enabled in all its states moves on some edge inside it. Strong fairness is
//! decided the Emerson–Lei way (see [`crate::strong`]). The counterexample is a lasso: the
//! shortest stem (the product is numbered breadth-first) and a cycle through the SCC.

use crate::graph::Graph;
use agentpi_semantics::Actor;
use rustc_hash::FxHashSet;
use std::collections::VecDeque;

/// Which paths count for a liveness property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fairness<'a> {
    /// Every path.
    None,
    /// Weakly fair paths (`fair`): no instance enabled in every state from some point on
    /// without moving.
    Weak,
    /// Strongly fair paths (`strong fair`): no instance and no channel enabled infinitely
    /// often and taken only finitely often; with a selection (`strong fair(link)`), that of
    /// the instances and channels selected, and the others weakly fair.
    Strong(Option<&'a crate::strong::Selection>),
}

impl Fairness<'_> {
    /// Whether instances are held to weak fairness apart from strong fairness: under a
    /// selection (strong fairness of an instance implies its weak fairness).
    fn weak_goals(self) -> bool {
        matches!(self, Fairness::Weak | Fairness::Strong(Some(_)))
    }
}

/// A system transition: the `edge`-th transition of `state` in the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub state: u32,
    pub edge: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct ProductEdge {
    pub to: u32,
    pub step: Step,
    /// The edge stays in the avoid region (it neither leaves nor discharges it).
    pub inside: bool,
    /// The eventualities of an LTL automaton still pending after this edge, one bit each
    /// (always 0 for the fixed shapes): a cycle is accepting when, for every bit, some edge on
    /// it has the bit clear.
    pub pending: u64,
}

/// The product graph, numbered in breadth-first order from node 0.
#[derive(Default)]
pub struct Product {
    /// The system state of each node.
    pub state: Vec<u32>,
    pub avoid: Vec<bool>,
    /// A path that stops at this node (its state has no transitions) violates the property.
    pub stutter: Vec<bool>,
    /// Every continuation from this node violates the property: reaching it is enough.
    pub universal: Vec<bool>,
    pub adj: Vec<Vec<ProductEdge>>,
    /// The edge each node was first reached by.
    pub parent: Vec<Option<(u32, usize)>>,
}

impl Product {
    /// Room for `nodes` more nodes.
    pub fn reserve(&mut self, nodes: usize) {
        self.state.reserve(nodes);
        self.avoid.reserve(nodes);
        self.stutter.reserve(nodes);
        self.universal.reserve(nodes);
        self.adj.reserve(nodes);
        self.parent.reserve(nodes);
    }

    pub fn add_node(&mut self, state: u32, avoid: bool, parent: Option<(u32, usize)>) -> u32 {
        self.state.push(state);
        self.avoid.push(avoid);
        self.stutter.push(avoid);
        self.universal.push(false);
        self.adj.push(Vec::new());
        self.parent.push(parent);
        self.state.len() as u32 - 1
    }

    fn stem(&self, mut node: u32) -> Vec<Step> {
        let mut steps = Vec::new();
        while let Some((p, e)) = self.parent[node as usize] {
            steps.push(self.adj[p as usize][e].step);
            node = p;
        }
        steps.reverse();
        steps
    }
}

/// A liveness counterexample: `steps[loop_start..]` repeats forever; no loop means the path
/// ends in a stuck state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    pub steps: Vec<Step>,
    pub loop_start: Option<usize>,
}

/// Searches the product for a path that stays in the avoid region forever (through an
/// accepting cycle), stops where stopping violates, or reaches a universal node.
pub fn find_lasso(product: &Product, graph: &Graph, fair: Fairness) -> Option<Lasso> {
    let cycles = bad_sccs(product, graph, fair);
    let mut in_bad = vec![usize::MAX; product.state.len()];
    for (i, scc) in cycles.iter().enumerate() {
        scc.iter().for_each(|&n| in_bad[n as usize] = i);
    }
    // A state whose only steps fail is reported by the `assertions` check, not here.
    let faulty: FxHashSet<u32> = graph.faults.iter().map(|f| f.source).collect();
    let stuck = |n: usize| {
        let s = product.state[n];
        product.stutter[n]
            && graph.is_expanded(s)
            && graph.successors(s).is_empty()
            && !faulty.contains(&s)
    };
    let first = (0..product.state.len())
        .find(|&n| in_bad[n] != usize::MAX || stuck(n) || product.universal[n])?;
    let mut steps = product.stem(first as u32);
    if in_bad[first] == usize::MAX {
        return Some(Lasso {
            steps,
            loop_start: None,
        });
    }
    let loop_start = steps.len();
    steps.extend(cycle_through(
        product,
        graph,
        &cycles[in_bad[first]],
        first as u32,
        fair,
    ));
    Some(Lasso {
        steps,
        loop_start: Some(loop_start),
    })
}

/// The product as [`crate::strong`] sees it.
impl crate::strong::Product for Product {
    fn state(&self, n: u32) -> u32 {
        self.state[n as usize]
    }

    fn steps(&self, part: &[u32]) -> Vec<(u32, u32)> {
        let members: FxHashSet<u32> = part.iter().copied().collect();
        let inside = internal(self, part, &members);
        inside.map(|e| (e.step.state, e.step.edge)).collect()
    }

    fn pending(&self, part: &[u32]) -> u64 {
        always_pending(self, part)
    }

    fn sccs(&self, roots: &[u32], keep: &FxHashSet<u32>) -> Vec<Vec<u32>> {
        tarjan_within(self, roots, &|n| keep.contains(&n))
    }
}

fn bad_sccs(product: &Product, graph: &Graph, fair: Fairness) -> Vec<Vec<u32>> {
    let mut sccs = accepting_sccs(product);
    match fair {
        Fairness::None => sccs,
        Fairness::Weak => {
            sccs.retain(|scc| fairness_gap(product, graph, scc).is_empty());
            sccs
        }
        Fairness::Strong(selection) => {
            let mut fair = Vec::new();
            for scc in sccs {
                fair.extend(crate::strong::fair_parts(product, graph, scc, selection));
            }
            fair
        }
    }
}

/// The SCCs of the avoid region with a cycle that clears every pending bit somewhere (a
/// cycle through all of an SCC's edges does).
pub fn accepting_sccs(product: &Product) -> Vec<Vec<u32>> {
    let mut sccs = tarjan(product);
    sccs.retain(|scc| always_pending(product, scc) == 0);
    sccs
}

/// Inside edges of `scc` that stay in it.
fn internal<'a>(
    product: &'a Product,
    scc: &'a [u32],
    members: &'a FxHashSet<u32>,
) -> impl Iterator<Item = &'a ProductEdge> {
    scc.iter().flat_map(move |&n| {
        product.adj[n as usize]
            .iter()
            .filter(|e| e.inside && members.contains(&e.to))
    })
}

/// The bits pending on every edge of `scc` (and the bits pending on some edge).
fn pending_bits(product: &Product, scc: &[u32]) -> (u64, u64) {
    let members: FxHashSet<u32> = scc.iter().copied().collect();
    internal(product, scc, &members).fold((u64::MAX, 0), |(all, any), e| {
        (all & e.pending, any | e.pending)
    })
}

fn always_pending(product: &Product, scc: &[u32]) -> u64 {
    pending_bits(product, scc).0
}

/// Strongly connected components of the avoid region (inside edges only) that hold a cycle.
fn tarjan(product: &Product) -> Vec<Vec<u32>> {
    let roots: Vec<u32> = (0..product.state.len() as u32)
        .filter(|&r| product.avoid[r as usize])
        .collect();
    tarjan_within(product, &roots, &|_| true)
}

/// Strongly connected components, holding a cycle, of the graph of inside edges between
/// nodes that `keep` keeps, searched from `roots` (kept nodes of the avoid region).
fn tarjan_within(product: &Product, roots: &[u32], keep: &dyn Fn(u32) -> bool) -> Vec<Vec<u32>> {
    let n = product.state.len();
    let (mut index, mut low) = (vec![u32::MAX; n], vec![0u32; n]);
    let (mut on_stack, mut stack, mut out) = (vec![false; n], Vec::new(), Vec::new());
    let mut counter = 0u32;
    for root in roots.iter().map(|&r| r as usize) {
        if index[root] != u32::MAX {
            continue;
        }
        let mut work: Vec<(u32, usize)> = vec![(root as u32, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            let edges = &product.adj[v as usize];
            let found = (*next..edges.len()).find(|&i| edges[i].inside && keep(edges[i].to));
            if let Some(i) = found {
                *next = i + 1;
                let w = edges[i].to as usize;
                if index[w] == u32::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    work.push((w as u32, 0));
                } else if on_stack[w] {
                    low[v as usize] = low[v as usize].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut scc = Vec::new();
                loop {
                    let w = stack.pop().expect("tarjan stack");
                    on_stack[w as usize] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1
                    || product.adj[v as usize]
                        .iter()
                        .any(|e| e.inside && e.to == v && keep(v))
                {
                    scc.sort_unstable();
                    out.push(scc);
                }
            }
        }
    }
    out
}

fn enabled(graph: &Graph, state: u32) -> FxHashSet<Actor> {
    graph
        .successors(state)
        .iter()
        .flat_map(|e| graph.actor_sets[e.actors as usize].iter().copied())
        .collect()
}

/// Components enabled in every state of `scc` that never move inside it: each makes every
/// cycle of the SCC unfair.
fn fairness_gap(product: &Product, graph: &Graph, scc: &[u32]) -> Vec<Actor> {
    let members: FxHashSet<u32> = scc.iter().copied().collect();
    let mut always: Option<FxHashSet<Actor>> = None;
    let mut taken = FxHashSet::default();
    for &n in scc {
        let here = enabled(graph, product.state[n as usize]);
        always = Some(match always {
            None => here,
            Some(a) => a.intersection(&here).copied().collect(),
        });
        for e in product.adj[n as usize]
            .iter()
            .filter(|e| e.inside && members.contains(&e.to))
        {
            taken.extend(
                graph.actor_sets
                    [graph.successors(e.step.state)[e.step.edge as usize].actors as usize]
                    .iter()
                    .copied(),
            );
        }
    }
    let mut gap: Vec<Actor> = always
        .unwrap_or_default()
        .into_iter()
        .filter(|a| !taken.contains(a))
        .collect();
    gap.sort();
    gap
}

/// A cycle from `start` back to itself inside `scc`; under fairness it also passes, for each
/// component enabled somewhere in the SCC, a state where it is disabled or an edge it takes;
/// and for each pending bit, an edge that clears it.
fn cycle_through(
    product: &Product,
    graph: &Graph,
    scc: &[u32],
    start: u32,
    fair: Fairness,
) -> Vec<Step> {
    let members: FxHashSet<u32> = scc.iter().copied().collect();
    let mut steps = Vec::new();
    let mut at = start;
    if let Fairness::Strong(selection) = fair {
        // Every obligation enabled somewhere in the part is taken on one of its edges.
        for goal in crate::strong::obligations_of(product, graph, scc, selection) {
            let taken = |_: u32, e: Option<&ProductEdge>| {
                e.is_some_and(|e| crate::strong::takes(graph, (e.step.state, e.step.edge), &goal))
            };
            let (path, end) = search(product, &members, at, &taken);
            steps.extend(path);
            at = end;
        }
    }
    if fair.weak_goals() {
        let actors: FxHashSet<Actor> = scc
            .iter()
            .flat_map(|&n| enabled(graph, product.state[n as usize]))
            .collect();
        let mut actors: Vec<Actor> = actors.into_iter().collect();
        actors.sort();
        for actor in actors {
            let goal = |n: u32, e: Option<&ProductEdge>| match e {
                None => !enabled(graph, product.state[n as usize]).contains(&actor),
                Some(e) => graph.actor_sets
                    [graph.successors(e.step.state)[e.step.edge as usize].actors as usize]
                    .contains(&actor),
            };
            let (path, end) = search(product, &members, at, &goal);
            steps.extend(path);
            at = end;
        }
    }
    let (_, pending) = pending_bits(product, scc);
    for bit in (0..64).filter(|b| pending >> b & 1 == 1) {
        let goal = |_: u32, e: Option<&ProductEdge>| e.is_some_and(|e| e.pending >> bit & 1 == 0);
        let (path, end) = search(product, &members, at, &goal);
        steps.extend(path);
        at = end;
    }
    let (path, _) = search(product, &members, at, &|n, e: Option<&ProductEdge>| {
        e.is_some_and(|e| e.to == start) && n != u32::MAX
    });
    steps.extend(path);
    steps
}

/// Breadth-first search inside the SCC from `from` for the nearest state (`goal(n, None)`) or
/// edge (`goal(source, Some(edge))`, which is then taken). Returns the steps and the end node.
fn search(
    product: &Product,
    members: &FxHashSet<u32>,
    from: u32,
    goal: &dyn Fn(u32, Option<&ProductEdge>) -> bool,
) -> (Vec<Step>, u32) {
    let mut prev: rustc_hash::FxHashMap<u32, (u32, Step)> = Default::default();
    let mut queue = VecDeque::from([from]);
    let mut seen = FxHashSet::from_iter([from]);
    while let Some(n) = queue.pop_front() {
        if goal(n, None) {
            return (unwind(&prev, from, n), n);
        }
        for e in product.adj[n as usize]
            .iter()
            .filter(|e| e.inside && members.contains(&e.to))
        {
            if goal(n, Some(e)) {
                let mut path = unwind(&prev, from, n);
                path.push(e.step);
                return (path, e.to);
            }
            if seen.insert(e.to) {
                prev.insert(e.to, (n, e.step));
                queue.push_back(e.to);
            }
        }
    }
    (Vec::new(), from)
}

fn unwind(prev: &rustc_hash::FxHashMap<u32, (u32, Step)>, from: u32, mut n: u32) -> Vec<Step> {
    let mut path = Vec::new();
    while n != from {
        let (p, step) = prev[&n];
        path.push(step);
        n = p;
    }
    path.reverse();
    path
}
