//! State predicates evaluated on states: `at P.l` (a component waits at a term the point
//! marks, in the named instance if one is given), `len(c) OP n` and `c contains p` (the queue
//! of a buffered channel). A point marks where spawning its term leaves components: through
//! `|`, `new`, `if`, `match` and the left of `;`, as `end:` does.

use crate::pattern::match_values;
use agentpi_ir::core::{AtPoint, BinOp, ChanId, Program, StatePred, Term, TermId};
use agentpi_semantics::eval::eval;
use agentpi_semantics::{Chan, Instance, Semantics, State};
use rustc_hash::FxHashSet;

/// A predicate with its points' terms and instances worked out.
#[derive(Debug)]
pub enum Compiled {
    At {
        leaves: FxHashSet<TermId>,
        /// `None`: any instance.
        instances: Option<Vec<Instance>>,
    },
    Len {
        chan: ChanId,
        op: BinOp,
        value: i64,
    },
    Contains {
        chan: ChanId,
        args: Vec<agentpi_ir::core::ArgPattern>,
    },
    Not(Box<Compiled>),
    And(Box<Compiled>, Box<Compiled>),
    Or(Box<Compiled>, Box<Compiled>),
}

impl Compiled {
    /// `pred` for a system whose instances are named `instances` (instance 0 first).
    pub fn new(sem: &Semantics<'_>, pred: &StatePred, instances: &[String]) -> Compiled {
        let sub = |p: &StatePred| Box::new(Compiled::new(sem, p, instances));
        match pred {
            StatePred::At(at) => at_point(sem, at, instances),
            StatePred::Len { chan, op, value } => Compiled::Len {
                chan: *chan,
                op: *op,
                value: *value,
            },
            StatePred::Contains { chan, args } => Compiled::Contains {
                chan: *chan,
                args: args.clone(),
            },
            StatePred::Not(a) => Compiled::Not(sub(a)),
            StatePred::And(a, b) => Compiled::And(sub(a), sub(b)),
            StatePred::Or(a, b) => Compiled::Or(sub(a), sub(b)),
        }
    }

    /// Whether `state` satisfies the predicate.
    pub fn holds(&self, state: &State) -> bool {
        match self {
            Compiled::At { leaves, instances } => state.leaves().iter().any(|c| {
                leaves.contains(&c.term)
                    && instances.as_ref().is_none_or(|is| is.contains(&c.instance))
            }),
            Compiled::Len { chan, op, value } => {
                compare(queue(state, *chan).len() as i64, *op, *value)
            }
            Compiled::Contains { chan, args } => {
                queue(state, *chan).iter().any(|m| match_values(args, m))
            }
            Compiled::Not(a) => !a.holds(state),
            Compiled::And(a, b) => a.holds(state) && b.holds(state),
            Compiled::Or(a, b) => a.holds(state) || b.holds(state),
        }
    }
}

fn at_point(sem: &Semantics<'_>, at: &AtPoint, instances: &[String]) -> Compiled {
    let mut leaves = FxHashSet::default();
    at.terms
        .iter()
        .for_each(|&t| walk(sem.program, t, &mut leaves));
    let instances = at.instance.as_ref().map(|args| {
        let values: Vec<_> = args.iter().filter_map(|e| eval(e, &[]).ok()).collect();
        let text = sem.call_text(at.def, &values);
        let numbered = format!("{text}#");
        (0..instances.len() as Instance)
            .filter(|&i| {
                let name = &instances[i as usize];
                *name == text || name.starts_with(&numbered)
            })
            .collect()
    });
    Compiled::At { leaves, instances }
}

/// The terms where spawning `term` leaves components waiting.
fn walk(program: &Program, term: TermId, out: &mut FxHashSet<TermId>) {
    match program.term(term) {
        Term::Par(ts) => ts.iter().for_each(|&t| walk(program, t, out)),
        Term::New(_, body) => walk(program, *body, out),
        Term::If(_, a, b) => [*a, *b].into_iter().for_each(|t| walk(program, t, out)),
        Term::Match(_, arms) => arms.iter().for_each(|(_, t)| walk(program, *t, out)),
        Term::Seq(left, _) => walk(program, *left, out),
        // `!!P` spawns as `!P` (law Repl-Repl).
        Term::Repl(body) if matches!(program.term(*body), Term::Repl(_)) => {
            walk(program, *body, out)
        }
        _ => {
            out.insert(term);
        }
    }
}

/// The messages waiting in a channel's queue, oldest first.
fn queue(state: &State, chan: ChanId) -> &[Box<[agentpi_semantics::Value]>] {
    let found = state.queues.iter().find(|q| q.chan == Chan::Global(chan));
    found.map_or(&[], |q| &q.messages[..])
}

fn compare(a: i64, op: BinOp, b: i64) -> bool {
    match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        _ => a >= b,
    }
}
