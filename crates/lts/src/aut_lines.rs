//! The lines of a `.aut` file as byte slices of one reused buffer: read in large chunks, never
//! copied line by line (the line-at-a-time `String` it replaces cost a third of the reading).

use std::io::{ErrorKind, Read};

/// How much is read at a time; a longer line grows the buffer.
const CHUNK: usize = 1 << 18;

/// The input, a chunk at a time; lines are handed out as slices of the buffer.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// The unread part of the buffer is `buf[pos..end]`.
    pos: usize,
    end: usize,
    eof: bool,
    /// The number of the last line handed out (1-based); one past the last line at the end.
    pub(crate) number: usize,
}

impl<R: Read> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Lines {
            reader,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            eof: false,
            number: 0,
        }
    }

    /// The next line without its `\n`, with its number, or `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> std::io::Result<Option<(usize, &[u8])>> {
        self.number += 1;
        let mut searched = self.pos;
        loop {
            if let Some(i) = self.buf[searched..self.end]
                .iter()
                .position(|&b| b == b'\n')
            {
                let (start, stop) = (self.pos, searched + i);
                self.pos = stop + 1;
                return Ok(Some((self.number, &self.buf[start..stop])));
            }
            searched = self.end;
            if self.eof {
                let start = self.pos;
                self.pos = self.end;
                return Ok((start < self.end).then(|| (self.number, &self.buf[start..self.end])));
            }
            searched -= self.pos;
            self.refill()?;
        }
    }

    /// Moves the unread bytes to the front (growing the buffer if they fill it) and reads more
    /// after them.
    fn refill(&mut self) -> std::io::Result<()> {
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        if self.end == self.buf.len() {
            self.buf.resize(2 * self.buf.len(), 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(k) => {
                    self.end += k;
                    return Ok(());
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}
