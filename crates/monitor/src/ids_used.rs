//! The request ids a session's senders used (J3: an id used before by the same sender), kept
//! as ranges of integers by sender instead of one hashed key per request: a flood's ids
//! count up, so its every id extends one range, found without hashing the key's text (a set
//! of keys hashed two keys a request and grew by one entry a request for the whole session).
//! An id that is no 64-bit signed integer (a string, a float, a larger integer) is kept by
//! its key's text, as before. The same answers as a set of the keys `request_key::of` makes.

use crate::request_key::{int_key, owner};
use crate::trace::Dir;
use agentpi_check::replay::Key;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use std::collections::BTreeMap;

/// The ids used, by sender: `(direction, client connection)`, the connection only for a
/// client's requests (as in the key: `request_key::of`).
#[derive(Clone, Debug, Default)]
pub struct IdsUsed {
    ints: FxHashMap<(Dir, Option<u64>), Ranges>,
    /// The keys of the other ids.
    others: FxHashSet<Key>,
}

/// A set of integers as disjoint ranges (inclusive): the one with the greatest start apart,
/// so that an id one above the last extends it in place.
#[derive(Clone, Debug, Default)]
struct Ranges {
    top: Option<(i64, i64)>,
    /// The other ranges, by start (each ending at least two below the next's start).
    below: BTreeMap<i64, i64>,
}

impl IdsUsed {
    /// Records request `id` of `dir` (from connection `sender`), whose key is `key`; whether
    /// it was new.
    pub fn insert(&mut self, dir: Dir, id: &Value, sender: Option<u64>, key: &Key) -> bool {
        match id.as_i64() {
            Some(n) => self.ints.entry(owner(dir, sender)).or_default().insert(n),
            None => self.others.insert(key.clone()),
        }
    }

    /// Whether request `id` of `dir` (from connection `sender`), whose key is `key`, was used.
    pub fn contains(&self, dir: Dir, id: &Value, sender: Option<u64>, key: &str) -> bool {
        match id.as_i64() {
            Some(n) => self
                .ints
                .get(&owner(dir, sender))
                .is_some_and(|r| r.contains(n)),
            None => self.others.contains(key),
        }
    }

    /// Whether the request whose key has text `key` was used.
    pub fn contains_key(&self, key: &str) -> bool {
        match int_key(key) {
            Some((dir, n, sender)) => self.ints.get(&(dir, sender)).is_some_and(|r| r.contains(n)),
            None => self.others.contains(key),
        }
    }

    /// The least (as text) key of a client's request with id `rid` from any connection,
    /// among the ids used: `c2s:RID#CONNECTION`.
    pub fn least_of_id(&self, rid: &Value) -> Option<String> {
        let prefix = format!("c2s:{rid}#");
        let of_id = |k: &str| {
            k.strip_prefix(&prefix)
                .is_some_and(|c| c.parse::<u64>().is_ok())
        };
        let others = self
            .others
            .iter()
            .filter(|k| of_id(k))
            .map(|k| k.to_string());
        let ints = rid.as_i64().into_iter().flat_map(|n| {
            self.ints
                .iter()
                .filter_map(move |(&(dir, sender), ranges)| {
                    let connection = sender.filter(|_| dir == Dir::C2s && ranges.contains(n))?;
                    Some(format!("c2s:{n}#{connection}"))
                })
        });
        others.chain(ints).min()
    }
}

impl Ranges {
    fn contains(&self, n: i64) -> bool {
        match self.top {
            Some((start, end)) if n >= start => n <= end,
            Some(_) => (self.below.range(..=n).next_back()).is_some_and(|(_, &end)| end >= n),
            None => false,
        }
    }

    /// Adds `n`; whether it was new.
    fn insert(&mut self, n: i64) -> bool {
        let Some((start, end)) = self.top else {
            self.top = Some((n, n));
            return true;
        };
        if (start..=end).contains(&n) {
            return false;
        }
        if end.checked_add(1) == Some(n) {
            self.top = Some((start, n));
            return true;
        }
        if n > end {
            self.below.insert(start, end);
            self.top = Some((n, n));
            return true;
        }
        if self.contains(n) {
            return false;
        }
        // Below the top range: joined to its neighbours where they touch.
        let mut low = n;
        if let Some((&s, &e)) = self.below.range(..n).next_back()
            && e.checked_add(1) == Some(n)
        {
            self.below.remove(&s);
            low = s;
        }
        if n + 1 == start {
            self.top = Some((low, end));
            return true;
        }
        let mut high = n;
        if let Some(e) = self.below.remove(&(n + 1)) {
            high = e;
        }
        self.below.insert(low, high);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request_key;

    /// Against a set of the keys themselves: every id of a random sequence of ids of both
    /// sides, some from connections, of every type, inserted and asked for by id and by key.
    #[test]
    fn the_same_as_a_set_of_keys() {
        let mut next = crate::random::below(0x9e37_79b9_7f4a_7c15u64);
        let texts = [
            "\"a\"",
            "\"a#1\"",
            "1.5",
            "-0",
            "18446744073709551615",
            "null",
            "true",
        ];
        let (mut used, mut keys) = (IdsUsed::default(), FxHashSet::<String>::default());
        for round in 0..4000u64 {
            let id: Value = match next(4) {
                0 => Value::from(round as i64 - 40),
                1 => Value::from(next(60) as i64 - 30),
                2 => serde_json::from_str(texts[next(texts.len() as u64) as usize]).unwrap(),
                _ => Value::from(i64::MAX - next(3) as i64),
            };
            let dir = if next(3) == 0 { Dir::S2c } else { Dir::C2s };
            let sender = [None, Some(0), Some(3)][next(3) as usize];
            let key = request_key::of(dir, &id, sender);
            let asked = Value::from(next(80) as i64 - 40);
            let asked = request_key::of(Dir::C2s, &asked, sender);
            assert_eq!(used.contains_key(&asked), keys.contains(&*asked), "{asked}");
            assert_eq!(used.contains(dir, &id, sender, &key), keys.contains(&*key));
            let new = used.insert(dir, &id, sender, &key);
            assert_eq!(new, keys.insert(key.to_string()), "{key}");
            assert!(used.contains_key(&key) && used.contains(dir, &id, sender, &key));
            let rid = Value::from(next(60) as i64 - 30);
            let prefix = format!("c2s:{rid}#");
            let least = keys
                .iter()
                .filter(|k| (k.strip_prefix(&prefix)).is_some_and(|c| c.parse::<u64>().is_ok()))
                .min();
            assert_eq!(used.least_of_id(&rid).as_ref(), least, "{rid}");
        }
    }

    /// Ranges joined from both sides, and ids at the ends of the integers.
    #[test]
    fn ranges_join_and_hold_their_ends() {
        let mut r = Ranges::default();
        for n in [
            10,
            12,
            11,
            5,
            3,
            4,
            20,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            9,
            6,
            7,
            8,
        ] {
            assert!(r.insert(n), "{n}");
            assert!(!r.insert(n) && r.contains(n), "{n}");
        }
        for n in [0, 1, 2, 13, 19, 21, i64::MAX - 1, i64::MIN + 2] {
            assert!(!r.contains(n), "{n}");
        }
        assert_eq!(r.below.get(&3), Some(&12));
        assert_eq!(r.top, Some((i64::MAX, i64::MAX)));
    }
}
