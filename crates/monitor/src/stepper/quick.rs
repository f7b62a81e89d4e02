//! Steps remembered without cutting the window: what a message does to a window of the one
//! explanation is a function of the forms of its groups (in window order), of which of their
//! names are bound to which keys, and of the observation with its keys as places (as
//! `steps.rs` abstracts them: what the rules can tell of a key is whether two are the same
//! and whether one is bound, in the window or outside it). So a step found by cutting the
//! window and stepping it (`Stepper::step_explained`) is remembered as what became of each
//! group of the window, the groups it made (forms, keys and names) and the bindings after,
//! all with names as places: the window's names in order, then the names the step made. A
//! later message with the same look-up applies that to the explanation in place: no cut, no
//! canonical state, no renaming of the window and back. Only steps with one explanation, no
//! flag and no active component before or after are remembered, and the check for takers of
//! the closure's hidden outputs outside the window is made again on every hit.

use super::forms::Form;
use super::split::{Bindings, GroupId, Rest};
use super::statics::Statics;
use super::summary::{Head, Summary};
use agentpi_check::replay::{Arg, HeadPat, Key, Observation, Word};
use agentpi_ir::core::LabelDir;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::rc::Rc;

/// The memo starts over past this many steps, and its words past this many words.
const LIMIT: usize = 1 << 12;

/// A window and an observation as a remembered step is looked up by, with the names and keys
/// its places stand for.
pub struct Lookup {
    /// The groups' forms, the binding of each of their names (a place, or none), the
    /// observation with keys as places.
    key: Vec<u32>,
    /// The window's names: its groups' names in window order.
    pub names: Vec<u32>,
    /// Where each group's names start in `names`.
    starts: Vec<usize>,
    /// The keys by place: the window's bound keys in order, then the observation's others.
    pub keys: Vec<Key>,
    /// The window's names bound to a key (those of `keys`' first places, in order): the only
    /// ones a step taken in place has to let go of.
    pub bound: Vec<u32>,
}

/// What became of a group of the window.
pub enum Fate {
    Kept,
    Removed,
    /// Its place (id and indices) taken by components of this form holding these names.
    Replaced(Rc<Form>, Vec<u32>),
}

/// A group the step made: its form, keys and names.
pub struct Made {
    form: Rc<Form>,
    keys: Rc<Summary>,
    names: Vec<u32>,
}

/// A remembered step. Names are places: `0..n` the window's names, `n..` the names it made.
pub struct Quick {
    pub hidden_outs: Vec<Head>,
    fate: Vec<Fate>,
    made: Vec<Made>,
    /// The bindings of the window's groups after the step: (key place, name).
    binds: Vec<(u32, u32)>,
    fresh: u32,
}

/// The remembered steps, and the words (heads, constructors, channels) of their look-ups.
#[derive(Default)]
pub struct Quicks {
    table: FxHashMap<Vec<u32>, Rc<Quick>>,
    words: FxHashMap<Box<str>, u32>,
    /// The numbers of static words, by address.
    statics: Statics<u32>,
    /// How many steps were taken from the memo.
    pub hits: u64,
    /// A look-up's buffers, for the next.
    spare: Option<Box<Lookup>>,
}

impl Lookup {
    /// The part of the key that reads the window (before the observation's).
    pub fn groups_key(&self) -> &[u32] {
        &self.key[..1 + self.starts.len() + self.names.len()]
    }
}

impl Quicks {
    /// The look-up of window `groups` of `rest` (with `bindings`) and `obs`; `None` when
    /// the observation's head is a name (every window is then the whole state).
    pub fn lookup(
        &mut self,
        rest: &Rest,
        bindings: &Bindings,
        groups: &[GroupId],
        obs: &Observation,
    ) -> Option<Box<Lookup>> {
        let HeadPat::Named(head) = &obs.head else {
            return None;
        };
        let mut at = self.lookup_groups(rest, bindings, groups)?;
        let bound = at.keys.len();
        let word = self.static_word(head);
        let dir = match obs.dir {
            LabelDir::Any => 0,
            LabelDir::Send => 1,
            LabelDir::Receive => 2,
        };
        at.key
            .extend([word, dir | (obs.lost as u32) << 2, obs.args.len() as u32]);
        for arg in &obs.args {
            self.encode(arg, bindings, bound, &mut at);
        }
        Some(at)
    }

    /// The part of a look-up that reads the window (its groups' forms and the places of
    /// their names' keys), without the observation. Boxed: a look-up is five lists (120
    /// bytes), passed from here to the step found and back to [`Quicks::recycle`].
    pub fn lookup_groups(
        &mut self,
        rest: &Rest,
        bindings: &Bindings,
        groups: &[GroupId],
    ) -> Option<Box<Lookup>> {
        let mut at = self.spare.take().unwrap_or_else(|| {
            Box::new(Lookup {
                key: Vec::with_capacity(32),
                names: Vec::new(),
                starts: Vec::new(),
                keys: Vec::new(),
                bound: Vec::new(),
            })
        });
        at.key.clear();
        at.names.clear();
        at.starts.clear();
        at.keys.clear();
        at.bound.clear();
        at.key.push(groups.len() as u32);
        for &id in groups {
            let group = rest.group(id)?;
            at.key.push(group.form().id);
            at.starts.push(at.names.len());
            at.names.extend(group.names());
        }
        for name in &at.names {
            let place = match bindings.by_name.get(name) {
                Some(key) => {
                    at.keys.push(key.clone());
                    at.bound.push(*name);
                    at.keys.len() as u32
                }
                None => 0,
            };
            at.key.push(place);
        }
        Some(at)
    }

    /// Keeps the buffers of `at` for the next look-up.
    pub fn recycle(&mut self, at: Box<Lookup>) {
        self.spare = Some(at);
    }

    /// The step remembered for `at`.
    pub fn get(&self, at: &Lookup) -> Option<Rc<Quick>> {
        self.table.get(at.key.as_slice()).cloned()
    }

    /// [`Quicks::word`] of an observation's word (a static one found by its address).
    fn static_word(&mut self, word: &Word) -> u32 {
        if let Some(id) = self.statics.get(word, |_| None) {
            return id;
        }
        let id = self.word(word);
        if let Cow::Borrowed(text) = word {
            // Numbered now: found by its address from now on.
            self.statics.get(&Cow::Borrowed(*text), |_| Some(id));
        }
        id
    }

    fn word(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.words.get(text) {
            return id;
        }
        if self.words.len() >= LIMIT {
            // The look-ups remembered name words by number: they go too.
            self.words.clear();
            self.statics.clear();
            self.table.clear();
        }
        let id = self.words.len() as u32;
        self.words.insert(text.into(), id);
        id
    }

    fn encode(&mut self, arg: &Arg, bindings: &Bindings, bound: usize, at: &mut Lookup) {
        match arg {
            Arg::Any => at.key.push(0),
            Arg::Int(i) => at.key.extend([1, *i as u32, (*i >> 32) as u32]),
            Arg::Bool(b) => at.key.push(2 + *b as u32),
            Arg::Ctor(name, args) => {
                let word = self.static_word(name);
                at.key.extend([4, word, args.len() as u32]);
                args.iter()
                    .for_each(|a| self.encode(a, bindings, bound, at));
            }
            Arg::Tuple(args) => {
                at.key.extend([5, args.len() as u32]);
                args.iter()
                    .for_each(|a| self.encode(a, bindings, bound, at));
            }
            Arg::Chan(name) => {
                let word = self.word(name);
                at.key.extend([6, word]);
            }
            Arg::Name(key) => {
                at.key.push(7);
                place(key, bindings, bound, at);
            }
            Arg::IfBound(key, yes, no) => {
                at.key.push(8);
                place(key, bindings, bound, at);
                self.encode(yes, bindings, bound, at);
                self.encode(no, bindings, bound, at);
            }
        }
    }

    /// Remembers the step just taken from the window of `at` (its groups `groups`), now put
    /// back into `rest` and `bindings`: groups numbered from `first` on are the ones it
    /// made, names numbered from `counter` on (below `after`) the names it made. Nothing is
    /// remembered when a name of the result is neither (it cannot be: the window holds
    /// every name the step can reach).
    pub fn remember(
        &mut self,
        at: Lookup,
        groups: &[GroupId],
        rest: &Rest,
        bindings: &Bindings,
        (first, counter, after): (GroupId, u32, u32),
        hidden_outs: Vec<Head>,
    ) {
        let window = at.names.len() as u32;
        let refer = |name: u32| match at.names.iter().position(|&n| n == name) {
            Some(p) => Some(p as u32),
            None => (counter..after)
                .contains(&name)
                .then(|| window + name - counter),
        };
        let refer_all = |names: &[u32]| names.iter().map(|&n| refer(n)).collect::<Option<Vec<_>>>();
        let mut fate = Vec::with_capacity(groups.len());
        let mut held: Vec<u32> = Vec::new();
        for (pos, &id) in groups.iter().enumerate() {
            let Some(group) = rest.group(id) else {
                fate.push(Fate::Removed);
                continue;
            };
            held.extend(group.names());
            let end = at.starts.get(pos + 1).copied().unwrap_or(at.names.len());
            let before = &at.names[at.starts[pos]..end];
            if group.names() == before && group.form().id == at.key[1 + pos] {
                fate.push(Fate::Kept);
            } else {
                let Some(names) = refer_all(group.names()) else {
                    return;
                };
                fate.push(Fate::Replaced(group.form().clone(), names));
            }
        }
        let mut made = Vec::new();
        for id in first..rest.next_id() {
            let Some(group) = rest.group(id) else {
                continue;
            };
            held.extend(group.names());
            let Some(names) = refer_all(group.names()) else {
                return;
            };
            let (form, keys) = (group.form().clone(), group.keys().clone());
            made.push(Made { form, keys, names });
        }
        let mut binds = Vec::new();
        for name in held {
            let Some(key) = bindings.by_name.get(&name) else {
                continue;
            };
            let (Some(place), Some(name)) = (at.keys.iter().position(|k| k == key), refer(name))
            else {
                return;
            };
            binds.push((place as u32, name));
        }
        if self.table.len() >= LIMIT {
            self.table.clear();
        }
        let quick = Quick {
            hidden_outs,
            fate,
            made,
            binds,
            fresh: after - counter,
        };
        self.table.insert(at.key, Rc::new(quick));
    }
}

impl Quick {
    /// A step doing nothing (a placeholder, replaced before use).
    pub fn empty() -> Quick {
        Quick {
            hidden_outs: Vec::new(),
            fate: Vec::new(),
            made: Vec::new(),
            binds: Vec::new(),
            fresh: 0,
        }
    }

    /// Takes the step on window `groups` of `rest` and `bindings`, looked up as `at`; names
    /// it makes are numbered from `counter` on.
    pub fn apply(
        &self,
        at: &Lookup,
        groups: &[GroupId],
        rest: &mut Rest,
        bindings: &mut Bindings,
        counter: &mut u32,
    ) {
        let (window, first) = (at.names.len() as u32, *counter);
        *counter += self.fresh;
        let name = |p: &u32| match at.names.get(*p as usize) {
            Some(&n) => n,
            None => first + p - window,
        };
        // The window's other names are bound to no key (the look-up found them so, and
        // nothing bound one since): letting go of them would change nothing.
        at.bound.iter().for_each(|&n| bindings.unbind(n));
        for (fate, &id) in self.fate.iter().zip(groups) {
            if let Fate::Removed = fate {
                rest.drop_group(id);
            }
        }
        for (fate, &id) in self.fate.iter().zip(groups) {
            if let Fate::Replaced(form, names) = fate {
                rest.replace(id, None, names.iter().map(name), form.clone());
            }
        }
        for made in &self.made {
            let mut names = rest.names_buffer();
            names.extend(made.names.iter().map(name));
            rest.insert(None, names, made.keys.clone(), made.form.clone());
        }
        for (place, n) in &self.binds {
            bindings.bind(at.keys[*place as usize].clone(), name(n));
        }
    }
}

/// The place of `key` in `at` (pushed when new) and whether it is bound outside the window:
/// what [`place`] writes for it. `bound`: whether `key` is bound at all (its caller has
/// looked it up already: not hashed again here).
pub fn place_of(key: &Key, bound: bool, at: &mut Lookup) -> (u32, u32) {
    let in_window = at.bound.len();
    let place = key_place(key, at);
    let outside = place >= in_window && bound;
    (place as u32, outside as u32)
}

/// Writes `key` as its place, and for a key the window holds no name of, whether it is
/// bound outside the window.
fn place(key: &Key, bindings: &Bindings, bound: usize, at: &mut Lookup) {
    let place = key_place(key, at);
    let outside = place >= bound && bindings.by_key.contains_key(key);
    at.key.extend([place as u32, outside as u32]);
}

/// The place of `key` among the keys `at` names, pushed there when new.
fn key_place(key: &Key, at: &mut Lookup) -> usize {
    match at.keys.iter().position(|k| k == key) {
        Some(p) => p,
        None => {
            at.keys.push(key.clone());
            at.keys.len() - 1
        }
    }
}
