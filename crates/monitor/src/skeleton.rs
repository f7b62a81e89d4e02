//! A message read from the last one of its side: in a flood every message of a side is the
//! one before but for its id (`{"jsonrpc":"2.0","id":N,"method":"ping"}`, its `{}` answer).
//! When a flat message (`flat.rs`) whose id is an integer parses clean, its bytes are kept as
//! a *skeleton*: the bytes before the id's digits, the digits, the bytes after. The next
//! message of that side whose bytes are the same before and after, with digits between that
//! JSON reads as the same kind of number (1 to 19 digits, no leading zero: the scan's
//! integers; and within `i64`, as the kept one's, for the schema pass below), is that message with another id: the same tokens in the same order, the same
//! members (the one whose digits differ is the id the envelope keeps, as it was in the kept
//! message), the same findings (none), valid UTF-8 (the digits are ASCII). So it is the kept
//! message with the new id, without the scan or a `Value` per member.
//!
//! J13's schema check of such a message is a function of the message up to its integer id
//! (`schema_seen.rs`), of the protocol version and of what the message answers: a pass is
//! kept with the skeleton under those two, and the next message of the skeleton under the
//! same two passes without a look-up.
//!
//! The kept message is lent, not copied: the message read from a skeleton is the kept one
//! itself with the new id, and the session gives it back once checked ([`Skeletons::give_back`]).
//! While it is out the skeleton reads nothing (a message not given back, as when the check
//! ends early, only makes the next one parsed in full).

use crate::shape::{self, Finding, Message};
use crate::trace::Dir;
use serde_json::Value;
use std::rc::Rc;

/// Ids longer than this are no integer the scan reads (it fits a `u64`).
const MAX_DIGITS: usize = 19;

/// The last clean flat message of each side (client, server).
#[derive(Default)]
pub struct Skeletons {
    sides: [Option<Skeleton>; 2],
    /// The side whose skeleton the message in hand is (read from it, or kept as it).
    current: Option<usize>,
    /// Whether the message in hand was read from its side's skeleton (not kept as it).
    read: bool,
}

struct Skeleton {
    raw: Box<[u8]>,
    /// The id's digits in `raw`.
    at: usize,
    len: usize,
    /// `None` while lent (see the module's documentation). Boxed: lent and given back
    /// for every message read from it, and a pointer moves where a message is copied.
    message: Option<Box<Message>>,
    /// The protocol version and the answered request's method (and whether it asked for a
    /// task) under which its schema check passed.
    passed: Option<Pass>,
}

/// A protocol version and an answered request's method and whether it asked for a task.
type Pass = (Option<String>, Option<Answered>);

/// An answered request's method (shared with the session's table of requests: not copied
/// for each answer) and whether it asked for a task.
pub type Answered = (Rc<str>, bool);

impl Skeletons {
    /// [`shape::parse`] of `raw`, sent in direction `dir`, read from the skeleton of that
    /// side when it is one (see the module's documentation).
    pub fn parse(&mut self, raw: &[u8], dir: Dir) -> (Option<Box<Message>>, Vec<Finding>) {
        self.current = None;
        self.read = false;
        let Some(side) = side(dir) else {
            let (message, found) = shape::parse(raw, dir);
            return (message.map(Box::new), found);
        };
        if let Some(message) = self.sides[side].as_mut().and_then(|s| s.read(raw)) {
            self.current = Some(side);
            self.read = true;
            return (Some(message), Vec::new());
        }
        let (message, found, id_at) = shape::parse_marked(raw, dir);
        if let (Some(kept), true, Some((at, end))) = (&message, found.is_empty(), id_at)
            && kept_id(kept)
        {
            self.sides[side] = Some(Skeleton {
                raw: raw.into(),
                at,
                len: end - at,
                // Lent at once: the message returned is the kept one.
                message: None,
                passed: None,
            });
            self.current = Some(side);
        }
        (message.map(Box::new), found)
    }

    /// Whether the message in hand was read from its side's skeleton: the last message of
    /// that side read from it or kept as it, but for its id.
    pub fn read_from(&self) -> bool {
        self.read
    }

    /// Whether the message in hand was read from or kept as its side's skeleton.
    pub fn in_hand(&self) -> bool {
        self.current.is_some()
    }

    /// Takes back the message in hand, read from (or kept as) the current skeleton, once
    /// checked: the next message of its side may be read from it.
    pub fn give_back(&mut self, message: Box<Message>) {
        let lent = self.current.and_then(|s| self.sides[s].as_mut());
        if let Some(skeleton) = lent.filter(|s| s.message.is_none()) {
            skeleton.message = Some(message);
        }
    }

    /// Whether the message in hand is of a skeleton whose schema check passed under
    /// `version` and `answered`.
    pub fn passed(&self, version: Option<&str>, answered: Option<&Answered>) -> bool {
        let Some(skeleton) = self.current.and_then(|s| self.sides[s].as_ref()) else {
            return false;
        };
        skeleton
            .passed
            .as_ref()
            .is_some_and(|(v, a)| v.as_deref() == version && a.as_ref() == answered)
    }

    /// The message in hand passed its schema check under `version` and `answered`.
    pub fn pass(&mut self, version: Option<&str>, answered: Option<&Answered>) {
        if let Some(skeleton) = self.current.and_then(|s| self.sides[s].as_mut()) {
            skeleton.passed = Some((version.map(str::to_string), answered.cloned()));
        }
    }
}

impl Skeleton {
    /// The kept message with the id `raw` has, when `raw` is it but for its id's digits and
    /// the message is not lent (it is lent now).
    fn read(&mut self, raw: &[u8]) -> Option<Box<Message>> {
        self.message.as_ref()?;
        let (head, tail) = (&self.raw[..self.at], &self.raw[self.at + self.len..]);
        if raw.len() < head.len() + tail.len() + 1 || !raw.starts_with(head) || !raw.ends_with(tail)
        {
            return None;
        }
        let digits = &raw[head.len()..raw.len() - tail.len()];
        let number = digits.iter().all(u8::is_ascii_digit)
            && digits.len() <= MAX_DIGITS
            && (digits.len() == 1 || digits[0] != b'0');
        if !number {
            return None;
        }
        let n = digits
            .iter()
            .fold(0u64, |n, &c| n * 10 + u64::from(c - b'0'));
        if n > i64::MAX as u64 {
            // An id of another kind for the schemas (see `kept`).
            return None;
        }
        let mut message = self.message.take()?;
        match &mut *message {
            Message::Request { id, .. } | Message::Response { id, .. } => *id = Value::from(n),
            // Never kept (see `kept_id`).
            Message::Notification { .. } => return None,
        }
        Some(message)
    }
}

/// Whether a message's id is an integer within `i64`: J13's `RequestId` takes any of them
/// alike (`schema_seen.rs`), so a skeleton's messages are of one id kind for its pass.
fn kept_id(message: &Message) -> bool {
    match message {
        Message::Request { id, .. } | Message::Response { id, .. } => id.is_i64(),
        Message::Notification { .. } => false,
    }
}

fn side(dir: Dir) -> Option<usize> {
    match dir {
        Dir::C2s => Some(0),
        Dir::S2c => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of one side in turn, each held to the full parse: ids of every length and
    /// edge, bytes that differ elsewhere by one, a repeated id, an id that is no integer.
    const LINES: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":12345,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9999999999999999999,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":10000000000000000000,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":07,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"pong"}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"ping"} "#,
        r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":7.5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":7e1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":-7,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"7","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"x","id":8,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"x","id":9,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9,"id":"x","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":10,"id":"x","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":11,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":12,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":12,"result":{},"method":"x"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":14,"method":"tools/list","params":{}}"#,
        r#"{"jsonrpc":"1.0","id":15,"method":"tools/list","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1٣,"method":"tools/list","params":{}}"#,
    ];

    /// Every line is read as the full parse reads it, and the lines like the one before but
    /// for their integer id are read from it.
    #[test]
    fn reads_what_the_full_parse_reads() {
        let mut skeletons = Skeletons::default();
        let mut hits = 0;
        for dir in [Dir::C2s, Dir::S2c] {
            for line in LINES {
                let (message, found) = skeletons.parse(line.as_bytes(), dir);
                let got = (message.map(|m| *m), found);
                assert_eq!(got, shape::parse(line.as_bytes(), dir), "{line}");
                hits += usize::from(skeletons.current.is_some_and(|_| {
                    let kept = skeletons.sides[side(dir).unwrap()].as_ref().unwrap();
                    &*kept.raw != line.as_bytes()
                }));
                // As the session does once the message is checked.
                if let Some(message) = got.0 {
                    skeletons.give_back(Box::new(message));
                }
            }
        }
        // Per side: ids 2, 12345, 0, 9223372036854775807 (i64::MAX), 8, 9, 12 and 14.
        assert_eq!(hits, 2 * 8, "messages read from their skeleton");
    }

    /// A message read from a skeleton is the kept one lent, with its own id: while it is
    /// out, the next message of its side is parsed in full (and read as the full parse reads
    /// it); once given back, the next is read from the skeleton with its own id again.
    #[test]
    fn a_lent_message_is_read_again_only_once_given_back() {
        let mut skeletons = Skeletons::default();
        let ping = |n: u32| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#);
        let read = |s: &mut Skeletons, n: u32| {
            let (message, found) = s.parse(ping(n).as_bytes(), Dir::C2s);
            let (message, expected) =
                (message.unwrap(), shape::parse(ping(n).as_bytes(), Dir::C2s));
            assert_eq!(
                (Some(&*message), found),
                (expected.0.as_ref(), expected.1),
                "{n}"
            );
            message
        };
        let first = read(&mut skeletons, 1);
        let lent = |s: &Skeletons| s.sides[0].as_ref().unwrap().message.is_none();
        assert!(lent(&skeletons), "the kept message is the one returned");
        // Not given back: the next is parsed in full and kept afresh.
        let second = read(&mut skeletons, 2);
        assert!(lent(&skeletons));
        drop(first);
        skeletons.give_back(second);
        assert!(!lent(&skeletons));
        let third = read(&mut skeletons, 345);
        assert!(lent(&skeletons), "read from the skeleton, lent again");
        assert_eq!(third.to_value()["id"], 345);
        skeletons.give_back(third);
        let fourth = read(&mut skeletons, 6);
        assert_eq!(fourth.to_value()["id"], 6);
    }

    /// A schema pass is kept under the version and the answered request it was found under.
    #[test]
    fn a_schema_pass_holds_for_its_version_and_request() {
        let mut skeletons = Skeletons::default();
        let ping = |n: u32| format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#);
        let answered = Some((Rc::from("ping"), false));
        // Each message given back once checked, as the session does.
        let parse = |s: &mut Skeletons, raw: &[u8], dir| {
            if let Some(message) = s.parse(raw, dir).0 {
                s.give_back(message);
            }
        };
        parse(&mut skeletons, ping(1).as_bytes(), Dir::S2c);
        assert!(!skeletons.passed(Some("2025-11-25"), answered.as_ref()));
        skeletons.pass(Some("2025-11-25"), answered.as_ref());
        parse(&mut skeletons, ping(2).as_bytes(), Dir::S2c);
        assert!(skeletons.passed(Some("2025-11-25"), answered.as_ref()));
        assert!(!skeletons.passed(Some("2025-06-18"), answered.as_ref()));
        let listed = Some((Rc::from("tools/list"), false));
        assert!(!skeletons.passed(Some("2025-11-25"), listed.as_ref()));
        let task = Some((Rc::from("ping"), true));
        assert!(!skeletons.passed(Some("2025-11-25"), task.as_ref()));
        // Another side's message, or one of no skeleton, passes nothing.
        parse(&mut skeletons, ping(3).as_bytes(), Dir::C2s);
        assert!(!skeletons.passed(Some("2025-11-25"), answered.as_ref()));
        let text = br#"{"jsonrpc":"2.0","id":"a","result":{}}"#;
        parse(&mut skeletons, text, Dir::S2c);
        assert!(!skeletons.passed(Some("2025-11-25"), answered.as_ref()));
    }
}
