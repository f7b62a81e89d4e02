//! Free slots of a term: the frame slots it reads. Computed when a term is pushed, from the
//! already-known free slots of its children, so it costs no recursion over the whole tree.

use crate::core::{Expr, Pattern, Prefix, Program, Slot, Term};
use std::collections::BTreeSet;

pub(crate) fn free_slots(prog: &Program, term: &Term) -> Vec<Slot> {
    let mut free = BTreeSet::new();
    let child = |free: &mut BTreeSet<Slot>, id| free.extend(prog.info(id).free.iter().copied());
    match term {
        Term::Nil => {}
        Term::Prefix(prefix, next) => {
            let mut bound = BTreeSet::new();
            prefix_slots(prefix, &mut free, &mut bound);
            free.extend(prog.info(*next).free.iter().filter(|s| !bound.contains(*s)));
        }
        Term::Choice(items) | Term::Par(items) => items.iter().for_each(|&id| child(&mut free, id)),
        Term::Seq(a, b) => {
            child(&mut free, *a);
            child(&mut free, *b);
        }
        Term::New(names, body) => {
            let bound: BTreeSet<Slot> = names.iter().map(|n| n.slot).collect();
            free.extend(prog.info(*body).free.iter().filter(|s| !bound.contains(*s)));
        }
        Term::Repl(body) => child(&mut free, *body),
        Term::If(cond, yes, no) => {
            expr_slots(cond, &mut free);
            child(&mut free, *yes);
            child(&mut free, *no);
        }
        Term::Match(scrutinee, arms) => {
            expr_slots(scrutinee, &mut free);
            for (pat, body) in arms {
                let mut bound = BTreeSet::new();
                pattern_slots(pat, &mut free, &mut bound);
                free.extend(prog.info(*body).free.iter().filter(|s| !bound.contains(*s)));
            }
        }
        Term::Call(_, args) => args.iter().for_each(|a| expr_slots(a, &mut free)),
    }
    free.into_iter().collect()
}

fn prefix_slots(prefix: &Prefix, reads: &mut BTreeSet<Slot>, binds: &mut BTreeSet<Slot>) {
    match prefix {
        Prefix::Output { chan, args } => {
            expr_slots(chan, reads);
            args.iter().for_each(|a| expr_slots(a, reads));
        }
        Prefix::Input { chan, pats } => {
            expr_slots(chan, reads);
            pats.iter().for_each(|p| pattern_slots(p, reads, binds));
        }
        Prefix::Tau => {}
        Prefix::Event { args, .. } => args.iter().for_each(|a| expr_slots(a, reads)),
        Prefix::Assert(cond) => expr_slots(cond, reads),
    }
}

/// The slots a pattern reads (in `=e`) and those it binds.
fn pattern_slots(pattern: &Pattern, reads: &mut BTreeSet<Slot>, binds: &mut BTreeSet<Slot>) {
    match pattern {
        Pattern::Bind(slot, _) => {
            binds.insert(*slot);
        }
        Pattern::Wild => {}
        Pattern::Eq(expr) => expr_slots(expr, reads),
        Pattern::Ctor(_, _, items) | Pattern::Tuple(items) => {
            items.iter().for_each(|p| pattern_slots(p, reads, binds));
        }
    }
}

pub(crate) fn expr_slots(expr: &Expr, out: &mut BTreeSet<Slot>) {
    match expr {
        Expr::Var(slot) => {
            out.insert(*slot);
        }
        Expr::Int(_) | Expr::Bool(_) | Expr::Chan(_) => {}
        Expr::Ctor(_, _, items) | Expr::Tuple(items) => {
            items.iter().for_each(|e| expr_slots(e, out))
        }
        Expr::Unary(_, x) => expr_slots(x, out),
        Expr::Binary(_, a, b) => {
            expr_slots(a, out);
            expr_slots(b, out);
        }
        Expr::ChanIndex(c) => c.index.iter().for_each(|e| expr_slots(e, out)),
    }
}
