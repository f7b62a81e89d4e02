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
    /// The capacity of the first chunk when it was given ([`Chunked::with_first`]), else 0.
    first: usize,
}

impl Chunked {
    /// An array whose first chunk has room for `capacity` elements: when that is how many
    /// come, [`Chunked::into_vec`] hands it over without a copy.
    pub(crate) fn with_first(capacity: usize) -> Self {
        Chunked {
            chunks: vec![Vec::with_capacity(capacity)],
            len: 0,
            first: capacity,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `value`. Every chunk but the first and the last holds exactly [`CHUNK`]
    /// elements; the first holds as many as it was given room for, or grows from small to
    /// [`CHUNK`] as a `Vec` does (most LTSs built are small: quotients, tests).
    pub(crate) fn push(&mut self, value: u32) {
        let limit = match self.chunks.len() {
            1 => CHUNK.max(self.first),
            _ => CHUNK,
        };
        match self.chunks.last_mut() {
            Some(last) if last.len() < limit => last.push(value),
            _ => {
                let capacity = if self.chunks.is_empty() { 0 } else { CHUNK };
                let mut chunk = Vec::with_capacity(capacity);
                chunk.push(value);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    pub(crate) fn get(&self, i: usize) -> u32 {
        match i.checked_sub(self.chunks[0].len()) {
            None => self.chunks[0][i],
            Some(rest) => self.chunks[1 + rest / CHUNK][rest % CHUNK],
        }
    }

    /// The elements in one `Vec` of exactly their length, each chunk freed once copied.
    pub(crate) fn into_vec(mut self) -> Vec<u32> {
        if self.chunks.len() == 1 {
            return self.chunks.pop().unwrap();
        }
        let mut out = Vec::with_capacity(self.len);
        for chunk in self.chunks {
            out.extend_from_slice(&chunk);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, Chunked};

    /// Across several chunks, with a first chunk of each kind: every element where it was put.
    #[test]
    fn elements_stay_where_they_were_put() {
        let n = 2 * CHUNK + 12_345;
        for mut chunked in [
            Chunked::default(),
            Chunked::with_first(1000),
            Chunked::with_first(CHUNK + 7),
            Chunked::with_first(n),
        ] {
            for i in 0..n {
                chunked.push(i as u32);
            }
            assert_eq!(chunked.len(), n);
            for i in [
                0,
                999,
                1000,
                CHUNK - 1,
                CHUNK,
                CHUNK + 7,
                2 * CHUNK + 1,
                n - 1,
            ] {
                assert_eq!(chunked.get(i), i as u32);
            }
            assert!(chunked.into_vec().into_iter().eq(0..n as u32));
        }
    }
}
