//! J13's passes remembered: the schema check of a message is a function of its version, its
//! part, its method and its value, and most of a session's messages repeat one another but
//! for their id (every `ping` and every `{}` answering one). A small message found to match
//! is remembered with its id reduced to its kind (a string, or an integer that fits an
//! `i64`: the schemas' `RequestId` takes any of either, and nothing else in a message's
//! value depends on it), so that the next one like it is known to match without being
//! rebuilt as a value and deserialized again. Only matches are remembered: a mismatch's
//! text says where it failed, and is found afresh.

use crate::schema::{Part, Version};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::cell::RefCell;
use std::hash::{Hash, Hasher};

/// Messages whose value has more nodes than this are checked every time (a look-up would
/// compare as much as the check reads).
const MAX_NODES: usize = 64;

/// Past this many remembered messages the table starts over.
const LIMIT: usize = 1 << 10;

/// A message as its schema check sees it: what its verdict depends on.
pub struct Seen<'a> {
    pub version: Version,
    pub part: Part,
    pub method: &'a str,
    /// The id's kind (a request's), see the module's documentation.
    id: IdKind,
    /// The params of a request or notification, or a result.
    pub body: Option<&'a Value>,
    hash: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum IdKind {
    None,
    Str,
    Int,
}

/// A remembered match.
struct Entry {
    version: Version,
    part: Part,
    method: String,
    id: IdKind,
    body: Option<Value>,
}

thread_local! {
    /// The matches of this thread's sessions (a pure function of the message: shared by
    /// all of them, as the checker is one thread).
    static SEEN: RefCell<Table> = RefCell::new(Table::default());
}

/// The matches by hash, and how many.
#[derive(Default)]
struct Table {
    by_hash: FxHashMap<u64, Vec<Entry>>,
    len: usize,
}

impl<'a> Seen<'a> {
    /// The message to look up, or `None` when it is not remembered (a large one, or a
    /// request whose id is neither a string nor an `i64`).
    pub fn of(
        version: Version,
        part: Part,
        method: &'a str,
        id: Option<&Value>,
        body: Option<&'a Value>,
    ) -> Option<Seen<'a>> {
        let id = match id {
            None => IdKind::None,
            Some(Value::String(_)) => IdKind::Str,
            Some(v) if v.is_i64() => IdKind::Int,
            Some(_) => return None,
        };
        let mut h = rustc_hash::FxHasher::default();
        (version, part, method, id).hash(&mut h);
        let mut budget = MAX_NODES;
        if let Some(body) = body {
            hash_value(body, &mut h, &mut budget)?;
        }
        Some(Seen {
            version,
            part,
            method,
            id,
            body,
            hash: h.finish(),
        })
    }

    /// Whether a message like this one was found to match.
    pub fn matched(&self) -> bool {
        SEEN.with_borrow(|seen| {
            let found = seen.by_hash.get(&self.hash);
            found.is_some_and(|entries| entries.iter().any(|e| self.is(e)))
        })
    }

    /// Remembers that it matched.
    pub fn remember(&self) {
        SEEN.with_borrow_mut(|seen| {
            if seen.len >= LIMIT {
                *seen = Table::default();
            }
            seen.len += 1;
            seen.by_hash.entry(self.hash).or_default().push(Entry {
                version: self.version,
                part: self.part,
                method: self.method.to_string(),
                id: self.id,
                body: self.body.cloned(),
            });
        });
    }

    fn is(&self, e: &Entry) -> bool {
        e.version == self.version
            && e.part == self.part
            && e.id == self.id
            && e.method == self.method
            && e.body.as_ref() == self.body
    }
}

/// Hashes `value` consistently with its equality (an object's members in any order), or
/// `None` past `budget` nodes.
fn hash_value(value: &Value, h: &mut impl Hasher, budget: &mut usize) -> Option<()> {
    *budget = budget.checked_sub(1)?;
    std::mem::discriminant(value).hash(h);
    match value {
        Value::Null => {}
        Value::Bool(b) => b.hash(h),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.hash(h),
            (_, Some(i), _) => i.hash(h),
            (_, _, f) => f.map(f64::to_bits).hash(h),
        },
        Value::String(s) => s.hash(h),
        Value::Array(items) => {
            items.len().hash(h);
            for item in items {
                hash_value(item, h, budget)?;
            }
        }
        Value::Object(members) => {
            // Equal objects may hold their members in another order: summed, not chained.
            let mut sum = 0u64;
            for (k, v) in members {
                let mut one = rustc_hash::FxHasher::default();
                k.hash(&mut one);
                hash_value(v, &mut one, budget)?;
                sum = sum.wrapping_add(one.finish());
            }
            (members.len(), sum).hash(h);
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::mismatch;
    use serde_json::json;

    const V: Version = Version::V2025_11_25;

    fn ping(id: Value, params: Option<&Value>) -> Option<Seen<'_>> {
        Seen::of(V, Part::Request, "ping", Some(&id), params)
    }

    /// A match is known again for another id of the same kind, and for nothing else: a
    /// message that differs in its body is checked, and its mismatch found.
    #[test]
    fn a_match_stands_for_messages_that_differ_only_in_their_id() {
        ping(json!(1), None).unwrap().remember();
        assert!(ping(json!(2), None).unwrap().matched());
        assert!(!ping(json!("2"), None).unwrap().matched(), "a string id");
        assert!(
            ping(json!(u64::MAX), None).is_none(),
            "no i64: not remembered"
        );
        let bad = json!({"_meta": 5});
        assert!(!ping(json!(3), Some(&bad)).unwrap().matched());
        let message = json!({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": bad});
        assert!(mismatch(V, Part::Request, "ping", &message).is_some());
        let notification = Seen::of(V, Part::Notification, "ping", None, None).unwrap();
        assert!(!notification.matched(), "another part");
    }

    /// Objects equal but for the order of their members are one message.
    #[test]
    fn members_in_another_order_are_the_same_body() {
        let (a, b) = (json!({"x": 1, "y": [true]}), json!({"y": [true], "x": 1}));
        let seen = |body| Seen::of(V, Part::Notification, "n", None, Some(body)).unwrap();
        seen(&a).remember();
        assert!(seen(&b).matched());
        assert!(!seen(&json!({"x": 1, "y": [false]})).matched());
    }

    #[test]
    fn large_messages_are_not_remembered() {
        let big = Value::Array((0..MAX_NODES as i64).map(Value::from).collect());
        assert!(Seen::of(V, Part::Notification, "n", None, Some(&big)).is_none());
    }
}
