//! A growable array of `u32` kept in fixed-size chunks, for transitions arriving one at a time
//! in unknown number: growing never moves what is there. A `Vec` grown by doubling is copied
//! at every doubling, and the allocator the command line runs on (mimalloc) does that by
//! copying, old and new both resident: reading 4 million transitions peaked at twice the
//! arrays it built.

/// Elements per chunk (4 MB).
const CHUNK: usize = 1 << 20;

#[derive(Debug, Default)]
pub(crate) struct Chunked {
    chunks: Vec<Vec<u32>>,
    len: usize,
}

impl Chunked {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `value`. Every chunk but the last holds exactly [`CHUNK`] elements; the first
    /// grows from small as a `Vec` does (most LTSs built are small: quotients, tests).
    pub(crate) fn push(&mut self, value: u32) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => last.push(value),
            _ => {
                let capacity = if self.chunks.is_empty() { 0 } else { CHUNK };
                let mut chunk = Vec::with_capacity(capacity);
                chunk.push(value);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    pub(crate) fn extend<const N: usize>(&mut self, values: [u32; N]) {
        for v in values {
            self.push(v);
        }
    }

    pub(crate) fn get(&self, i: usize) -> u32 {
        self.chunks[i / CHUNK][i % CHUNK]
    }

    /// The elements in one `Vec` of exactly their length, each chunk freed once copied.
    pub(crate) fn into_vec(self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len);
        for chunk in self.chunks {
            out.extend_from_slice(&chunk);
        }
        out
    }
}
