//! Partial-order reduction (`--por`): a state is expanded by a *stubborn set* of its
//! transitions instead of all of them, when that provably loses no deadlock and no reachable
//! visible transition (docs/semantics.md, *Partial-order reduction*, has the argument).
//!
//! The set is built from one seed component: every component that could ever take part in a
//! transition with a component of the set (its static channel alphabet meets the channel of
//! a current offer of one) joins it, and the stubborn set is every enabled transition whose
//! movers are all in it. Components outside the set then never touch one inside while only
//! outside ones move, so their transitions commute with the set's (D1), and the set's own
//! enabled transitions stay enabled (D2). A set holding a visible transition (one a property
//! watches, or a fault) is not used, and a state whose reduced set reaches an older state is
//! expanded in full (the cycle proviso of breadth-first search).

use agentpi_ir::core::{Expr, Prefix, Program, Term, TermId};
use agentpi_semantics::{Chan, Proc};

/// The declared channels a component may ever use: a set, or any (it names a channel held
/// in a variable, which may be any channel).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Alphabet {
    Any,
    Chans(Box<[u64]>),
}

impl Alphabet {
    fn empty(chans: usize) -> Alphabet {
        Alphabet::Chans(vec![0; chans.div_ceil(64)].into_boxed_slice())
    }

    /// Whether the component may use `chan`.
    pub(crate) fn contains(&self, chan: Chan) -> bool {
        match (self, chan) {
            (Alphabet::Any, _) => true,
            (Alphabet::Chans(bits), Chan::Global(id)) => {
                bits[id.0 as usize / 64] & (1 << (id.0 % 64)) != 0
            }
            (Alphabet::Chans(_), Chan::Fresh { .. }) => true,
        }
    }

    fn add(&mut self, id: u32) {
        if let Alphabet::Chans(bits) = self {
            bits[id as usize / 64] |= 1 << (id % 64);
        }
    }

    /// Adds `other`; true when something was added.
    fn union(&mut self, other: &Alphabet) -> bool {
        match (&mut *self, other) {
            (Alphabet::Any, _) => false,
            (_, Alphabet::Any) => {
                *self = Alphabet::Any;
                true
            }
            (Alphabet::Chans(a), Alphabet::Chans(b)) => {
                let mut grew = false;
                for (x, y) in a.iter_mut().zip(b.iter()) {
                    grew |= *x | y != *x;
                    *x |= y;
                }
                grew
            }
        }
    }
}

/// The alphabet of every term of a program: the channels of the prefixes it may reach.
pub(crate) struct Alphabets {
    terms: Vec<Alphabet>,
}

impl Alphabets {
    pub(crate) fn of_program(program: &Program) -> Alphabets {
        let chans = program.chans.len();
        let mut terms: Vec<Alphabet> = (0..program.terms.len())
            .map(|t| own(program, TermId(t as u32), chans))
            .collect();
        // Each term may reach what the terms it continues as reach: a fixed point.
        let mut grew = true;
        while grew {
            grew = false;
            for t in (0..terms.len()).rev() {
                for next in continuations(program, TermId(t as u32)) {
                    let reached = terms[next.0 as usize].clone();
                    grew |= terms[t].union(&reached);
                }
            }
        }
        Alphabets { terms }
    }

    /// The alphabet of a component: its closure's term, or a sequence's left side and the
    /// right side it continues as.
    pub(crate) fn of(&self, proc: &Proc) -> Alphabet {
        match proc {
            Proc::Leaf(c) => self.terms[c.term.0 as usize].clone(),
            Proc::Seq(left, right) => {
                let mut out = self.terms[right.term.0 as usize].clone();
                for p in left.iter() {
                    out.union(&self.of(p));
                }
                out
            }
        }
    }
}

/// The channels a term's own prefix names.
fn own(program: &Program, term: TermId, chans: usize) -> Alphabet {
    let mut out = Alphabet::empty(chans);
    let chan = match program.term(term) {
        Term::Prefix(Prefix::Output { chan, .. } | Prefix::Input { chan, .. }, _) => chan,
        _ => return out,
    };
    match chan {
        Expr::Chan(id) => out.add(id.0),
        Expr::ChanIndex(c) => {
            let size: u32 = c.dims.iter().map(|d| d.size).product();
            (c.base.0..c.base.0 + size).for_each(|id| out.add(id));
        }
        _ => out = Alphabet::Any,
    }
    out
}

/// The terms `term` may continue as or spawn.
fn continuations(program: &Program, term: TermId) -> Vec<TermId> {
    match program.term(term) {
        Term::Nil => Vec::new(),
        Term::Prefix(_, next) | Term::New(_, next) | Term::Repl(next) => vec![*next],
        Term::Choice(ts) | Term::Par(ts) => ts.clone(),
        Term::Seq(a, b) | Term::If(_, a, b) => vec![*a, *b],
        Term::Match(_, arms) => arms.iter().map(|(_, t)| *t).collect(),
        Term::Call(def, _) => vec![program.def(*def).body],
    }
}

/// One component of a state, as the reduction sees it: what it may ever use, and the
/// channels of its current offers.
pub(crate) struct Component<'a> {
    pub(crate) alphabet: &'a Alphabet,
    pub(crate) offers: &'a [Chan],
}

/// No second mover.
pub(crate) const ALONE: u32 = u32::MAX;

/// The smallest stubborn set of a state without a visible transition, as the indices of its
/// transitions, or `None` when no seed gives a proper subset. `movers[t]` are the positions
/// (in `components`) of the components transition `t` moves; `visible[t]` says whether a
/// property sees it.
pub(crate) fn stubborn(
    components: &[Component<'_>],
    movers: &[[u32; 2]],
    visible: &[bool],
) -> Option<Vec<u32>> {
    let mut best: Option<Vec<u32>> = None;
    let mut tried = vec![false; components.len()];
    for seed in movers.iter().map(|m| m[0] as usize) {
        if std::mem::replace(&mut tried[seed], true) {
            continue;
        }
        let inside = closure(components, seed);
        let set: Vec<u32> = (0..movers.len() as u32)
            .filter(|&t| {
                movers[t as usize]
                    .iter()
                    .all(|&p| p == ALONE || inside[p as usize])
            })
            .collect();
        let smaller = best.as_ref().is_none_or(|b| set.len() < b.len());
        if set.len() < movers.len() && smaller && !set.iter().any(|&t| visible[t as usize]) {
            best = Some(set);
        }
        if best.as_ref().is_some_and(|b| b.len() == 1) {
            break;
        }
    }
    best
}

/// The seed and every component that could ever take part in a transition with one inside:
/// whose alphabet holds the channel of a current offer of one inside.
fn closure(components: &[Component<'_>], seed: usize) -> Vec<bool> {
    let mut inside = vec![false; components.len()];
    inside[seed] = true;
    let mut todo = vec![seed];
    while let Some(p) = todo.pop() {
        for &chan in components[p].offers {
            for (q, other) in components.iter().enumerate() {
                if !inside[q] && other.alphabet.contains(chan) {
                    inside[q] = true;
                    todo.push(q);
                }
            }
        }
    }
    inside
}
