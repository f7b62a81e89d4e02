//! An observation against a label, in one explanation: the rules of `agentpi_check::replay`
//! (a key matches the name bound to it, or binds a name bound to no key), with one addition
//! for windows: a key bound to a name outside the window is bound, to no name a window
//! label can hold.

use agentpi_check::replay::{Arg, HeadPat, Key, Observation};
use agentpi_semantics::{Chan, Head, Label, Semantics, Value};

/// The id a key bound outside the window stands for: no window name has it.
const OUTSIDE: u32 = u32::MAX;

/// What an explanation binds: its keys and the names bound to them (sorted by key), and
/// whether a key is bound to a name outside the window.
pub struct Bound<'a> {
    pub names: &'a [(Key, u32)],
    pub elsewhere: &'a dyn Fn(&str) -> bool,
}

impl Bound<'_> {
    fn get(&self, key: &str) -> Option<u32> {
        let at = self.names.binary_search_by(|(k, _)| (**k).cmp(key));
        at.ok().map(|i| self.names[i].1)
    }
}

/// Matches `obs` against `label` in an explanation binding `bound`; on success, the
/// bindings it adds.
pub fn match_observation(
    sem: &Semantics<'_>,
    obs: &Observation,
    label: &Label,
    bound: &Bound<'_>,
) -> Option<Vec<(Key, u32)>> {
    let mut m = Matcher {
        sem,
        bound,
        new: Vec::new(),
    };
    let head_ok = match (&obs.head, &label.head) {
        (HeadPat::Named(n), Head::Chan(c) | Head::Send(c) | Head::Receive(c)) => {
            sem.chan_name(*c) == n
        }
        (HeadPat::Named(n), Head::Event(e)) => sem.program.events[e.0 as usize].name == *n,
        (
            HeadPat::Name(key),
            Head::Chan(Chan::Fresh { id, .. })
            | Head::Send(Chan::Fresh { id, .. })
            | Head::Receive(Chan::Fresh { id, .. }),
        ) => m.name(key, *id),
        _ => false,
    };
    let args_ok = obs.args.len() == label.args.len()
        && obs
            .args
            .iter()
            .zip(label.args.iter())
            .all(|(a, v)| m.arg(a, v));
    (head_ok && args_ok).then_some(m.new)
}

struct Matcher<'a, 'b, 's, 'p> {
    sem: &'s Semantics<'p>,
    bound: &'a Bound<'b>,
    new: Vec<(Key, u32)>,
}

impl Matcher<'_, '_, '_, '_> {
    fn lookup(&self, key: &str) -> Option<u32> {
        let new = self.new.iter().find(|(k, _)| **k == *key);
        new.map(|(_, id)| *id)
            .or_else(|| self.bound.get(key))
            .or_else(|| (self.bound.elsewhere)(key).then_some(OUTSIDE))
    }

    /// Key `key` against fresh id `id`: equal to its binding, or binds an unclaimed name.
    fn name(&mut self, key: &Key, id: u32) -> bool {
        if let Some(bound) = self.lookup(key) {
            return bound == id;
        }
        let claimed = self
            .bound
            .names
            .iter()
            .chain(&self.new)
            .any(|(_, v)| *v == id);
        if claimed {
            return false;
        }
        self.new.push((key.clone(), id));
        true
    }

    fn arg(&mut self, arg: &Arg, value: &Value) -> bool {
        match (arg, value) {
            (Arg::Any, _) => true,
            (Arg::Int(i), Value::Int(j)) => i == j,
            (Arg::Bool(a), Value::Bool(b)) => a == b,
            (Arg::Ctor(name, args), Value::Ctor(e, i, vs)) => {
                let ctor = &self.sem.program.enums[e.0 as usize].ctors[*i as usize];
                ctor.name == *name && self.all(args, vs)
            }
            (Arg::Tuple(args), Value::Tuple(vs)) => self.all(args, vs),
            (Arg::Chan(name), Value::Chan(c)) => self.sem.chan_name(*c) == name,
            (Arg::Name(key), Value::Chan(Chan::Fresh { id, .. })) => self.name(key, *id),
            (Arg::IfBound(key, yes, no), v) => {
                if self.lookup(key).is_some() {
                    self.arg(yes, v)
                } else {
                    self.arg(no, v)
                }
            }
            _ => false,
        }
    }

    fn all(&mut self, args: &[Arg], values: &[Value]) -> bool {
        args.len() == values.len() && args.iter().zip(values).all(|(a, v)| self.arg(a, v))
    }
}
