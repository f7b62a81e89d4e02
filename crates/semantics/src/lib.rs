//! The operational semantics of the core calculus: the one function from a state to its
//! labelled transitions that every agentpi feature steps.
//!
//! The rules are written down in `docs/semantics.md`, each under its name; the functions that
//! implement a rule say so in their doc comment. This crate does no I/O, starts no threads and
//! knows nothing of MCP or JSON.

pub mod component;
pub mod eval;
pub mod label;
mod offers;
pub mod queue;
mod spawn;
pub mod state;
mod step;
mod valid_end;
pub mod value;

pub use component::{Built, LocalStep, Made, Move, MoveKind, Moves, Received, SendEffects};
pub use eval::FaultKind;
pub use label::{Head, Label};
pub use queue::Queue;
pub use spawn::MAX_CALL_DEPTH;
pub use state::{Closure, DEAD, Proc, Renaming, State};
pub use value::{Chan, Origin, Value};

use agentpi_diagnostics::Span;
use agentpi_ir::core::{BufferSpec, DefId, Program, Term, TermId, Type};

/// How deeply sequential compositions may nest while a model runs (`proc G = tau . (G ; a)`
/// nests one level deeper each step); past it a step is a fault.
pub const MAX_NESTING: usize = 1_000;

/// A run-time error of a model, with the position of the term that raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub span: Span,
}

/// A component instance. Each process call written in a system's body (through parallel
/// composition, sequences, restriction, conditionals, prefixes, choices and replications,
/// but not inside a process definition) is an instance of its own, named by the call
/// (`Phil(3)`); whatever a component spawns belongs to its instance, and copies of one
/// replicated call share it. Instance 0 is the rest of the system's body. Fairness, traces
/// and sequence charts speak of instances.
pub type Instance = u32;

/// Who took part in a transition.
pub type Actor = Instance;

/// One transition out of a state.
#[derive(Clone, Debug)]
pub struct Transition {
    pub label: Label,
    /// The canonical successor. For a fault, the source state itself.
    pub target: State,
    /// The source's fresh ids (and those the step made) as the target numbers them.
    pub renaming: Renaming,
    /// Set when the step failed (assertion, range, ...): the checker reports it and does not
    /// explore past it.
    pub fault: Option<Fault>,
    /// The instances that moved: one, or two for a communication (the sender first).
    pub actors: Vec<Actor>,
    /// Where an acting prefix is written (`sim` says where a bare `tau` was taken); `None`
    /// where the step was not found by the rules themselves (the checker's fast path).
    pub at: Option<agentpi_diagnostics::Span>,
}

/// The semantics of one program: fixed tables computed once, then [`Semantics::successors`].
pub struct Semantics<'p> {
    pub program: &'p Program,
    /// The largest frame of any definition or system: the size of scratch frames.
    frame: usize,
    /// For each term, the first [`Origin`] of its `new` names (terms without `new` unused).
    origin_base: Vec<u32>,
    /// For each origin, its printed name.
    origin_names: Vec<String>,
    /// For each origin, what the channel carries.
    origin_carries: Vec<Vec<Type>>,
    /// For each origin, its buffer (`new c: chan T buffer N`).
    origin_buffer: Vec<Option<BufferSpec>>,
    /// Where components rest validly (rule *Valid-End*).
    valid_ends: valid_end::ValidEnds,
    /// For each call written in a system's body, its instance (0 for every other term).
    call_instance: Vec<Instance>,
    /// For each system, its calls in order: instance `k` is `calls[system][k - 1]`.
    calls: Vec<Vec<TermId>>,
    /// For each choice, for each branch: where the run of prefix branches that starts there
    /// ends (the branch itself when it is not a prefix); see [`Semantics::prefix_run`].
    prefix_runs: rustc_hash::FxHashMap<TermId, Box<[u32]>>,
}

impl<'p> Semantics<'p> {
    pub fn new(program: &'p Program) -> Semantics<'p> {
        let frames = program
            .defs
            .iter()
            .map(|d| d.frame)
            .chain(program.systems.iter().map(|s| s.frame));
        let mut origin_base = vec![0; program.terms.len()];
        let mut origin_names = Vec::new();
        let mut origin_carries = Vec::new();
        let mut origin_buffer = Vec::new();
        let mut prefix_runs = rustc_hash::FxHashMap::default();
        for (i, term) in program.terms.iter().enumerate() {
            if let Term::Choice(branches) = term {
                prefix_runs.insert(TermId(i as u32), prefix_runs_of(program, branches));
            }
            if let Term::New(names, _) = term {
                origin_buffer.extend(names.iter().map(|n| n.buffer));
                origin_base[i] = origin_names.len() as u32;
                origin_names.extend(names.iter().map(|n| n.name.clone()));
                origin_carries.extend(names.iter().map(|n| match &n.ty {
                    Type::Chan(carries) => carries.clone(),
                    _ => Vec::new(),
                }));
            }
        }
        let mut sem = Semantics {
            program,
            frame: frames.max().unwrap_or(0) as usize,
            origin_base,
            origin_names,
            origin_carries,
            origin_buffer,
            valid_ends: valid_end::ValidEnds::of_program(program),
            call_instance: vec![0; program.terms.len()],
            calls: Vec::new(),
            prefix_runs,
        };
        sem.number_instances();
        sem
    }

    /// Numbers the calls written in each system's body: instance 1, 2, ... in source order.
    fn number_instances(&mut self) {
        let program = self.program;
        for system in &program.systems {
            let mut calls = Vec::new();
            let mut todo = vec![system.body];
            while let Some(t) = todo.pop() {
                match program.term(t) {
                    Term::Call(..) => calls.push(t),
                    Term::Prefix(_, next) | Term::New(_, next) | Term::Repl(next) => {
                        todo.push(*next)
                    }
                    Term::Choice(ts) | Term::Par(ts) => todo.extend(ts.iter().rev()),
                    Term::Seq(a, b) | Term::If(_, a, b) => todo.extend([*b, *a]),
                    Term::Match(_, arms) => todo.extend(arms.iter().rev().map(|(_, t)| *t)),
                    Term::Nil => {}
                }
            }
            for (k, call) in calls.iter().enumerate() {
                self.call_instance[call.0 as usize] = k as Instance + 1;
            }
            self.calls.push(calls);
        }
    }

    /// The instance a call starts, or 0 when it is not written in a system's body.
    pub(crate) fn call_instance(&self, term: TermId) -> Instance {
        self.call_instance[term.0 as usize]
    }

    /// The printed name of a fresh channel's origin.
    pub fn origin_name(&self, origin: Origin) -> &str {
        &self.origin_names[origin as usize]
    }

    /// All origins with their names (for matching property patterns by name).
    pub fn origin_names(&self) -> &[String] {
        &self.origin_names
    }

    /// The initial state of system `system` (an index into `Program::systems`).
    pub fn initial(&self, system: usize) -> Result<State, Fault> {
        self.initial_with_instances(system).map(|(state, _)| state)
    }

    /// The initial state and the name of each instance, by [`Instance`] number: the call
    /// that started it with its arguments (`Phil(3)`), or the system's name for instance 0.
    /// Names that would print alike get `#1`, `#2`, ... in order.
    pub fn initial_with_instances(&self, system: usize) -> Result<(State, Vec<String>), Fault> {
        let def = &self.program.systems[system];
        let mut spawner = spawn::Spawner::initial(self);
        let mut frame = vec![eval::UNSET; self.frame];
        let mut procs = Vec::new();
        spawner.spawn(def.body, &mut frame, &mut procs)?;
        let replicated = |t| self.is_replication(t);
        let state = state::canonicalize(procs, Vec::new(), spawner.next_fresh(), &replicated).0;
        let mut texts = spawner.call_texts();
        let mut names = vec![def.name.clone()];
        for (k, call) in self.calls[system].iter().enumerate() {
            let text = texts.remove(&(k as Instance + 1));
            names.push(text.unwrap_or_else(|| match self.program.term(*call) {
                Term::Call(d, _) => self.program.def(*d).name.clone(),
                _ => unreachable!("instances are calls"),
            }));
        }
        Ok((state, number_alike(names)))
    }

    /// `Name(v1, ...)`: how a process call with these values prints.
    pub fn call_text(&self, def: DefId, values: &[Value]) -> String {
        let mut text = self.program.def(def).name.clone();
        if !values.is_empty() {
            text.push('(');
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                self.fmt_value(&mut text, v, &mut |c| self.chan_name(c).to_string());
            }
            text.push(')');
        }
        text
    }

    /// Rule *Valid-End*: every component has terminated or rests at the start of a daemon's
    /// body or at an `end:` label (see `valid_end.rs`).
    pub fn is_valid_end(&self, state: &State) -> bool {
        self.valid_ends.admits_all(&state.procs)
    }

    /// Every transition of `state`, in a fixed order.
    pub fn successors(&self, state: &State) -> Vec<Transition> {
        step::successors(self, state, &|_| true)
    }

    /// The transitions of `successors` whose label `keep` accepts, in the same order and with
    /// the same targets; a rejected transition is never built, so asking for a few labels of
    /// a state with many components costs the offers, not every target.
    pub fn successors_where(
        &self,
        state: &State,
        keep: &dyn Fn(&Label) -> bool,
    ) -> Vec<Transition> {
        step::successors(self, state, keep)
    }

    /// The buffer of a channel; `None` for a synchronous one.
    pub fn buffer(&self, chan: Chan) -> Option<BufferSpec> {
        match chan {
            Chan::Global(id) => self.program.chans[id.0 as usize].buffer,
            Chan::Fresh { origin, .. } => self.origin_buffer[origin as usize],
        }
    }

    /// Whether a term is a replication `!P`.
    pub fn is_replication(&self, term: TermId) -> bool {
        matches!(self.program.term(term), Term::Repl(_))
    }

    /// The process definition a term belongs to (`None` for a system's body).
    pub fn owner(&self, term: TermId) -> Option<DefId> {
        self.program.info(term).owner
    }

    pub(crate) fn frame_size(&self) -> usize {
        self.frame
    }

    /// When branch `branch` of choice `choice` is a prefix: the end of the run of prefix
    /// branches it starts (each of which makes exactly one offer and no name when opened).
    pub(crate) fn prefix_run(&self, choice: TermId, branch: usize) -> Option<usize> {
        let end = *self.prefix_runs.get(&choice)?.get(branch)? as usize;
        (end > branch).then_some(end)
    }

    pub(crate) fn origin(&self, new_term: TermId, index: usize) -> Origin {
        self.origin_base[new_term.0 as usize] + index as u32
    }
}

/// For each branch, the end of the run of prefix branches that starts there (the branch
/// itself when it is not a prefix).
fn prefix_runs_of(program: &Program, branches: &[TermId]) -> Box<[u32]> {
    let mut ends = vec![0; branches.len()];
    let mut end = branches.len() as u32;
    for (b, &branch) in branches.iter().enumerate().rev() {
        if !matches!(program.term(branch), Term::Prefix(..)) {
            end = b as u32;
        }
        ends[b] = end;
    }
    ends.into_boxed_slice()
}

/// Names that occur more than once get `#1`, `#2`, ... in order of their instances.
fn number_alike(names: Vec<String>) -> Vec<String> {
    let mut total: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for n in &names {
        *total.entry(n).or_default() += 1;
    }
    let mut seen: rustc_hash::FxHashMap<&str, usize> = Default::default();
    let numbered: Vec<String> = names
        .iter()
        .map(|n| match total[n.as_str()] {
            1 => n.clone(),
            _ => {
                let k = seen.entry(n).or_default();
                *k += 1;
                format!("{n}#{k}")
            }
        })
        .collect();
    numbered
}

impl Semantics<'_> {
    /// Law *Repl-Repl* (`!!P ~ !P`): a replication of a replication spawns as the innermost.
    pub(crate) fn innermost_replication(&self, mut term: TermId) -> TermId {
        while let Term::Repl(body) = self.program.term(term) {
            match self.program.term(*body) {
                Term::Repl(_) => term = *body,
                _ => break,
            }
        }
        term
    }
}
