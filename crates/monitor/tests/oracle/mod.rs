//! A second answer to "does the era model take this observation, and with how many flags",
//! for holding the monitor's stepper to: a subset construction on the model's LTS, written
//! here from the semantics' transitions alone. It shares no code with
//! `agentpi_check::replay` (neither `explain`, nor its memo, alphabet or matcher): only the
//! one step relation (`Semantics::successors`, what `agentpi lts` writes too) and the
//! `Observation` type, the question's input.
//!
//! Why not the `.aut` file `agentpi lts` writes: the era models' system `Monitor` has no
//! finite LTS (each request made starts the next one's daemon, a cancelled request's observer
//! lives on until a crossing ends it), so `agentpi lts` refuses it at any `--max-states`; and
//! an `.aut` label prints a fresh name as `new r`, without which name it is, so it cannot say
//! whether `s2c(res(c2s:1, true))` answers request 1 or request 2. So the LTS is the same
//! graph `agentpi lts` explores, but built on demand from the initial state (only the states
//! the observations reach and their hidden closures), and its edges keep the renaming of
//! fresh names the semantics gives each step: an explanation is a state of that graph and
//! the observed keys bound to its fresh names, and a binding follows a name through the
//! renamings. With that, every observation the monitor makes can be decided: none is left
//! out.
//!
//! The rules, as docs/replay.md and docs/monitor.md state them:
//! - labels on `c2s`, `s2c` and `decl` are visible (a `decl` the modern model has not),
//!   `violation` is a flag, every other label is hidden; a faulting step is never taken;
//! - an observation is taken by the visible steps of the explanations that match it (a key
//!   matches the name bound to it, or, unbound, a name bound to no key, which it then
//!   binds); none: refused, and the explanations stay as they were;
//! - then hidden and flag steps are taken freely, and the explanations kept are the states
//!   they reach where no hidden or flag step is possible, with the fewest flags on the way
//!   (counted per observation): none, accepted; some, flagged.

use agentpi_check::replay::{Arg, HeadPat, Key, Observation};
use agentpi_semantics::{Chan, DEAD, Head, Label, Semantics, State, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// How the monitor sees a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    Visible,
    Hidden,
    Flag,
}

/// One edge of the LTS: a step that does not fault, its target and where each fresh name of
/// the source goes (`DEAD`: it vanished).
pub struct Edge {
    pub label: Label,
    pub seen: Seen,
    pub target: u32,
    renaming: Vec<u32>,
}

/// The LTS of one system, built on demand.
pub struct Lts {
    pub sem: &'static Semantics<'static>,
    initial: State,
    ids: HashMap<State, u32>,
    states: Vec<State>,
    edges: Vec<Option<Rc<[Edge]>>>,
}

impl Lts {
    pub fn new(sem: &'static Semantics<'static>, system: &str) -> Lts {
        let system = sem
            .program
            .system(system)
            .expect("the system is in the model");
        let initial = sem
            .initial(system)
            .expect("the initial state does not fault");
        Lts {
            sem,
            initial,
            ids: HashMap::new(),
            states: Vec::new(),
            edges: Vec::new(),
        }
    }

    fn id(&mut self, state: &State) -> u32 {
        if let Some(&id) = self.ids.get(state) {
            return id;
        }
        let id = self.states.len() as u32;
        self.ids.insert(state.clone(), id);
        self.states.push(state.clone());
        self.edges.push(None);
        id
    }

    /// Builds every state reachable from the initial one (for a finite system): how many
    /// states, and how many distinct (source, label, target) transitions, as `agentpi lts`
    /// counts them.
    pub fn whole(&mut self) -> (usize, usize) {
        let initial = self.initial.clone();
        let mut todo = vec![self.id(&initial)];
        let mut seen = HashSet::from([todo[0]]);
        let mut transitions = HashSet::new();
        while let Some(id) = todo.pop() {
            for edge in self.edges(id).iter() {
                transitions.insert((id, edge.label.clone(), edge.target));
                if seen.insert(edge.target) {
                    todo.push(edge.target);
                }
            }
        }
        (seen.len(), transitions.len())
    }

    /// The edges out of state `id`, built on first use.
    pub fn edges(&mut self, id: u32) -> Rc<[Edge]> {
        if let Some(edges) = &self.edges[id as usize] {
            return edges.clone();
        }
        let state = self.states[id as usize].clone();
        let mut edges = Vec::new();
        for t in self.sem.successors(&state) {
            if t.fault.is_some() {
                continue;
            }
            let seen = self.seen(&t.label);
            let target = self.id(&t.target);
            edges.push(Edge {
                label: t.label,
                seen,
                target,
                renaming: t.renaming.to_vec(),
            });
        }
        let edges: Rc<[Edge]> = edges.into();
        self.edges[id as usize] = Some(edges.clone());
        edges
    }

    fn seen(&self, label: &Label) -> Seen {
        let name = match &label.head {
            Head::Tau => return Seen::Hidden,
            Head::Chan(c) | Head::Send(c) | Head::Lost(c) | Head::Receive(c) => {
                self.sem.chan_name(*c)
            }
            Head::Event(e) => &self.sem.program.events[e.0 as usize].name,
        };
        match name {
            "c2s" | "s2c" | "decl" => Seen::Visible,
            "violation" => Seen::Flag,
            _ => Seen::Hidden,
        }
    }
}

/// One explanation: a state of the LTS and the keys bound to its fresh names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Expl {
    pub state: u32,
    pub names: BTreeMap<Key, u32>,
}

impl Expl {
    /// The explanation after `edge`, with `new` bindings: every name renamed into the
    /// target's numbering, the bindings of vanished names dropped.
    fn after(&self, new: &[(Key, u32)], edge: &Edge) -> Expl {
        let to = |id: u32| edge.renaming.get(id as usize).copied().unwrap_or(DEAD);
        let names = (self.names.iter().map(|(k, v)| (k, *v)))
            .chain(new.iter().map(|(k, v)| (k, *v)))
            .filter(|&(_, v)| to(v) != DEAD)
            .map(|(k, v)| (k.clone(), to(v)))
            .collect();
        Expl {
            state: edge.target,
            names,
        }
    }
}

/// The oracle's answer to one observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Accepted,
    /// Taken only with flags: the fewest on a way, and for each explanation kept, the flags
    /// (printed) found on some way to it with that few.
    Flagged {
        fewest: usize,
        per_state: Vec<BTreeSet<String>>,
    },
    Refused,
}

/// The set of explanations consistent with the observations so far.
pub struct Oracle<'l> {
    pub lts: &'l mut Lts,
    pub expls: BTreeSet<Expl>,
    /// Closures that reached no state without hidden moves (a hidden cycle): then every
    /// state reached is kept (the reference's choice), and counted here.
    pub cycles: usize,
}

impl<'l> Oracle<'l> {
    /// At the initial state, closed over hidden and flag steps.
    pub fn new(lts: &'l mut Lts) -> Oracle<'l> {
        let initial = lts.initial.clone();
        let id = lts.id(&initial);
        let mut oracle = Oracle {
            lts,
            expls: BTreeSet::new(),
            cycles: 0,
        };
        let seed = Expl {
            state: id,
            names: BTreeMap::new(),
        };
        let (kept, _) = oracle.close(BTreeSet::from([seed]));
        oracle.expls = kept;
        oracle
    }

    pub fn is_bound(&self, key: &str) -> bool {
        self.expls.iter().any(|e| e.names.contains_key(key))
    }

    pub fn forget(&mut self, key: &str) {
        let expls = std::mem::take(&mut self.expls);
        self.expls = (expls.into_iter())
            .map(|mut e| {
                e.names.remove(key);
                e
            })
            .collect();
    }

    /// The visible edges of the explanations, one for each label as printed with bound
    /// names by their keys, in the order of those texts (for walks: an order that does not
    /// hang on how the LTS happened to number its states).
    pub fn moves(&mut self) -> Vec<(Expl, Rc<[Edge]>, usize)> {
        let mut out = BTreeMap::new();
        for e in self.expls.clone() {
            let edges = self.lts.edges(e.state);
            for (i, edge) in edges.iter().enumerate() {
                if edge.seen == Seen::Visible {
                    let text = self.print(&edge.label, &e);
                    out.entry(text)
                        .or_insert_with(|| (e.clone(), edges.clone(), i));
                }
            }
        }
        out.into_values().collect()
    }

    /// The visible labels some explanation takes without a flag after them, printed with
    /// bound names by their keys (others as `new NAME`), sorted, each once: what the monitor
    /// says a peer may send next.
    pub fn expected(&mut self) -> Vec<String> {
        let mut out = BTreeSet::new();
        for e in self.expls.clone() {
            for edge in self.lts.edges(e.state).iter() {
                if edge.seen != Seen::Visible {
                    continue;
                }
                let level = self.levels(&BTreeSet::from([e.after(&[], edge)]));
                let stable: Vec<&Expl> = level.keys().filter(|x| self.stable(x)).collect();
                // No stable state (a hidden cycle): every state is kept, with no flag.
                let free = stable.is_empty() || stable.iter().any(|x| level[*x] == 0);
                if free {
                    out.insert(self.print(&edge.label, &e));
                }
            }
        }
        out.into_iter().collect()
    }

    fn print(&self, label: &Label, e: &Expl) -> String {
        let sem = self.lts.sem;
        sem.fmt_label(label, &mut |c| match c {
            Chan::Fresh { id, .. } => match e.names.iter().find(|(_, v)| **v == id) {
                Some((key, _)) => key.to_string(),
                None => format!("new {}", sem.chan_name(c)),
            },
            Chan::Global(_) => sem.chan_name(c).to_string(),
        })
    }

    pub fn step(&mut self, obs: &Observation) -> Answer {
        let mut seeds = BTreeSet::new();
        for e in self.expls.clone() {
            for edge in self.lts.edges(e.state).iter() {
                if edge.seen != Seen::Visible {
                    continue;
                }
                if let Some(new) = matches(self.lts.sem, obs, &edge.label, &e.names) {
                    seeds.insert(e.after(&new, edge));
                }
            }
        }
        if seeds.is_empty() {
            return Answer::Refused;
        }
        let (kept, answer) = self.close(seeds);
        self.expls = kept;
        answer
    }

    /// The explanations kept after `seeds`, and the answer.
    fn close(&mut self, seeds: BTreeSet<Expl>) -> (BTreeSet<Expl>, Answer) {
        let level = self.levels(&seeds);
        let stable: Vec<&Expl> = level.keys().filter(|e| self.stable(e)).collect();
        let Some(fewest) = stable.iter().map(|e| level[*e]).min() else {
            self.cycles += 1;
            return (level.into_keys().collect(), Answer::Accepted);
        };
        let kept: BTreeSet<Expl> = (stable.into_iter())
            .filter(|e| level[*e] == fewest)
            .cloned()
            .collect();
        if fewest == 0 {
            return (kept, Answer::Accepted);
        }
        let flags = self.flags_on_ways(&seeds, fewest);
        let per_state = kept
            .iter()
            .map(|e| flags.get(e).cloned().unwrap_or_default())
            .collect();
        (kept, Answer::Flagged { fewest, per_state })
    }

    fn stable(&mut self, e: &Expl) -> bool {
        let edges = self.lts.edges(e.state);
        edges.iter().all(|edge| edge.seen == Seen::Visible)
    }

    /// The fewest flags on a way from `seeds` to each explanation hidden and flag steps
    /// reach, level by level: those reached by hidden steps alone, then those one flag step
    /// from them (and their hidden closure), and so on.
    fn levels(&mut self, seeds: &BTreeSet<Expl>) -> HashMap<Expl, usize> {
        let mut level: HashMap<Expl, usize> = HashMap::new();
        let mut frontier: Vec<Expl> = seeds.iter().cloned().collect();
        let mut k = 0;
        while !frontier.is_empty() {
            let mut todo: Vec<Expl> = Vec::new();
            for e in frontier.drain(..) {
                if !level.contains_key(&e) {
                    level.insert(e.clone(), k);
                    todo.push(e);
                }
            }
            let mut at_k = Vec::new();
            while let Some(e) = todo.pop() {
                at_k.push(e.clone());
                for edge in self.lts.edges(e.state).iter() {
                    let next = e.after(&[], edge);
                    if edge.seen == Seen::Hidden && !level.contains_key(&next) {
                        level.insert(next.clone(), k);
                        todo.push(next);
                    }
                }
            }
            for e in at_k {
                for edge in self.lts.edges(e.state).iter() {
                    let next = e.after(&[], edge);
                    if edge.seen == Seen::Flag && !level.contains_key(&next) {
                        frontier.push(next);
                    }
                }
            }
            k += 1;
        }
        level
    }

    /// For each explanation reached from `seeds` on a way with exactly `fewest` flags, the
    /// flags found on such ways (a search over the explanation, the flags so far and their
    /// count, which never passes `fewest`).
    fn flags_on_ways(
        &mut self,
        seeds: &BTreeSet<Expl>,
        fewest: usize,
    ) -> HashMap<Expl, BTreeSet<String>> {
        type Node = (Expl, usize, BTreeSet<String>);
        let mut seen: HashSet<Node> = HashSet::new();
        let mut todo: Vec<Node> = seeds
            .iter()
            .map(|e| (e.clone(), 0, BTreeSet::new()))
            .collect();
        let mut out: HashMap<Expl, BTreeSet<String>> = HashMap::new();
        while let Some(node) = todo.pop() {
            if !seen.insert(node.clone()) {
                continue;
            }
            let (e, count, flags) = node;
            if count == fewest {
                out.entry(e.clone())
                    .or_default()
                    .extend(flags.iter().cloned());
            }
            for edge in self.lts.edges(e.state).iter() {
                let next = e.after(&[], edge);
                match edge.seen {
                    Seen::Visible => {}
                    Seen::Hidden => todo.push((next, count, flags.clone())),
                    Seen::Flag if count < fewest => {
                        let mut more = flags.clone();
                        more.insert(self.lts.sem.label_text(&edge.label));
                        todo.push((next, count + 1, more));
                    }
                    Seen::Flag => {}
                }
            }
        }
        out
    }
}

/// Whether `obs` matches `label` where `names` are bound; the bindings it adds.
pub fn matches(
    sem: &Semantics<'_>,
    obs: &Observation,
    label: &Label,
    names: &BTreeMap<Key, u32>,
) -> Option<Vec<(Key, u32)>> {
    let mut m = Match {
        sem,
        names,
        new: Vec::new(),
    };
    let head = match (&obs.head, &label.head) {
        (HeadPat::Named(n), Head::Event(e)) => sem.program.events[e.0 as usize].name == *n,
        (HeadPat::Named(n), Head::Chan(c) | Head::Send(c) | Head::Lost(c) | Head::Receive(c)) => {
            sem.chan_name(*c) == n
        }
        (HeadPat::Name(key), Head::Chan(Chan::Fresh { id, .. })) => m.name(key, *id),
        (HeadPat::Name(key), Head::Send(Chan::Fresh { id, .. })) => m.name(key, *id),
        (HeadPat::Name(key), Head::Lost(Chan::Fresh { id, .. })) => m.name(key, *id),
        (HeadPat::Name(key), Head::Receive(Chan::Fresh { id, .. })) => m.name(key, *id),
        _ => false,
    };
    (head && m.list(&obs.args, &label.args)).then_some(m.new)
}

struct Match<'a> {
    sem: &'a Semantics<'a>,
    names: &'a BTreeMap<Key, u32>,
    new: Vec<(Key, u32)>,
}

impl Match<'_> {
    fn bound(&self, key: &str) -> Option<u32> {
        let new = self.new.iter().find(|(k, _)| &**k == key).map(|(_, v)| *v);
        new.or_else(|| self.names.get(key).copied())
    }

    fn name(&mut self, key: &Key, id: u32) -> bool {
        if let Some(v) = self.bound(key) {
            return v == id;
        }
        let taken = self.names.values().chain(self.new.iter().map(|(_, v)| v));
        if taken.into_iter().any(|&v| v == id) {
            return false;
        }
        self.new.push((key.clone(), id));
        true
    }

    fn list(&mut self, args: &[Arg], values: &[Value]) -> bool {
        if args.len() != values.len() {
            return false;
        }
        args.iter().zip(values).all(|(a, v)| self.one(a, v))
    }

    fn one(&mut self, arg: &Arg, value: &Value) -> bool {
        match arg {
            Arg::Any => true,
            Arg::Int(i) => *value == Value::Int(*i),
            Arg::Bool(b) => *value == Value::Bool(*b),
            Arg::Ctor(name, args) => match value {
                Value::Ctor(e, i, vs) => {
                    let ctor = &self.sem.program.enums[e.0 as usize].ctors[*i as usize];
                    ctor.name == *name && self.list(args, vs)
                }
                _ => false,
            },
            Arg::Tuple(args) => match value {
                Value::Tuple(vs) => self.list(args, vs),
                _ => false,
            },
            Arg::Chan(name) => matches!(value, Value::Chan(c) if self.sem.chan_name(*c) == name),
            Arg::Name(key) => match value {
                Value::Chan(Chan::Fresh { id, .. }) => self.name(key, *id),
                _ => false,
            },
            Arg::IfBound(key, yes, no) => match self.bound(key) {
                Some(_) => self.one(yes, value),
                None => self.one(no, value),
            },
        }
    }
}
