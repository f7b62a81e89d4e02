//! What one component can take part in, as far as choosing a window needs: whether it is
//! *passive* (every move it has is visible to the monitor or an input on a hidden channel, so
//! it moves between messages only when another component outputs to it, and may stay out of a
//! window), the hidden channels it takes and outputs on, and the heads of the labels it
//! offers. Computed by the
//! semantics' own rules (`Semantics::component_moves`) once per component up to its names.

use super::names::normal_form;
use super::statics::Statics;
use agentpi_check::replay::{Alphabet, Class, Word};
use agentpi_semantics::{
    Chan, Closure, Head as LabelHead, Label, MoveKind, Proc, Semantics, Value,
};
use rustc_hash::FxHashMap;
use std::rc::Rc;
use std::sync::Arc;

/// A head name (a channel's declared or `new` name, or an event's) or a constructor's name,
/// interned ([`Heads`]): the indices of `Rest` hash and compare integers, and a look-up by
/// an observation's names allocates nothing.
pub type Head = u32;

/// A head and the constructor of a label's first value, when it is one: what an observation
/// is looked up by.
pub type OutKey = (Head, Option<Head>);

/// A head, the constructor of a label's first value, a position in that constructor's
/// payload and the constructor found there: `c2s(req(r, ping, t))` has `(c2s, req, 1, ping)`.
/// An observation that names the constructor at a position is taken only by labels with it
/// there (a ping by the sender of pings, not by the senders of the other kinds).
pub type ArgKey = (Head, Head, usize, Head);

#[derive(Debug, Default)]
pub struct Summary {
    /// Every move is visible or an input on a hidden channel: the component moves only when
    /// a message is taken or another component outputs on such a channel.
    pub passive: bool,
    /// The hidden channels it inputs on (a passive component's only hidden moves).
    pub hidden_ins: Vec<Head>,
    /// The hidden channels it outputs on: a window holding it needs their takers.
    pub hidden_outs: Vec<Head>,
    /// Heads it takes part in whatever the values: its inputs, and its own visible
    /// communications (within the component).
    pub ins: Vec<Head>,
    /// Its outputs and visible events, by head and first constructor.
    pub outs: Vec<OutKey>,
    /// Its outputs and visible events, by the constructors of their first value's payload.
    pub out_args: Vec<ArgKey>,
}

/// Summaries by the component's normal form, and by the closure of a waiting component: a
/// component that did not move is the same shared closure, found without normalizing it.
#[derive(Default)]
pub struct Summaries {
    cache: FxHashMap<Proc, Rc<Summary>>,
    /// By the closure's address; the closure is held, so no other takes its address.
    shared: FxHashMap<usize, (Arc<Closure>, Rc<Summary>)>,
    /// The names the summaries' keys hold. Never started over: the indices of `Rest` keep
    /// its numbers, and a program has few names.
    pub heads: Heads,
}

/// Names numbered in order of first use.
#[derive(Default)]
pub struct Heads {
    ids: FxHashMap<Box<str>, Head>,
    /// The numbers of static words, by address (a number, once given, stays).
    statics: Statics<Head>,
}

impl Heads {
    /// The number of `name`, given it one if it has none.
    fn intern(&mut self, name: &str) -> Head {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.ids.len() as Head;
        self.ids.insert(name.into(), id);
        id
    }

    /// The number of `name`, if any summary holds it (if none does, no group is filed
    /// under it).
    pub fn get(&self, name: &str) -> Option<Head> {
        self.ids.get(name).copied()
    }

    /// [`Heads::get`] of an observation's word.
    pub fn word(&self, word: &Word) -> Option<Head> {
        self.statics.get(word, |text| self.get(text))
    }
}

/// The cache starts over past this many distinct components (a session meets few shapes:
/// names are abstracted away, so a flood of requests adds none).
const LIMIT: usize = 1 << 14;

impl Summaries {
    pub fn of(&mut self, sem: &Semantics<'_>, alphabet: &Alphabet, proc: &Proc) -> Rc<Summary> {
        let Proc::Leaf(closure) = proc else {
            return self.by_form(sem, alphabet, proc);
        };
        let at = Arc::as_ptr(closure) as usize;
        if let Some((_, found)) = self.shared.get(&at) {
            return found.clone();
        }
        let found = self.by_form(sem, alphabet, proc);
        if self.shared.len() >= LIMIT {
            self.shared.clear();
        }
        self.shared.insert(at, (closure.clone(), found.clone()));
        found
    }

    fn by_form(&mut self, sem: &Semantics<'_>, alphabet: &Alphabet, proc: &Proc) -> Rc<Summary> {
        let normal = normal_form(proc);
        if let Some(found) = self.cache.get(&normal) {
            return found.clone();
        }
        let summary = Rc::new(summarize(sem, alphabet, &normal, &mut self.heads));
        if self.cache.len() >= LIMIT {
            self.cache.clear();
        }
        self.cache.insert(normal, summary.clone());
        summary
    }
}

fn summarize(sem: &Semantics<'_>, alphabet: &Alphabet, proc: &Proc, heads: &mut Heads) -> Summary {
    let moves = sem.component_moves(proc, false);
    let mut s = Summary {
        passive: true,
        ..Summary::default()
    };
    let visible = |label: &Label| alphabet.class(sem, label) == Class::Visible;
    for m in moves.offers.iter().filter(|m| !m.twin) {
        match &m.kind {
            MoveKind::Alone { label, .. } => {
                s.passive &= visible(label);
                s.outs.push(out_key(sem, label, heads));
                s.out_args.extend(arg_keys(sem, label, heads));
            }
            MoveKind::Fault(_) => s.passive = false,
            MoveKind::Out { chan, values, .. } => {
                let label = Label {
                    head: LabelHead::Chan(*chan),
                    args: values.clone(),
                };
                let shown = visible(&label);
                s.passive &= sem.buffer(*chan).is_none() && shown;
                s.outs.push(out_key(sem, &label, heads));
                s.out_args.extend(arg_keys(sem, &label, heads));
                if !shown {
                    s.hidden_outs.push(heads.intern(sem.chan_name(*chan)));
                }
            }
            MoveKind::In { chan, .. } => {
                let buffered = sem.buffer(*chan).is_some();
                if visible(&on(*chan)) || buffered {
                    s.passive &= !buffered;
                    s.ins.push(heads.intern(sem.chan_name(*chan)));
                } else {
                    s.hidden_ins.push(heads.intern(sem.chan_name(*chan)));
                }
            }
        }
    }
    for step in moves.internal.iter().flat_map(|(_, _, steps)| steps) {
        s.passive &= step.then.is_ok() && visible(&step.label);
        if let Some(chan) = step.label.head.chan() {
            s.ins.push(heads.intern(sem.chan_name(chan)));
        }
    }
    s.sort();
    s
}

impl Summary {
    /// The keys of several components' summaries together (what a group is filed under).
    pub fn merge(summaries: &[Rc<Summary>]) -> Summary {
        let mut s = Summary {
            passive: summaries.iter().all(|s| s.passive),
            ..Summary::default()
        };
        for one in summaries {
            s.hidden_ins.extend(&one.hidden_ins);
            s.hidden_outs.extend(&one.hidden_outs);
            s.ins.extend(&one.ins);
            s.outs.extend(&one.outs);
            s.out_args.extend(&one.out_args);
        }
        s.sort();
        s
    }

    /// Each list sorted, each key once: a group of one component is filed under its
    /// component's summary as it is.
    fn sort(&mut self) {
        for heads in [&mut self.hidden_ins, &mut self.hidden_outs, &mut self.ins] {
            heads.sort();
            heads.dedup();
        }
        self.outs.sort();
        self.outs.dedup();
        self.out_args.sort();
        self.out_args.dedup();
    }
}

fn on(chan: Chan) -> Label {
    Label {
        head: LabelHead::Chan(chan),
        args: Box::default(),
    }
}

/// The constructors in the payload of `label`'s first value, by position (see [`ArgKey`]).
fn arg_keys(sem: &Semantics<'_>, label: &Label, heads: &mut Heads) -> Vec<ArgKey> {
    let (head, Some(ctor)) = out_key(sem, label, heads) else {
        return Vec::new();
    };
    let Some(Value::Ctor(_, _, payload)) = label.args.first() else {
        return Vec::new();
    };
    let mut at = |(i, v): (usize, &Value)| match v {
        Value::Ctor(..) => Some((head, ctor, i, heads.intern(ctor_name(sem, v)?))),
        _ => None,
    };
    payload.iter().enumerate().filter_map(&mut at).collect()
}

/// The name of `value`'s constructor, when it is one.
fn ctor_name<'a>(sem: &'a Semantics<'_>, value: &Value) -> Option<&'a str> {
    let Value::Ctor(e, i, _) = value else {
        return None;
    };
    let ctor = &sem.program.enums[e.0 as usize].ctors[*i as usize];
    Some(ctor.name.as_str())
}

/// The head's name and the first value's constructor.
pub fn out_key(sem: &Semantics<'_>, label: &Label, heads: &mut Heads) -> OutKey {
    let head = match &label.head {
        LabelHead::Tau => "tau",
        LabelHead::Chan(c) | LabelHead::Send(c) | LabelHead::Lost(c) | LabelHead::Receive(c) => {
            sem.chan_name(*c)
        }
        LabelHead::Event(e) => sem.program.events[e.0 as usize].name.as_str(),
    };
    let ctor = label.args.first().and_then(|v| ctor_name(sem, v));
    (heads.intern(head), ctor.map(|c| heads.intern(c)))
}
