//! Queue contents numbered ahead of the interner while the workers read it, so that a source
//! with a target into a new queue content is merged alongside them, not after them.
//!
//! A worker that builds a target whose queue content the engine's cache lacks leaves the
//! content to the merge (`Target::Queued`). Filling the cache interns the content, which
//! needs the interner the workers are reading; so such a source, and every source after it
//! in its chunk, was merged after the workers by one thread (717,496 of the 745,472 sources
//! of `bench/check/buffer.pi -D N=8 -D K=5` on two threads). Instead, the merge gives the
//! content the id the interner will give it: contents are numbered in the order they are
//! first interned, and nothing else is interned while the workers run, so the `k`-th new
//! content of the chunk gets the interner's next id plus `k`. Once the workers are done the
//! misses are filled in the order the merge met them, the order one thread fills them in,
//! and each content must come out with the id it was given (asserted): the cache, the
//! interner and every number are the same for any thread count.
//!
//! A content is numbered from its parts (the queue it came from and the message pushed, or
//! the queue popped), never built here: the fill builds it once, when it interns it.
//!
//! A state stored with such an id is never read while the chunk runs: the chunk's sources
//! were stored before it, and a worker leaves every target into a content the cache lacks
//! to the merge instead of looking it up.

use crate::engine::{Engine, Miss};
use crate::intern::Interner;
use crate::store::Store;
use hashbrown::HashTable;
use rustc_hash::FxHashMap;

/// The queue contents of one chunk numbered ahead, and the misses to fill after it.
#[derive(Default)]
pub(super) struct Ahead {
    /// Each miss met, to the id of its content.
    by_miss: FxHashMap<Miss, u32>,
    /// The misses in the order the merge met them: the order they are filled in; each with
    /// whether its content was interned already when numbered.
    misses: Vec<(Miss, bool)>,
    /// The contents not interned yet, `k` for the `k`-th, by their hash: each is the
    /// content of the first miss that gave it, `first[k]` (two misses may give one).
    new: HashTable<u32>,
    first: Vec<(u64, Miss)>,
}

impl Ahead {
    /// The id of the content `miss` gives once filled: interned already, numbered ahead
    /// before, or numbered now. `None`: not a queue content (the caller refuses the source).
    pub(super) fn id(
        &mut self,
        engine: &Engine<'_, '_>,
        interner: &Interner,
        miss: &Miss,
    ) -> Option<u32> {
        if let Some(&id) = self.by_miss.get(miss) {
            return Some(id);
        }
        let parts = engine.queue_parts(miss)?;
        let found = interner.find_parts(parts)?;
        let id = match found {
            Ok(id) => id,
            Err(hash) => {
                let first = &self.first;
                let same = |&k: &u32| {
                    let (h, ref other) = first[k as usize];
                    let other = engine.queue_parts(other).expect("a queue content's miss");
                    h == hash && interner.same_parts(parts, other)
                };
                let k = match self.new.find(hash, same) {
                    Some(&k) => k,
                    None => {
                        let k = self.first.len() as u32;
                        self.first.push((hash, miss.clone()));
                        let first = &self.first;
                        self.new.insert_unique(hash, k, |&j| first[j as usize].0);
                        k
                    }
                };
                interner.queue_id_ahead(k as usize)
            }
        };
        self.by_miss.insert(miss.clone(), id);
        self.misses.push((miss.clone(), found.is_ok()));
        Some(id)
    }

    /// Fills the cache entries of the misses met, in the order met, each content getting
    /// the id it was given (else the states stored with it would stand for another content:
    /// a bug, not a limit, hence the assertion). The ids given stay known until
    /// [`Ahead::forget`]: a source expanded before the fill may still miss what it filled
    /// (in a pause of the workers, see `explore/gate.rs`), and finds its id here without
    /// computing the content again.
    pub(super) fn fill(&mut self, engine: &mut Engine<'_, '_>, store: &mut Store) {
        for (miss, found) in self.misses.drain(..) {
            let given = self.by_miss[&miss];
            // A content found interned when it was numbered is not looked up again (a
            // second look-up by its parts was a fifth of the fill, which the other threads
            // wait for); one numbered ahead is, so that the assertion holds the numbering
            // to the interner.
            match found {
                true => engine.fill_found(store, &miss, given),
                false => _ = engine.fill(store, [miss.clone()]),
            }
            assert_eq!(
                engine.queue_for(&miss),
                given,
                "a queue content numbered ahead"
            );
        }
        self.new.clear();
        self.first.clear();
    }

    /// Forgets the ids given, once every source expanded before the last fill is merged.
    pub(super) fn forget(&mut self) {
        self.by_miss.clear();
    }
}
