//! The name a request has in the model, and the key of what a session keeps about it:
//! `c2s:5` (request 5 of the client), `c2s:5#2` (over modern HTTP, from client connection 2),
//! `s2c:"a"` (a string id, as JSON writes it). Made once a message as one shared string
//! (`Key`, an `Arc<str>`) that the session's tables, the observation and the stepper's
//! bindings all hold, instead of a `String` per table and a copy per observation; an integer
//! id (nearly every id) is written without `Value`'s JSON formatter, with the same digits.

use crate::trace::Dir;
use agentpi_check::replay::Key;
use serde_json::Value;

/// The key of request `id` sent by `requester`, from client connection `sender` when the
/// session tells clients apart by connection (see `Session::key`).
pub fn of(requester: Dir, id: &Value, sender: Option<u64>) -> Key {
    match written(requester, id, sender) {
        Some(buf) => match std::str::from_utf8(buf.text()) {
            Ok(text) => Key::from(text),
            Err(_) => slow(requester, id, sender),
        },
        None => slow(requester, id, sender),
    }
}

/// `find` of the text of the key [`of`] makes, without making it when the id is an integer
/// (a table keyed by keys is looked up by their text: a response finds its request's own key
/// so, instead of a new copy).
pub fn find<T>(requester: Dir, id: &Value, sender: Option<u64>, find: impl FnOnce(&str) -> T) -> T {
    let buf = written(requester, id, sender);
    match buf.as_ref().map(|b| std::str::from_utf8(b.text())) {
        Some(Ok(text)) => find(text),
        _ => find(&slow(requester, id, sender)),
    }
}

/// The key of an integer id written in a buffer; `None` for another id.
fn written(requester: Dir, id: &Value, sender: Option<u64>) -> Option<Buf> {
    let mut buf = Buf::default();
    buf.push(requester.as_str().as_bytes());
    buf.push(b":");
    let written = match (id.as_u64(), id.as_i64()) {
        (Some(n), _) => buf.digits(n, false),
        (_, Some(n)) => buf.digits(n.unsigned_abs(), n < 0),
        _ => false,
    };
    if !written {
        return None;
    }
    if let (Some(connection), Dir::C2s) = (sender, requester) {
        buf.push(b"#");
        buf.digits(connection, false);
    }
    Some(buf)
}

/// The key written through `Value`'s JSON formatter: a string id, or one too long for the
/// buffer (none is).
fn slow(requester: Dir, id: &Value, sender: Option<u64>) -> Key {
    let mut key = format!("{}:{id}", requester.as_str());
    if let (Some(connection), Dir::C2s) = (sender, requester) {
        key.push_str(&format!("#{connection}"));
    }
    Key::from(key)
}

/// Room for `c2s:`, a 20-digit id with its sign, `#` and a 20-digit connection.
struct Buf {
    bytes: [u8; 48],
    len: usize,
}

impl Default for Buf {
    fn default() -> Buf {
        Buf {
            bytes: [0; 48],
            len: 0,
        }
    }
}

impl Buf {
    fn push(&mut self, more: &[u8]) -> bool {
        let Some(room) = self.bytes.get_mut(self.len..self.len + more.len()) else {
            return false;
        };
        room.copy_from_slice(more);
        self.len += more.len();
        true
    }

    /// Writes `n` in decimal, after a minus sign when `negative`.
    fn digits(&mut self, mut n: u64, negative: bool) -> bool {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        (!negative || self.push(b"-")) && self.push(&digits[at..])
    }

    fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key is the one the JSON formatter writes, whatever the id's type and size.
    #[test]
    fn keys_are_what_the_formatter_writes() {
        let ids = [
            "0",
            "5",
            "42",
            "-1",
            "-9223372036854775808",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "1.5",
            "-0",
            "1e3",
            "\"5\"",
            "\"a\\\"b\"",
            "\"é\"",
            "null",
            "true",
            "{}",
        ];
        for text in ids {
            let id: Value = serde_json::from_str(text).unwrap();
            for dir in [Dir::C2s, Dir::S2c] {
                for sender in [None, Some(0), Some(7), Some(u64::MAX)] {
                    let mut want = format!("{}:{id}", dir.as_str());
                    if let (Some(c), Dir::C2s) = (sender, dir) {
                        want.push_str(&format!("#{c}"));
                    }
                    assert_eq!(&*of(dir, &id, sender), want, "{text} {dir:?} {sender:?}");
                    let found = find(dir, &id, sender, str::to_string);
                    assert_eq!(found, want, "found: {text} {dir:?} {sender:?}");
                }
            }
        }
    }
}
