//! The stdio framing of MCP: a byte stream split into lines, one JSON-RPC message each, as the
//! stdio proxy of `agentpi monitor` taps the bytes it relays. Incremental: fed the stream in
//! whatever chunks the reads return, it gives the same lines as the whole stream at once.

/// The longest line held before it is handed on in pieces.
pub const MAX_LINE: usize = 256 * 1024 * 1024;

/// Splits a byte stream into lines (without their newline).
#[derive(Debug, Default)]
pub struct Lines {
    partial: Vec<u8>,
}

impl Lines {
    /// Feeds the next bytes of the stream; `line` gets each line they complete, in order.
    pub fn feed(&mut self, mut bytes: &[u8], mut line: impl FnMut(&[u8])) {
        while let Some(at) = bytes.iter().position(|&b| b == b'\n') {
            if self.partial.is_empty() {
                line(&bytes[..at]);
            } else {
                self.partial.extend_from_slice(&bytes[..at]);
                line(&self.partial);
                self.partial.clear();
            }
            bytes = &bytes[at + 1..];
        }
        self.partial.extend_from_slice(bytes);
        if self.partial.len() > MAX_LINE {
            // A line this long is tapped in pieces (each a finding of its own) rather than
            // held without bound; the relay itself never holds more than one chunk.
            line(&self.partial);
            self.partial.clear();
        }
    }

    /// A last line without its newline (a message cut off by the end of the stream).
    pub fn end(&mut self, mut line: impl FnMut(&[u8])) {
        if !self.partial.is_empty() {
            line(&self.partial);
        }
    }
}
