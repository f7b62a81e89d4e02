//! The engine's cache of queue contents: what a step that sends or receives needs of its
//! channel's queue, one entry a content in a vector indexed by the content's number.
//!
//! Every send and receive of a state with queues reads it, and most contents are met by few
//! states (the bounded buffer's states are mostly contents of their own): in hash maps (by
//! content, and by content and message) each read was two cache misses, the table's control
//! bytes and then its bucket, a quarter of putting the buffer's transitions together. An
//! entry (48 bytes) holds its channel and both what popping the content and what pushing a few messages
//! onto it give.

use super::QueueInfo;
use crate::intern::Interner;
use agentpi_semantics::Chan;
use rustc_hash::FxHashMap;

/// No message, no content: an entry's free places.
const NO: u32 = u32::MAX;

/// Pushes an entry holds: the bounded buffer's three producers each push onto a content,
/// and a third push kept in the map was a miss of its own (a fifth of putting the
/// buffer's transitions together, with two).
const PUSHES: usize = 4;

/// What the cache holds of one content: its channel ([`NO`]: not known, or not a global
/// channel numbered below it), its length (0: not filled yet), its front message, the
/// content without it ([`NO`]: none, the channel's queue is gone), and the first [`PUSHES`]
/// messages pushed onto it with the contents they make. Aligned to 16 bytes, so that the
/// first four, which every send and receive reads, never straddle two cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Entry {
    chan: u32,
    len: u32,
    front: u32,
    popped: u32,
    pushed: [(u32, u32); PUSHES],
}

const EMPTY: Entry = Entry {
    chan: NO,
    len: 0,
    front: NO,
    popped: NO,
    pushed: [(NO, NO); PUSHES],
};

/// Queue contents' entries, by the content's number ([`Interner::queue_number`]).
#[derive(Default)]
pub(super) struct QueueCache {
    entries: Vec<Entry>,
    /// Pushes onto a channel with no queue (by channel and message), and those onto a
    /// content past the [`PUSHES`] its entry holds.
    others: FxHashMap<(Option<u32>, Chan, u32), u32>,
}

impl QueueCache {
    fn entry(&self, queue: u32) -> Option<&Entry> {
        self.entries.get(Interner::queue_number(queue))
    }

    fn entry_mut(&mut self, queue: u32) -> &mut Entry {
        let at = Interner::queue_number(queue);
        if self.entries.len() <= at {
            self.entries.resize(at + 1, EMPTY);
        }
        &mut self.entries[at]
    }

    /// The length, front message and popped content of `queue`, if filled.
    #[inline]
    pub(super) fn info(&self, queue: u32) -> Option<QueueInfo> {
        let e = self.entry(queue).filter(|e| e.len > 0)?;
        Some(QueueInfo {
            len: e.len as usize,
            front: e.front,
            popped: (e.popped != NO).then_some(e.popped),
        })
    }

    pub(super) fn set_info(&mut self, queue: u32, info: QueueInfo) {
        let len = u32::try_from(info.len).expect("a queue's length");
        debug_assert!(len > 0, "a queue holds a message");
        let e = self.entry_mut(queue);
        (e.len, e.front, e.popped) = (len, info.front, info.popped.unwrap_or(NO));
        // The content without the front message is on the same channel.
        let chan = e.chan;
        if let Some(popped) = info.popped
            && chan != NO
        {
            self.entry_mut(popped).chan = chan;
        }
    }

    /// Whether `queue` is the queue of `chan`, if its channel is known here: read with its
    /// length and pushes, on the line a send or a receive reads next (the interner's
    /// `Queue` was a cache miss of its own for every send and receive).
    #[inline]
    pub(super) fn is_on(&self, queue: u32, chan: Chan) -> Option<bool> {
        let known = self.entry(queue).map_or(NO, |e| e.chan);
        (known != NO).then(|| Some(known) == chan_key(chan))
    }

    /// The content `queue` (the queue of `chan`, or none) becomes with message `msg`
    /// pushed, if filled.
    #[inline]
    pub(super) fn pushed(&self, queue: Option<u32>, chan: Chan, msg: u32) -> Option<u32> {
        if let Some(e) = queue.and_then(|q| self.entry(q)) {
            if let Some(&(_, after)) = e.pushed.iter().find(|&&(m, _)| m == msg) {
                return Some(after);
            }
            // Filled in order: a free place means no more pushes are kept elsewhere.
            if e.pushed[PUSHES - 1].0 == NO {
                return None;
            }
        }
        self.others.get(&(queue, chan, msg)).copied()
    }

    pub(super) fn set_pushed(&mut self, queue: Option<u32>, chan: Chan, msg: u32, after: u32) {
        let key = chan_key(chan).unwrap_or(NO);
        self.entry_mut(after).chan = key;
        if let Some(q) = queue {
            let e = self.entry_mut(q);
            e.chan = key;
            if let Some(free) = e.pushed.iter_mut().find(|(m, _)| *m == NO) {
                *free = (msg, after);
                return;
            }
        }
        self.others.insert((queue, chan, msg), after);
    }
}

/// The number an entry keeps for `chan`: a global channel's own below [`NO`], else none.
fn chan_key(chan: Chan) -> Option<u32> {
    match chan {
        Chan::Global(id) if id.0 != NO => Some(id.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentpi_ir::core::ChanId;

    fn read(cache: &QueueCache, q: u32) -> Option<(usize, u32, Option<u32>)> {
        cache.info(q).map(|i| (i.len, i.front, i.popped))
    }

    fn queue(i: usize) -> u32 {
        (i as u32) << 2 | 2
    }

    /// What is set reads back: a content's length, front and popped content; pushes onto
    /// contents, more than an entry holds among them, and onto a channel with no queue; and
    /// nothing for what was not set (a push onto a content whose entry is full included).
    #[test]
    fn what_the_cache_is_given_reads_back() {
        let mut cache = QueueCache::default();
        let (chan, other) = (Chan::Global(ChanId(1)), Chan::Global(ChanId(2)));
        assert!(cache.info(queue(3)).is_none());
        let info = |len, front, popped| QueueInfo { len, front, popped };
        cache.set_info(queue(3), info(2, 7, Some(queue(1))));
        cache.set_info(queue(1), info(1, 4, None));
        assert_eq!(read(&cache, queue(3)), Some((2, 7, Some(queue(1)))));
        assert_eq!(read(&cache, queue(1)), Some((1, 4, None)));
        assert_eq!(
            read(&cache, queue(0)),
            None,
            "an entry made room for, not filled"
        );
        for msg in 0..7 {
            assert_eq!(cache.pushed(Some(queue(3)), chan, msg), None);
            cache.set_pushed(Some(queue(3)), chan, msg, queue(10 + msg as usize));
            cache.set_pushed(None, chan, msg, queue(20 + msg as usize));
        }
        cache.set_pushed(None, other, 0, queue(30));
        for msg in 0..7 {
            let at = |i: u32| Some(queue(i as usize));
            assert_eq!(cache.pushed(Some(queue(3)), chan, msg), at(10 + msg));
            assert_eq!(cache.pushed(None, chan, msg), at(20 + msg));
        }
        assert_eq!(cache.pushed(None, other, 0), Some(queue(30)));
        assert_eq!(cache.pushed(None, other, 1), None);
        assert_eq!(
            cache.pushed(Some(queue(3)), chan, 7),
            None,
            "past a full entry"
        );
        assert_eq!(cache.pushed(Some(queue(1)), chan, 0), None);
        assert_eq!(
            read(&cache, queue(3)),
            Some((2, 7, Some(queue(1)))),
            "pushes keep the info"
        );
    }

    /// A content's channel is known once a push onto it or making it was set, and passed on
    /// to the content without its front message; unknown for contents never pushed, and for
    /// a channel made by `new`.
    #[test]
    fn a_content_knows_its_channel() {
        let mut cache = QueueCache::default();
        let (chan, other) = (Chan::Global(ChanId(1)), Chan::Global(ChanId(2)));
        let fresh = Chan::Fresh { id: 0, origin: 0 };
        assert_eq!(cache.is_on(queue(4), chan), None);
        cache.set_pushed(None, chan, 0, queue(4));
        cache.set_pushed(Some(queue(4)), chan, 1, queue(5));
        cache.set_pushed(None, fresh, 0, queue(6));
        for q in [4, 5] {
            assert_eq!(cache.is_on(queue(q), chan), Some(true), "content {q}");
            assert_eq!(cache.is_on(queue(q), other), Some(false), "content {q}");
        }
        assert_eq!(cache.is_on(queue(6), fresh), None, "a fresh channel");
        assert_eq!(cache.is_on(queue(3), chan), None, "never pushed");
        let info = QueueInfo {
            len: 2,
            front: 0,
            popped: Some(queue(2)),
        };
        cache.set_info(queue(5), info);
        assert_eq!(cache.is_on(queue(2), chan), Some(true), "popped");
        assert_eq!(cache.is_on(queue(2), other), Some(false), "popped");
    }
}
