//! The nodes of a [`super::Lean`] product, (state, monitor state number) each, numbered by
//! their state: a node costs a byte, not a key.
//!
//! The numbers come in *layers*, an array of a monitor state number for each state: node
//! `base + s` is state `s`'s node in the layer at `base`. The first layer is at 0 (a state's
//! first node reached is node `s`), the second at `S` (`S` states; most products have two
//! nodes a state, the monitor waiting or not). A state's nodes fill its layers in order; a
//! node that finds its state's layers full goes to a table of keys (8 bytes with a slot in an
//! index), numbered from where the numbers end, until the table holds a [`SPARSE`]-th as many
//! such nodes as there are states: then a layer is made for the nodes to come
//! (rpc under `leads to`, five monitor states: three more layers, a byte a state each, where
//! the table held 176,904 keys). A layer costs at most [`SPARSE`] bytes (4 when widened) for
//! each of the table's nodes that made it, which cost 8 bytes and more, so a few states with
//! many monitor states do not cost a layer each.
//!
//! A number not taken is a hole: no edge reaches it, and it lies in no region.

use super::NONE;
use std::hash::BuildHasher;

/// A layer is made once the table took a `SPARSE`-th of the states' count of nodes since the
/// last one: a byte a state (or 4, past 255 monitor states) against 8 bytes and an index
/// slot a node in the table. The count of nodes, not the bytes: whether the arrays are
/// widened yet depends on how the candidates are batched, and the numbers must not.
const SPARSE: u64 = 16;

/// A monitor state number for each state, or none: a byte each while the numbers are below
/// 255 (the shapes' monitors and most formulas' automata have a few), widened past that.
pub(super) enum Numbers {
    Narrow(Vec<u8>),
    Wide(Vec<u32>),
}

impl Numbers {
    pub(super) fn new(states: usize) -> Self {
        Numbers::Narrow(vec![u8::MAX; states])
    }

    pub(super) fn get(&self, s: usize) -> Option<u32> {
        match self {
            Numbers::Narrow(c) => (c[s] != u8::MAX).then_some(c[s] as u32),
            Numbers::Wide(c) => (c[s] != NONE).then_some(c[s]),
        }
    }

    pub(super) fn set(&mut self, s: usize, c: u32) {
        if c >= u8::MAX as u32 {
            self.widen();
        }
        match self {
            Numbers::Narrow(narrow) => narrow[s] = c as u8,
            Numbers::Wide(wide) => wide[s] = c,
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Numbers::Narrow(c) => c.len(),
            Numbers::Wide(c) => 4 * c.len(),
        }
    }

    /// Four bytes a number from now on.
    fn widen(&mut self) {
        if let Numbers::Narrow(narrow) = self {
            let widen = |&c: &u8| if c == u8::MAX { NONE } else { c as u32 };
            *self = Numbers::Wide(narrow.iter().map(widen).collect());
        }
    }

    /// The array in parts of `width` states, for threads to write apart.
    fn parts(&mut self, width: usize) -> Vec<Part<'_>> {
        match self {
            Numbers::Narrow(c) => c.chunks_mut(width).map(Part::Narrow).collect(),
            Numbers::Wide(c) => c.chunks_mut(width).map(Part::Wide).collect(),
        }
    }
}

/// A part of a [`Numbers`] array, for one thread to write.
pub(super) enum Part<'a> {
    Narrow(&'a mut [u8]),
    Wide(&'a mut [u32]),
}

impl Part<'_> {
    fn get(&self, i: u32) -> Option<u32> {
        match self {
            Part::Narrow(c) => (c[i as usize] != u8::MAX).then_some(c[i as usize] as u32),
            Part::Wide(c) => (c[i as usize] != NONE).then_some(c[i as usize]),
        }
    }

    /// Sets a number that fits (the arrays are widened before numbers that do not).
    fn set(&mut self, i: u32, c: u32) {
        match self {
            Part::Narrow(narrow) => narrow[i as usize] = c as u8,
            Part::Wide(wide) => wide[i as usize] = c,
        }
    }
}

/// A layer: node `base + s` is state `s`'s, with the monitor state of `numbers[s]`.
struct Layer {
    base: u32,
    numbers: Numbers,
}

/// A node's key: (state, monitor state number).
pub(super) type Key = (u32, u32);

/// The product's nodes.
pub(super) struct Nodes {
    /// The number of states, `S`.
    states: u32,
    /// At least the first; in the order they were made, at increasing bases.
    layers: Vec<Layer>,
    /// The keys of the nodes that found their state's layers full.
    more: Vec<Key>,
    /// Positions in `more`, hashed by their keys.
    index: hashbrown::HashTable<u32>,
    /// The runs of `more`'s nodes between layers: (first node number, first position in
    /// `more`), in order; a run ends where the next layer begins.
    runs: Vec<(u32, u32)>,
    /// The nodes put in `more` since the last layer was made.
    overflow: u64,
}

fn hash(key: &Key) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(key)
}

/// The position of `key` in `more`.
fn find_more(more: &[Key], index: &hashbrown::HashTable<u32>, key: Key) -> Option<u32> {
    index
        .find(hash(&key), |&i| more[i as usize] == key)
        .copied()
}

impl Nodes {
    pub(super) fn new(states: u32) -> Self {
        let first = Layer {
            base: 0,
            numbers: Numbers::new(states as usize),
        };
        Nodes {
            states,
            layers: vec![first],
            more: Vec::new(),
            index: hashbrown::HashTable::new(),
            runs: Vec::new(),
            overflow: 0,
        }
    }

    /// One past the last number given (holes included).
    pub(super) fn end(&self) -> u32 {
        let last = self.layers.last().expect("the first layer");
        let run = |&(start, from): &(u32, u32)| start + (self.more.len() as u32 - from);
        (last.base + self.states).max(self.runs.last().map_or(0, run))
    }

    /// How many layers there are.
    #[cfg(test)]
    pub(super) fn layers(&self) -> usize {
        self.layers.len()
    }

    /// How many nodes are in the table past the layers.
    #[cfg(test)]
    pub(super) fn in_table(&self) -> usize {
        self.more.len()
    }

    /// Node `n`'s key, `None` for a hole.
    pub(super) fn key_of(&self, n: u32) -> Option<Key> {
        for layer in &self.layers {
            let s = n.wrapping_sub(layer.base);
            if n >= layer.base && s < self.states {
                return Some((s, layer.numbers.get(s as usize)?));
            }
        }
        let k = self.runs.partition_point(|&(start, _)| start <= n);
        let (start, from) = self.runs[k.checked_sub(1)?];
        let i = from + (n - start);
        let end = self.runs.get(k).map_or(self.more.len() as u32, |r| r.1);
        (i < end).then(|| self.more[i as usize])
    }

    /// The number of the `i`-th node of the table.
    fn in_run(&self, i: u32) -> u32 {
        let k = self.runs.partition_point(|&(_, from)| from <= i) - 1;
        let (start, from) = self.runs[k];
        start + (i - from)
    }

    pub(super) fn find(&self, (s, c): Key) -> Option<u32> {
        for layer in &self.layers {
            match layer.numbers.get(s as usize) {
                // A state's layers fill in order.
                None => break,
                Some(d) if d == c => return Some(layer.base + s),
                Some(_) => {}
            }
        }
        let i = find_more(&self.more, &self.index, (s, c))?;
        Some(self.in_run(i))
    }

    /// The node of `key`, and whether it is new; `None` when the numbers run out.
    pub(super) fn insert(&mut self, key: Key) -> Option<(u32, bool)> {
        if let Some(n) = self.find(key) {
            return Some((n, false));
        }
        let (s, c) = key;
        if c >= u8::MAX as u32 {
            self.widen();
        }
        let free = (self.layers.iter_mut()).find(|l| l.numbers.get(s as usize).is_none());
        if let Some(layer) = free {
            layer.numbers.set(s as usize, c);
            return Some((layer.base + s, true));
        }
        let end = self.end() as u64;
        let due = self.layers.len() == 1 || SPARSE * self.overflow >= self.states as u64;
        if due && end + (self.states as u64) < NONE as u64 {
            let mut numbers = Numbers::new(self.states as usize);
            if matches!(self.layers[0].numbers, Numbers::Wide(_)) {
                numbers.widen();
            }
            numbers.set(s as usize, c);
            let base = end as u32;
            self.layers.push(Layer { base, numbers });
            self.overflow = 0;
            return Some((base + s, true));
        }
        if end + 1 >= NONE as u64 {
            return None;
        }
        let i = self.more.len() as u32;
        let last_layer = self.layers.last().map_or(0, |l| l.base);
        if self
            .runs
            .last()
            .is_none_or(|&(start, _)| start < last_layer)
        {
            self.runs.push((end as u32, i));
        }
        self.more.push(key);
        let more = &self.more;
        let rehash = |&j: &u32| hash(&more[j as usize]);
        self.index.insert_unique(hash(&key), i, rehash);
        self.overflow += 1;
        Some((end as u32, true))
    }

    /// Four bytes a number in every layer from now on.
    pub(super) fn widen(&mut self) {
        self.layers.iter_mut().for_each(|l| l.numbers.widen());
    }

    /// The bytes held: the layers, the table's keys with their index (its control bytes,
    /// all written, and its slots as filled) and the runs.
    pub(super) fn bytes(&self) -> u64 {
        let layers: usize = self.layers.iter().map(|l| 16 + l.numbers.bytes()).sum();
        let more = 8 * self.more.len() + self.index.capacity() + 4 * self.index.len();
        (layers + more + 8 * self.runs.len()) as u64
    }

    /// The states in slices of `width`, each with its part of every layer, for threads to
    /// number apart.
    pub(super) fn slices(&mut self, width: usize) -> Vec<Slice<'_>> {
        let Nodes {
            states,
            layers,
            more,
            index,
            ..
        } = self;
        let count = (*states as usize).div_ceil(width);
        let mut parts: Vec<_> = (layers.iter_mut())
            .map(|l| (l.base, l.numbers.parts(width).into_iter()))
            .collect();
        (0..count)
            .map(|k| Slice {
                lo: (k * width) as u32,
                len: (*states as usize - k * width).min(width) as u32,
                layers: (parts.iter_mut())
                    .map(|(base, p)| (*base, p.next().expect("a part of each layer")))
                    .collect(),
                more,
                index,
            })
            .collect()
    }
}

/// What a [`Slice`] makes of a key.
pub(super) enum Placed {
    /// It has a node already.
    Known,
    /// It is a new node, numbered.
    New(u32),
    /// Its state's layers are full: it is left for [`Nodes::insert`].
    Left,
}

/// States `lo..lo + len`, with their part of every layer, and the table past the layers, read
/// only: one thread's to number.
pub(super) struct Slice<'a> {
    lo: u32,
    len: u32,
    layers: Vec<(u32, Part<'a>)>,
    more: &'a [Key],
    index: &'a hashbrown::HashTable<u32>,
}

impl Slice<'_> {
    /// Whether state `s` is one of this slice's.
    pub(super) fn holds(&self, s: u32) -> bool {
        s >= self.lo && s - self.lo < self.len
    }

    /// Numbers `key`, of a state of this slice, in the first layer free at its state, as
    /// [`Nodes::insert`] would.
    pub(super) fn place(&mut self, (s, c): Key) -> Placed {
        let i = s - self.lo;
        let mut free = None;
        for (k, (_, part)) in self.layers.iter().enumerate() {
            match part.get(i) {
                None => {
                    free = Some(k);
                    break;
                }
                Some(d) if d == c => return Placed::Known,
                Some(_) => {}
            }
        }
        // A state has nodes in the table only past its first.
        if free != Some(0) && find_more(self.more, self.index, (s, c)).is_some() {
            return Placed::Known;
        }
        let Some(k) = free else {
            return Placed::Left;
        };
        let (base, part) = &mut self.layers[k];
        part.set(i, c);
        Placed::New(*base + s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_widen_past_a_byte_and_keep_theirs() {
        let mut numbers = Numbers::new(4);
        numbers.set(0, 3);
        numbers.set(2, 254);
        assert!(matches!(numbers, Numbers::Narrow(_)));
        numbers.set(1, 255);
        assert!(matches!(numbers, Numbers::Wide(_)));
        let all: Vec<Option<u32>> = (0..4).map(|s| numbers.get(s)).collect();
        assert_eq!(all, [Some(3), Some(255), Some(254), None]);
    }

    /// 32 states, state 0 reached with monitor states 0, 1, ...: its first two nodes in the
    /// first two layers, the next two in the table (32 states, [`SPARSE`] times two), then a layer at 66, the table again from 98, and so on; every node found by
    /// its key.
    #[test]
    fn nodes_past_two_a_state_go_to_the_table_then_to_a_layer() {
        let mut nodes = Nodes::new(32);
        let numbers: Vec<u32> = (0..9)
            .map(|c| nodes.insert((0, c)).expect("numbers").0)
            .collect();
        assert_eq!(numbers, [0, 32, 64, 65, 66, 98, 99, 100, 132]);
        assert_eq!(nodes.layers(), 4);
        assert_eq!(nodes.in_table(), 5);
        for (c, &n) in numbers.iter().enumerate() {
            assert_eq!(nodes.key_of(n), Some((0, c as u32)));
            assert_eq!(nodes.insert((0, c as u32)), Some((n, false)));
        }
        // Holes: another state's place in a layer, and past the end.
        assert_eq!(nodes.key_of(1), None);
        assert_eq!(nodes.key_of(67), None);
        assert_eq!(nodes.end(), 133);
        assert_eq!(nodes.key_of(133), None);
        // State 1 fills the layers before the table, whose run goes on at 133.
        let state1: Vec<u32> = (0..6).map(|c| nodes.insert((1, c)).unwrap().0).collect();
        assert_eq!(state1, [1, 33, 67, 101, 133, 135]);
        assert_eq!(nodes.key_of(135), Some((1, 5)));
        assert_eq!(nodes.key_of(134), None);
        assert_eq!(nodes.key_of(133), Some((1, 4)));
    }

    /// A slice places a key as `insert` does, and leaves it when its state's layers are full.
    #[test]
    fn a_slice_numbers_as_insert_does() {
        let mut nodes = Nodes::new(8);
        nodes.insert((3, 0)).unwrap();
        nodes.insert((3, 1)).unwrap();
        nodes.insert((3, 2)).unwrap();
        let mut slices = nodes.slices(4);
        assert_eq!(slices.len(), 2);
        assert!(slices[0].holds(3) && !slices[0].holds(4) && slices[1].holds(7));
        let slice = &mut slices[0];
        assert!(matches!(slice.place((3, 2)), Placed::Known));
        assert!(matches!(slice.place((3, 1)), Placed::Known));
        assert!(matches!(slice.place((3, 5)), Placed::Left));
        assert!(matches!(slice.place((2, 5)), Placed::New(2)));
        assert!(matches!(slice.place((2, 6)), Placed::New(10)));
    }
}
