//! State predicates of properties: where an instance is (a named point `l:` in a process's
//! text) and what a buffered channel holds. `never`, `reachable` and `always` read them over
//! reachable states; in `ltl` an atom holds at a step whose source state satisfies it.

use super::{ArgPattern, BinOp, ChanId, DefId, Expr, TermId};
use agentpi_diagnostics::Span;

/// What a state property says of the reachable states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateCheck {
    /// None satisfies the predicate.
    Never,
    /// Some does (a witness is printed).
    Reachable,
    /// Every one does.
    Always,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StatePred {
    /// `at P.l`, `at P(v, ...).l`.
    At(AtPoint),
    /// `len(c) OP n`.
    Len {
        chan: ChanId,
        op: BinOp,
        value: i64,
    },
    /// `c contains p`: some message waiting in `c` matches the patterns.
    Contains {
        chan: ChanId,
        args: Vec<ArgPattern>,
    },
    Not(Box<StatePred>),
    And(Box<StatePred>, Box<StatePred>),
    Or(Box<StatePred>, Box<StatePred>),
}

/// A component waits at one of `terms` (the point `point:` of `proc def`, or with an
/// instance, when `def` has none, the points of that name in any process), and, when
/// `instance` is given, belongs to the instance started by the call `def(instance...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AtPoint {
    pub def: DefId,
    pub instance: Option<Vec<Expr>>,
    pub point: String,
    pub terms: Vec<TermId>,
}

/// A named point `l: P` in a process's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub name: String,
    /// The definition it is written in (`None`: a system's body).
    pub def: Option<DefId>,
    pub term: TermId,
    pub span: Span,
}
