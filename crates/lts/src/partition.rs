//! A refinable partition of the states that remembers how it was refined.
//!
//! Blocks are contiguous ranges of one array, so moving a state to a new block costs O(1).
//! Block ids are stable: when a block splits, its largest part keeps the id and the other
//! parts get fresh ids whose `parent` is the old block and whose `created` round is the
//! refinement round. That tree is the splitter history the evidence is built from: the block
//! of a state after any earlier round can be recovered in O(depth).

/// The partition of `0..n` plus its refinement history.
#[derive(Clone, Debug)]
pub struct Partition {
    pub(crate) block_of: Vec<u32>,
    elems: Vec<u32>,
    pos: Vec<u32>,
    begin: Vec<u32>,
    end: Vec<u32>,
    parent: Vec<u32>,
    created: Vec<u32>,
    pub(crate) rounds: u32,
}

impl Partition {
    /// All of `0..n` in one block (block 0, created in round 0).
    pub fn new(n: usize) -> Self {
        Partition {
            block_of: vec![0; n],
            elems: (0..n as u32).collect(),
            pos: (0..n as u32).collect(),
            begin: per_block(n, 0),
            end: per_block(n, n as u32),
            parent: per_block(n, 0),
            created: per_block(n, 0),
            rounds: 0,
        }
    }

    /// The number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.begin.len()
    }

    /// The block of every state and the number of blocks; the history is freed here, not
    /// kept alive beside whatever the caller builds next.
    pub(crate) fn into_blocks(self) -> (Vec<u32>, usize) {
        let blocks = self.num_blocks();
        (self.block_of, blocks)
    }

    /// The current block of a state.
    pub fn block(&self, state: u32) -> u32 {
        self.block_of[state as usize]
    }

    /// The number of refinement rounds performed.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The states of a block (in no particular order).
    pub fn members(&self, block: u32) -> &[u32] {
        &self.elems[self.begin[block as usize] as usize..self.end[block as usize] as usize]
    }

    /// The block that contained `state` after round `round` (round 0 = the initial partition).
    pub fn block_at(&self, state: u32, round: u32) -> u32 {
        let mut b = self.block_of[state as usize];
        while self.created[b as usize] > round {
            b = self.parent[b as usize];
        }
        b
    }

    /// The first round after which `s` and `t` are in different blocks, if they are.
    pub fn separation_round(&self, s: u32, t: u32) -> Option<u32> {
        let (a, b) = (self.ancestry(s), self.ancestry(t));
        let common = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        if common == a.len() && common == b.len() {
            return None;
        }
        let created = |chain: &Vec<u32>| {
            (chain.len() > common).then(|| self.created[chain[chain.len() - common - 1] as usize])
        };
        created(&a).into_iter().chain(created(&b)).min()
    }

    /// The chain of blocks from the current block of `state` up to the root.
    fn ancestry(&self, state: u32) -> Vec<u32> {
        let mut chain = vec![self.block_of[state as usize]];
        while let Some(&b) = chain.last() {
            let p = self.parent[b as usize];
            if p == b {
                break;
            }
            chain.push(p);
        }
        chain
    }

    /// Moves `states` (all in block `from`) out into a fresh block created in `round`.
    ///
    /// `block_of` is NOT updated: the caller records the moves and applies them at the end of
    /// the round, so every signature of a round is computed against the same partition.
    pub(crate) fn carve(&mut self, from: u32, states: &[u32], round: u32) -> u32 {
        let f = from as usize;
        for &s in states {
            let last = self.end[f] - 1;
            let (p, q) = (self.pos[s as usize], last);
            let other = self.elems[q as usize];
            self.elems.swap(p as usize, q as usize);
            self.pos[other as usize] = p;
            self.pos[s as usize] = q;
            self.end[f] = last;
        }
        let id = self.begin.len() as u32;
        self.begin.push(self.end[f]);
        self.end.push(self.end[f] + states.len() as u32);
        self.parent.push(from);
        self.created.push(round);
        id
    }

    /// Applies a round's moves when they are the members of the blocks from `first` on (the
    /// blocks carved in that round).
    pub(crate) fn apply_blocks_from(&mut self, first: u32) {
        for b in first as usize..self.begin.len() {
            for i in self.begin[b]..self.end[b] {
                self.block_of[self.elems[i as usize] as usize] = b as u32;
            }
        }
    }

    /// Applies a round's moves.
    pub(crate) fn apply(&mut self, moves: &[(u32, u32)]) {
        for &(s, b) in moves {
            self.block_of[s as usize] = b;
        }
    }
}

/// A per-block (or per-constellation) array holding the first block's `value`, with room for
/// the at most `n` blocks, so it never moves. Growing by doubling copies it and can leave the
/// old copies resident: on a 300,000-state cycle, where every state ends in a block of its
/// own, that cost 3.8 MB of 30 MB peak RSS.
pub(crate) fn per_block<T>(n: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n.max(1));
    v.push(value);
    v
}
