//! Fresh names of components held outside any canonical state: the split state keeps each
//! name under a stable id for the whole session (ids grow without bound), so renaming goes
//! through a map given as a function, not through a table as long as the largest id.

use agentpi_semantics::state::for_each_fresh;
use agentpi_semantics::{Chan, Closure, Proc, Value};
use std::sync::Arc;

/// Renames every fresh id of `proc` through `map`; closures whose names do not change stay
/// shared.
pub fn rename_proc(proc: &mut Proc, map: &dyn Fn(u32) -> u32) {
    match proc {
        Proc::Leaf(c) => rename_closure(c, map),
        Proc::Seq(inner, c) => {
            inner.iter_mut().for_each(|p| rename_proc(p, map));
            rename_closure(c, map);
        }
    }
}

fn rename_closure(closure: &mut Arc<Closure>, map: &dyn Fn(u32) -> u32) {
    let mut changes = false;
    closure
        .env
        .iter()
        .for_each(|v| v.for_each_fresh(&mut |id| changes |= map(id) != id));
    if changes {
        Arc::make_mut(closure)
            .env
            .iter_mut()
            .for_each(|v| rename_value(v, map));
    }
}

fn rename_value(value: &mut Value, map: &dyn Fn(u32) -> u32) {
    match value {
        Value::Chan(Chan::Fresh { id, .. }) => *id = map(*id),
        Value::Ctor(_, _, vs) | Value::Tuple(vs) => {
            vs.iter_mut().for_each(|v| rename_value(v, map))
        }
        _ => {}
    }
}

/// The fresh ids `procs` hold, each once, in order of first occurrence.
pub fn names_of(procs: &[Proc]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for_each_fresh(procs, &mut |id| {
        if !out.contains(&id) {
            out.push(id);
        }
    });
    out
}

/// Adds the fresh ids `proc` holds to `out`, each once (`out` holds no other).
pub fn each_name(proc: &Proc, out: &mut Vec<u32>) {
    for_each_fresh(std::slice::from_ref(proc), &mut |id| {
        if !out.contains(&id) {
            out.push(id);
        }
    });
}

/// `proc` with its names numbered 0, 1, ... by first occurrence: equal for components that
/// differ only in which names they hold (what a component can do does not depend on that).
pub fn normal_form(proc: &Proc) -> Proc {
    let names = names_of(std::slice::from_ref(proc));
    let mut normal = proc.clone();
    let local = |id: u32| names.iter().position(|&n| n == id).unwrap_or(0) as u32;
    rename_proc(&mut normal, &local);
    normal
}
