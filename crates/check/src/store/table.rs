//! The store's two kinds of table, made to be read by any number of threads while one writer
//! adds to them: [`Column`], an array that grows by segments, and [`Index`], an open-addressing
//! hash index of numbers. Both are atomics only (no lock, no `unsafe`).
//!
//! The writer writes an entry's data first and its index slot last, with release ordering; a
//! reader loads the slot with acquire ordering, so whatever number it finds there has its data
//! written. Neither table moves or frees what was written while it is shared: growing either
//! one needs `&mut`, that is, no reader.

use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Runs two pieces of work, on two threads at once or one after the other: how a table is
/// grown by two threads ([`Index::make_room_with`]).
pub(crate) type Join<'a> = &'a dyn Fn(&(dyn Fn() + Sync), &(dyn Fn() + Sync));

/// Entries per segment of a column (128 KiB of `u64`).
const SEGMENT_BITS: u32 = 14;
pub(super) const SEGMENT: usize = 1 << SEGMENT_BITS;

/// An array of `u64` that the writer fills in order while others read what is written.
/// Its room is a list of segments, each allocated when first written; the list itself grows
/// only with `&mut` ([`Column::reserve`]).
#[derive(Default)]
pub(super) struct Column {
    /// Of a fixed length, so that an entry's place in its segment needs no bounds check
    /// (every look-up reads a few entries).
    segments: Vec<OnceLock<Box<[AtomicU64; SEGMENT]>>>,
}

impl Column {
    /// Entry `i`, which must have been written (before the index slot that led to it).
    #[inline]
    pub(super) fn get(&self, i: usize) -> u64 {
        let segment = self.segments[i >> SEGMENT_BITS].get();
        segment.expect("an entry is read after it is written")[i & (SEGMENT - 1)]
            .load(Ordering::Relaxed)
    }

    /// Entries `i..i + n`, which must have been written and lie in one segment.
    #[inline]
    pub(super) fn run(&self, i: usize, n: usize) -> &[AtomicU64] {
        let segment = self.segments[i >> SEGMENT_BITS].get();
        let at = i & (SEGMENT - 1);
        &segment.expect("an entry is read after it is written")[at..at + n]
    }

    /// Entries `i..i + n`, within [`Column::capacity`] and one segment, to be written.
    pub(super) fn run_init(&self, i: usize, n: usize) -> &[AtomicU64] {
        let segment = self.segments[i >> SEGMENT_BITS].get_or_init(new_segment);
        let at = i & (SEGMENT - 1);
        &segment[at..at + n]
    }

    /// Writes entry `i`, which must be within [`Column::capacity`].
    pub(super) fn set(&self, i: usize, value: u64) {
        let segment = self.segments[i >> SEGMENT_BITS].get_or_init(new_segment);
        segment[i & (SEGMENT - 1)].store(value, Ordering::Relaxed);
    }

    /// How many entries can be written without [`Column::reserve`].
    pub(super) fn capacity(&self) -> usize {
        self.segments.len() << SEGMENT_BITS
    }

    /// Room for at least `len` entries (segments are still allocated only when written).
    pub(super) fn reserve(&mut self, len: usize) {
        let needed = len.div_ceil(SEGMENT);
        if needed > self.segments.len() {
            let count = needed.max(2 * self.segments.len());
            self.segments.resize_with(count, OnceLock::new);
        }
    }
}

fn new_segment() -> Box<[AtomicU64; SEGMENT]> {
    let segment: Box<[AtomicU64]> = (0..SEGMENT).map(|_| AtomicU64::new(0)).collect();
    segment.try_into().expect("a segment's length")
}

/// A hash index of numbers (below `u32::MAX`), found by their hash and a test of what they
/// stand for; linear probing over a power of two of slots. Each slot has a tag byte, as in
/// hashbrown's control bytes: 0 for an empty slot, else seven bits of the number's hash with
/// the high bit set, so that a probe reads what a number stands for only when its tag
/// matches (a probe passes over many slots while the index fills). The writer adds only
/// while [`Index::room`] says so, so a probe always meets an empty slot. The numbers are
/// added in order from 0 (the store numbers its states and nodes so), which growing uses.
pub(super) struct Index {
    tags: Box<[AtomicU8]>,
    slots: Box<[AtomicU32]>,
    /// On a line of its own: the writer changes it with every number it adds, and every
    /// probe of a reader reads `tags` and `slots` (see [`Alone`]).
    count: Alone<AtomicUsize>,
}

/// An empty slot of an [`Index`], where a probe ended (see [`Index::find_or_vacancy`]).
pub(super) struct Vacancy(usize);

/// A value on cache lines of its own (two: the core fetches lines in pairs). A count that
/// the writer changes sat on the line of what every reader reads for each probe, so each
/// addition moved that line to the writer's core and the next probe moved it back.
#[repr(align(128))]
#[derive(Default)]
struct Alone<T>(T);

impl<T> std::ops::Deref for Alone<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Slots of a new index.
const FIRST_SLOTS: usize = 1 << 10;

/// An index of fewer numbers grows on one thread: waking another would take about as long.
const GROW_ALONE_BELOW: usize = 1 << 16;

impl Default for Index {
    fn default() -> Index {
        Index::with_slots(FIRST_SLOTS)
    }
}

impl Index {
    fn with_slots(slots: usize) -> Index {
        Index {
            tags: (0..slots).map(|_| AtomicU8::new(0)).collect(),
            slots: (0..slots).map(|_| AtomicU32::new(0)).collect(),
            count: Alone::default(),
        }
    }

    /// The number with this hash for which `same` holds, if added.
    #[inline]
    pub(super) fn find(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        self.find_or_vacancy(hash, same).ok()
    }

    /// What [`Index::find`] finds, or else the empty slot its probe ended at, where the
    /// writer adds the number (with [`Index::add_at`]) without probing again: a state or
    /// node not stored was looked for, then added by a second probe over the same slots.
    #[inline]
    pub(super) fn find_or_vacancy(
        &self,
        hash: u64,
        same: impl Fn(u32) -> bool,
    ) -> Result<u32, Vacancy> {
        let (mask, tag) = (self.slots.len() - 1, tag(hash));
        let mut i = hash as usize & mask;
        loop {
            match self.tags[i].load(Ordering::Acquire) {
                0 => return Err(Vacancy(i)),
                t if t == tag => {
                    let n = self.slots[i].load(Ordering::Relaxed);
                    if same(n) {
                        return Ok(n);
                    }
                }
                _ => {}
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `number`, not added yet, under `hash`. Only the writer calls it, after what the
    /// number stands for is written, and only while [`Index::room`] allows one more. The
    /// number is written before its tag, which readers load first.
    pub(super) fn add(&self, hash: u64, number: u32) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.tags[i].load(Ordering::Relaxed) != 0 {
            i = (i + 1) & mask;
        }
        self.add_at(Vacancy(i), hash, number);
    }

    /// What [`Index::add`] does at `vacancy`, which [`Index::find_or_vacancy`] gave for
    /// `hash` since the last number was added (only the writer adds, so it is still empty,
    /// and it is where a probe for `hash` ends).
    pub(super) fn add_at(&self, vacancy: Vacancy, hash: u64, number: u32) {
        debug_assert_eq!(number as usize, self.len(), "numbers are added in order");
        let i = vacancy.0;
        debug_assert_eq!(self.tags[i].load(Ordering::Relaxed), 0, "a vacant slot");
        self.slots[i].store(number, Ordering::Relaxed);
        self.tags[i].store(tag(hash), Ordering::Release);
        // One writer: a plain store, not a locked read-modify-write.
        self.count.store(self.len() + 1, Ordering::Relaxed);
    }

    /// How many numbers were added.
    pub(super) fn len(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// Whether `more` numbers may be added: the index stays at most seven eighths full (the
    /// tags keep long probes cheap).
    pub(super) fn room(&self, more: usize) -> bool {
        (self.len() + more) * 8 <= self.slots.len() * 7
    }

    /// Doubles the slots until `more` numbers can be added and the index is at most five
    /// eighths full after them; `hash` gives each added number's hash again. The numbers
    /// are added again in order, so `hash` reads what they stand for in the order it was
    /// written (taking them slot by slot read it in a random order: a cache miss each, on
    /// top of the one for the new slot).
    pub(super) fn make_room(&mut self, more: usize, hash: impl Fn(u32) -> u64) {
        let Some(slots) = self.slots_for(more) else {
            return;
        };
        let grown = Index::with_slots(slots);
        for n in 0..self.len() as u32 {
            grown.add(hash(n), n);
        }
        *self = grown;
    }

    /// What [`Index::make_room`] does, with the numbers added again in two halves that
    /// `join` (if any) runs on two threads at once (a growth of a large index is a cache miss a
    /// number, and ran on one thread while the others waited, a twentieth of a two-thread run
    /// of Peterson N = 4). Where each number lands then depends on the timing, but not
    /// what [`Index::find`] finds.
    pub(super) fn make_room_with(
        &mut self,
        more: usize,
        hash: impl Fn(u32) -> u64 + Sync,
        join: Option<Join<'_>>,
    ) {
        let len = self.len();
        let Some(join) = join.filter(|_| len >= GROW_ALONE_BELOW) else {
            return self.make_room(more, hash);
        };
        let Some(slots) = self.slots_for(more) else {
            return;
        };
        let grown = Index::with_slots(slots);
        let fill = |numbers: Range<usize>| {
            for n in numbers {
                grown.claim(hash(n as u32), n as u32);
            }
        };
        join(&|| fill(0..len / 2), &|| fill(len / 2..len));
        grown.count.store(len, Ordering::Relaxed);
        *self = grown;
    }

    /// The slots the index needs for `more` numbers, if it must grow: doubled until it is
    /// at most five eighths full after them.
    fn slots_for(&self, more: usize) -> Option<usize> {
        let mut slots = self.slots.len();
        while (self.len() + more) * 8 > slots * 5 {
            slots *= 2;
        }
        (slots != self.slots.len()).then_some(slots)
    }

    /// Puts `number` in the first slot free from its hash's, which it takes from whatever
    /// other thread fills the index at the same time (while it grows: no one reads it).
    fn claim(&self, hash: u64, number: u32) {
        let (mask, tag) = (self.slots.len() - 1, tag(hash));
        let mut i = hash as usize & mask;
        loop {
            let free = self.tags[i].load(Ordering::Relaxed) == 0;
            if free
                && self.tags[i]
                    .compare_exchange(0, tag, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                self.slots[i].store(number, Ordering::Relaxed);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// The slots, for the bytes the index holds (five a slot).
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }
}

/// A slot's tag for `hash`: its top seven bits (the slot is chosen by the low ones), with the
/// high bit set.
fn tag(hash: u64) -> u8 {
    0x80 | (hash >> 57) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count the writer changes with each addition shares no pair of cache lines with
    /// what a reader's probe reads (the slots' and tags' places), in an index and in a store.
    #[test]
    fn an_index_count_is_on_lines_of_its_own() {
        let pair = |p: *const u8| p as usize / 128;
        let index = Index::default();
        let count = pair(std::ptr::from_ref(&index.count).cast());
        assert_ne!(count, pair(std::ptr::from_ref(&index.tags).cast()));
        assert_ne!(count, pair(std::ptr::from_ref(&index.slots).cast()));
        assert!(std::mem::align_of::<crate::store::Store>() >= 128);
    }

    #[test]
    fn a_column_reads_back_across_segments() {
        let mut column = Column::default();
        column.reserve(3 * SEGMENT + 5);
        assert!(column.capacity() >= 3 * SEGMENT + 5);
        for i in (0..3 * SEGMENT + 5).step_by(97) {
            column.set(i, i as u64 * 3);
        }
        for i in (0..3 * SEGMENT + 5).step_by(97) {
            assert_eq!(column.get(i), i as u64 * 3);
        }
    }

    /// Numbers whose hashes collide are told apart by `same`, and the index keeps them
    /// through growth.
    #[test]
    fn an_index_finds_what_it_holds_through_collisions_and_growth() {
        let mut index = Index::default();
        let hash = |n: u32| u64::from(n % 7);
        for n in 0..5000 {
            if !index.room(1) {
                index.make_room(1, hash);
            }
            index.add(hash(n), n);
        }
        assert_eq!(index.len(), 5000);
        assert!(index.slots() >= 5000 * 8 / 7);
        for n in (0..5000).step_by(13) {
            assert_eq!(index.find(hash(n), |m| m == n), Some(n));
        }
        assert_eq!(index.find(hash(6000), |m| m == 6000), None);
    }

    /// A number added where [`Index::find_or_vacancy`] found no match lands in the slot
    /// [`Index::add`] would have given it: two indices filled the two ways (colliding hashes
    /// included, so that probes pass over taken slots) hold every number in the same slot.
    #[test]
    fn a_number_added_at_its_vacancy_is_where_add_puts_it() {
        let (by_add, by_vacancy) = (Index::default(), Index::default());
        let hash =
            |n: u32| u64::from(n % 97).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(n % 3);
        for n in 0..800 {
            by_add.add(hash(n), n);
            match by_vacancy.find_or_vacancy(hash(n), |m| m == n) {
                Ok(found) => panic!("{n} found as {found} before it was added"),
                Err(vacancy) => by_vacancy.add_at(vacancy, hash(n), n),
            }
            assert_eq!(
                by_vacancy.find_or_vacancy(hash(n), |m| m == n).ok(),
                Some(n)
            );
        }
        let slots = |index: &Index| -> Vec<(u8, u32)> {
            let tags = index.tags.iter().map(|t| t.load(Ordering::Relaxed));
            tags.zip(index.slots.iter().map(|s| s.load(Ordering::Relaxed)))
                .collect()
        };
        assert_eq!(slots(&by_add), slots(&by_vacancy));
    }

    /// An index grown by two threads at once (each adding half of its numbers again) finds
    /// every number it held, numbers of the same hash included, and grows on one thread and
    /// two alike afterwards.
    #[test]
    fn an_index_grown_by_two_threads_finds_every_number() {
        let join = |a: &(dyn Fn() + Sync), b: &(dyn Fn() + Sync)| {
            std::thread::scope(|scope| {
                scope.spawn(b);
                a();
            })
        };
        // Three numbers a hash, so that both threads may claim slots for the same one.
        let hash = |n: u32| u64::from(n / 3).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let count = 3 * GROW_ALONE_BELOW as u32;
        let mut index = Index::default();
        for n in 0..count {
            if !index.room(1) {
                index.make_room_with(1, hash, Some(&join));
            }
            index.add(hash(n), n);
        }
        let slots = index.slots();
        index.make_room_with(count as usize, hash, Some(&join));
        assert!(index.slots() > slots, "grown with {count} numbers in it");
        assert_eq!(index.len(), count as usize);
        for n in 0..count {
            assert_eq!(index.find(hash(n), |m| m == n), Some(n), "number {n}");
        }
        assert_eq!(index.find(hash(count), |m| m == count), None);
        index.add(hash(count), count);
        assert_eq!(index.find(hash(count), |m| m == count), Some(count));
    }
}
