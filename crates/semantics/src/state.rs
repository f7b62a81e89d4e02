//! States and their canonical form: structural congruence applied once, when a state is made.
//!
//! A state is a multiset of components. A component is a closure waiting at a prefix, a choice
//! or a replication, or a sequential composition whose left side is still running (its own
//! multiset). Terminated components are gone, parallel compositions are flattened, and a closure
//! keeps only the values of the variables its term can still read. Fresh names live in the
//! values themselves, so a name that no component holds any more has vanished (garbage
//! collection of restrictions). [`canonicalize`] sorts and renumbers fresh names by first
//! occurrence, so that alpha-equivalent states are equal.

use crate::queue::Queue;
use crate::value::{Chan, Value, cmp_value, cmp_values};
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

/// A canonical state: components sorted, the queues of buffered channels with messages
/// waiting sorted by channel, fresh names numbered `0..fresh`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub procs: Box<[Proc]>,
    pub queues: Box<[Queue]>,
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

    /// Every value the state holds (components' and queued messages'), in canonical order.
    pub fn for_each_value(&self, f: &mut impl FnMut(&Value)) {
        for_each_value(&self.procs, f);
        for q in self.queues.iter() {
            if let Chan::Fresh { .. } = q.chan {
                f(&Value::Chan(q.chan));
            }
            q.for_each_value(f);
        }
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

/// Puts `procs` and `queues` into canonical form. `ids` bounds the fresh ids used (every id
/// is below it); `replicated` tells the terms that are replications, of which one copy is
/// kept per list (law *Repl-Idem*).
pub fn canonicalize(
    mut procs: Vec<Proc>,
    mut queues: Vec<Queue>,
    ids: u32,
    replicated: &dyn Fn(TermId) -> bool,
) -> (State, Renaming) {
    if ids == 0 {
        // No fresh name anywhere: one sort puts the state in its canonical order.
        normalize(&mut procs, replicated);
        crate::queue::collect_garbage(&mut queues, Default::default());
        crate::queue::sort_queues(&mut queues, false);
        let state = State {
            procs: procs.into_boxed_slice(),
            queues: queues.into_boxed_slice(),
            fresh: 0,
        };
        return (state, Box::default());
    }
    sort_procs(&mut procs, true);
    if !queues.is_empty() {
        let mut held = rustc_hash::FxHashSet::default();
        for_each_fresh(&procs, &mut |id| _ = held.insert(id));
        crate::queue::collect_garbage(&mut queues, held);
        crate::queue::sort_queues(&mut queues, true);
    }
    let mut map = vec![DEAD; ids as usize];
    let mut next = 0;
    let mut number = |id: u32| {
        let slot = &mut map[id as usize];
        if *slot == DEAD {
            *slot = next;
            next += 1;
        }
    };
    for_each_fresh(&procs, &mut number);
    queues.iter().for_each(|q| q.for_each_fresh(&mut number));
    // Most steps keep every name where it was: then there is nothing to rename.
    let identity = map
        .iter()
        .enumerate()
        .all(|(i, &m)| m == i as u32 || m == DEAD);
    if !identity {
        rename_procs(&mut procs, &map);
        crate::queue::rename_queues(&mut queues, &map);
    }
    normalize(&mut procs, replicated);
    crate::queue::sort_queues(&mut queues, false);
    (
        State {
            procs: procs.into_boxed_slice(),
            queues: queues.into_boxed_slice(),
            fresh: next,
        },
        map.into_boxed_slice(),
    )
}

/// The canonical order of components in a state without fresh names (components equal in
/// it are equal).
pub fn cmp_components(a: &Proc, b: &Proc) -> Ordering {
    cmp_proc(a, b, false)
}

/// Puts the components and queues of a canonical state, given in another order, back in
/// canonical order (components equal in the full order are equal).
pub fn sort_canonically(procs: &mut [Proc], queues: &mut [Queue]) {
    procs.sort_by(|a, b| cmp_proc(a, b, false));
    crate::queue::sort_queues(queues, false);
}

/// `proc` with its closures of instance `from` moved to instance `to` (symmetry reduction
/// renames interchangeable instances).
pub fn reinstanced(proc: &Proc, from: crate::Instance, to: crate::Instance) -> Proc {
    let moved = |c: &Arc<Closure>| match c.instance == from {
        true => Arc::new(Closure {
            instance: to,
            ..(**c).clone()
        }),
        false => c.clone(),
    };
    match proc {
        Proc::Leaf(c) => Proc::Leaf(moved(c)),
        Proc::Seq(left, right) => Proc::Seq(
            left.iter().map(|p| reinstanced(p, from, to)).collect(),
            moved(right),
        ),
    }
}

/// The canonical order of two waiting closures in a state without fresh names.
pub fn cmp_closures(a: &Closure, b: &Closure) -> Ordering {
    cmp_closure(a, b, false)
}

/// A list of components holding no fresh name in canonical form, as [`canonicalize`] leaves
/// it: sorted, sequences' left sides too, with equal replications side by side kept once.
pub fn canonical_components(
    mut procs: Vec<Proc>,
    replicated: &dyn Fn(TermId) -> bool,
) -> Vec<Proc> {
    normalize(&mut procs, replicated);
    procs
}

/// How deeply sequential compositions nest in one component (0 for a waiting closure).
pub fn nesting(proc: &Proc) -> usize {
    let mut deepest = 0;
    let mut todo: Vec<(&Proc, usize)> = vec![(proc, 0)];
    while let Some((p, depth)) = todo.pop() {
        if let Proc::Seq(inner, _) = p {
            deepest = deepest.max(depth + 1);
            todo.extend(inner.iter().map(|q| (q, depth + 1)));
        }
    }
    deepest
}

fn sort_procs(procs: &mut [Proc], anon: bool) {
    for proc in procs.iter_mut() {
        if let Proc::Seq(inner, _) = proc {
            sort_procs(inner, anon);
        }
    }
    procs.sort_by(|a, b| cmp_proc(a, b, anon));
}

/// Sorts in the full order and applies law *Repl-Idem* (`!P | !P ~ !P`: equal replications
/// side by side are kept once), inside out: a sequence's left side is put in this form before
/// the list holding the sequence is sorted, so that equal components compare equal (sorting
/// first and dropping copies after would leave the order of what held the copies behind).
fn normalize(procs: &mut Vec<Proc>, replicated: &dyn Fn(TermId) -> bool) {
    for proc in procs.iter_mut() {
        if let Proc::Seq(inner, _) = proc {
            let mut list = std::mem::take(inner).into_vec();
            normalize(&mut list, replicated);
            *inner = list.into_boxed_slice();
        }
    }
    procs.sort_by(|a, b| cmp_proc(a, b, false));
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

pub fn rename_procs(procs: &mut [Proc], map: &[u32]) {
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
        let (a, _) = canonicalize(vec![leaf(1, &[7]), leaf(0, &[3, 7])], vec![], 8, &|_| false);
        let (b, _) = canonicalize(vec![leaf(0, &[2, 5]), leaf(1, &[5])], vec![], 8, &|_| false);
        assert_eq!(a, b);
        assert_eq!(a.fresh, 2);
    }

    fn seq(left: Vec<Proc>, right: u32) -> Proc {
        let cont = Closure {
            term: TermId(right),
            env: Box::default(),
            instance: 0,
        };
        Proc::Seq(left.into_boxed_slice(), Arc::new(cont))
    }

    /// A sequence whose left side holds two copies of one replication is the sequence with
    /// one: it must take the same place among the other components (found by the engine's
    /// differential test: sorting before dropping the copy left the order of the copy).
    #[test]
    fn copies_of_a_replication_do_not_change_the_order() {
        let repl = |t: TermId| t == TermId(1);
        let with_copy = vec![
            seq(vec![leaf(1, &[]), leaf(2, &[])], 9),
            seq(
                vec![leaf(1, &[]), leaf(1, &[]), leaf(2, &[]), leaf(3, &[])],
                9,
            ),
        ];
        let without = vec![
            seq(vec![leaf(1, &[]), leaf(2, &[]), leaf(3, &[])], 9),
            seq(vec![leaf(1, &[]), leaf(2, &[])], 9),
        ];
        let (a, _) = canonicalize(with_copy, vec![], 0, &repl);
        let (b, _) = canonicalize(without, vec![], 0, &repl);
        assert_eq!(a, b);
    }

    #[test]
    fn unused_names_vanish_and_renaming_says_so() {
        let (state, map) = canonicalize(vec![leaf(0, &[4])], vec![], 6, &|_| false);
        assert_eq!(state.fresh, 1);
        assert_eq!(map[4], 0);
        assert_eq!(map[2], DEAD);
    }
}
