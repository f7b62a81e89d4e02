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
//! A state stored with such an id is never read while the chunk runs: the chunk's sources
//! were stored before it, and a worker leaves every target into a content the cache lacks
//! to the merge instead of looking it up.

use crate::engine::{Content, Engine, Miss};
use crate::intern::Interner;
use crate::store::Store;
use agentpi_semantics::Queue;
use rustc_hash::FxHashMap;

/// The queue contents of one chunk numbered ahead, and the misses to fill after it.
#[derive(Default)]
pub(super) struct Ahead {
    /// Each miss met, to the id of its content.
    by_miss: FxHashMap<Miss, u32>,
    /// The misses in the order the merge met them: the order they are filled in.
    misses: Vec<Miss>,
    /// The contents not interned yet, to their ids (two misses may give one content).
    new: FxHashMap<Queue, u32>,
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
        let id = match engine.queue_content(interner, miss)? {
            Content::Interned(id) => id,
            Content::New(content) => {
                let ahead = interner.queue_id_ahead(self.new.len());
                *self.new.entry(content).or_insert(ahead)
            }
        };
        self.by_miss.insert(miss.clone(), id);
        self.misses.push(miss.clone());
        Some(id)
    }

    /// Fills the cache entries of the misses met, in the order met, each content getting
    /// the id it was given (else the states stored with it would stand for another content:
    /// a bug, not a limit, hence the assertion). The ids given stay known until
    /// [`Ahead::forget`]: a source expanded before the fill may still miss what it filled
    /// (in a pause of the workers, see `explore/gate.rs`), and finds its id here without
    /// computing the content again.
    pub(super) fn fill(&mut self, engine: &mut Engine<'_, '_>, store: &mut Store) {
        for miss in self.misses.drain(..) {
            let given = self.by_miss[&miss];
            engine.fill(store, vec![miss.clone()]);
            assert_eq!(
                engine.queue_for(&miss),
                given,
                "a queue content numbered ahead"
            );
        }
        self.new.clear();
    }

    /// Forgets the ids given, once every source expanded before the last fill is merged.
    pub(super) fn forget(&mut self) {
        self.by_miss.clear();
    }
}
