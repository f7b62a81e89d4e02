//! Rule *Valid-End*: where a component may rest without the state being a deadlock.
//!
//! A component rests validly when it waits at the start of a `daemon proc`'s body or at an
//! `end:` label. The start of a body is where spawning it leaves its components: through
//! parallel composition, `new`, `if`, `match` and `!!P`; and when the body is a sequence
//! `P ; Q`, the start of `P` with `Q` waiting (`daemon proc Server = req?x . resp!x ; Server`
//! rests as the component `(req?x . resp!x) ; Server`). The left side of such a sequence is
//! followed into the process it calls, so `daemon proc S = Dialogue ; S` rests at the start of
//! `Dialogue`; those start points count only inside that very sequence, never for a `Dialogue`
//! running on its own.
//!
//! An `end:` label marks a resting point wherever its term runs, as SPIN's end labels do:
//! also on the left of a sequence (`proc S = end: c?x . e ; S` rests as `(c?x . e) ; S`), at
//! any depth of sequences.

use crate::state::Proc;
use agentpi_ir::core::{Program, Term, TermId};
use rustc_hash::{FxHashMap, FxHashSet};

/// Where components of a program may rest: the starts of daemon bodies and `end:` labels at
/// the top level of a state, and `end:` labels anywhere.
#[derive(Debug, Default)]
pub(crate) struct ValidEnds {
    top: Starts,
    ends: Starts,
}

impl ValidEnds {
    /// The resting points of every daemon body and `end:` label of the program. Calls at
    /// the top level are not followed (a daemon that starts by calling a plain process
    /// rests only where that process would); calls on the left of a sequence are.
    pub(crate) fn of_program(program: &Program) -> ValidEnds {
        let daemons = program.defs.iter().filter(|d| d.daemon).map(|d| d.body);
        let ends = program.end_points.iter().copied();
        ValidEnds {
            top: Starts::of(program, daemons.chain(ends.clone())),
            ends: Starts::of(program, ends),
        }
    }

    /// Whether every component of `procs` rests at one of these points.
    pub(crate) fn admits_all(&self, procs: &[Proc]) -> bool {
        procs.iter().all(|p| self.top.admits(p) || self.at_end(p))
    }

    /// Whether `proc` waits at an `end:` label, at any depth of sequences.
    fn at_end(&self, proc: &Proc) -> bool {
        self.ends.admits(proc)
            || matches!(proc, Proc::Seq(inner, _) if inner.iter().all(|p| self.at_end(p)))
    }
}

/// The resting points of one place: closures waiting at `leaves`, and sequences whose right
/// side is a key of `seqs` with a left side resting at that key's points.
#[derive(Debug, Default)]
pub(crate) struct Starts {
    leaves: FxHashSet<TermId>,
    seqs: FxHashMap<TermId, Starts>,
}

impl Starts {
    /// The resting points of the terms `starts`.
    fn of(program: &Program, starts: impl Iterator<Item = TermId>) -> Starts {
        let mut points = Starts::default();
        for start in starts {
            points.walk(program, start, false, &mut FxHashSet::default());
        }
        points
    }

    /// Adds the points where spawning `term` leaves its components.
    fn walk(&mut self, program: &Program, term: TermId, calls: bool, seen: &mut FxHashSet<TermId>) {
        if !seen.insert(term) {
            return;
        }
        match program.term(term) {
            Term::Par(ts) => ts.iter().for_each(|&t| self.walk(program, t, calls, seen)),
            Term::New(_, body) => self.walk(program, *body, calls, seen),
            Term::If(_, a, b) => [*a, *b]
                .into_iter()
                .for_each(|t| self.walk(program, t, calls, seen)),
            Term::Match(_, arms) => arms
                .iter()
                .for_each(|(_, t)| self.walk(program, *t, calls, seen)),
            // `!!P` spawns as `!P` (law Repl-Repl).
            Term::Repl(body) if matches!(program.term(*body), Term::Repl(_)) => {
                self.walk(program, *body, calls, seen)
            }
            Term::Call(def, _) if calls => self.walk(program, program.def(*def).body, calls, seen),
            Term::Seq(left, right) => {
                let inner = self.seqs.entry(*right).or_default();
                inner.walk(program, *left, true, &mut FxHashSet::default());
            }
            _ => {
                self.leaves.insert(term);
            }
        }
    }

    /// Whether every component of `procs` rests at one of these points.
    fn admits_all(&self, procs: &[Proc]) -> bool {
        procs.iter().all(|p| self.admits(p))
    }

    fn admits(&self, proc: &Proc) -> bool {
        match proc {
            Proc::Leaf(c) => self.leaves.contains(&c.term),
            Proc::Seq(inner, cont) => self
                .seqs
                .get(&cont.term)
                .is_some_and(|s| s.admits_all(inner)),
        }
    }
}
