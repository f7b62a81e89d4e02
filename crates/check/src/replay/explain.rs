//! The replay's rules on explanations, shared by [`super::Replay`] and the monitor's stepper
//! (which replays on windows of a state): an observation against a label, and the closure
//! over hidden and flag steps that keeps the explanations with the fewest flags. One copy of
//! the rules, so that the stepper cannot drift from the reference it is tested against.

use super::{Arg, Class, Flag, HeadPat, Key, Observation, Options, ReplayError};
use agentpi_ir::core::LabelDir;
use agentpi_semantics::{Chan, Head, Label, Semantics, State, Transition, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::hash::Hash;
use std::sync::Arc;

/// What the rules need of an explanation: a state and the keys bound to its fresh names.
pub trait Explanation: Clone + Eq + Hash {
    fn state(&self) -> &State;
    /// The keys bound to names of the state, sorted by key.
    fn names(&self) -> &[(Key, u32)];
    /// The name bound to `key`; an explanation may also say a key is bound to a name no
    /// label of its state can hold (the stepper's windows: a name outside the window).
    fn bound(&self, key: &str) -> Option<u32>;
    /// The explanation after `t`, with `new` bindings added and every binding renamed into
    /// the target's numbering (bindings of vanished names dropped).
    fn advance(&self, new: &[(Key, u32)], t: &Transition) -> Self;
}

/// What the closure needs of its replay: the semantics, how labels are seen, and each
/// state's hidden and flagged transitions.
pub trait Steps {
    fn semantics(&self) -> &Semantics<'_>;
    fn options(&self) -> &Options;
    fn class(&self, label: &Label) -> Class;
    /// The hidden and flagged transitions of `state`.
    fn hidden(&self, state: &State) -> Arc<[Transition]>;
}

/// Closes `seeds` over hidden and flag steps, fewest flags first (a 0-1 breadth-first
/// search), showing `seen` every state it settles. Returns the explanations with the fewest
/// flags and those flags.
pub fn close<H: Explanation>(
    steps: &impl Steps,
    seeds: Vec<H>,
    seen: &mut dyn FnMut(&State),
) -> Result<(Vec<H>, Vec<Flag>), ReplayError> {
    let mut best: FxHashMap<H, usize> = FxHashMap::default();
    let mut paths: Vec<Vec<Flag>> = Vec::new();
    let mut queue: VecDeque<(H, usize)> = VecDeque::new();
    for seed in seeds {
        paths.push(Vec::new());
        queue.push_back((seed, paths.len() - 1));
    }
    let mut done: Vec<(H, usize)> = Vec::new();
    let mut settled: FxHashSet<H> = FxHashSet::default();
    let max_states = steps.options().max_states;
    while let Some((hyp, path)) = queue.pop_front() {
        if !settled.insert(hyp.clone()) {
            continue;
        }
        seen(hyp.state());
        if settled.len() > max_states {
            return Err(ReplayError::TooManyStates(max_states));
        }
        let mut moved = false;
        for t in steps.hidden(hyp.state()).iter() {
            if t.fault.is_some() {
                continue;
            }
            moved = true;
            let next = hyp.advance(&[], t);
            if settled.contains(&next) {
                continue;
            }
            let flagged = steps.class(&t.label) == Class::Flag;
            let flags = paths[path].len() + usize::from(flagged);
            if best.get(&next).is_some_and(|&b| b <= flags) {
                continue;
            }
            best.insert(next.clone(), flags);
            if flagged {
                let mut extended = paths[path].clone();
                extended.push(Flag {
                    label: t.label.clone(),
                    text: render(steps.semantics(), &t.label, &hyp),
                });
                paths.push(extended);
                queue.push_back((next, paths.len() - 1));
            } else {
                queue.push_front((next, path));
            }
        }
        if !moved || !steps.options().maximal {
            done.push((hyp, path));
        }
    }
    if done.is_empty() {
        // Only hidden cycles: every state on them is an explanation.
        done = settled.into_iter().map(|h| (h, 0)).collect();
    }
    Ok(fewest_flags(done, &paths))
}

/// Keeps the explanations with the fewest flags (each once), and the union of their flags.
fn fewest_flags<H: Explanation>(done: Vec<(H, usize)>, paths: &[Vec<Flag>]) -> (Vec<H>, Vec<Flag>) {
    let least = done.iter().map(|(_, p)| paths[*p].len()).min().unwrap_or(0);
    let mut hyps = Vec::new();
    let mut flags: Vec<Flag> = Vec::new();
    for (hyp, path) in done {
        if paths[path].len() != least {
            continue;
        }
        for flag in &paths[path] {
            if !flags.iter().any(|f| f.text == flag.text) {
                flags.push(flag.clone());
            }
        }
        hyps.push(hyp);
    }
    dedup(&mut hyps);
    (hyps, flags)
}

/// Keeps the first of equal explanations, in order.
pub fn dedup<H: Explanation>(hyps: &mut Vec<H>) {
    let mut seen = FxHashSet::default();
    hyps.retain(|h| seen.insert(h.clone()));
}

/// Prints a label; fresh channels bound to a key print as the key, others as `new NAME`.
pub fn render(sem: &Semantics<'_>, label: &Label, hyp: &impl Explanation) -> String {
    sem.fmt_label(label, &mut |c| match c {
        Chan::Fresh { id, .. } => match hyp.names().iter().find(|(_, v)| *v == id) {
            Some((key, _)) => key.to_string(),
            None => format!("new {}", sem.chan_name(c)),
        },
        Chan::Global(_) => sem.chan_name(c).to_string(),
    })
}

/// Matches `obs` against `label` in explanation `hyp`; on success, the bindings it adds.
pub fn match_observation(
    sem: &Semantics<'_>,
    obs: &Observation,
    label: &Label,
    hyp: &impl Explanation,
) -> Option<Vec<(Key, u32)>> {
    let mut m = Matcher {
        sem,
        hyp,
        new: Vec::new(),
    };
    let head_ok = match (&obs.head, &label.head) {
        (HeadPat::Named(n), Head::Chan(c) | Head::Send(c) | Head::Lost(c) | Head::Receive(c)) => {
            sem.chan_name(*c) == n
        }
        (HeadPat::Named(n), Head::Event(e)) => sem.program.events[e.0 as usize].name == *n,
        (
            HeadPat::Name(key),
            Head::Chan(Chan::Fresh { id, .. })
            | Head::Send(Chan::Fresh { id, .. })
            | Head::Lost(Chan::Fresh { id, .. })
            | Head::Receive(Chan::Fresh { id, .. }),
        ) => m.name(key, *id),
        _ => false,
    };
    let dir_ok = match obs.dir {
        LabelDir::Any => true,
        LabelDir::Send if obs.lost => matches!(label.head, Head::Lost(_)),
        LabelDir::Send => matches!(label.head, Head::Send(_)),
        LabelDir::Receive => matches!(label.head, Head::Receive(_)),
    };
    let args_ok = dir_ok
        && obs.args.len() == label.args.len()
        && obs
            .args
            .iter()
            .zip(label.args.iter())
            .all(|(a, v)| m.arg(a, v));
    (head_ok && args_ok).then_some(m.new)
}

struct Matcher<'a, 's, 'p, H> {
    sem: &'s Semantics<'p>,
    hyp: &'a H,
    new: Vec<(Key, u32)>,
}

impl<H: Explanation> Matcher<'_, '_, '_, H> {
    fn lookup(&self, key: &str) -> Option<u32> {
        let new = self.new.iter().find(|(k, _)| **k == *key);
        new.map(|(_, id)| *id).or_else(|| self.hyp.bound(key))
    }

    /// Key `key` against fresh id `id`: equal to its binding, or binds an unclaimed name.
    fn name(&mut self, key: &Key, id: u32) -> bool {
        if let Some(bound) = self.lookup(key) {
            return bound == id;
        }
        let claimed = self
            .hyp
            .names()
            .iter()
            .chain(&self.new)
            .any(|(_, v)| *v == id);
        if claimed {
            return false;
        }
        self.new.push((key.clone(), id));
        true
    }

    fn arg(&mut self, arg: &Arg, value: &Value) -> bool {
        match (arg, value) {
            (Arg::Any, _) => true,
            (Arg::Int(i), Value::Int(j)) => i == j,
            (Arg::Bool(a), Value::Bool(b)) => a == b,
            (Arg::Ctor(name, args), Value::Ctor(e, i, vs)) => {
                let ctor = &self.sem.program.enums[e.0 as usize].ctors[*i as usize];
                ctor.name == *name && self.all(args, vs)
            }
            (Arg::Tuple(args), Value::Tuple(vs)) => self.all(args, vs),
            (Arg::Chan(name), Value::Chan(c)) => self.sem.chan_name(*c) == name,
            (Arg::Name(key), Value::Chan(Chan::Fresh { id, .. })) => self.name(key, *id),
            (Arg::IfBound(key, yes, no), v) => {
                if self.lookup(key).is_some() {
                    self.arg(yes, v)
                } else {
                    self.arg(no, v)
                }
            }
            _ => false,
        }
    }

    fn all(&mut self, args: &[Arg], values: &[Value]) -> bool {
        args.len() == values.len() && args.iter().zip(values).all(|(a, v)| self.arg(a, v))
    }
}
