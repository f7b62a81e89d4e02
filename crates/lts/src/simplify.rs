//! Smaller distinguishing formulas: sound algebraic rewriting, then greedy shrinking in which
//! every step is confirmed by the model checker (never trusted).
//!
//! The formula read off the refinement history carries one conjunct per answer the other
//! state could give, at every level; most of them are not needed to tell the two initial
//! states apart. Shrinking tries, in pre-order (outermost first), to replace a subformula by
//! `true` or `false`, to leave out a modality or to drop a conjunct, and keeps a change only
//! when the result is smaller and still holds in the left initial state and fails in the
//! right one.

use crate::hml::Formula;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// How much model checking shrinking may spend, in formula nodes times LTS size (states
/// plus transitions of both inputs): a check of an `n`-node formula costs about `n` passes.
/// Counted, not timed, so the result does not depend on the machine.
pub(crate) const SHRINK_BUDGET: u64 = 400_000_000;

/// Larger formulas are left alone: each shrinking pass rebuilds the formula per edit.
const SHRINK_MAX_NODES: usize = 2_000;

fn truth() -> Rc<Formula> {
    Rc::new(Formula::True)
}

fn falsity() -> Rc<Formula> {
    Rc::new(Formula::Not(truth()))
}

fn is_false(f: &Formula) -> bool {
    matches!(f, Formula::Not(g) if **g == Formula::True)
}

/// An equivalent formula without the obvious redundancy: `true` conjuncts, repeated
/// conjuncts, `!!f`, modalities into `false` (`<a>false`, hence `[a]true`), conjunctions
/// holding `false` or both `f` and `!f`, and `<<tau>>true` (`tau*` always succeeds).
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

/// The number of nodes of `f` read as a tree (a conjunction is one node).
fn nodes(f: &Formula) -> usize {
    1 + children(f).iter().map(|c| nodes(c)).sum::<usize>()
}

/// Whether `f`, read as a tree, has at most `limit` nodes; visits at most `limit + 1` of them
/// (a formula with shared subformulas can be exponentially larger as a tree).
fn within(f: &Formula, limit: usize) -> bool {
    fn count(f: &Formula, left: &mut usize) -> bool {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        children(f).iter().all(|c| count(c, left))
    }
    count(f, &mut { limit })
}

fn children(f: &Formula) -> Vec<&Rc<Formula>> {
    match f {
        Formula::True => vec![],
        Formula::Not(g) | Formula::Diamond(_, g) | Formula::WeakDiamond(_, g) => vec![g],
        Formula::Diverge(g) => vec![g],
        Formula::And(parts) => parts.iter().collect(),
        Formula::Until(g, _, h) => vec![g, h],
    }
}

/// `f` with its children replaced (in the order of [`children`]).
fn rebuild(f: &Formula, mut kids: Vec<Rc<Formula>>) -> Formula {
    let mut next = || kids.remove(0);
    match f {
        Formula::True => Formula::True,
        Formula::Not(_) => Formula::Not(next()),
        Formula::Diamond(a, _) => Formula::Diamond(a.clone(), next()),
        Formula::WeakDiamond(a, _) => Formula::WeakDiamond(a.clone(), next()),
        Formula::Diverge(_) => Formula::Diverge(next()),
        Formula::And(_) => Formula::And(kids),
        Formula::Until(_, a, _) => {
            let g = next();
            Formula::Until(g, a.clone(), next())
        }
    }
}

/// The subformula at pre-order position `index` (0 is `f` itself).
fn node_at(f: &Rc<Formula>, index: usize) -> &Rc<Formula> {
    let mut index = index;
    let mut node = f;
    while index > 0 {
        index -= 1;
        for child in children(node) {
            let size = nodes(child);
            if index < size {
                node = child;
                break;
            }
            index -= size;
        }
    }
    node
}

/// `f` with the subformula at pre-order position `index` replaced by `by`.
fn replace_at(f: &Rc<Formula>, index: usize, by: &Rc<Formula>) -> Rc<Formula> {
    if index == 0 {
        return by.clone();
    }
    // `rest` is the position within the children still to be passed, `None` once replaced.
    let mut rest = Some(index - 1);
    let mut kids = Vec::new();
    for child in children(f) {
        let size = nodes(child);
        kids.push(match rest {
            Some(r) if r < size => {
                rest = None;
                replace_at(child, r, by)
            }
            Some(r) => {
                rest = Some(r - size);
                child.clone()
            }
            None => child.clone(),
        });
    }
    Rc::new(rebuild(f, kids))
}

/// The smaller formulas tried in place of `f`, most drastic first: `true`, `false`, the
/// target of a modality, and for a conjunction each conjunction with one part left out.
/// At the root (`whole`), `true` and `false` are not tried: they never distinguish.
fn edits(f: &Rc<Formula>, whole: bool) -> Vec<Rc<Formula>> {
    let mut out = Vec::new();
    if **f != Formula::True && !whole {
        out.push(truth());
    }
    if !is_false(f) && !whole {
        out.push(falsity());
    }
    // Leave out a modality: `<a>g` becomes `g` (and `[a]g`, read as `!<a>!g`, becomes `g`).
    if let Formula::Diamond(_, g) | Formula::WeakDiamond(_, g) | Formula::Until(_, _, g) = &**f {
        out.push(g.clone());
    }
    if let Formula::And(parts) = &**f {
        for skip in 0..parts.len() {
            let rest = parts.iter().enumerate().filter(|&(i, _)| i != skip);
            out.push(Formula::and(rest.map(|(_, p)| p.clone()).collect()));
        }
    }
    out
}

/// Shrinks `f`, which must distinguish, greedily: each edit is kept when the normalised
/// result is smaller and `distinguishes` confirms it. `cost` is the price of one check per
/// formula node; checking stops when `budget` is spent. The result is 1-minimal for the
/// edits tried when the budget suffices: no single edit of it is smaller and still
/// distinguishing. Formulas of more than 2,000 nodes are returned as they are.
pub fn shrink(
    f: &Rc<Formula>,
    mut distinguishes: impl FnMut(&Formula) -> bool,
    cost: u64,
    budget: u64,
) -> Rc<Formula> {
    if !within(f, SHRINK_MAX_NODES) {
        // Rewriting recurses through the formula: leave very large (deep) ones as they are.
        return f.clone();
    }
    let normal = normalise(f);
    // The rewriting is sound, but evidence is checked, never trusted.
    if !distinguishes(&normal) {
        return f.clone();
    }
    let mut search = Shrinker {
        distinguishes,
        cost,
        left: budget,
    };
    let mut f = normal;
    while let Some(smaller) = search.pass(&f) {
        f = smaller;
    }
    f
}

/// The state of a greedy search: the check and what is left of the budget.
struct Shrinker<F> {
    distinguishes: F,
    cost: u64,
    left: u64,
}

impl<F: FnMut(&Formula) -> bool> Shrinker<F> {
    /// One pass over the positions of `f`; `None` when no edit was kept (or the budget ran out).
    fn pass(&mut self, f: &Rc<Formula>) -> Option<Rc<Formula>> {
        let mut f = f.clone();
        let mut changed = false;
        let mut index = 0;
        while index < nodes(&f) {
            match self.edit_at(&f, index) {
                // Stay at this position: the new subformula there may shrink further.
                Ok(Some(smaller)) => (f, changed) = (smaller, true),
                Ok(None) => index += 1,
                Err(Spent) => break,
            }
        }
        changed.then_some(f)
    }

    /// The first edit at `index` that gives a smaller formula that still distinguishes.
    fn edit_at(&mut self, f: &Rc<Formula>, index: usize) -> Result<Option<Rc<Formula>>, Spent> {
        let size = nodes(f);
        for edit in edits(node_at(f, index), index == 0) {
            let candidate = normalise(&replace_at(f, index, &edit));
            let candidate_size = nodes(&candidate);
            if candidate_size >= size {
                continue;
            }
            let price = self.cost.saturating_mul(candidate_size as u64);
            self.left = self.left.checked_sub(price).ok_or(Spent)?;
            if (self.distinguishes)(&candidate) {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }
}

/// The budget ran out.
struct Spent;
