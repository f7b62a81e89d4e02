//! The name a request has in the model, and the key of what a session keeps about it:
//! `c2s:5` (request 5 of the client), `c2s:5#2` (over modern HTTP, from client connection 2),
//! `s2c:"a"` (a string id, as JSON writes it). Made once a message as one shared string
//! (`Key`, an `Arc<str>`) that the session's tables, the observation and the stepper's
//! bindings all hold, instead of a `String` per table and a copy per observation; an integer
//! id (nearly every id) is written without `Value`'s JSON formatter, with the same digits,
//! on the stack.

use crate::trace::Dir;
use agentpi_check::replay::Key;
use serde_json::Value;

/// The key of request `id` sent by `requester`, from client connection `sender` when the
/// session tells clients apart by connection (see `Session::key`).
pub fn of(requester: Dir, id: &Value, sender: Option<u64>) -> Key {
    let mut text = [0u8; LONGEST];
    match written(&mut text, requester, id, sender) {
        Some(key) => Key::from(key),
        None => slow(requester, id, sender),
    }
}

/// Longer than any key of an integer id: a direction's name (at most 6 bytes), `:-`, 20
/// digits, `#` and 20 more.
const LONGEST: usize = 64;

/// Writes the key of an integer id in `text` (on the stack: nothing allocated but the key,
/// one check of its bytes, which are ASCII); `None` for another id.
fn written<'a>(
    text: &'a mut [u8; LONGEST],
    requester: Dir,
    id: &Value,
    sender: Option<u64>,
) -> Option<&'a str> {
    let (n, negative) = match (id.as_u64(), id.as_i64()) {
        (Some(n), _) => (n, false),
        (_, Some(n)) => (n.unsigned_abs(), n < 0),
        _ => return None,
    };
    let head = requester.as_str().as_bytes();
    text[..head.len()].copy_from_slice(head);
    text[head.len()] = b':';
    let mut len = head.len() + 1;
    if negative {
        text[len] = b'-';
        len += 1;
    }
    len = digits(text, len, n);
    if let (Some(connection), Dir::C2s) = (sender, requester) {
        text[len] = b'#';
        len = digits(text, len + 1, connection);
    }
    std::str::from_utf8(&text[..len]).ok()
}

/// The key written through `Value`'s JSON formatter: an id that is no integer.
fn slow(requester: Dir, id: &Value, sender: Option<u64>) -> Key {
    let mut key = format!("{}:{id}", requester.as_str());
    if let (Some(connection), Dir::C2s) = (sender, requester) {
        key.push_str(&format!("#{connection}"));
    }
    Key::from(key)
}

/// Writes `n` in decimal at `at` in `text`; where it ends. Two digits at a time from
/// [`PAIRS`], each in its place (its length known first): no reversed copy.
fn digits(text: &mut [u8; LONGEST], at: usize, mut n: u64) -> usize {
    let count = n.checked_ilog10().map_or(1, |l| l as usize + 1);
    let out = &mut text[at..at + count];
    let mut end = count;
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        end -= 2;
        out[end..end + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        out[..2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        out[0] = b'0' + n as u8;
    }
    at + count
}

/// `00` to `99`, each two digits.
const PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// Whose ids an id of `dir` from `sender` is among (a connection tells clients apart only,
/// as in the key [`of`] writes).
pub fn owner(dir: Dir, sender: Option<u64>) -> (Dir, Option<u64>) {
    (dir, sender.filter(|_| dir == Dir::C2s))
}

/// The sender and integer of a key [`of`] writes for an integer id that is a 64-bit signed
/// one (`c2s:5`, `c2s:5#2`, `s2c:-1`); `None` for any other key.
pub fn int_key(key: &str) -> Option<(Dir, i64, Option<u64>)> {
    let (head, rest) = key.split_once(':')?;
    let dir = match head {
        "c2s" => Dir::C2s,
        "s2c" => Dir::S2c,
        _ => return None,
    };
    let (id, sender) = match rest.rsplit_once('#') {
        Some((id, connection)) if dir == Dir::C2s => {
            let c: u64 = connection.parse().ok()?;
            (c.to_string() == connection).then_some((id, Some(c)))?
        }
        Some(_) => return None,
        None => (rest, None),
    };
    let n: i64 = id.parse().ok()?;
    // Only the digits the key of that integer has (no sign or zeros of another writing).
    (n.to_string() == id).then_some((dir, n, sender))
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
            "9",
            "10",
            "42",
            "99",
            "100",
            "12345",
            "999999",
            "1000000",
            "-10",
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
                    let key = of(dir, &id, sender);
                    assert_eq!(&*key, want, "{text} {dir:?} {sender:?}");
                }
            }
        }
    }
}
