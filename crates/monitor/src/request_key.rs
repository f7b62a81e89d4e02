//! The name a request has in the model, and the key of what a session keeps about it:
//! `c2s:5` (request 5 of the client), `c2s:5#2` (over modern HTTP, from client connection 2),
//! `s2c:"a"` (a string id, as JSON writes it). Made once a message as one shared string
//! (`Key`, an `Arc<str>`) that the session's tables, the observation and the stepper's
//! bindings all hold, instead of a `String` per table and a copy per observation; an integer
//! id (nearly every id) is written without `Value`'s JSON formatter, with the same digits,
//! into a buffer its caller keeps.

use crate::trace::Dir;
use agentpi_check::replay::Key;
use serde_json::Value;

/// The key of request `id` sent by `requester`, from client connection `sender` when the
/// session tells clients apart by connection (see `Session::key`); `text` is a buffer the
/// caller keeps (its text is the key's after).
pub fn of(text: &mut String, requester: Dir, id: &Value, sender: Option<u64>) -> Key {
    if written(text, requester, id, sender) {
        Key::from(text.as_str())
    } else {
        slow(requester, id, sender)
    }
}

/// `find` of the text of the key [`of`] makes, without making it when the id is an integer
/// (a table keyed by keys is looked up by their text: a response finds its request's own key
/// so, instead of a new copy); `text` as for [`of`].
pub fn find<T>(
    text: &mut String,
    requester: Dir,
    id: &Value,
    sender: Option<u64>,
    find: impl FnOnce(&str) -> T,
) -> T {
    if written(text, requester, id, sender) {
        find(text)
    } else {
        find(&slow(requester, id, sender))
    }
}

/// Writes the key of an integer id in `text` (in its buffer: nothing allocated once it is
/// long enough, and no check of the bytes, which are ASCII); `false` for another id.
fn written(text: &mut String, requester: Dir, id: &Value, sender: Option<u64>) -> bool {
    let (n, negative) = match (id.as_u64(), id.as_i64()) {
        (Some(n), _) => (n, false),
        (_, Some(n)) => (n.unsigned_abs(), n < 0),
        _ => return false,
    };
    text.clear();
    text.push_str(requester.as_str());
    text.push(':');
    if negative {
        text.push('-');
    }
    digits(text, n);
    if let (Some(connection), Dir::C2s) = (sender, requester) {
        text.push('#');
        digits(text, connection);
    }
    true
}

/// The key written through `Value`'s JSON formatter: an id that is no integer.
fn slow(requester: Dir, id: &Value, sender: Option<u64>) -> Key {
    let mut key = format!("{}:{id}", requester.as_str());
    if let (Some(connection), Dir::C2s) = (sender, requester) {
        key.push_str(&format!("#{connection}"));
    }
    Key::from(key)
}

/// Writes `n` in decimal.
fn digits(text: &mut String, mut n: u64) {
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
    text.extend(digits[at..].iter().map(|&d| char::from(d)));
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
                    let mut buf = String::from("left over");
                    let key = of(&mut buf, dir, &id, sender);
                    assert_eq!(&*key, want, "{text} {dir:?} {sender:?}");
                    let found = find(&mut buf, dir, &id, sender, str::to_string);
                    assert_eq!(found, want, "found: {text} {dir:?} {sender:?}");
                }
            }
        }
    }
}
