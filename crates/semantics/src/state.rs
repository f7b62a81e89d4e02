//! States and their canonical form: structural congruence applied once, when a state is made.
//!
//! A state is a multiset of components. A component is a closure waiting at a prefix, a choice
//! or a replication, or a sequential composition whose left side is still running (its own
//! multiset). Terminated components are gone, parallel compositions are flattened, and a closure
//! keeps only the values of the variables its term can still read. Fresh names live in the
//! values themselves, so a name that no component holds any more has vanished (garbage
//! collection of restrictions). [`canonicalize`] sorts and renumbers fresh names by first
//! occurrence, so that alpha-equivalent states are equal.

use crate::value::{Value, cmp_value, cmp_values};
use agentpi_ir::core::TermId;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A term together with the values of its free variables (in the order of `TermInfo::free`),
/// and the instance it belongs to (see [`crate::Instance`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Closure {
    pub term: TermId,
    pub env: Box<[Value]>,
    pub instance: crate::Instance,
}

/// One component of a state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Proc {
    /// Waiting at a prefix, a choice or a replication. Shared: a step copies the components
    /// that did not move by reference count, not by value.
    Leaf(Arc<Closure>),
    /// `P ; Q` while `P` runs: the components of `P`, then `Q` with its values.
    Seq(Box<[Proc]>, Arc<Closure>),
}

/// A canonical state: components sorted, fresh names numbered `0..fresh`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub procs: Box<[Proc]>,
    /// How many fresh names the state holds.
    pub fresh: u32,
}

impl State {
    /// A stable 64-bit fingerprint (xxh3), the same in every process on one platform.
    pub fn fingerprint(&self) -> u64 {
        // One xxh3 call over the buffered encoding is much cheaper than streaming the many
        // small writes of `Hash` into xxh3's stateful hasher; the buffer is reused per thread.
        thread_local!(static BUFFER: std::cell::RefCell<Buffer> = const {
            std::cell::RefCell::new(Buffer(Vec::new()))
        });
        BUFFER.with_borrow_mut(|buffer| {
            buffer.0.clear();
            self.hash(buffer);
            xxhash_rust::xxh3::xxh3_64(&buffer.0)
        })
    }

    /// Every component, nested ones included, in order.
    pub fn leaves(&self) -> Vec<&Closure> {
        let mut out = Vec::new();
        collect_leaves(&self.procs, &mut out);
        out
    }
}

fn collect_leaves<'a>(procs: &'a [Proc], out: &mut Vec<&'a Closure>) {
    for proc in procs {
        match proc {
            Proc::Leaf(c) => out.push(c.as_ref()),
            Proc::Seq(inner, _) => collect_leaves(inner, out),
        }
    }
}

/// Collects the bytes `Hash` writes, for one-shot hashing.
struct Buffer(Vec<u8>);

impl Hasher for Buffer {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn finish(&self) -> u64 {
        unreachable!("State::fingerprint hashes the buffer itself")
    }
}

/// Maps a raw state's fresh ids to the canonical state's; `DEAD` for names that vanished.
pub type Renaming = Box<[u32]>;

/// A fresh name that no component holds any more.
pub const DEAD: u32 = u32::MAX;

/// Puts `procs` into canonical form. `ids` bounds the fresh ids used (every id is below it);
/// `replicated` tells the terms that are replications, of which one copy is kept per list
/// (law *Repl-Idem*).
pub fn canonicalize(
    mut procs: Vec<Proc>,
    ids: u32,
    replicated: &dyn Fn(TermId) -> bool,
) -> (State, Renaming) {
    sort_procs(&mut procs, true);
    let mut map = vec![DEAD; ids as usize];
    let mut next = 0;
    for_each_fresh(&procs, &mut |id| {
        let slot = &mut map[id as usize];
        if *slot == DEAD {
            *slot = next;
            next += 1;
        }
    });
    // Most steps keep every name where it was: then there is nothing to rename.
    let identity = map
        .iter()
        .enumerate()
        .all(|(i, &m)| m == i as u32 || m == DEAD);
    if !identity {
        rename_procs(&mut procs, &map);
    }
    sort_procs(&mut procs, false);
    dedup_replications(&mut procs, replicated);
    (
        State {
            procs: procs.into_boxed_slice(),
            fresh: next,
        },
        map.into_boxed_slice(),
    )
}

fn sort_procs(procs: &mut [Proc], anon: bool) {
    for proc in procs.iter_mut() {
        if let Proc::Seq(inner, _) = proc {
            sort_procs(inner, anon);
        }
    }
    procs.sort_by(|a, b| cmp_proc(a, b, anon));
}

/// Law *Repl-Idem* (`!P | !P ~ !P`): equal replications side by side (the list is sorted)
/// are kept once, also in the left sides of sequences.
fn dedup_replications(procs: &mut Vec<Proc>, replicated: &dyn Fn(TermId) -> bool) {
    for proc in procs.iter_mut() {
        if let Proc::Seq(inner, _) = proc {
            let mut list = std::mem::take(inner).into_vec();
            dedup_replications(&mut list, replicated);
            *inner = list.into_boxed_slice();
        }
    }
    procs.dedup_by(|a, b| match (a, b) {
        (Proc::Leaf(x), Proc::Leaf(y)) => replicated(x.term) && x == y,
        _ => false,
    });
}

fn cmp_proc(a: &Proc, b: &Proc, anon: bool) -> Ordering {
    match (a, b) {
        (Proc::Leaf(x), Proc::Leaf(y)) => cmp_closure(x, y, anon),
        (Proc::Leaf(_), Proc::Seq(..)) => Ordering::Less,
        (Proc::Seq(..), Proc::Leaf(_)) => Ordering::Greater,
        (Proc::Seq(p, x), Proc::Seq(q, y)) => {
            let inner = p.iter().zip(q.iter()).map(|(a, b)| cmp_proc(a, b, anon));
            let first = inner.into_iter().find(|o| *o != Ordering::Equal);
            first
                .unwrap_or(p.len().cmp(&q.len()))
                .then_with(|| cmp_closure(x, y, anon))
        }
    }
}

fn cmp_closure(a: &Closure, b: &Closure, anon: bool) -> Ordering {
    a.term
        .cmp(&b.term)
        .then_with(|| cmp_values(&a.env, &b.env, anon))
        .then(a.instance.cmp(&b.instance))
}

/// Visits every closure, those waiting in sequences too, in canonical traversal order.
pub fn for_each_closure(procs: &[Proc], f: &mut impl FnMut(&Closure)) {
    for proc in procs {
        match proc {
            Proc::Leaf(c) => f(c),
            Proc::Seq(inner, c) => {
                for_each_closure(inner, f);
                f(c);
            }
        }
    }
}

/// Visits every value held by components, in canonical traversal order.
pub fn for_each_value(procs: &[Proc], f: &mut impl FnMut(&Value)) {
    for proc in procs {
        match proc {
            Proc::Leaf(c) => c.env.iter().for_each(&mut *f),
            Proc::Seq(inner, c) => {
                for_each_value(inner, f);
                c.env.iter().for_each(&mut *f);
            }
        }
    }
}

/// Visits fresh ids in canonical traversal order.
pub fn for_each_fresh(procs: &[Proc], f: &mut impl FnMut(u32)) {
    for_each_value(procs, &mut |v| v.for_each_fresh(f));
}

pub(crate) fn rename_procs(procs: &mut [Proc], map: &[u32]) {
    for proc in procs {
        match proc {
            Proc::Leaf(c) => rename_closure(c, map),
            Proc::Seq(inner, c) => {
                rename_procs(inner, map);
                rename_closure(c, map);
            }
        }
    }
}

/// Renames a shared closure, copying it only when one of its names really changes.
pub(crate) fn rename_closure(closure: &mut Arc<Closure>, map: &[u32]) {
    let mut changes = false;
    closure
        .env
        .iter()
        .for_each(|v| v.for_each_fresh(&mut |id| changes |= map[id as usize] != id));
    if changes {
        Arc::make_mut(closure)
            .env
            .iter_mut()
            .for_each(|v| v.rename(map));
    }
}

/// True when two values are equal up to fresh-name instances (used by tests and traces).
pub fn same_shape(a: &Value, b: &Value) -> bool {
    cmp_value(a, b, true) == Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Chan;

    fn leaf(term: u32, ids: &[u32]) -> Proc {
        let env = ids
            .iter()
            .map(|&id| Value::Chan(Chan::Fresh { id, origin: 0 }))
            .collect();
        Proc::Leaf(Arc::new(Closure {
            term: TermId(term),
            env,
            instance: 0,
        }))
    }

    #[test]
    fn alpha_equivalent_states_are_equal() {
        let (a, _) = canonicalize(vec![leaf(1, &[7]), leaf(0, &[3, 7])], 8, &|_| false);
        let (b, _) = canonicalize(vec![leaf(0, &[2, 5]), leaf(1, &[5])], 8, &|_| false);
        assert_eq!(a, b);
        assert_eq!(a.fresh, 2);
    }

    #[test]
    fn unused_names_vanish_and_renaming_says_so() {
        let (state, map) = canonicalize(vec![leaf(0, &[4])], 6, &|_| false);
        assert_eq!(state.fresh, 1);
        assert_eq!(map[4], 0);
        assert_eq!(map[2], DEAD);
    }
}
