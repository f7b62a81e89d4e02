//! Transitions given out of source order, kept apart by ranges of sources as they come, so that
//! packing them into the rows of an LTS sorts one range at a time, in cache.
//!
//! Held as (from, label, to) in one flat array, the rows were made by an in-place sort by
//! source whose every swap went to a random place in 12 bytes a transition: on 10^7
//! transitions (a 120 MB array) that was 2.7 s of a 4.4 s `minimize`, nearly all of it waiting
//! on memory. Here a transition goes to one of at most [`RANGES`] blocks being filled (their
//! ends stay in cache), and a range's transitions are put in order within its part of the rows,
//! a few hundred KB. Memory stays 12 bytes a transition and less at the end: each range's
//! blocks are freed as soon as its rows are written (the flat array was held whole until the
//! rows were split out of it, 20 bytes a transition at that moment).

/// At most this many ranges: few enough that the ends of their last blocks all stay in cache.
const RANGES: usize = 256;

/// Transitions a full block holds (768 KB): large enough that the allocator gives a block's
/// memory back when it is freed, small enough that the room left in the last block of each
/// range is little (and only touched pages are resident).
const BLOCK: usize = 1 << 16;

/// Transitions grouped by source range: range `r` holds the sources `r << shift ..
/// (r + 1) << shift`, in blocks filled one after the other.
#[derive(Debug, Default)]
pub(crate) struct Ranges {
    shift: u32,
    ranges: Vec<Vec<Vec<[u32; 3]>>>,
    len: usize,
}

impl Ranges {
    /// The number of transitions held (duplicates included).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds `from --label--> to`.
    pub(crate) fn push(&mut self, from: u32, label: u32, to: u32) {
        let mut r = (from >> self.shift) as usize;
        while r >= RANGES {
            self.widen();
            r = (from >> self.shift) as usize;
        }
        if r >= self.ranges.len() {
            self.ranges.resize_with(r + 1, Vec::new);
        }
        let blocks = &mut self.ranges[r];
        match blocks.last_mut() {
            // The first block of a range grows as a `Vec` does (most LTSs built this way are
            // small: quotients, tests), the others are made full size at once.
            Some(block) if block.len() < BLOCK => block.push([from, label, to]),
            last => {
                let capacity = if last.is_none() { 0 } else { BLOCK };
                let mut block = Vec::with_capacity(capacity);
                block.push([from, label, to]);
                blocks.push(block);
            }
        }
        self.len += 1;
    }

    /// Doubles the sources a range holds: ranges `2i` and `2i + 1` become range `i` (their
    /// blocks, unmoved, one list after the other).
    fn widen(&mut self) {
        self.shift += 1;
        let old = std::mem::take(&mut self.ranges);
        let mut pairs = old.into_iter();
        while let Some(mut even) = pairs.next() {
            even.extend(pairs.next().unwrap_or_default());
            self.ranges.push(even);
        }
    }

    /// The rows of an LTS of `n` states (every source below `n`): each sorted by (label,
    /// target) and rid of duplicates. Returns (offsets, labels, targets).
    pub(crate) fn into_rows(self, n: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let mut offsets = Vec::with_capacity(n + 1);
        let mut labels = Vec::with_capacity(self.len);
        let mut targets = Vec::with_capacity(self.len);
        // `ends[i]`: where the row of the range's `i`-th source ends, relative to the range.
        let mut ends: Vec<u32> = Vec::new();
        let mut row = Vec::new();
        for (r, blocks) in self.ranges.into_iter().enumerate() {
            let low = r << self.shift;
            let width = (n - low).min(1 << self.shift);
            ends.clear();
            ends.resize(width, 0);
            for t in blocks.iter().flatten() {
                ends[t[0] as usize - low] += 1;
            }
            let mut sum = 0;
            for e in &mut ends {
                // Each source's row start, for now; its end once the range is placed.
                (*e, sum) = (sum, sum + *e);
            }
            let base = labels.len();
            labels.resize(base + sum as usize, 0);
            targets.resize(base + sum as usize, 0);
            for block in blocks {
                for [from, label, to] in block {
                    let next = &mut ends[from as usize - low];
                    (
                        labels[base + *next as usize],
                        targets[base + *next as usize],
                    ) = (label, to);
                    *next += 1;
                }
            }
            // The rows, sorted and moved down over the duplicates of earlier ones.
            let mut start = base;
            let mut write = base;
            for &end in &ends {
                offsets.push(write as u32);
                let end = base + end as usize;
                write = pack_row(&mut labels, &mut targets, start..end, write, &mut row);
                start = end;
            }
            labels.truncate(write);
            targets.truncate(write);
        }
        // Sources above the last range's, and the end of the last row.
        offsets.resize(n + 1, labels.len() as u32);
        labels.shrink_to_fit();
        targets.shrink_to_fit();
        (offsets, labels, targets)
    }
}

/// Sorts the row `labels[range]`, `targets[range]` by (label, target), rid of duplicates,
/// and moves it down to `write` (at most `range.start`); returns where it ends. `row` is
/// scratch space.
pub(crate) fn pack_row(
    labels: &mut [u32],
    targets: &mut [u32],
    range: std::ops::Range<usize>,
    write: usize,
    row: &mut Vec<u64>,
) -> usize {
    let key = |i: usize| (u64::from(labels[i]) << 32) | u64::from(targets[i]);
    if (range.start + 1..range.end).all(|i| key(i - 1) < key(i)) {
        // Already sorted without duplicates (the usual case): move it down.
        labels.copy_within(range.clone(), write);
        targets.copy_within(range.clone(), write);
        return write + range.len();
    }
    row.clear();
    row.extend(range.map(key));
    row.sort_unstable();
    row.dedup();
    for (i, &k) in row.iter().enumerate() {
        (labels[write + i], targets[write + i]) = ((k >> 32) as u32, k as u32);
    }
    write + row.len()
}
