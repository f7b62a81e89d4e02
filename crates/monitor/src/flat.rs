//! The members of a flat message read straight from its bytes, without serde: a top-level
//! object whose every member value is a string without escapes, an integer of at most 19
//! digits, `null`, `true`, `false` or the empty object `{}` (a ping, its empty result, a
//! notification without params, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`). That is
//! most of a flood, and reading it costs a scan instead of serde's visitor and a `Value` per
//! member. Anything else (an escape, a fraction, a negative number, a nested value, a control
//! character, bytes after the object) makes the scan give up, and `top` parses the message
//! member by member (`members::read`), so a message is read the same either way: the tests
//! below hold the two to the same members on inputs at each of those edges.

use crate::members::{self, Members, Top};
use serde_json::{Map, Value};

/// The top level of `text` (see `members::read`): a flat object scanned, anything else
/// parsed member by member.
pub fn top(text: &str) -> Option<Top> {
    match read(text) {
        Some(members) => Some(Top::Object(members)),
        None => members::read(text),
    }
}

/// A member's value as this scan reads it.
enum Scalar<'a> {
    Str(&'a str),
    Int(u64),
    Null,
    Bool(bool),
    EmptyObject,
}

impl Scalar<'_> {
    fn into_value(self) -> Value {
        match self {
            Scalar::Str(s) => Value::String(s.to_string()),
            Scalar::Int(n) => Value::from(n),
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::EmptyObject => Value::Object(Map::new()),
        }
    }
}

/// The members of `text` when it is a flat object as above; `None` for anything else
/// (which may still be JSON: the full parse decides).
pub fn read(text: &str) -> Option<Members> {
    read_marked(text).map(|(members, _)| members)
}

/// [`read`], with where the `id` the members keep lies in `text` when it is an integer (the
/// byte range of its digits): what `skeleton.rs` compares the next message around.
pub fn read_marked(text: &str) -> Option<(Members, Option<(usize, usize)>)> {
    let b = text.as_bytes();
    let mut i = expect(b, skip(b, 0), b'{')?;
    let mut members = Members::default();
    let mut id_at = None;
    i = skip(b, i);
    if b.get(i) == Some(&b'}') {
        return end(b, i + 1).then_some((members, id_at));
    }
    loop {
        let (name, after) = string(text, i)?;
        i = expect(b, skip(b, after), b':')?;
        let start = skip(b, i);
        let (value, after) = scalar(text, start)?;
        if name == "id" {
            // The last of a repeated name wins, its place too.
            id_at = matches!(value, Scalar::Int(_)).then_some((start, after));
        }
        keep(&mut members, name, value);
        i = skip(b, after);
        match b.get(i) {
            Some(b',') => i = skip(b, i + 1),
            Some(b'}') => return end(b, i + 1).then_some((members, id_at)),
            _ => return None,
        }
    }
}

/// Files member `name`'s value where `members` keeps it (the last of a repeated name wins,
/// as in a map); a member the envelope does not read is dropped.
fn keep(members: &mut Members, name: &str, value: Scalar) {
    let slot = match name {
        "jsonrpc" => {
            members.jsonrpc = Some(matches!(value, Scalar::Str("2.0")));
            return;
        }
        "id" => &mut members.id,
        "method" => &mut members.method,
        "params" => &mut members.params,
        "result" => &mut members.result,
        "error" => &mut members.error,
        _ => return,
    };
    *slot = Some(value.into_value());
}

/// JSON's white space, as serde_json skips it.
fn skip(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\n' | b'\t' | b'\r')) {
        i += 1;
    }
    i
}

/// The position after byte `want` at `i`.
fn expect(b: &[u8], i: usize, want: u8) -> Option<usize> {
    (b.get(i) == Some(&want)).then_some(i + 1)
}

/// Whether nothing but white space follows position `i`.
fn end(b: &[u8], i: usize) -> bool {
    skip(b, i) == b.len()
}

/// The string at `i` (its text, and the position after its closing quote), when it has no
/// escape and no control character (which JSON forbids unescaped).
fn string(text: &str, i: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    let start = expect(b, i, b'"')?;
    let len = b[start..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
    let close = start + len;
    // A quote ends it; a backslash or a control character goes to the full parse.
    (b[close] == b'"').then(|| (&text[start..close], close + 1))
}

/// The value at `i` and the position after it, when it is one this scan reads.
fn scalar(text: &str, i: usize) -> Option<(Scalar<'_>, usize)> {
    let b = text.as_bytes();
    match *b.get(i)? {
        b'"' => string(text, i).map(|(s, next)| (Scalar::Str(s), next)),
        b'0'..=b'9' => integer(b, i),
        b'n' => literal(b, i, "null", Scalar::Null),
        b't' => literal(b, i, "true", Scalar::Bool(true)),
        b'f' => literal(b, i, "false", Scalar::Bool(false)),
        b'{' => {
            let close = skip(b, i + 1);
            (b.get(close) == Some(&b'}')).then_some((Scalar::EmptyObject, close + 1))
        }
        _ => None,
    }
}

/// A non-negative integer without a fraction or an exponent, of at most 19 digits (it fits
/// a `u64`, as serde_json holds it), and no leading zero (which JSON forbids).
fn integer(b: &[u8], i: usize) -> Option<(Scalar<'static>, usize)> {
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let next = i + digits;
    if digits > 19 || (digits > 1 && b[i] == b'0') {
        return None;
    }
    if matches!(b.get(next), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    let n = b[i..next]
        .iter()
        .fold(0u64, |n, &c| n * 10 + u64::from(c - b'0'));
    Some((Scalar::Int(n), next))
}

/// The literal `word` at `i`.
fn literal<'a>(b: &[u8], i: usize, word: &str, value: Scalar<'a>) -> Option<(Scalar<'a>, usize)> {
    let next = i + word.len();
    (b.get(i..next) == Some(word.as_bytes())).then_some((value, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each input, and whether the scan reads it (`true`) or leaves it to the full parse.
    const CASES: &[(&str, bool)] = &[
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, true),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, true),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            true,
        ),
        // Every kind of white space JSON has, everywhere it may stand.
        (
            " \t\r\n{ \"jsonrpc\" :\t\"2.0\" ,\r\n\"id\" : 7 , \"result\" : { \n } } \n",
            true,
        ),
        // An id as a string and as a number are different ids.
        (r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#, true),
        (
            r#"{"jsonrpc":"2.0","id":9999999999999999999,"method":"ping"}"#,
            true,
        ),
        (r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#, true),
        // Repeated names: the last wins.
        (
            r#"{"jsonrpc":"2.0","id":1,"id":"x","method":"a","method":"b"}"#,
            true,
        ),
        (
            r#"{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"result":{}}"#,
            true,
        ),
        (
            r#"{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"result":{}}"#,
            true,
        ),
        (r#"{"jsonrpc":2.0,"id":1,"result":{}}"#, false),
        (
            r#"{"jsonrpc":null,"id":true,"error":false,"params":{},"x":"y"}"#,
            true,
        ),
        (r#"{"jsonrpc":"2.0","method":"é✓ \u00e9"}"#, false),
        (r#"{"jsonrpc":"2.0","method":"é✓"}"#, true),
        (r#"{}"#, true),
        // Escapes, in values and in names, are the full parse's.
        (r#"{"jsonrpc":"2\u002e0","id":1,"method":"ping"}"#, false),
        (r#"{"j\u0073onrpc":"2.0","id":1,"method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id":"a\"b","method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#, false),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\u{1}b\",\"method\":\"ping\"}",
            false,
        ),
        // Numbers the scan does not read.
        (r#"{"jsonrpc":"2.0","id":-5,"method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id":1E3,"method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id":01,"method":"ping"}"#, false),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            false,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"x":1e400,"result":{}}"#, false),
        // Nested values, batches, other top levels.
        (r#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#, false),
        (r#"{"jsonrpc":"2.0","id":1,"result":[]}"#, false),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, false),
        (r#"[]"#, false),
        (r#""2.0""#, false),
        (r#"12"#, false),
        // Not JSON: both give up.
        (r#"{"jsonrpc":"2.0","id":1,}"#, false),
        (r#"{"jsonrpc":"2.0","id":1} x"#, false),
        (r#"{"jsonrpc":"2.0","id":1}}"#, false),
        (r#"{"jsonrpc":"2.0","id":nul}"#, false),
        (r#"{"jsonrpc":"2.0","id":nullx}"#, false),
        (r#"{"jsonrpc":"2.0","id":1 "method":"ping"}"#, false),
        (r#"{"jsonrpc":"2.0","id" 1}"#, false),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}"#, false),
        (r#"{"jsonrpc":"2.0","id":1,"result":{"#, false),
        ("{\"jsonrpc\":\"2.0\",\u{c}\"id\":1}", false),
        (r#"{"jsonrpc":"2.0","id":"1"#, false),
        ("", false),
        ("{", false),
    ];

    /// The scan reads what the full parse reads, and reads the common shapes itself.
    #[test]
    fn reads_what_the_full_parse_reads() {
        for &(text, scanned) in CASES {
            let flat = read(text);
            assert_eq!(flat.is_some(), scanned, "{text}: scanned");
            let full = members::read(text);
            if let Some(members) = flat {
                assert_eq!(full, Some(Top::Object(members)), "{text}");
            }
            // And `top`, whichever reads it, finds what the full parse finds.
            assert_eq!(top(text), full, "{text}");
        }
    }

    /// An id keeps its type: a number is not read as its string, nor as a float.
    #[test]
    fn ids_keep_their_type() {
        let id = |text: &str| read(text).and_then(|m| m.id);
        assert_eq!(id(r#"{"id":5}"#), Some(Value::from(5u64)));
        assert_eq!(id(r#"{"id":"5"}"#), Some(Value::from("5")));
        assert!(id(r#"{"id":5}"#).is_some_and(|v| v.is_u64() && !v.is_f64()));
    }
}
