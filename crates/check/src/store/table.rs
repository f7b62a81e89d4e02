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
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

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

    /// Entries `i..i + n` (in one segment), if their segment was ever written: else they
    /// were never written.
    #[inline]
    pub(super) fn try_run(&self, i: usize, n: usize) -> Option<&[AtomicU64]> {
        let segment = self.segments.get(i >> SEGMENT_BITS)?.get()?;
        let at = i & (SEGMENT - 1);
        Some(&segment[at..at + n])
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
/// stand for; linear probing over a power of two of *groups*, each a cache line of
/// [`GROUP`] slots. Each slot has a tag byte, as in hashbrown's control bytes: 0 for an empty
/// slot, else seven bits of the number's hash with the high bit set, so that a probe reads
/// what a number stands for only when its tag matches. A group holds its slots' tags and
/// numbers both, so that a probe's first cache miss brings the number with the tag (tags and
/// numbers in two arrays were two misses a look-up, issue 35). A group's slots are taken in
/// order, and a probe reads them in order until a match or an empty one, then goes on to the
/// next group. The writer adds only while [`Index::room`] says so, so a probe always meets an
/// empty slot. The numbers are added in order from 0 (the store numbers its states and nodes
/// so), which growing uses.
pub(super) struct Index {
    groups: Box<[Group]>,
    /// On a line of its own: the writer changes it with every number it adds, and every
    /// probe of a reader reads `groups` (see [`Alone`]).
    count: Alone<AtomicUsize>,
}

/// Slots a group: 12 tags and 12 numbers fill a 64-byte line (60 bytes).
pub(super) const GROUP: usize = 12;

/// One cache line of an [`Index`]: the tags of its slots, then their numbers. Slot `k`'s tag
/// is byte `k % 8` (from the low end) of word `k / 8`, so that a probe compares eight tags
/// at once; the four bytes past the twelfth are [`PAST`], never empty and never a tag.
#[repr(C, align(64))]
struct Group {
    tags: [AtomicU64; 2],
    numbers: [AtomicU32; GROUP],
}

/// The bytes past a group's last slot.
const PAST: u64 = 0x0101_0101 << 32;

impl Default for Group {
    fn default() -> Group {
        Group {
            tags: [AtomicU64::new(0), AtomicU64::new(PAST)],
            numbers: Default::default(),
        }
    }
}

/// A byte of ones, each byte's lowest bit, and each byte's highest.
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bits of the bytes of `w` that are zero: exact up to the lowest (a byte above a
/// zero one may be marked too).
#[inline(always)]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// The high bits of the bytes of a word of tags `w` that are the tag `wide` holds in each
/// byte ([`ONES`] times it), and perhaps of others that are not, but never of an empty slot
/// or a byte past the last: a tag's high bit is set, so such a byte xored with it keeps its
/// high bit, and [`zero_bytes`] marks none such (the caller compares what a byte marked
/// stands for, so a tag marked too costs a comparison).
#[inline(always)]
fn hits(w: u64, wide: u64) -> u64 {
    zero_bytes(w ^ wide)
}

/// The first empty slot of a word of tags `w` (a group fills in order), if any (exact:
/// [`zero_bytes`] marks a byte wrongly only past a zero one).
#[inline(always)]
fn first_empty(w: u64) -> Option<usize> {
    let empty = zero_bytes(w);
    (empty != 0).then(|| empty.trailing_zeros() as usize / 8)
}

const _: () = assert!(std::mem::size_of::<Group>() == 64);

/// An empty slot of an [`Index`], where a probe ended (see [`Index::find_or_vacancy`]): its
/// group and its place there.
pub(super) struct Vacancy(usize, usize);

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

/// Groups of a new index (1,024 slots and more).
const FIRST_GROUPS: usize = 1 << 7;

/// How many numbers ahead growing an index prefetches the group of
/// ([`Index::each_touched`]): 8, 16 and 32 left 2.8%, 1.9% and 1.5% of the run in the
/// growth (Peterson N = 4, one thread).
const AHEAD: usize = 32;

/// An index of fewer numbers grows on one thread: waking another would take about as long.
const GROW_ALONE_BELOW: usize = 1 << 16;

impl Default for Index {
    fn default() -> Index {
        Index::with_groups(FIRST_GROUPS)
    }
}

impl Index {
    fn with_groups(groups: usize) -> Index {
        Index {
            groups: (0..groups).map(|_| Group::default()).collect(),
            count: Alone::default(),
        }
    }

    /// The group a probe for `hash` starts at.
    #[inline]
    fn home(&self, hash: u64) -> usize {
        hash as usize & (self.groups.len() - 1)
    }

    /// Prefetches the group a probe for `hash` starts at: the cache miss of a look-up to
    /// come, begun now so that the misses of several look-ups overlap (a plain load did not:
    /// it cannot retire before its data arrives).
    #[inline]
    pub(super) fn touch(&self, hash: u64) {
        crate::prefetch::prefetch(&self.groups[self.home(hash)]);
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
        let (mask, wide) = (self.groups.len() - 1, ONES * u64::from(tag(hash)));
        let mut g = self.home(hash);
        loop {
            let group = &self.groups[g];
            for (j, word) in group.tags.iter().enumerate() {
                let tags = word.load(Ordering::Acquire);
                let mut hits = hits(tags, wide);
                while hits != 0 {
                    let k = 8 * j + hits.trailing_zeros() as usize / 8;
                    hits &= hits - 1;
                    let n = group.numbers[k].load(Ordering::Relaxed);
                    if same(n) {
                        return Ok(n);
                    }
                }
                if let Some(k) = first_empty(tags) {
                    return Err(Vacancy(g, 8 * j + k));
                }
            }
            g = (g + 1) & mask;
        }
    }

    /// Adds `number`, not added yet, under `hash`. Only the writer calls it, after what the
    /// number stands for is written, and only while [`Index::room`] allows one more. The
    /// number is written before its tag, which readers load first.
    pub(super) fn add(&self, hash: u64, number: u32) {
        let mask = self.groups.len() - 1;
        let mut g = self.home(hash);
        loop {
            let tags = &self.groups[g].tags;
            for (j, word) in tags.iter().enumerate() {
                if let Some(k) = first_empty(word.load(Ordering::Relaxed)) {
                    return self.add_at(Vacancy(g, 8 * j + k), hash, number);
                }
            }
            g = (g + 1) & mask;
        }
    }

    /// What [`Index::add`] does at `vacancy`, which [`Index::find_or_vacancy`] gave for
    /// `hash` since the last number was added (only the writer adds, so it is still empty,
    /// and it is where a probe for `hash` ends).
    pub(super) fn add_at(&self, vacancy: Vacancy, hash: u64, number: u32) {
        debug_assert_eq!(number as usize, self.len(), "numbers are added in order");
        let group = &self.groups[vacancy.0];
        let (k, word) = (vacancy.1, &group.tags[vacancy.1 / 8]);
        let shift = 8 * (k % 8);
        let tags = word.load(Ordering::Relaxed);
        debug_assert_eq!(tags >> shift & 0xFF, 0, "a vacant slot");
        group.numbers[k].store(number, Ordering::Relaxed);
        word.store(tags | u64::from(tag(hash)) << shift, Ordering::Release);
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
        (self.len() + more) * 8 <= self.slots() * 7
    }

    /// Doubles the groups until `more` numbers can be added and the index is at most three
    /// quarters full after them; `hash` gives each added number's hash again. The numbers
    /// are added again in order, so `hash` reads what they stand for in the order it was
    /// written (taking them slot by slot read it in a random order: a cache miss each, on
    /// top of the one for the new slot).
    pub(super) fn make_room(&mut self, more: usize, hash: impl Fn(u32) -> u64) {
        let Some(groups) = self.groups_for(more) else {
            return;
        };
        let grown = Index::with_groups(groups);
        grown.each_touched(0..self.len(), hash, |h, n| grown.add(h, n));
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
        let Some(groups) = self.groups_for(more) else {
            return;
        };
        let grown = Index::with_groups(groups);
        let fill = |numbers: Range<usize>| {
            grown.each_touched(numbers, &hash, |h, n| grown.claim(h, n));
        };
        join(&|| fill(0..len / 2), &|| fill(len / 2..len));
        grown.count.store(len, Ordering::Relaxed);
        *self = grown;
    }

    /// Calls `add` with each number of `numbers` and its hash, in order, the group of the
    /// one [`AHEAD`] on prefetched first: each addition to a grown index is a cache miss of
    /// its own, and one waited for at a time (the probe's branches wait for the line) was
    /// 5% of a one-thread run of Peterson N = 4 (issue 35). Each hash is taken once.
    fn each_touched(
        &self,
        numbers: Range<usize>,
        hash: impl Fn(u32) -> u64,
        mut add: impl FnMut(u64, u32),
    ) {
        let mut ahead = [0; AHEAD];
        let first = numbers.start..numbers.end.min(numbers.start + AHEAD);
        for n in first {
            ahead[n % AHEAD] = hash(n as u32);
            self.touch(ahead[n % AHEAD]);
        }
        for n in numbers.clone() {
            let h = ahead[n % AHEAD];
            if n + AHEAD < numbers.end {
                ahead[n % AHEAD] = hash((n + AHEAD) as u32);
                self.touch(ahead[n % AHEAD]);
            }
            add(h, n as u32);
        }
    }

    /// The groups the index needs for `more` numbers, if it must grow: doubled until it is
    /// at most three quarters full after them (a group of 12 slots keeps
    /// the probes short: five eighths, as with slots one by one, took filter N = 4 from 40 MiB
    /// to 64).
    fn groups_for(&self, more: usize) -> Option<usize> {
        let mut groups = self.groups.len();
        while (self.len() + more) * 8 > groups * GROUP * 6 {
            groups *= 2;
        }
        (groups != self.groups.len()).then_some(groups)
    }

    /// Puts `number` in the first slot free from its hash's group, which it takes from
    /// whatever other thread fills the index at the same time (while it grows: no one reads
    /// it).
    fn claim(&self, hash: u64, number: u32) {
        let (mask, tag) = (self.groups.len() - 1, tag(hash));
        let mut g = self.home(hash);
        loop {
            let group = &self.groups[g];
            for (j, word) in group.tags.iter().enumerate() {
                let mut tags = word.load(Ordering::Relaxed);
                // Retried while another thread takes a slot of the same word.
                while let Some(k) = first_empty(tags) {
                    let with = tags | u64::from(tag) << (8 * k);
                    match word.compare_exchange(tags, with, Ordering::Relaxed, Ordering::Relaxed) {
                        Ok(_) => return group.numbers[8 * j + k].store(number, Ordering::Relaxed),
                        Err(now) => tags = now,
                    }
                }
            }
            g = (g + 1) & mask;
        }
    }

    /// How many numbers the index has room for, full.
    pub(super) fn slots(&self) -> usize {
        self.groups.len() * GROUP
    }

    /// The bytes the index holds: 64 a group of 12 slots.
    pub(super) fn bytes(&self) -> usize {
        std::mem::size_of_val::<[Group]>(&self.groups)
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
        assert_ne!(count, pair(std::ptr::from_ref(&index.groups).cast()));
        assert!(std::mem::align_of::<crate::store::Store>() >= 128);
    }

    /// Numbers of one hash fill their home group's twelve slots in order, then the next
    /// group's: a probe for any of the first twelve reads one cache line.
    #[test]
    fn numbers_of_one_hash_fill_their_group_first() {
        let index = Index::default();
        let hash = 5 | 0x42 << 57;
        for n in 0..14 {
            index.add(hash, n);
        }
        for n in 0..14 {
            assert_eq!(index.find(hash, |m| m == n), Some(n));
        }
        let numbers = |g: usize| -> Vec<u32> {
            let numbers = index.groups[g].numbers.iter();
            numbers.map(|n| n.load(Ordering::Relaxed)).collect()
        };
        assert_eq!(numbers(5), (0..12).collect::<Vec<u32>>());
        assert_eq!(numbers(6)[..2], [12, 13]);
        let tags = index.groups[5]
            .tags
            .each_ref()
            .map(|w| w.load(Ordering::Relaxed));
        assert_eq!(
            tags,
            [
                u64::from(tag(hash)) * ONES,
                PAST | (u64::from(tag(hash)) * 0x0101_0101)
            ]
        );
    }

    /// What a word's look-up reports: every slot before the first empty one whose tag
    /// matches (and perhaps others before it, which the caller compares), but no empty slot
    /// and none past the group's last (the number there may stand for nothing); and the
    /// first empty slot, exactly. Every fill of a word by tags that differ in their lowest
    /// bits, with and without the bytes past a group's twelfth slot.
    #[test]
    fn a_word_of_tags_reports_its_matches_and_first_empty_slot() {
        let tags: [u8; 4] = [0x80, 0x81, 0x82, 0x83];
        for filled in 0..=8usize {
            for pattern in 0..4usize.pow(filled as u32) {
                let slot = |k: usize| tags[pattern / 4usize.pow(k as u32) % 4];
                let word = (0..filled).fold(0u64, |w, k| w | u64::from(slot(k)) << (8 * k));
                let words = [(word, 8), ((word & 0xFFFF_FFFF) | PAST, 4)];
                for (word, slots) in words {
                    let taken = filled.min(slots);
                    let empty = (taken < slots).then_some(taken);
                    assert_eq!(first_empty(word), empty, "{word:x}");
                    for &tag in &tags {
                        let hits = hits(word, ONES * u64::from(tag));
                        let hit = |k: usize| hits >> (8 * k + 7) & 1 == 1;
                        for k in 0..8 {
                            assert!(!(k < taken && slot(k) == tag) || hit(k), "{word:x} {k}");
                            assert!(k < taken || !hit(k), "{word:x} {k} {tag:x}");
                        }
                    }
                }
            }
        }
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
            let groups = index.groups.iter();
            let slots = groups.flat_map(|g| {
                let tags = g.tags.each_ref().map(|w| w.load(Ordering::Relaxed));
                let tag = move |k: usize| (tags[k / 8] >> (8 * (k % 8))) as u8;
                (0..GROUP).map(move |k| (tag(k), g.numbers[k].load(Ordering::Relaxed)))
            });
            slots.collect()
        };
        assert_eq!(slots(&by_add), slots(&by_vacancy));
    }

    /// Growing takes each number once, in order, with its own hash, whatever the range
    /// (shorter than the prefetch's reach or longer, from 0 or from a half's start).
    #[test]
    fn a_growth_adds_each_number_once_with_its_hash() {
        let index = Index::default();
        let hash = |n: u32| u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for numbers in [0..0, 0..5, 3..AHEAD + 1, 0..3 * AHEAD + 7, 100..200] {
            let mut added = Vec::new();
            index.each_touched(numbers.clone(), hash, |h, n| added.push((h, n)));
            let expected: Vec<(u64, u32)> = numbers.map(|n| (hash(n as u32), n as u32)).collect();
            assert_eq!(added, expected);
        }
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
