//! Matching transition labels against the label patterns of properties, with variables.

use agentpi_ir::core::{ArgPattern, LabelDir, LabelHead, LabelPattern};
use agentpi_semantics::eval::eval;
use agentpi_semantics::{Chan, Head, Label, Semantics, Value};

/// Values bound to the variables of a pattern, in order of binding.
pub type Bindings = Vec<(String, Value)>;

fn lookup<'b>(bindings: &'b Bindings, name: &str) -> Option<&'b Value> {
    bindings.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// Matches `label`; on success returns the bindings extended by the variables bound here.
pub fn match_label(
    sem: &Semantics<'_>,
    pattern: &LabelPattern,
    label: &Label,
    bound: &Bindings,
) -> Option<Bindings> {
    let mut bindings = bound.clone();
    let head_ok = match (&pattern.head, &label.head) {
        (LabelHead::Tau, Head::Tau) => true,
        (LabelHead::Event(e), Head::Event(f)) => e == f,
        (head, label_head) => match label_head.chan() {
            Some(c) if direction_fits(pattern.dir, label_head) => match head {
                LabelHead::Chan(name) => sem.chan_name(c) == name,
                LabelHead::Family(base) => sem
                    .chan_name(c)
                    .strip_prefix(base.as_str())
                    .is_some_and(|rest| rest.starts_with('[')),
                LabelHead::Var(x) => lookup(&bindings, x) == Some(&Value::Chan(c)),
                _ => false,
            },
            _ => false,
        },
    };
    if !head_ok {
        return None;
    }
    let Some(args) = &pattern.args else {
        return Some(bindings);
    };
    if args.len() != label.args.len() {
        return None;
    }
    for (p, v) in args.iter().zip(label.args.iter()) {
        if !match_arg(p, v, &mut bindings) {
            return None;
        }
    }
    Some(bindings)
}

/// `c` matches a handshake and both steps of a buffered channel; `c!` only sends (those a
/// lossy channel loses included), `c?` only receives.
fn direction_fits(dir: LabelDir, head: &Head) -> bool {
    match dir {
        LabelDir::Any => true,
        LabelDir::Send => matches!(head, Head::Send(_) | Head::Lost(_)),
        LabelDir::Receive => matches!(head, Head::Receive(_)),
    }
}

fn match_arg(pattern: &ArgPattern, value: &Value, bindings: &mut Bindings) -> bool {
    match (pattern, value) {
        (ArgPattern::Wild, _) => true,
        (ArgPattern::Var(x), v) => match lookup(bindings, x) {
            Some(bound) => bound == v,
            None => {
                bindings.push((x.clone(), v.clone()));
                true
            }
        },
        (ArgPattern::Value(e), v) => eval(e, &[]).is_ok_and(|w| w == *v),
        (ArgPattern::Ctor(e, i, ps), Value::Ctor(f, j, vs)) if e == f && i == j => {
            match_args(ps, vs, bindings)
        }
        (ArgPattern::Tuple(ps), Value::Tuple(vs)) => match_args(ps, vs, bindings),
        _ => false,
    }
}

/// Whether `values` (a queued message) match the patterns, which bind nothing.
pub fn match_values(ps: &[ArgPattern], values: &[Value]) -> bool {
    match_args(ps, values, &mut Vec::new())
}

fn match_args(ps: &[ArgPattern], vs: &[Value], bindings: &mut Bindings) -> bool {
    ps.len() == vs.len() && ps.iter().zip(vs).all(|(p, v)| match_arg(p, v, bindings))
}

/// Renames the fresh channels in `bindings` after a step; `None` when one has vanished, so the
/// pattern can never match it again.
pub fn rename_bindings(bindings: &Bindings, renaming: &[u32]) -> Bindings {
    bindings
        .iter()
        .map(|(n, v)| {
            let mut v = v.clone();
            rename_value(&mut v, renaming);
            (n.clone(), v)
        })
        .collect()
}

fn rename_value(value: &mut Value, renaming: &[u32]) {
    match value {
        Value::Chan(Chan::Fresh { id, .. }) => {
            *id = renaming
                .get(*id as usize)
                .copied()
                .unwrap_or(agentpi_semantics::DEAD);
        }
        Value::Ctor(_, _, vs) | Value::Tuple(vs) => {
            vs.iter_mut().for_each(|v| rename_value(v, renaming))
        }
        _ => {}
    }
}
