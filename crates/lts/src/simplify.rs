//! Sound algebraic rewriting of formulas: an equivalent formula without the obvious
//! redundancy. The first step of making evidence smaller (the second is [`crate::shrink`]).

use crate::hml::Formula;
use rustc_hash::FxHashMap;
use std::rc::Rc;

pub(crate) fn truth() -> Rc<Formula> {
    Rc::new(Formula::True)
}

pub(crate) fn falsity() -> Rc<Formula> {
    Rc::new(Formula::Not(truth()))
}

pub(crate) fn is_false(f: &Formula) -> bool {
    matches!(f, Formula::Not(g) if **g == Formula::True)
}

/// An equivalent formula without the obvious redundancy: `true` conjuncts, repeated
/// conjuncts, `!!f`, modalities into `false` (`<a>false`, hence `[a]true`), conjunctions
/// holding `false` or both `f` and `!f`, `<<tau>>true` (`tau*` always succeeds) and
/// `<{g}(tau)>true` (which is `g`: the optional step may be left out at once).
pub fn normalise(f: &Rc<Formula>) -> Rc<Formula> {
    normalise_memo(f, &mut FxHashMap::default())
}

/// Shared subformulas are rewritten once (evidence reuses them heavily).
fn normalise_memo(
    f: &Rc<Formula>,
    memo: &mut FxHashMap<*const Formula, Rc<Formula>>,
) -> Rc<Formula> {
    if let Some(done) = memo.get(&Rc::as_ptr(f)) {
        return done.clone();
    }
    let mut norm = |g: &Rc<Formula>| normalise_memo(g, memo);
    let out = match &**f {
        Formula::True => f.clone(),
        Formula::Not(g) => Formula::negate(norm(g)),
        Formula::And(parts) => conjunction(parts.iter().map(norm).collect()),
        Formula::Diamond(a, g) => modality(norm(g), |g| Formula::Diamond(a.clone(), g)),
        Formula::WeakDiamond(a, g) => {
            let g = norm(g);
            if a == "tau" && *g == Formula::True {
                g
            } else {
                modality(g, |g| Formula::WeakDiamond(a.clone(), g))
            }
        }
        Formula::Until(g, a, h) => {
            let g = norm(g);
            let h = norm(h);
            if is_false(&g) {
                g
            } else if a == "tau" && *h == Formula::True {
                // `g<(tau)>true`: the empty path ends at once, in a `g`-state.
                g
            } else {
                modality(h, |h| Formula::Until(g, a.clone(), h))
            }
        }
        Formula::Diverge(g) => modality(norm(g), Formula::Diverge),
    };
    memo.insert(Rc::as_ptr(f), out.clone());
    out
}

/// A modality whose target is `false` can never be satisfied.
fn modality(target: Rc<Formula>, build: impl FnOnce(Rc<Formula>) -> Formula) -> Rc<Formula> {
    if is_false(&target) {
        target
    } else {
        Rc::new(build(target))
    }
}

/// A conjunction of normalised parts: `false` if one part is `false` or contradicts another.
fn conjunction(parts: Vec<Rc<Formula>>) -> Rc<Formula> {
    let f = Formula::and(parts);
    let Formula::And(parts) = &*f else {
        return f;
    };
    let contradiction = parts.iter().any(|p| {
        is_false(p)
            || match &**p {
                Formula::Not(g) => parts.contains(g),
                _ => false,
            }
    });
    if contradiction { falsity() } else { f }
}
