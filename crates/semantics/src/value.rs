//! Run-time values, channel names among them, and the two orders on them that canonical states
//! need: the full order, and the anonymous order that sees a fresh name only as the `new` that
//! made it.

use agentpi_ir::core::{ChanId, EnumId};
use std::cmp::Ordering;

/// Index of a `new` binder in the program (see [`crate::Semantics::origin_name`]): where a
/// fresh channel was made, which is how it prints and how properties name it.
pub type Origin = u32;

/// A channel name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chan {
    /// Declared with `chan`: free in every process.
    Global(ChanId),
    /// Made by `new`. `id` tells instances apart within one state; canonical states number
    /// them 0, 1, ... by first occurrence.
    Fresh { id: u32, origin: Origin },
}

/// A value carried by a channel, bound to a variable or computed by an expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Chan(Chan),
    Ctor(EnumId, u32, Box<[Value]>),
    Tuple(Box<[Value]>),
}

impl Value {
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_chan(&self) -> Option<Chan> {
        match self {
            Value::Chan(c) => Some(*c),
            _ => None,
        }
    }

    /// Calls `f` on every fresh channel id inside, in order.
    pub fn for_each_fresh(&self, f: &mut impl FnMut(u32)) {
        match self {
            Value::Chan(Chan::Fresh { id, .. }) => f(*id),
            Value::Ctor(_, _, vs) | Value::Tuple(vs) => vs.iter().for_each(|v| v.for_each_fresh(f)),
            _ => {}
        }
    }

    /// Renames fresh ids through `map` (old id to new id).
    pub fn rename(&mut self, map: &[u32]) {
        match self {
            Value::Chan(Chan::Fresh { id, .. }) => *id = map[*id as usize],
            Value::Ctor(_, _, vs) | Value::Tuple(vs) => vs.iter_mut().for_each(|v| v.rename(map)),
            _ => {}
        }
    }
}

/// Compares two values; with `anon`, fresh names compare by origin only.
pub fn cmp_value(a: &Value, b: &Value, anon: bool) -> Ordering {
    use Value::*;
    match (a, b) {
        (Bool(x), Bool(y)) => x.cmp(y),
        (Int(x), Int(y)) => x.cmp(y),
        (Chan(x), Chan(y)) => cmp_chan(*x, *y, anon),
        (Ctor(e1, c1, v1), Ctor(e2, c2, v2)) => (e1, c1)
            .cmp(&(e2, c2))
            .then_with(|| cmp_values(v1, v2, anon)),
        (Tuple(v1), Tuple(v2)) => cmp_values(v1, v2, anon),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Lexicographic comparison of value lists.
pub fn cmp_values(a: &[Value], b: &[Value], anon: bool) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = cmp_value(x, y, anon);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

pub(crate) fn cmp_chan(a: Chan, b: Chan, anon: bool) -> Ordering {
    match (a, b) {
        (Chan::Global(x), Chan::Global(y)) => x.cmp(&y),
        (Chan::Global(_), Chan::Fresh { .. }) => Ordering::Less,
        (Chan::Fresh { .. }, Chan::Global(_)) => Ordering::Greater,
        (Chan::Fresh { id: i, origin: o }, Chan::Fresh { id: j, origin: p }) if anon => {
            let _ = (i, j);
            o.cmp(&p)
        }
        (Chan::Fresh { id: i, origin: o }, Chan::Fresh { id: j, origin: p }) => {
            i.cmp(&j).then(o.cmp(&p))
        }
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Bool(_) => 0,
        Value::Int(_) => 1,
        Value::Chan(_) => 2,
        Value::Ctor(..) => 3,
        Value::Tuple(_) => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(id: u32, origin: Origin) -> Value {
        Value::Chan(Chan::Fresh { id, origin })
    }

    #[test]
    fn anonymous_order_ignores_instance_ids() {
        assert_eq!(cmp_value(&fresh(0, 1), &fresh(5, 1), true), Ordering::Equal);
        assert_eq!(cmp_value(&fresh(0, 1), &fresh(5, 1), false), Ordering::Less);
        assert_eq!(cmp_value(&fresh(9, 0), &fresh(0, 1), true), Ordering::Less);
    }

    #[test]
    fn renaming_reaches_nested_values() {
        let mut v = Value::Tuple(
            vec![
                fresh(1, 0),
                Value::Ctor(EnumId(0), 0, vec![fresh(0, 0)].into()),
            ]
            .into(),
        );
        v.rename(&[1, 0]);
        let mut seen = Vec::new();
        v.for_each_fresh(&mut |id| seen.push(id));
        assert_eq!(seen, vec![0, 1]);
    }
}
