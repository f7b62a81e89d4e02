//! The requests in flight of a session, each kept once with its key (`request_key`): a
//! request whose id is a 64-bit signed integer (nearly every one) by its sender and that
//! number, so that its answer finds it, and the key the model bound, by the number it carries
//! (no key text written, no text hashed or compared); any other by its key's text. Asked by a
//! key's text (a cancellation's, an HTTP exchange's), a table answers as one map of the keys
//! would.

use crate::request_key::{self, int_key, owner};
use crate::trace::Dir;
use agentpi_check::replay::Key;
use rustc_hash::FxHashMap;
use serde_json::Value;

/// A request's sender (`request_key::owner`) and integer id.
type Int = (Dir, Option<u64>, i64);

/// The requests in flight, by key: `V` is what is kept of each.
#[derive(Clone, Debug)]
pub struct Requests<V> {
    ints: FxHashMap<Int, (Key, V)>,
    /// The requests whose id is no 64-bit signed integer, by their key's text.
    others: FxHashMap<Key, V>,
}

impl<V> Default for Requests<V> {
    fn default() -> Self {
        Requests {
            ints: FxHashMap::default(),
            others: FxHashMap::default(),
        }
    }
}

/// Where request `id` of `dir` from `sender` is kept among the integers: an id that is a
/// 64-bit signed integer, of a side whose keys `int_key` reads back (every request's).
fn int(dir: Dir, id: &Value, sender: Option<u64>) -> Option<Int> {
    let n = id.as_i64().filter(|_| matches!(dir, Dir::C2s | Dir::S2c))?;
    let (dir, sender) = owner(dir, sender);
    Some((dir, sender, n))
}

impl<V> Requests<V> {
    /// Files request `id` of `dir` from `sender` as `value`, under `key` (the key
    /// `request_key::of` makes of them), in place of one filed so before.
    pub fn insert(&mut self, dir: Dir, id: &Value, sender: Option<u64>, key: Key, value: V) {
        match int(dir, id, sender) {
            Some(at) => {
                self.ints.insert(at, (key, value));
            }
            None => {
                self.others.insert(key, value);
            }
        }
    }

    /// Request `id` of `dir` from `sender`, with its key (written only for an id that is no
    /// such integer).
    pub fn find(&self, dir: Dir, id: &Value, sender: Option<u64>) -> Option<(&Key, &V)> {
        match int(dir, id, sender) {
            Some(at) => self.ints.get(&at).map(|(k, v)| (k, v)),
            None => (self.others).get_key_value(&*request_key::of(dir, id, sender)),
        }
    }

    /// [`Requests::find`], taken out of the table.
    pub fn take(&mut self, dir: Dir, id: &Value, sender: Option<u64>) -> Option<(Key, V)> {
        match int(dir, id, sender) {
            Some(at) => self.ints.remove(&at),
            None => (self.others).remove_entry(&*request_key::of(dir, id, sender)),
        }
    }

    /// The request whose key has text `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        match int_key(key) {
            Some((dir, n, sender)) => self.ints.get(&(dir, sender, n)).map(|(_, v)| v),
            None => self.others.get(key),
        }
    }

    /// [`Requests::get`], taken out of the table.
    pub fn remove(&mut self, key: &str) -> Option<V> {
        match int_key(key) {
            Some((dir, n, sender)) => self.ints.remove(&(dir, sender, n)).map(|(_, v)| v),
            None => self.others.remove(key),
        }
    }

    /// Every request, with its key (in no order to rely on).
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &V)> {
        let ints = self.ints.values().map(|(k, v)| (k, v));
        ints.chain(&self.others)
    }

    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.iter().map(|(k, _)| k)
    }

    pub fn is_empty(&self) -> bool {
        self.ints.is_empty() && self.others.is_empty()
    }

    pub fn clear(&mut self) {
        self.ints.clear();
        self.others.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Against one map of the keys' texts: a random sequence of requests of each side, some
    /// from connections, with ids of every type, filed, found and taken by id, asked for and
    /// removed by key text; the whole table compared after every operation.
    #[test]
    fn the_same_as_a_map_of_keys() {
        let mut next = crate::random::below(0x2545_f491_4f6c_dd1du64);
        let texts = [
            "\"a\"",
            "\"5\"",
            "\"c2s:5\"",
            "1.5",
            "-0",
            "9223372036854775808",
            "18446744073709551615",
            "null",
            "true",
        ];
        let (mut table, mut map) = (Requests::default(), BTreeMap::<String, u64>::new());
        for round in 0..6000u64 {
            let id: Value = match next(4) {
                0 => Value::from(next(40) as i64 - 20),
                1 => serde_json::from_str(texts[next(texts.len() as u64) as usize]).unwrap(),
                2 => Value::from([i64::MIN, i64::MAX, -1, 0][next(4) as usize]),
                _ => Value::from(next(12)),
            };
            // A side no request comes from, too: kept apart as the map keeps it.
            let dir = [Dir::C2s, Dir::C2s, Dir::S2c, Dir::Stderr][next(4) as usize];
            let sender = [None, Some(0), Some(3)][next(3) as usize];
            let key = request_key::of(dir, &id, sender);
            let want = map.get(&*key).copied();
            match next(5) {
                0 | 1 => {
                    table.insert(dir, &id, sender, key.clone(), round);
                    map.insert(key.to_string(), round);
                }
                2 => {
                    let found = table.find(dir, &id, sender);
                    assert_eq!(
                        found.map(|(k, &v)| (k.to_string(), v)),
                        want.map(|v| (key.to_string(), v))
                    );
                    assert_eq!(table.get(&key).copied(), want, "{key}");
                }
                3 => {
                    let taken = table.take(dir, &id, sender);
                    assert_eq!(
                        taken.map(|(k, v)| (k.to_string(), v)),
                        want.map(|v| (key.to_string(), v))
                    );
                    map.remove(&*key);
                }
                _ => {
                    assert_eq!(table.remove(&key), want, "{key}");
                    map.remove(&*key);
                }
            }
            let all: BTreeMap<String, u64> =
                table.iter().map(|(k, &v)| (k.to_string(), v)).collect();
            assert_eq!(all, map);
            assert_eq!(table.keys().count(), map.len());
            assert_eq!(table.is_empty(), map.is_empty());
        }
        table.clear();
        assert!(table.is_empty() && table.iter().next().is_none());
    }
}
