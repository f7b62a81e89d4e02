//! Verdicts decided by brute force on the oracle's own state space ([`Lts`]), sharing
//! nothing with the checker's exploration, product or tableau.
//!
//! Safety by breadth-first distance. `ltl` (and the liveness shapes as formulas) by the
//! textbook construction of Lichtenstein and Pnueli: an *atom* is a truth value for every
//! subformula of the formula's closure, consistent with the step's label and with the boolean
//! operators; consecutive atoms agree on `X` and on the expansion `a U b = b or (a and X (a U b))`;
//! a run satisfies the formula exactly when it has a sequence of atoms that starts with the formula
//! true and fulfils every `a U b` it holds (infinitely often `b`, or `a U b` false). So the formula
//! holds when no reachable strongly connected component of (state, atom) pairs, started with the
//! formula false, has a cycle that fulfils every until, and, under `fair`, on which every instance
//! enabled in all its states moves; under `strong fair`, a component is decomposed further as
//! Emerson and Lei do for Streett conditions ([`fair_cycle`]), from the definition of
//! docs/semantics.md (instances and channels as obligations, [`super::strong::taken`]). Finite
//! maximal paths stutter forever in their last state (a step that matches no pattern and that no
//! instance takes); a state whose only transitions fault ends no maximal path.

use super::formula::{Atom, Env, Formula, matches, rename, variables};
use super::lts::Lts;
use super::strong::{Obligation, taken};
use agentpi_semantics::Semantics;
use std::collections::{HashMap, HashSet};

/// The length of a shortest path into a deadlock (rule *Deadlock*), if any.
pub fn shortest_deadlock(sem: &Semantics<'_>, lts: &Lts) -> Option<usize> {
    (0..lts.states.len())
        .filter(|&s| lts.stuck(s) && !sem.is_valid_end(&lts.states[s]))
        .map(|s| lts.depth[s])
        .min()
}

/// The length of a shortest path whose last step matches `atom`, if any.
pub fn shortest_match(sem: &Semantics<'_>, lts: &Lts, atom: &Atom) -> Option<usize> {
    let edges = (0..lts.states.len()).flat_map(|s| lts.edges[s].iter().map(move |e| (s, e)));
    edges
        .filter(|(_, e)| matches(sem, atom, Some(&e.label), &Env::new()).is_some())
        .map(|(s, _)| lts.depth[s] + 1)
        .min()
}

/// Whether two atoms match the same labels (patterns compared without their positions).
fn same_atom(a: &Atom, b: &Atom) -> bool {
    match (a, b) {
        (Atom::Text(x), Atom::Text(y)) => x == y,
        (Atom::Pattern(p), Atom::Pattern(q)) => {
            (&p.head, p.dir, &p.args) == (&q.head, q.dir, &q.args)
        }
        _ => false,
    }
}

/// A subformula of the closure; children come before their parents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Const(bool),
    Prop(usize),
    Not(usize),
    And(usize, usize),
    Or(usize, usize),
    Next(usize),
    Until(usize, usize),
}

/// The subformulas, each once (equal subformulas share a node: fewer free choices per atom).
#[derive(Default)]
struct Closure<'a> {
    nodes: Vec<Node>,
    index: HashMap<Node, usize>,
    props: Vec<&'a Atom>,
    /// The variables that have values (bound by the `A` of a top `[] (A -> f)`).
    bound: Vec<String>,
}

impl<'a> Closure<'a> {
    /// Adds `f` with `R` written as `not (not a U not b)` and `A -> f` as `not A or f`
    /// when `A` binds nothing new; an error when it does (this construction does not follow
    /// values).
    fn add(&mut self, f: &'a Formula) -> Result<usize, String> {
        let node = match f {
            Formula::Const(b) => Node::Const(*b),
            Formula::Atom(a) => Node::Prop(self.prop(a)),
            Formula::Not(a) => Node::Not(self.add(a)?),
            Formula::And(a, b) => Node::And(self.add(a)?, self.add(b)?),
            Formula::Or(a, b) => Node::Or(self.add(a)?, self.add(b)?),
            Formula::Next(a) => Node::Next(self.add(a)?),
            Formula::Until(a, b) => Node::Until(self.add(a)?, self.add(b)?),
            Formula::Release(a, b) => {
                let (a, b) = (self.add(a)?, self.add(b)?);
                let (not_a, not_b) = (self.push(Node::Not(a)), self.push(Node::Not(b)));
                let until = self.push(Node::Until(not_a, not_b));
                Node::Not(until)
            }
            Formula::Bind(a, g) if variables(a).iter().all(|x| self.bound.contains(x)) => {
                let prop = Node::Prop(self.prop(a));
                let not_a = Node::Not(self.push(prop));
                Node::Or(self.push(not_a), self.add(g)?)
            }
            Formula::Bind(..) => return Err("`A -> f` binding variables below the top".into()),
        };
        Ok(self.push(node))
    }

    /// The node for `node`, with `not` folded on constants and on `not`.
    fn push(&mut self, node: Node) -> usize {
        let node = match node {
            Node::Not(a) => match self.nodes[a] {
                Node::Not(inner) => return inner,
                Node::Const(b) => Node::Const(!b),
                _ => node,
            },
            _ => node,
        };
        if let Some(&k) = self.index.get(&node) {
            return k;
        }
        self.nodes.push(node);
        self.index.insert(node, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    fn prop(&mut self, atom: &'a Atom) -> usize {
        if let Some(i) = self.props.iter().position(|p| same_atom(p, atom)) {
            return i;
        }
        self.props.push(atom);
        self.props.len() - 1
    }

    /// Every atom whose props are `props` and that agrees with `forced` where it is set.
    fn atoms(&self, props: &[bool], forced: &[Option<bool>]) -> Vec<Vec<bool>> {
        let mut out = Vec::new();
        self.extend(props, forced, &mut Vec::new(), &mut out);
        out
    }

    fn extend(
        &self,
        props: &[bool],
        forced: &[Option<bool>],
        atom: &mut Vec<bool>,
        out: &mut Vec<Vec<bool>>,
    ) {
        let k = atom.len();
        let Some(node) = self.nodes.get(k) else {
            out.push(atom.clone());
            return;
        };
        let choices: &[bool] = match *node {
            Node::Const(b) => &[b][..],
            Node::Prop(i) => &[props[i]][..],
            Node::Not(a) => &[!atom[a]][..],
            Node::And(a, b) => &[atom[a] && atom[b]][..],
            Node::Or(a, b) => &[atom[a] || atom[b]][..],
            Node::Next(_) => &[false, true][..],
            // `a U b` is true where `b` is, false where neither is, else up to the future.
            Node::Until(_, b) if atom[b] => &[true][..],
            Node::Until(a, _) if !atom[a] => &[false][..],
            Node::Until(..) => &[false, true][..],
        };
        for &v in choices
            .iter()
            .filter(|&&v| forced[k].is_none_or(|f| f == v))
        {
            atom.push(v);
            self.extend(props, forced, atom, out);
            atom.pop();
        }
    }

    /// What the next atom must say after `atom`: `X a` gives `a`, and an until that is
    /// undecided here (`a` true, `b` false) keeps its value. `None` when two demands clash.
    fn successor_demands(&self, atom: &[bool]) -> Option<Vec<Option<bool>>> {
        let mut forced = vec![None; self.nodes.len()];
        let mut demand = |k: usize, v: bool| match forced[k] {
            Some(w) if w != v => false,
            _ => {
                forced[k] = Some(v);
                true
            }
        };
        for (k, node) in self.nodes.iter().enumerate() {
            let ok = match *node {
                Node::Next(a) => demand(a, atom[k]),
                Node::Until(a, b) if atom[a] && !atom[b] => demand(k, atom[k]),
                _ => true,
            };
            if !ok {
                return None;
            }
        }
        Some(forced)
    }

    /// The props of an atom, as a label gives them.
    fn props_of(&self, atom: &[bool]) -> Vec<bool> {
        let mut props = vec![false; self.props.len()];
        for (k, node) in self.nodes.iter().enumerate() {
            if let Node::Prop(i) = node {
                props[*i] = atom[k];
            }
        }
        props
    }
}

/// A step of a maximal path: a transition, or the stutter step of a stuck state.
struct Move {
    /// Which props the step's label matches.
    props: Vec<bool>,
    target: usize,
    /// The instances that move and the channel it communicates on (none for a stutter).
    taken: Vec<Obligation>,
}

/// The maximal paths the atoms are checked against, from node 0: each node's steps and the
/// obligations (instances, channels) it enables.
struct Space {
    moves: Vec<Vec<Move>>,
    enabled: Vec<Vec<Obligation>>,
}

/// The obligations state `s` enables: those its transitions that do not fault take.
fn enabled(lts: &Lts, s: usize) -> Vec<Obligation> {
    let mut all: Vec<Obligation> = (lts.edges[s].iter())
        .flat_map(|e| taken(&e.label, &e.actors))
        .collect();
    all.sort();
    all.dedup();
    all
}

impl Space {
    /// The state space itself, atoms matched with no values bound.
    fn plain(sem: &Semantics<'_>, lts: &Lts, props: &[&Atom]) -> Space {
        let moves = (0..lts.states.len())
            .map(|s| {
                let env = Env::new();
                moves_of(sem, lts, props, s, &env)
                    .into_iter()
                    .map(|(m, _)| m)
                    .collect()
            })
            .collect();
        let enabled = (0..lts.states.len()).map(|s| enabled(lts, s)).collect();
        Space { moves, enabled }
    }

    /// The paths that start with the `edge`-th transition of `state`, the values `bound`
    /// travelling with them (renamed at each step): nodes are (state, values), node 0 the
    /// start.
    fn bound(
        sem: &Semantics<'_>,
        lts: &Lts,
        props: &[&Atom],
        (state, edge): (usize, usize),
        bound: Env,
    ) -> Space {
        let (first, after) = moves_of(sem, lts, props, state, &bound).swap_remove(edge);
        // Node k > 0 is keys[k - 1].
        let mut keys = vec![after];
        let mut index: HashMap<(usize, Env), usize> = HashMap::from([(keys[0].clone(), 1)]);
        let mut space = Space {
            moves: vec![vec![Move { target: 1, ..first }]],
            enabled: vec![enabled(lts, state)],
        };
        while space.moves.len() <= keys.len() {
            let (s, env) = keys[space.moves.len() - 1].clone();
            let mut out = Vec::new();
            for (mut m, key) in moves_of(sem, lts, props, s, &env) {
                let next = keys.len() + 1;
                m.target = *index.entry(key.clone()).or_insert(next);
                if m.target == next {
                    keys.push(key);
                }
                out.push(m);
            }
            space.moves.push(out);
            space.enabled.push(enabled(lts, s));
        }
        space
    }
}

/// The steps of `state` with `env` bound, each with the (state, values) it leads to.
fn moves_of(
    sem: &Semantics<'_>,
    lts: &Lts,
    props: &[&Atom],
    state: usize,
    env: &Env,
) -> Vec<(Move, (usize, Env))> {
    let props_of = |label| {
        props
            .iter()
            .map(|a| matches(sem, a, label, env).is_some())
            .collect()
    };
    if lts.stuck(state) {
        let stutter = Move {
            props: props_of(None),
            target: state,
            taken: Vec::new(),
        };
        return vec![(stutter, (state, env.clone()))];
    }
    lts.edges[state]
        .iter()
        .map(|e| {
            let m = Move {
                props: props_of(Some(&e.label)),
                target: e.target,
                taken: taken(&e.label, &e.actors),
            };
            (m, (e.target, rename(env, Some(&e.renaming))))
        })
        .collect()
}

/// The product of a space with the atoms: nodes are (space node, atom) where the atom
/// describes the run from the step the node takes next.
struct Product {
    nodes: Vec<(usize, Vec<bool>)>,
    /// Per node: (target node, the move of its space node taken).
    edges: Vec<Vec<(usize, usize)>>,
}

/// Which maximal paths a verdict is about.
#[derive(Clone, Copy)]
pub enum Fairness<'f> {
    /// Every one.
    All,
    /// The weakly fair ones (`fair`).
    Weak,
    /// The weakly fair ones on which every obligation `held` that is enabled in infinitely
    /// many states is taken infinitely often (`strong fair`, `strong fair(...)`).
    Strong(&'f dyn Fn(&Obligation) -> bool),
}

impl From<bool> for Fairness<'_> {
    /// `fair` or not.
    fn from(fair: bool) -> Self {
        if fair { Fairness::Weak } else { Fairness::All }
    }
}

/// Whether `formula` holds on every maximal path (every fair one under `fairness`) of
/// `lts`. A formula `[] (A -> f)` whose `A` binds variables is decided for each reachable
/// step that matches `A`: `f` must hold on every path from that step with the values it
/// bound (`[] (A -> f)` says exactly that, and a step reached by a path lies on a maximal
/// path whose fairness only its suffix decides). An error for variables bound elsewhere.
pub fn ltl_holds<'f>(
    sem: &Semantics<'_>,
    lts: &Lts,
    formula: &Formula,
    fairness: impl Into<Fairness<'f>>,
) -> Result<bool, String> {
    let fair = fairness.into();
    let (binder, body) = match formula {
        Formula::Release(never, body) if matches!(**never, Formula::Const(false)) => {
            match &**body {
                Formula::Bind(a, f) if !variables(a).is_empty() => (a, &**f),
                _ => return holds_on(sem, lts, formula, fair, None),
            }
        }
        _ => return holds_on(sem, lts, formula, fair, None),
    };
    for (s, edges) in lts.edges.iter().enumerate() {
        for (i, e) in edges.iter().enumerate() {
            if let Some(bound) = matches(sem, binder, Some(&e.label), &Env::new())
                && !holds_on(sem, lts, body, fair, Some(((s, i), bound)))?
            {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether `formula` holds on every maximal path of the whole space, or of the paths from
/// one step with values bound.
fn holds_on(
    sem: &Semantics<'_>,
    lts: &Lts,
    formula: &Formula,
    fair: Fairness<'_>,
    from: Option<((usize, usize), Env)>,
) -> Result<bool, String> {
    let mut closure = Closure {
        bound: from
            .iter()
            .flat_map(|(_, env)| env.iter().map(|(x, _)| x.clone()))
            .collect(),
        ..Closure::default()
    };
    let root = closure.add(formula)?;
    let space = match from {
        None => Space::plain(sem, lts, &closure.props),
        Some((step, bound)) => Space::bound(sem, lts, &closure.props, step, bound),
    };
    let product = Builder::build(&closure, &space, root);
    let untils: Vec<(usize, usize)> = closure
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(k, n)| match n {
            Node::Until(_, b) => Some((k, *b)),
            _ => None,
        })
        .collect();
    let all: Vec<usize> = (0..product.nodes.len()).collect();
    let bad = (components(&product, &all).into_iter())
        .any(|scc| fair_cycle(&space, &product, &untils, fair, scc));
    Ok(!bad)
}

/// What the next atom must say of some subformulas (see [`Closure::successor_demands`]).
type Demands = Vec<Option<bool>>;

/// Builds the product reachable from node 0 with the formula false.
struct Builder<'a> {
    closure: &'a Closure<'a>,
    space: &'a Space,
    /// The atoms of each letter (the props a step matches) under each demand.
    atoms: HashMap<(Vec<bool>, Demands), Vec<Vec<bool>>>,
    index: HashMap<(usize, Vec<bool>), usize>,
    product: Product,
}

impl Builder<'_> {
    fn build(closure: &Closure<'_>, space: &Space, root: usize) -> Product {
        let mut builder = Builder {
            closure,
            space,
            atoms: HashMap::new(),
            index: HashMap::new(),
            product: Product {
                nodes: Vec::new(),
                edges: Vec::new(),
            },
        };
        let mut negated = vec![None; closure.nodes.len()];
        negated[root] = Some(false);
        for atom in builder.next_atoms(0, &negated) {
            builder.node((0, atom));
        }
        let mut next = 0;
        while next < builder.product.nodes.len() {
            builder.expand(next);
            next += 1;
        }
        builder.product
    }

    /// The edges of node `n`: each step its space node takes whose label agrees with its
    /// atom, to each atom the target can have next.
    fn expand(&mut self, n: usize) {
        let (s, atom) = self.product.nodes[n].clone();
        let here = self.closure.props_of(&atom);
        let Some(demands) = self.closure.successor_demands(&atom) else {
            return;
        };
        for (k, m) in self.space.moves[s].iter().enumerate() {
            if m.props != here {
                continue;
            }
            for b in self.next_atoms(m.target, &demands) {
                let to = self.node((m.target, b));
                self.product.edges[n].push((to, k));
            }
        }
    }

    /// The atoms space node `s` can start with, under `demands`: one set per distinct letter
    /// of its steps.
    fn next_atoms(&mut self, s: usize, demands: &Demands) -> Vec<Vec<bool>> {
        let mut letters: Vec<&Vec<bool>> = self.space.moves[s].iter().map(|m| &m.props).collect();
        letters.sort();
        letters.dedup();
        let closure = self.closure;
        letters
            .into_iter()
            .flat_map(|props| {
                let key = (props.clone(), demands.clone());
                self.atoms
                    .entry(key)
                    .or_insert_with_key(|(p, d)| closure.atoms(p, d))
                    .clone()
            })
            .collect()
    }

    fn node(&mut self, key: (usize, Vec<bool>)) -> usize {
        let product = &mut self.product;
        *self.index.entry(key.clone()).or_insert_with(|| {
            product.nodes.push(key);
            product.edges.push(Vec::new());
            product.nodes.len() - 1
        })
    }
}

/// Whether some cycle within `scc` fulfils every until (`untils`: (until, its right side))
/// and is fair; for strong fairness by the decomposition of Emerson and Lei. A condition
/// that no state of a part meets (an until fulfilled), or that every cycle within it breaks
/// (an instance enabled in all its states and moving on none of its edges), rules out the
/// part and every cycle within it. Otherwise a cycle through all of the part's edges meets
/// it, and is strongly fair when every obligation held and enabled in one of its states is
/// taken on one of its edges. If one is not, no fair cycle within the part passes a state
/// enabling it (it would have to take it, on an edge of the part): those states go, and the
/// components of what remains are examined the same way. Each round removes a state.
fn fair_cycle(
    space: &Space,
    product: &Product,
    untils: &[(usize, usize)],
    fairness: Fairness<'_>,
    scc: Vec<usize>,
) -> bool {
    let mut parts = vec![scc];
    while let Some(part) = parts.pop() {
        let fulfils = |&(k, b): &(usize, usize)| {
            (part.iter()).any(|&n| product.nodes[n].1[b] || !product.nodes[n].1[k])
        };
        if !untils.iter().all(fulfils) {
            continue;
        }
        if !matches!(fairness, Fairness::All) && !weakly_fair(space, product, &part) {
            continue;
        }
        let Fairness::Strong(held) = fairness else {
            return true;
        };
        let starved = starved(space, product, &part, held);
        if starved.is_empty() {
            return true;
        }
        let enables_starved =
            |n: &usize| (space.enabled[product.nodes[*n].0].iter()).any(|o| starved.contains(o));
        let rest: Vec<usize> = part
            .iter()
            .copied()
            .filter(|n| !enables_starved(n))
            .collect();
        parts.extend(components(product, &rest));
    }
    false
}

/// The obligations `held` that a state of `part` enables and no edge within it takes.
fn starved(
    space: &Space,
    product: &Product,
    part: &[usize],
    held: &dyn Fn(&Obligation) -> bool,
) -> HashSet<Obligation> {
    let members: HashSet<usize> = part.iter().copied().collect();
    let mut starved: HashSet<Obligation> = HashSet::new();
    let mut took: HashSet<&Obligation> = HashSet::new();
    for &n in part {
        let s = product.nodes[n].0;
        starved.extend(space.enabled[s].iter().filter(|o| held(o)).cloned());
        for &(to, k) in &product.edges[n] {
            if members.contains(&to) {
                took.extend(space.moves[s][k].taken.iter());
            }
        }
    }
    starved.retain(|o| !took.contains(o));
    starved
}

/// Whether a cycle through all of `scc` is weakly fair: every instance enabled in all its
/// states moves on one of its edges.
fn weakly_fair(space: &Space, product: &Product, scc: &[usize]) -> bool {
    let members: HashSet<usize> = scc.iter().copied().collect();
    let instances = |os: &[Obligation]| -> HashSet<u32> {
        (os.iter())
            .filter_map(|o| match o {
                Obligation::Instance(i) => Some(*i),
                _ => None,
            })
            .collect()
    };
    let mut always: Option<HashSet<u32>> = None;
    let mut moved = HashSet::new();
    for &n in scc {
        let s = product.nodes[n].0;
        let here = instances(&space.enabled[s]);
        always = Some(match always {
            None => here,
            Some(a) => a.intersection(&here).copied().collect(),
        });
        for &(to, k) in &product.edges[n] {
            if members.contains(&to) {
                moved.extend(instances(&space.moves[s][k].taken));
            }
        }
    }
    always.unwrap_or_default().is_subset(&moved)
}

/// The strongly connected components of the product restricted to `nodes` (edges leaving
/// them ignored) that hold a cycle.
fn components(product: &Product, nodes: &[usize]) -> Vec<Vec<usize>> {
    let local: HashMap<usize, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let graph: Vec<Vec<usize>> = (nodes.iter())
        .map(|&n| {
            (product.edges[n].iter())
                .filter_map(|(to, _)| local.get(to).copied())
                .collect()
        })
        .collect();
    tarjan(&graph)
        .into_iter()
        .map(|scc| scc.into_iter().map(|i| nodes[i]).collect())
        .collect()
}

/// The strongly connected components of `graph` that hold a cycle (Tarjan's algorithm,
/// iterative).
fn tarjan(graph: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = graph.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut counter) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0)];
        (index[root], low[root], on_stack[root]) = (counter, counter, true);
        counter += 1;
        stack.push(root);
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = graph[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    (index[w], low[w], on_stack[w]) = (counter, counter, true);
                    counter += 1;
                    stack.push(w);
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                let cyclic = scc.len() > 1 || graph[v].contains(&v);
                if cyclic {
                    out.push(scc);
                }
            }
        }
    }
    out
}
