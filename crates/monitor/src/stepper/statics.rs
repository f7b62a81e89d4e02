//! Numbers of the words an observation names, found by the word's address when it is a
//! `'static` string (`Word::Borrowed`: the monitor's constants, `c2s`, `req`, `ping`), so
//! that a message's five or so look-ups of its head and constructors hash two integers
//! instead of each word's text. Static memory never changes, so an address and a length
//! name one text for the life of the process; an owned word (a parsed observation's) has
//! no such address and is looked up by its text.

use agentpi_check::replay::Word;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::cell::RefCell;

/// The numbers found for static words, by address and length.
#[derive(Default)]
pub struct Statics<T: Copy> {
    found: RefCell<FxHashMap<(usize, usize), T>>,
}

impl<T: Copy> Statics<T> {
    /// The number of `word`: remembered for a static word, else `by_text(word)`, which is
    /// remembered when it finds one (a word without a number may get one later).
    pub fn get(&self, word: &Word, by_text: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        let Cow::Borrowed(text) = word else {
            return by_text(word);
        };
        let at = (text.as_ptr() as usize, text.len());
        if let Some(&found) = self.found.borrow().get(&at) {
            return Some(found);
        }
        let found = by_text(text)?;
        self.found.borrow_mut().insert(at, found);
        Some(found)
    }

    /// Forgets every number (the texts were numbered afresh).
    pub fn clear(&self) {
        self.found.borrow_mut().clear();
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
}
