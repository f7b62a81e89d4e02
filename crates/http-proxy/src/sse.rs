//! An incremental reader of Server-Sent Events: fed the bytes of a stream in whatever chunks
//! they arrive, it returns each event's `data` (its data lines joined by newlines) and `id` as
//! soon as the blank line that ends the event has arrived. It never holds more than the event
//! in progress, so a stream that never ends costs no more than its largest event.

/// One complete event that carried data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `data` field: the event's data lines joined by `\n`.
    pub data: Vec<u8>,
    /// The event's `id` field, when it had one (used to resume a stream).
    pub id: Option<String>,
}

#[derive(Debug)]
pub struct SseParser {
    /// The line read so far (without its end).
    line: Vec<u8>,
    /// The event in progress.
    data: Vec<u8>,
    has_data: bool,
    id: Option<String>,
    /// The last byte was `\r`: a `\n` right after it ends no second line.
    after_cr: bool,
    /// How many bytes of a byte-order mark the stream started with (3: a whole one, dropped),
    /// or `None` once past the start.
    bom: Option<usize>,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            id: None,
            after_cr: false,
            bom: Some(0),
        }
    }
}

impl SseParser {
    /// Feeds the next bytes of the stream; returns the events they complete, in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            if self.skip_bom(byte) {
                continue;
            }
            let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
            match byte {
                b'\n' if after_cr => {}
                b'\r' | b'\n' => events.extend(self.end_line()),
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// Whether `byte` belongs to a byte-order mark at the start of the stream.
    fn skip_bom(&mut self, byte: u8) -> bool {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        let Some(matched) = self.bom else {
            return false;
        };
        if matched < BOM.len() && BOM[matched] == byte {
            self.bom = (matched + 1 < BOM.len()).then_some(matched + 1);
            return true;
        }
        // Not a mark after all: what matched of it starts the first line.
        self.line.extend_from_slice(&BOM[..matched]);
        self.bom = None;
        false
    }

    /// Handles one complete line; a blank one dispatches the event.
    fn end_line(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            return self.dispatch();
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return None, // a comment
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (&line[..], &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"id" if !value.contains(&0) => {
                self.id = Some(String::from_utf8_lossy(value).into_owned());
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let id = self.id.take();
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        Some(SseEvent {
            data: std::mem::take(&mut self.data),
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `stream` split at every position in `cuts` and returns the events as text.
    fn check(stream: &str, cuts: &[usize], expected: &[(&str, Option<&str>)]) {
        let mut parser = SseParser::default();
        let mut got = Vec::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&stream.len()]) {
            got.extend(parser.feed(&stream.as_bytes()[from..cut]));
            from = cut;
        }
        let got: Vec<(String, Option<String>)> = got
            .into_iter()
            .map(|e| (String::from_utf8(e.data).unwrap(), e.id))
            .collect();
        let expected: Vec<(String, Option<String>)> = expected
            .iter()
            .map(|(d, i)| ((*d).to_string(), i.map(str::to_string)))
            .collect();
        assert_eq!(got, expected, "stream {stream:?} cut at {cuts:?}");
    }

    #[test]
    fn events_in_any_chunking() {
        let stream =
            "event: message\nid: 7\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: x\ndata: y\n\n";
        let expected = [("{\"a\":1}", Some("7")), ("x\ny", None)];
        for cut in 0..=stream.len() {
            check(stream, &[cut], &expected);
        }
    }

    #[test]
    fn line_ends_crlf_cr_and_lf() {
        let stream = "data: a\r\n\r\ndata: b\r\rdata:c\n\n";
        for cut in 0..=stream.len() {
            check(stream, &[cut], &[("a", None), ("b", None), ("c", None)]);
        }
    }

    #[test]
    fn no_data_no_event_and_incomplete_tail_waits() {
        check("id: 3\n\n", &[], &[]);
        check("data: partial\n", &[], &[]);
        check("\u{feff}data: bom\n\n", &[1], &[("bom", None)]);
    }
}
