//! Whole steps of a window remembered: a window is a canonical state of its own, and in a
//! session the same window meets the same kind of message again and again (every ping of a
//! flood is taken by the same few components), so the explanation after the message (the
//! shared semantics' transitions and closure, computed once) is looked up by the window, its
//! bindings and the observation, with the keys abstracted to their places, and renamed back.
//!
//! Only steps with one explanation and no flag are remembered: they need nothing but the
//! state, the bindings and where the window's names came from. What a step finds depends on
//! a key only through whether two keys are the same and whether a key is bound (in the window,
//! to which name, or outside it), which the abstraction keeps; so a remembered step is what
//! the rules would find again.

use super::closure::Hyp;
use super::split::Grouping;
use super::summary::Head;
use agentpi_check::replay::{Arg, HeadPat, Key, Observation};
use agentpi_ir::core::LabelDir;
use agentpi_semantics::State;
use rustc_hash::FxHashMap;
use std::fmt::Write;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// The memo starts over past this many steps (a session meets few shapes of window).
const LIMIT: usize = 1 << 12;

/// What a step is looked up by: the window's state, the names its bound keys hold (keys in
/// order), and the observation with its keys as places (see [`Abstract`]).
struct StepKey {
    state: State,
    names: Vec<u32>,
    obs: String,
}

/// The one explanation after a step, with keys as places and names of the window by their
/// ids in it; the hidden channels the closure's states output on; and how its components
/// fall into groups (put back into the explanation without linking them again).
pub struct Step {
    state: State,
    state_hash: u64,
    names: Vec<(u32, u32)>,
    /// (id in the window, id in `state`) of each name of the window that lives on.
    track: Vec<(u32, u32)>,
    pub hidden_outs: Vec<Head>,
    pub grouping: Rc<Grouping>,
}

/// A window and an observation, abstracted: the key of their step, and the keys by place
/// (the window's bound keys in order, then the observation's others as they occur).
pub struct Abstract {
    hash: u64,
    names: Vec<u32>,
    obs: String,
    keys: Vec<Key>,
}

/// The steps by the hash of their key (the window's state is compared where it is, not
/// copied into a key for every look-up).
#[derive(Default)]
pub struct Steps {
    table: FxHashMap<u64, Vec<(StepKey, Rc<Step>)>>,
    len: usize,
}

impl Steps {
    /// How many steps it holds.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The step of window `cut` abstracted as `at`, if remembered.
    pub fn get(&self, at: &Abstract, cut: &Hyp) -> Option<Rc<Step>> {
        let same = |(k, _): &&(StepKey, Rc<Step>)| {
            k.names == at.names && k.obs == at.obs && k.state == cut.state
        };
        let found = self.table.get(&at.hash)?.iter().find(same);
        found.map(|(_, step)| step.clone())
    }

    /// Remembers the step of `at` when it found one explanation (`after`, of window `cut`)
    /// and no flag.
    pub fn remember(
        &mut self,
        at: Abstract,
        cut: &Hyp,
        after: &[Hyp],
        hidden_outs: Vec<Head>,
        grouping: Rc<Grouping>,
    ) {
        let [after] = after else {
            return;
        };
        let place = |key: &Key| at.keys.iter().position(|k| k == key).map(|p| p as u32);
        let Some(names) = after
            .names
            .iter()
            .map(|(k, id)| Some((place(k)?, *id)))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let local = |stable: u32| cut.track.iter().find(|t| t.0 == stable).map(|t| t.1);
        let Some(track) = after
            .track
            .iter()
            .map(|&(stable, id)| Some((local(stable)?, id)))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        if self.len >= LIMIT {
            self.table.clear();
            self.len = 0;
        }
        let step = Step {
            state: after.state.clone(),
            state_hash: after.state_hash(),
            names,
            track,
            hidden_outs,
            grouping,
        };
        let key = StepKey {
            state: cut.state.clone(),
            names: at.names,
            obs: at.obs,
        };
        self.table
            .entry(at.hash)
            .or_default()
            .push((key, Rc::new(step)));
        self.len += 1;
    }
}

impl Step {
    /// The explanation after the step from window `cut`, whose keys by place are `at`'s.
    pub fn after(&self, at: &Abstract, cut: &Hyp) -> Hyp {
        let mut names: Vec<(Key, u32)> = (self.names.iter())
            .map(|&(place, id)| (at.keys[place as usize].clone(), id))
            .collect();
        names.sort();
        let stable = |local: u32| cut.track.iter().find(|t| t.1 == local).map(|t| t.0);
        let track = (self.track.iter())
            .filter_map(|&(local, id)| Some((stable(local)?, id)))
            .collect();
        let (state, hash) = (self.state.clone(), self.state_hash);
        Hyp::hashed(state, hash, names, track, cut.elsewhere.clone())
    }
}

/// Abstracts window `cut` and `obs` (whose head is a declared name: a window's).
pub fn abstract_step(cut: &Hyp, obs: &Observation) -> Abstract {
    let mut keys: Vec<Key> = cut.names.iter().map(|(k, _)| k.clone()).collect();
    let names: Vec<u32> = cut.names.iter().map(|(_, id)| *id).collect();
    let mut text = String::new();
    match &obs.head {
        HeadPat::Named(n) => text.push_str(n),
        HeadPat::Name(key) => place(key, cut, &mut keys, &mut text),
    }
    text.push(match obs.dir {
        LabelDir::Any => '/',
        LabelDir::Send => '!',
        LabelDir::Receive => '?',
    });
    text.push(if obs.lost { 'l' } else { '.' });
    for arg in &obs.args {
        text.push(',');
        write_arg(arg, cut, &mut keys, &mut text);
    }
    Abstract {
        hash: hash_of(cut, &names, &text),
        names,
        obs: text,
        keys,
    }
}

fn hash_of(cut: &Hyp, names: &[u32], text: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write_u64(cut.state_hash());
    names.hash(&mut h);
    text.hash(&mut h);
    h.finish()
}

/// Writes `arg` with its keys as places.
fn write_arg(arg: &Arg, cut: &Hyp, keys: &mut Vec<Key>, out: &mut String) {
    match arg {
        Arg::Any => out.push('_'),
        Arg::Int(i) => _ = write!(out, "{i}"),
        Arg::Bool(b) => _ = write!(out, "{b}"),
        Arg::Ctor(_, args) | Arg::Tuple(args) => {
            out.push_str(name_of(arg));
            out.push('(');
            for a in args {
                write_arg(a, cut, keys, out);
                out.push(',');
            }
            out.push(')');
        }
        Arg::Chan(name) => _ = write!(out, "'{name}"),
        Arg::Name(key) => place(key, cut, keys, out),
        Arg::IfBound(key, yes, no) => {
            out.push('?');
            place(key, cut, keys, out);
            out.push('[');
            write_arg(yes, cut, keys, out);
            out.push('|');
            write_arg(no, cut, keys, out);
            out.push(']');
        }
    }
}

/// A constructor's name; a tuple's is empty.
fn name_of(arg: &Arg) -> &str {
    match arg {
        Arg::Ctor(name, _) => name,
        _ => "",
    }
}

/// Writes `key` as its place, and for a key the window holds no name of, whether it is
/// bound outside the window (what the rules can tell of it).
fn place(key: &Key, cut: &Hyp, keys: &mut Vec<Key>, out: &mut String) {
    let at = match keys.iter().position(|k| k == key) {
        Some(at) => at,
        None => {
            keys.push(key.clone());
            keys.len() - 1
        }
    };
    let outside = at >= cut.names.len() && cut.bound_elsewhere(key);
    out.push(if outside { '%' } else { '#' });
    // One character a place (from the private use area), or its number and a `;`.
    match char::from_u32(0xE000 + at as u32).filter(|_| at < 0x1000) {
        Some(c) => out.push(c),
        None => _ = write!(out, "{at};"),
    }
}
