//! Frame layout: the cell of the frame where each binder's value lives while a body runs.
//!
//! Lowering gives every binder its own slot, which names it (`Def::slot_names`). A binder's
//! cell is instead the number of binders in scope where it is bound (its de Bruijn level), so
//! binders never in scope together share a cell: the n branches of a choice, each binding its
//! own variable, need one cell, not n, and a frame is as large as binders nest deep rather
//! than as many as the body has. Spawning writes a frame depth first and every closure copies
//! the values it reads when it is made, so a binder's cell is written again only once its
//! scope is left, when nothing reads it any more.
//!
//! The layout rewrites the variables of the body's terms (`Expr::Var`, `Pattern::Bind`,
//! `NewName::slot`) to cells and fills `TermInfo::cells` from `TermInfo::free`, which stays
//! in slots. A body whose terms do not form one tree from its root keeps one cell per slot.

use crate::core::{Expr, Pattern, Prefix, Program, Slot, Term, TermId};

/// A slot not given a cell (yet).
const NONE: u32 = u32::MAX;

/// Lays out the frame of the body whose terms are `first..` with root `root`, `params`
/// parameters (slots `0..params`) and `slots` slots in all. Returns the frame size.
pub(crate) fn lay_out(
    prog: &mut Program,
    first: usize,
    root: TermId,
    params: u32,
    slots: u32,
) -> u32 {
    let layout = levels(prog, first, root, params, slots)
        .filter(|(cell, _)| consistent(&mut *prog, first, cell));
    let (cell, frame) = match layout {
        Some(found) => found,
        None => ((0..slots).collect(), slots),
    };
    // Every slot has a cell here; a slot past them (never made by lowering) stays itself
    // rather than panicking.
    let to_cell = |s: Slot| cell.get(s as usize).copied().unwrap_or(s);
    for index in first..prog.terms.len() {
        let info = &mut prog.info[index];
        info.cells = info.free.iter().map(|&s| to_cell(s)).collect();
        for_each_slot(&mut prog.terms[index], &mut |s| *s = to_cell(*s));
    }
    frame
}

/// Each slot's level, walking the body's tree from its root, and the deepest level plus one;
/// `None` when a term is met twice, lies outside the body or is not met at all, or a slot
/// is bound twice.
fn levels(
    prog: &Program,
    first: usize,
    root: TermId,
    params: u32,
    slots: u32,
) -> Option<(Vec<u32>, u32)> {
    let mut cell = vec![NONE; slots as usize];
    (0..params).for_each(|p| cell[p as usize] = p);
    let mut frame = params;
    let mut seen = vec![false; prog.terms.len() - first];
    let mut todo = vec![(root, params)];
    while let Some((id, depth)) = todo.pop() {
        let index = (id.0 as usize).checked_sub(first)?;
        if std::mem::replace(seen.get_mut(index)?, true) {
            return None;
        }
        let mut bind = |bound: Vec<Slot>, body: TermId| {
            let below = depth + bound.len() as u32;
            for (level, slot) in (depth..).zip(bound) {
                let free = cell.get_mut(slot as usize).filter(|c| **c == NONE)?;
                *free = level;
            }
            frame = frame.max(below);
            todo.push((body, below));
            Some(())
        };
        match prog.term(id) {
            Term::Nil | Term::Call(..) => {}
            Term::Prefix(prefix, next) => bind(prefix_binders(prefix), *next)?,
            Term::New(names, body) => bind(sorted(names.iter().map(|n| n.slot)), *body)?,
            Term::Match(_, arms) => {
                for (pattern, body) in arms {
                    bind(pattern_binders(std::slice::from_ref(pattern)), *body)?;
                }
            }
            Term::Choice(items) | Term::Par(items) => {
                todo.extend(items.iter().map(|&t| (t, depth)));
            }
            Term::Seq(a, b) | Term::If(_, a, b) => todo.extend([(*a, depth), (*b, depth)]),
            Term::Repl(body) => todo.push((*body, depth)),
        }
    }
    seen.iter().all(|&s| s).then_some((cell, frame))
}

/// Whether every slot the body's terms use has a cell, and each term's free slots have
/// cells in the same order (so no two values a closure keeps share one). Only reads `prog`.
fn consistent(prog: &mut Program, first: usize, cell: &[u32]) -> bool {
    let placed = |s: &Slot| cell.get(*s as usize).is_some_and(|&c| c != NONE);
    (first..prog.terms.len()).all(|index| {
        let mut all = true;
        for_each_slot(&mut prog.terms[index], &mut |s| all &= placed(s));
        let free = &prog.info[index].free;
        let increasing = free
            .windows(2)
            .all(|w| cell[w[0] as usize] < cell[w[1] as usize]);
        all && free.iter().all(placed) && increasing
    })
}

/// The slots an input's patterns bind, in slot order (the order binders are made in).
fn prefix_binders(prefix: &Prefix) -> Vec<Slot> {
    match prefix {
        Prefix::Input { pats, .. } => pattern_binders(pats),
        _ => Vec::new(),
    }
}

fn pattern_binders(pats: &[Pattern]) -> Vec<Slot> {
    fn walk(p: &Pattern, out: &mut Vec<Slot>) {
        match p {
            Pattern::Bind(s, _) => out.push(*s),
            Pattern::Ctor(_, _, items) | Pattern::Tuple(items) => {
                items.iter().for_each(|i| walk(i, out))
            }
            Pattern::Wild | Pattern::Eq(_) => {}
        }
    }
    let mut out = Vec::new();
    pats.iter().for_each(|p| walk(p, &mut out));
    sorted(out)
}

fn sorted(slots: impl IntoIterator<Item = Slot>) -> Vec<Slot> {
    let mut out: Vec<Slot> = slots.into_iter().collect();
    out.sort_unstable();
    out
}

/// Calls `f` on every variable of `term` itself (not of its children): those its
/// expressions read and those it binds.
fn for_each_slot(term: &mut Term, f: &mut impl FnMut(&mut Slot)) {
    match term {
        Term::Prefix(prefix, _) => match prefix {
            Prefix::Output { chan, args } => {
                expr_slots(chan, f);
                args.iter_mut().for_each(|a| expr_slots(a, f));
            }
            Prefix::Input { chan, pats } => {
                expr_slots(chan, f);
                pats.iter_mut().for_each(|p| pattern_slots(p, f));
            }
            Prefix::Event { args, .. } => args.iter_mut().for_each(|a| expr_slots(a, f)),
            Prefix::Assert(cond) => expr_slots(cond, f),
            Prefix::Tau => {}
        },
        Term::New(names, _) => names.iter_mut().for_each(|n| f(&mut n.slot)),
        Term::If(cond, _, _) => expr_slots(cond, f),
        Term::Match(scrutinee, arms) => {
            expr_slots(scrutinee, f);
            arms.iter_mut().for_each(|(p, _)| pattern_slots(p, f));
        }
        Term::Call(_, args) => args.iter_mut().for_each(|a| expr_slots(a, f)),
        Term::Nil | Term::Choice(_) | Term::Par(_) | Term::Seq(..) | Term::Repl(_) => {}
    }
}

fn pattern_slots(pattern: &mut Pattern, f: &mut impl FnMut(&mut Slot)) {
    match pattern {
        Pattern::Bind(slot, _) => f(slot),
        Pattern::Eq(e) => expr_slots(e, f),
        Pattern::Ctor(_, _, items) | Pattern::Tuple(items) => {
            items.iter_mut().for_each(|p| pattern_slots(p, f))
        }
        Pattern::Wild => {}
    }
}

fn expr_slots(expr: &mut Expr, f: &mut impl FnMut(&mut Slot)) {
    match expr {
        Expr::Var(slot) => f(slot),
        Expr::Int(_) | Expr::Bool(_) | Expr::Chan(_) => {}
        Expr::Ctor(_, _, items) | Expr::Tuple(items) => {
            items.iter_mut().for_each(|e| expr_slots(e, f))
        }
        Expr::Unary(_, x) => expr_slots(x, f),
        Expr::Binary(_, a, b) => {
            expr_slots(a, f);
            expr_slots(b, f);
        }
        Expr::ChanIndex(c) => c.index.iter_mut().for_each(|e| expr_slots(e, f)),
    }
}

#[cfg(test)]
mod tests {
    use crate::core::{Prefix, Term};

    /// The branches of a choice and the arms of a match bind in the same cells, above the
    /// parameter's; a binder under another takes the next cell. Slots stay one a binder,
    /// which names the values shown.
    #[test]
    fn binders_never_in_scope_together_share_cells() {
        let text = "type N = 0..3\nchan c : N\nchan d : (N, N)\nevent e(N)\n\
                    proc P(k: N) = c?x . e(x) + c?y . d?(u, v) . e(v) \
                    + match k { 0 => c?z . e(z), w => e(w) }\nsystem S = P(1)\n";
        let loaded = crate::load_str("p.pi", text);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let def = &loaded.program.defs[0];
        assert_eq!(def.slot_names, ["k", "x", "y", "u", "v", "z", "w"]);
        // Cells: k 0; x, y, z, w 1; u 2 and v 3 (under y).
        assert_eq!(def.frame, 4);
        let program = &loaded.program;
        let read = |name: &str| {
            let slot = def.slot_names.iter().position(|n| n == name).unwrap() as u32;
            let term = (0..program.terms.len())
                .map(|t| crate::core::TermId(t as u32))
                .find(|&t| {
                    matches!(program.term(t), Term::Prefix(Prefix::Event { .. }, _))
                        && program.info(t).free == [slot]
                })
                .expect("the event reading it");
            program.info(term).cells.clone()
        };
        for (name, cell) in [("x", 1), ("v", 3), ("z", 1), ("w", 1)] {
            assert_eq!(read(name), [cell], "the cell of {name}");
        }
    }
}
