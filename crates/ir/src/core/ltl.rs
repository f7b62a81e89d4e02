//! Action-based LTL over labels: the formula of `ltl`, its negation normal form (what the
//! checker builds a Büchi automaton from), and the fixed property shapes written as formulas.
//!
//! An atom holds at a step whose label it matches. `A -> f` with a label pattern `A` on the
//! left binds `A`'s variables in `f`: where the step matches `A`, `f` must hold with the values
//! it bound (`[] (call(r, _) -> X <> r(_))`).

use super::{ArgPattern, LabelPattern, Property, StateCheck, StatePred};
use agentpi_diagnostics::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ltl {
    True,
    False,
    Atom(LabelPattern),
    /// A state predicate: holds at a step whose source state satisfies it.
    State(StatePred),
    Not(Box<Ltl>),
    And(Box<Ltl>, Box<Ltl>),
    Or(Box<Ltl>, Box<Ltl>),
    Implies(Box<Ltl>, Box<Ltl>),
    Always(Box<Ltl>),
    Eventually(Box<Ltl>),
    Next(Box<Ltl>),
    Until(Box<Ltl>, Box<Ltl>),
    Release(Box<Ltl>, Box<Ltl>),
    WeakUntil(Box<Ltl>, Box<Ltl>),
}

/// Negation normal form: negation only on atoms; `[]`, `<>` and `W` written with `U` and
/// `R`; a binding implication `Imp` and its negation `When`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Nnf {
    True,
    False,
    Atom(LabelPattern),
    NotAtom(LabelPattern),
    /// A state predicate (negations are inside it).
    State(StatePred),
    And(Box<Nnf>, Box<Nnf>),
    Or(Box<Nnf>, Box<Nnf>),
    Next(Box<Nnf>),
    Until(Box<Nnf>, Box<Nnf>),
    Release(Box<Nnf>, Box<Nnf>),
    /// The step does not match the pattern, or it does and the formula holds with the
    /// pattern's bindings.
    Imp(LabelPattern, Box<Nnf>),
    /// The step matches the pattern and the formula holds with its bindings.
    When(LabelPattern, Box<Nnf>),
}

/// Eventualities (`U`) of one formula are tracked in a 64-bit set.
pub const MAX_UNTILS: usize = 64;

/// The negation normal form of `f`, or of `not f` when `negate`.
pub fn nnf(f: &Ltl, negate: bool) -> Nnf {
    let b = |f: &Ltl, n: bool| Box::new(nnf(f, n));
    match (f, negate) {
        (Ltl::True, false) | (Ltl::False, true) => Nnf::True,
        (Ltl::True, true) | (Ltl::False, false) => Nnf::False,
        (Ltl::Atom(p), false) => Nnf::Atom(p.clone()),
        (Ltl::Atom(p), true) => Nnf::NotAtom(p.clone()),
        (Ltl::State(p), false) => Nnf::State(p.clone()),
        (Ltl::State(p), true) => Nnf::State(StatePred::Not(Box::new(p.clone()))),
        (Ltl::Not(a), n) => nnf(a, !n),
        (Ltl::And(x, y), false) | (Ltl::Or(x, y), true) => Nnf::And(b(x, negate), b(y, negate)),
        (Ltl::Or(x, y), false) | (Ltl::And(x, y), true) => Nnf::Or(b(x, negate), b(y, negate)),
        (Ltl::Implies(x, y), n) => implies(x, y, n),
        (Ltl::Always(a), false) | (Ltl::Eventually(a), true) => {
            Nnf::Release(Box::new(Nnf::False), b(a, negate))
        }
        (Ltl::Eventually(a), false) | (Ltl::Always(a), true) => {
            Nnf::Until(Box::new(Nnf::True), b(a, negate))
        }
        (Ltl::Next(a), n) => Nnf::Next(b(a, n)),
        (Ltl::Until(x, y), false) | (Ltl::Release(x, y), true) => {
            Nnf::Until(b(x, negate), b(y, negate))
        }
        (Ltl::Release(x, y), false) | (Ltl::Until(x, y), true) => {
            Nnf::Release(b(x, negate), b(y, negate))
        }
        // a W b = b R (b or a); not (a W b) = (not b) U (not a and not b).
        (Ltl::WeakUntil(x, y), false) => {
            Nnf::Release(b(y, false), Box::new(Nnf::Or(b(y, false), b(x, false))))
        }
        (Ltl::WeakUntil(x, y), true) => {
            Nnf::Until(b(y, true), Box::new(Nnf::And(b(x, true), b(y, true))))
        }
    }
}

/// `A -> f` binds when `A` is a label pattern; otherwise it is `not A or f`.
fn implies(left: &Ltl, right: &Ltl, negate: bool) -> Nnf {
    match (left, negate) {
        (Ltl::Atom(p), false) => Nnf::Imp(p.clone(), Box::new(nnf(right, false))),
        (Ltl::Atom(p), true) => Nnf::When(p.clone(), Box::new(nnf(right, true))),
        (_, false) => Nnf::Or(Box::new(nnf(left, true)), Box::new(nnf(right, false))),
        (_, true) => Nnf::And(Box::new(nnf(left, false)), Box::new(nnf(right, true))),
    }
}

/// Why the checker cannot take a formula (reported by lowering).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// A pattern that binds variables, under a repeating operator, whose scope holds an
    /// eventuality of the negated formula: several copies of one eventuality with different
    /// values could be pending at once.
    RepeatedBinder(Span),
    /// More than [`MAX_UNTILS`] eventualities.
    TooManyUntils(usize),
    /// More than [`MAX_STATE_PREDS`] distinct state predicates.
    TooManyStatePreds(usize),
}

/// The state predicates of one formula are valued in a 64-bit set.
pub const MAX_STATE_PREDS: usize = 64;

/// Checks that the negation of `f` (what the checker searches for) is within what the
/// automaton construction tracks exactly.
pub fn supported(f: &Ltl) -> Result<(), Unsupported> {
    let negated = nnf(f, true);
    let untils = count_untils(&negated);
    if untils > MAX_UNTILS {
        return Err(Unsupported::TooManyUntils(untils));
    }
    let mut preds = Vec::new();
    state_preds(&negated, &mut preds);
    if preds.len() > MAX_STATE_PREDS {
        return Err(Unsupported::TooManyStatePreds(preds.len()));
    }
    repeated_binder(&negated, false).map_or(Ok(()), |span| Err(Unsupported::RepeatedBinder(span)))
}

/// The distinct state predicates of `f`.
fn state_preds<'f>(f: &'f Nnf, out: &mut Vec<&'f StatePred>) {
    match f {
        Nnf::State(p) if !out.contains(&p) => out.push(p),
        Nnf::True | Nnf::False | Nnf::Atom(_) | Nnf::NotAtom(_) | Nnf::State(_) => {}
        Nnf::Next(a) | Nnf::Imp(_, a) | Nnf::When(_, a) => state_preds(a, out),
        Nnf::And(a, b) | Nnf::Or(a, b) | Nnf::Release(a, b) | Nnf::Until(a, b) => {
            state_preds(a, out);
            state_preds(b, out);
        }
    }
}

pub fn count_untils(f: &Nnf) -> usize {
    match f {
        Nnf::True | Nnf::False | Nnf::Atom(_) | Nnf::NotAtom(_) | Nnf::State(_) => 0,
        Nnf::Next(a) | Nnf::Imp(_, a) | Nnf::When(_, a) => count_untils(a),
        Nnf::And(a, b) | Nnf::Or(a, b) | Nnf::Release(a, b) => count_untils(a) + count_untils(b),
        Nnf::Until(a, b) => 1 + count_untils(a) + count_untils(b),
    }
}

/// The first binder met in a repeating position (left of `U`, right of `R`) whose scope
/// holds a `U`.
fn repeated_binder(f: &Nnf, repeating: bool) -> Option<Span> {
    match f {
        Nnf::True | Nnf::False | Nnf::Atom(_) | Nnf::NotAtom(_) | Nnf::State(_) => None,
        Nnf::Next(a) => repeated_binder(a, repeating),
        Nnf::And(a, b) | Nnf::Or(a, b) => {
            repeated_binder(a, repeating).or_else(|| repeated_binder(b, repeating))
        }
        Nnf::Until(a, b) => repeated_binder(a, true).or_else(|| repeated_binder(b, repeating)),
        Nnf::Release(a, b) => repeated_binder(a, repeating).or_else(|| repeated_binder(b, true)),
        Nnf::Imp(p, a) | Nnf::When(p, a) => {
            if repeating && binds(p) && count_untils(a) > 0 {
                return Some(p.span);
            }
            repeated_binder(a, repeating)
        }
    }
}

/// Whether some `A -> f` of `f` binds values (the checker then follows fresh channels).
pub fn binds_values(f: &Ltl) -> bool {
    match f {
        Ltl::True | Ltl::False | Ltl::Atom(_) | Ltl::State(_) => false,
        Ltl::Implies(a, b) => {
            matches!(&**a, Ltl::Atom(p) if binds(p)) || binds_values(a) || binds_values(b)
        }
        Ltl::Not(a) | Ltl::Always(a) | Ltl::Eventually(a) | Ltl::Next(a) => binds_values(a),
        Ltl::And(a, b)
        | Ltl::Or(a, b)
        | Ltl::Until(a, b)
        | Ltl::Release(a, b)
        | Ltl::WeakUntil(a, b) => binds_values(a) || binds_values(b),
    }
}

/// Whether a pattern binds a variable (its head or an argument).
pub fn binds(p: &LabelPattern) -> bool {
    fn arg(a: &ArgPattern) -> bool {
        match a {
            ArgPattern::Var(_) => true,
            ArgPattern::Ctor(_, _, items) | ArgPattern::Tuple(items) => items.iter().any(arg),
            ArgPattern::Wild | ArgPattern::Value(_) => false,
        }
    }
    p.args.iter().flatten().any(arg)
}

/// The fixed shapes as formulas: `never P` is `[] not P` (and `reachable P` holds exactly when
/// that is violated), `eventually P` is `<> P`, `always eventually P` is `[] <> P`, and
/// `L leads to R` is `[] (L -> X <> R)`. `deadlock free` is about states, not labels, and a relation about
/// two state spaces: `None`.
pub fn of_property(property: &Property) -> Option<Ltl> {
    let atom = |p: &LabelPattern| Box::new(Ltl::Atom(p.clone()));
    Some(match property {
        Property::DeadlockFree | Property::Relation(_) => return None,
        Property::Never(p) | Property::Reachable(p) => Ltl::Always(Box::new(Ltl::Not(atom(p)))),
        Property::Eventually(p) => Ltl::Eventually(atom(p)),
        Property::AlwaysEventually(p) => Ltl::Always(Box::new(Ltl::Eventually(atom(p)))),
        Property::LeadsTo(l, r) => Ltl::Always(Box::new(Ltl::Implies(
            atom(l),
            Box::new(Ltl::Next(Box::new(Ltl::Eventually(atom(r))))),
        ))),
        Property::Ltl(f) => f.clone(),
        Property::State(StateCheck::Always, p) => Ltl::Always(Box::new(Ltl::State(p.clone()))),
        Property::State(_, p) => Ltl::Always(Box::new(Ltl::Not(Box::new(Ltl::State(p.clone()))))),
    })
}
