//! The operational semantics of the core calculus: the one function from a state to its
//! labelled transitions that every agentpi feature steps.
//!
//! The rules are written down in `docs/semantics.md`, each under its name; the functions that
//! implement a rule say so in their doc comment. This crate does no I/O, starts no threads and
//! knows nothing of MCP or JSON.

pub mod eval;
pub mod label;
pub mod state;
mod step;
pub mod value;

pub use eval::FaultKind;
pub use label::{Head, Label};
pub use state::{Closure, DEAD, Proc, Renaming, State};
pub use value::{Chan, Origin, Value};

use agentpi_diagnostics::Span;
use agentpi_ir::core::{DefId, Program, Term, TermId, Type};

/// How deeply sequential compositions may nest while a model runs (`proc G = tau . (G ; a)`
/// nests one level deeper each step); past it a step is a fault.
pub const MAX_NESTING: usize = 1_000;

/// A run-time error of a model, with the position of the term that raised it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub span: Span,
}

/// Who took part in a transition: the process definition a component runs (for fairness).
/// `None` is the body of a `system`.
pub type Actor = Option<DefId>;

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
    /// The components that moved: one, or two for a communication.
    pub actors: Vec<Actor>,
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
    /// Terms at which a component of a `daemon proc` waits at the start of its body.
    daemon_start: Vec<bool>,
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
        for (i, term) in program.terms.iter().enumerate() {
            if let Term::New(names, _) = term {
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
            daemon_start: vec![false; program.terms.len()],
        };
        sem.mark_daemon_starts();
        sem
    }

    /// The printed name of a fresh channel's origin.
    pub fn origin_name(&self, origin: Origin) -> &str {
        &self.origin_names[origin as usize]
    }

    /// All origins with their names (for matching property patterns by name).
    pub fn origin_names(&self) -> &[String] {
        &self.origin_names
    }

    /// Rule *Daemon-End*: marks the terms where a `daemon proc` component waits at the start
    /// of its body (through parallel composition, restriction and conditionals).
    fn mark_daemon_starts(&mut self) {
        let program = self.program;
        for def in program.defs.iter().filter(|d| d.daemon) {
            let mut todo = vec![def.body];
            while let Some(t) = todo.pop() {
                self.daemon_start[t.0 as usize] = true;
                match program.term(t) {
                    Term::Par(ts) => todo.extend(ts),
                    Term::New(_, body) => todo.push(*body),
                    Term::If(_, a, b) => todo.extend([*a, *b]),
                    Term::Match(_, arms) => todo.extend(arms.iter().map(|(_, t)| *t)),
                    _ => {}
                }
            }
        }
    }

    /// The initial state of system `system` (an index into `Program::systems`).
    pub fn initial(&self, system: usize) -> Result<State, Fault> {
        let body = self.program.systems[system].body;
        let mut spawner = step::Spawner::new(self, 0);
        let mut frame = vec![eval::UNSET; self.frame];
        let mut procs = Vec::new();
        spawner.spawn(body, &mut frame, &mut procs)?;
        Ok(state::canonicalize(procs, spawner.next_fresh()).0)
    }

    /// Rule *Valid-End*: every component has terminated or is a daemon waiting at the start
    /// of its body.
    pub fn is_valid_end(&self, state: &State) -> bool {
        state.procs.iter().all(|p| match p {
            Proc::Leaf(c) => self.daemon_start[c.term.0 as usize],
            Proc::Seq(..) => false,
        })
    }

    /// Every transition of `state`, in a fixed order.
    pub fn successors(&self, state: &State) -> Vec<Transition> {
        step::successors(self, state)
    }

    /// The process definition a term belongs to.
    pub fn actor(&self, term: TermId) -> Actor {
        self.program.info(term).owner
    }

    pub(crate) fn frame_size(&self) -> usize {
        self.frame
    }

    pub(crate) fn origin(&self, new_term: TermId, index: usize) -> Origin {
        self.origin_base[new_term.0 as usize] + index as u32
    }
}
