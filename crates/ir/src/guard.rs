//! Unguarded recursion: a cycle of process calls that passes no prefix, such as
//! `proc P = P | a!1` or `proc P = Q` with `proc Q = P`, would unfold forever without acting.

use crate::core::{DefId, Program, Term, TermId};
use agentpi_diagnostics::Diagnostic;

/// Reports each cycle of unguarded calls once (E0305), at the call that starts it.
pub(crate) fn check(prog: &Program, diags: &mut Vec<Diagnostic>) {
    let acts = must_act_defs(prog);
    let calls: Vec<Vec<(DefId, TermId)>> = prog
        .defs
        .iter()
        .map(|d| unguarded_calls(prog, d.body, &acts))
        .collect();
    let edges: Vec<Vec<DefId>> = calls
        .iter()
        .map(|c| c.iter().map(|(d, _)| *d).collect())
        .collect();
    for cycle in cycles(&edges) {
        let next = cycle.get(1).unwrap_or(&cycle[0]);
        let site = calls[cycle[0].0 as usize].iter().find(|(d, _)| d == next);
        let span = site.map_or(prog.defs[cycle[0].0 as usize].span, |(_, t)| {
            prog.info(*t).span
        });
        let path: Vec<&str> = cycle
            .iter()
            .chain(&cycle[..1])
            .map(|d| prog.defs[d.0 as usize].name.as_str())
            .collect();
        diags.push(
            Diagnostic::error(
                "E0305",
                format!("unguarded recursion: {}", path.join(" -> ")),
            )
            .at(span)
            .with_label("this call comes before any action")
            .with_help("put a prefix (for example `tau .` or an input) before the recursive call"),
        );
    }
}

/// Whether each definition surely performs an action before it can terminate or recur
/// (a least fixpoint: assume not, and improve until stable).
fn must_act_defs(prog: &Program) -> Vec<bool> {
    let mut acts = vec![false; prog.defs.len()];
    loop {
        let next: Vec<bool> = prog
            .defs
            .iter()
            .map(|d| must_act(prog, d.body, &acts))
            .collect();
        if next == acts {
            return acts;
        }
        acts = next;
    }
}

fn must_act(prog: &Program, id: TermId, acts: &[bool]) -> bool {
    match prog.term(id) {
        Term::Nil => false,
        Term::Prefix(..) => true,
        Term::Choice(items) => !items.is_empty() && items.iter().all(|&t| must_act(prog, t, acts)),
        Term::Par(items) => items.iter().any(|&t| must_act(prog, t, acts)),
        Term::Seq(a, b) => must_act(prog, *a, acts) || must_act(prog, *b, acts),
        Term::New(_, body) | Term::Repl(body) => must_act(prog, *body, acts),
        Term::If(_, yes, no) => must_act(prog, *yes, acts) && must_act(prog, *no, acts),
        Term::Match(_, arms) => {
            !arms.is_empty() && arms.iter().all(|(_, t)| must_act(prog, *t, acts))
        }
        Term::Call(def, _) => acts[def.0 as usize],
    }
}

/// Calls reachable from `id` before any prefix, with the call term. Walked with a stack, so
/// long `;` chains do not recurse.
fn unguarded_calls(prog: &Program, id: TermId, acts: &[bool]) -> Vec<(DefId, TermId)> {
    let mut out = Vec::new();
    let mut todo = vec![id];
    while let Some(id) = todo.pop() {
        match prog.term(id) {
            Term::Nil | Term::Prefix(..) => {}
            Term::Choice(items) | Term::Par(items) => todo.extend(items),
            Term::Seq(a, b) => {
                todo.push(*a);
                if !must_act(prog, *a, acts) {
                    todo.push(*b);
                }
            }
            Term::New(_, body) | Term::Repl(body) => todo.push(*body),
            Term::If(_, yes, no) => todo.extend([*yes, *no]),
            Term::Match(_, arms) => todo.extend(arms.iter().map(|(_, t)| *t)),
            Term::Call(def, _) => out.push((*def, id)),
        }
    }
    out.sort();
    out.dedup_by_key(|(d, _)| *d);
    out
}

/// One cycle per strongly connected component that has one (in definition order).
fn cycles(edges: &[Vec<DefId>]) -> Vec<Vec<DefId>> {
    let mut reported = vec![false; edges.len()];
    let mut out = Vec::new();
    for start in 0..edges.len() {
        if reported[start] {
            continue;
        }
        if let Some(path) = path_back(edges, start) {
            path.iter().for_each(|d| reported[d.0 as usize] = true);
            out.push(path);
        }
    }
    out
}

/// A shortest call path from `start` back to itself (breadth-first), if any.
fn path_back(edges: &[Vec<DefId>], start: usize) -> Option<Vec<DefId>> {
    let mut parent: Vec<Option<usize>> = vec![None; edges.len()];
    let mut queue = std::collections::VecDeque::from([start]);
    let mut seen = vec![false; edges.len()];
    while let Some(node) = queue.pop_front() {
        for next in &edges[node] {
            let next = next.0 as usize;
            if next == start {
                let mut path = vec![DefId(node as u32)];
                let mut at = node;
                while let Some(p) = parent[at] {
                    path.push(DefId(p as u32));
                    at = p;
                }
                path.reverse();
                return Some(path);
            }
            if !seen[next] {
                seen[next] = true;
                parent[next] = Some(node);
                queue.push_back(next);
            }
        }
    }
    None
}
