//! Numbers of the words an observation names, found by the word's address when it is a
//! `'static` string (`Word::Borrowed`: the monitor's constants, `c2s`, `req`, `ping`), so
//! that a message's five or so look-ups of its head and constructors hash two integers
//! instead of each word's text. Static memory never changes, so an address and a length
//! name one text for the life of the process; an owned word (a parsed observation's) has
//! no such address and is looked up by its text. The last few words found sit in a small
//! table read by their address alone (a message names the same three or four words as the
//! one before it), before the hash map.

use agentpi_check::replay::Word;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};

/// How many words the table in front of the map holds (a power of two).
const RECENT: usize = 16;

/// The numbers found for static words, by address and length.
pub struct Statics<T: Copy> {
    found: RefCell<FxHashMap<(usize, usize), T>>,
    /// Words found lately, each at a slot of its address: (address, length, number).
    recent: [Cell<Option<(usize, usize, T)>>; RECENT],
}

impl<T: Copy> Default for Statics<T> {
    fn default() -> Self {
        Statics {
            found: RefCell::default(),
            recent: std::array::from_fn(|_| Cell::new(None)),
        }
    }
}

impl<T: Copy> Statics<T> {
    /// The number of `word`: remembered for a static word, else `by_text(word)`, which is
    /// remembered when it finds one (a word without a number may get one later).
    pub fn get(&self, word: &Word, by_text: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        let Cow::Borrowed(text) = word else {
            return by_text(word);
        };
        let at = (text.as_ptr() as usize, text.len());
        // Words of one string constant are apart by at least their length: the address's
        // low bits above the byte tell most of them apart.
        let slot = &self.recent[(at.0 >> 1) % RECENT];
        if let Some((address, len, found)) = slot.get()
            && (address, len) == at
        {
            return Some(found);
        }
        let known = self.found.borrow().get(&at).copied();
        let found = match known {
            Some(found) => found,
            None => {
                let found = by_text(text)?;
                self.found.borrow_mut().insert(at, found);
                found
            }
        };
        slot.set(Some((at.0, at.1, found)));
        Some(found)
    }

    /// Forgets every number (the texts were numbered afresh).
    pub fn clear(&self) {
        self.found.borrow_mut().clear();
        self.recent.iter().for_each(|slot| slot.set(None));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A static word is numbered by its text once; an owned word every time; a word the
    /// text look-up does not know is not remembered as unknown.
    #[test]
    fn static_words_are_looked_up_once() {
        let statics = Statics::default();
        let calls = std::cell::Cell::new(0);
        let number = |text: &str| {
            calls.set(calls.get() + 1);
            (text == "ping").then_some(7)
        };
        let ping: Word = Cow::Borrowed("ping");
        assert_eq!(statics.get(&ping, number), Some(7));
        assert_eq!(statics.get(&ping, number), Some(7));
        assert_eq!(calls.get(), 1);
        let owned: Word = Cow::Owned("ping".to_string());
        assert_eq!(statics.get(&owned, number), Some(7));
        assert_eq!(calls.get(), 2);
        let other: Word = Cow::Borrowed("pong");
        assert_eq!(statics.get(&other, number), None);
        assert_eq!(statics.get(&other, number), None);
        assert_eq!(calls.get(), 4);
        statics.clear();
        assert_eq!(statics.get(&ping, number), Some(7));
        assert_eq!(calls.get(), 5);
    }

    /// Words at one address, or at addresses that share a slot of the table in front of
    /// the map, keep numbers of their own, in any order and again after a clear.
    #[test]
    fn words_sharing_a_slot_keep_their_numbers() {
        const TEXT: &str = "pingpongreqresnotecancelprogress_0123456789abcdefghijklmnopqrstuvwxyz";
        let words: Vec<&'static str> = (0..TEXT.len())
            .flat_map(|at| (1..=4).filter_map(move |len| TEXT.get(at..at + len)))
            .collect();
        let number = |text: &str| Some(TEXT.find(text).unwrap() * 8 + text.len());
        let statics = Statics::default();
        for round in 0..3 {
            for (i, &word) in words.iter().enumerate() {
                // Forwards, then backwards, then every third, so the slots hold others.
                let word = match round {
                    1 => words[words.len() - 1 - i],
                    2 => words[i * 3 % words.len()],
                    _ => word,
                };
                let got = statics.get(&Cow::Borrowed(word), number);
                assert_eq!(got, number(word), "{word:?}");
            }
            statics.clear();
        }
    }
}
