//! The edges a liveness check keeps: the target, and the number of the edge's *kind*, its
//! (label, set of actors, renaming of fresh names) triple, each distinct triple stored once;
//! each in as few bytes as it needs (see [`Packed`]): 4 bytes an edge while there are fewer
//! than 2^24 states and at most 256 kinds, 5 past either.
//!
//! A model has few kinds (philosophers: a few per philosopher; the renamings of fresh
//! names are small permutations, the same on millions of edges), so a kind in a byte or two
//! and its renaming in none is what keeping the edges costs beyond their targets.

use agentpi_semantics::Renaming;
use rustc_hash::FxHashMap;

/// One transition of the graph (re-exported by `graph`, whose edges these are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    pub label: u32,
    pub target: u32,
    /// Index of the set of actors that moved (see [`crate::Graph::actor_sets`]).
    pub actors: u32,
}

/// The renaming of an edge kept without renamings.
const NO_RENAMING: u32 = u32::MAX;

/// Numbers in as few bytes as the largest needs (1 to 4), little-endian, in segments of
/// [`SEGMENT`] numbers, each with its width: a number that does not fit the bytes so far
/// widens its segment only (a copy of one segment, not of every number kept). The edges'
/// targets take 3 bytes each while there are fewer than 2^24 states, their kinds 1 while a
/// model has at most 256 of them.
#[derive(Default)]
struct Packed {
    segments: Vec<Segment>,
}

/// The numbers of a segment.
const SEGMENT: usize = 1 << 16;

struct Segment {
    width: usize,
    bytes: Vec<u8>,
}

impl Segment {
    fn new(width: usize) -> Self {
        let bytes = Vec::with_capacity(SEGMENT * width);
        Segment { width, bytes }
    }

    fn len(&self) -> usize {
        self.bytes.len() / self.width
    }

    fn get(&self, i: usize) -> u32 {
        let (b, at) = (&self.bytes, i * self.width);
        match self.width {
            1 => b[at] as u32,
            2 => u16::from_le_bytes([b[at], b[at + 1]]) as u32,
            3 => u32::from_le_bytes([b[at], b[at + 1], b[at + 2], 0]),
            _ => u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]),
        }
    }

    fn push(&mut self, n: u32) {
        self.bytes.extend_from_slice(&n.to_le_bytes()[..self.width]);
    }

    fn widen(&mut self, width: usize) {
        let mut wider = Segment::new(width);
        (0..self.len()).for_each(|i| wider.push(self.get(i)));
        *self = wider;
    }
}

impl Packed {
    fn push(&mut self, n: u32) {
        let needed = (4 - n.leading_zeros() as usize / 8).max(1);
        let last = self.segments.last();
        if last.is_none_or(|s| s.len() == SEGMENT) {
            // As wide as the segment before: the numbers grow (the edges' targets do).
            let width = last.map_or(1, |s| s.width);
            self.segments.push(Segment::new(width.max(needed)));
        }
        let segment = self.segments.last_mut().expect("a segment");
        if needed > segment.width {
            segment.widen(needed);
        }
        segment.push(n);
    }

    fn len(&self) -> usize {
        let full = self.segments.len().saturating_sub(1) * SEGMENT;
        full + self.segments.last().map_or(0, Segment::len)
    }

    fn get(&self, i: usize) -> u32 {
        self.segments[i / SEGMENT].get(i % SEGMENT)
    }

    /// The bytes of a number pushed next (at least).
    fn width(&self) -> usize {
        self.segments.last().map_or(1, |s| s.width)
    }

    fn bytes(&self) -> usize {
        let each = std::mem::size_of::<Segment>();
        self.segments.iter().map(|s| s.bytes.len() + each).sum()
    }
}

/// The edges of the expanded states, in order: `offsets[s]..offsets[s + 1]` are state `s`'s.
pub struct EdgeStore {
    offsets: Vec<u32>,
    targets: Packed,
    kinds: Packed,
    /// Each kind's (label, actors, renaming), by number.
    triples: Vec<(u32, u32, u32)>,
    triple_index: FxHashMap<(u32, u32, u32), u32>,
    renamings: Vec<Renaming>,
    renaming_index: FxHashMap<Renaming, u32>,
    /// The renamings of the edges of the state being expanded, in order (see
    /// [`EdgeStore::push_renaming`]).
    waiting: Vec<u32>,
}

impl Default for EdgeStore {
    fn default() -> Self {
        EdgeStore {
            offsets: vec![0],
            targets: Packed::default(),
            kinds: Packed::default(),
            triples: Vec::new(),
            triple_index: FxHashMap::default(),
            renamings: Vec::new(),
            renaming_index: FxHashMap::default(),
            waiting: Vec::new(),
        }
    }
}

impl EdgeStore {
    /// The renaming of the next edge of the state being expanded (when renamings are kept:
    /// one for each of its edges, or none).
    pub fn push_renaming(&mut self, renaming: Renaming) {
        let n = match self.renaming_index.get(&renaming) {
            Some(&n) => n,
            None => {
                let n = self.renamings.len() as u32;
                self.renamings.push(renaming.clone());
                self.renaming_index.insert(renaming, n);
                n
            }
        };
        self.waiting.push(n);
    }

    /// The edges of the next state, with the renamings given since the last call.
    pub fn push_state(&mut self, edges: &[Edge]) {
        debug_assert!(self.waiting.is_empty() || self.waiting.len() == edges.len());
        for (i, e) in edges.iter().enumerate() {
            let renaming = self.waiting.get(i).copied().unwrap_or(NO_RENAMING);
            let triple = (e.label, e.actors, renaming);
            let next = self.triples.len() as u32;
            let kind = *self.triple_index.entry(triple).or_insert(next);
            if kind == next {
                self.triples.push(triple);
            }
            self.targets.push(e.target);
            self.kinds.push(kind);
        }
        self.waiting.clear();
        self.offsets.push(self.targets.len() as u32);
    }

    /// How many edges are kept.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.len() == 0
    }

    /// How many states have their edges here.
    pub fn states(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The positions of state `s`'s edges (none for a state not expanded).
    fn range(&self, s: u32) -> std::ops::Range<usize> {
        let s = s as usize;
        match (self.offsets.get(s), self.offsets.get(s + 1)) {
            (Some(&from), Some(&to)) => from as usize..to as usize,
            _ => 0..0,
        }
    }

    /// State `s`'s edges.
    pub fn of(&self, s: u32) -> Edges<'_> {
        Edges {
            store: self,
            range: self.range(s),
        }
    }

    /// The kind of state `s`'s `i`-th edge: equal kinds, equal (label, actors, renaming).
    pub fn kind(&self, s: u32, i: usize) -> u32 {
        self.kinds.get(self.range(s).start + i)
    }

    /// The renaming of state `s`'s `i`-th edge: `None` when renamings are not kept.
    pub fn renaming(&self, s: u32, i: usize) -> Option<&[u32]> {
        let at = self.range(s).start + i;
        let (_, _, r) = self.triples[self.kinds.get(at) as usize];
        (r != NO_RENAMING).then(|| &self.renamings[r as usize][..])
    }

    /// The bytes an edge adds (the target and its kind, as wide as the last ones).
    pub fn edge_bytes(&self) -> u64 {
        (self.targets.width() + self.kinds.width()) as u64
    }

    /// The bytes held: every edge, the offsets, the kinds and the distinct renamings.
    pub fn bytes(&self) -> u64 {
        let edges = self.targets.bytes() + self.kinds.bytes() + 4 * self.offsets.len();
        let triples = 24 * self.triples.len();
        let renamings: usize = self.renamings.iter().map(|r| 40 + 4 * r.len()).sum();
        (edges + triples + renamings) as u64
    }
}

/// The edges of one state, read by value.
#[derive(Clone)]
pub struct Edges<'a> {
    store: &'a EdgeStore,
    range: std::ops::Range<usize>,
}

impl<'a> Edges<'a> {
    pub fn len(&self) -> usize {
        self.range.len()
    }

    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// The `i`-th edge.
    pub fn get(&self, i: usize) -> Edge {
        let at = self.range.start + i;
        assert!(at < self.range.end, "edge {i} of {}", self.len());
        let (label, actors, _) = self.store.triples[self.store.kinds.get(at) as usize];
        Edge {
            label,
            target: self.store.targets.get(at),
            actors,
        }
    }

    pub fn iter(&self) -> Iter<'a> {
        Iter {
            edges: self.clone(),
            next: 0,
        }
    }
}

/// The edges of one state, in order.
pub struct Iter<'a> {
    edges: Edges<'a>,
    next: usize,
}

impl Iterator for Iter<'_> {
    type Item = Edge;

    fn next(&mut self) -> Option<Edge> {
        let i = self.next;
        (i < self.edges.len()).then(|| {
            self.next += 1;
            self.edges.get(i)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.edges.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for Edges<'a> {
    type Item = Edge;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers of every width, over several segments, some widened in the middle: each is
    /// read back, and a segment is only as wide as its largest number.
    #[test]
    fn packed_numbers_read_back_as_pushed() {
        let numbers: Vec<u32> = (0..3 * SEGMENT as u32 + 7)
            .map(|i| match i {
                i if i < 1000 => i % 256,
                5000 => 70_000,
                i if i < 2 * SEGMENT as u32 => i,
                i if i % 9 == 0 => u32::MAX - i,
                i => i * 3,
            })
            .collect();
        let mut packed = Packed::default();
        for (i, &n) in numbers.iter().enumerate() {
            packed.push(n);
            if i == 999 {
                assert_eq!(packed.width(), 1);
            }
        }
        assert_eq!(packed.len(), numbers.len());
        for (i, &n) in numbers.iter().enumerate() {
            assert_eq!(packed.get(i), n, "number {i}");
        }
        let widths: Vec<usize> = packed.segments.iter().map(|s| s.width).collect();
        assert_eq!(widths, [3, 3, 4, 4]);
    }
}
