//! The successor function: firing one offer (rules *Tau*, *Event*, *Assert*, *Assert-Fail*,
//! *Fault*) or two that meet (rules *Comm*, *Comm-Within*, *Comm-Repl*), and rebuilding the
//! state around the continuations (rule *Seq-End*).
//!
//! Rebuilding walks an offer's context from the closure that acted out to the state's top
//! level: in a list, the acting component is replaced by what it became; a sequence whose left
//! side is left with no components hands over to its right side; a chosen branch replaces its
//! whole choice; a replication stays beside the copy that acted.

use crate::eval::{FaultKind, matches_all};
use crate::label::{Head, Label};
use crate::offers::{Act, Layer, Meeting, Offer, Opener, meetings};
use crate::queue::{Queue, find, pop, push};
use crate::spawn::Spawner;
use crate::state::{Closure, Proc, State, canonicalize, rename_closure, rename_procs};
use crate::value::{Chan, Value};
use crate::{Fault, Instance, Semantics, Transition};
use agentpi_diagnostics::Span;
use rustc_hash::FxHashMap;
use std::rc::Rc;
use std::sync::Arc;

type Built = Result<Vec<Proc>, Fault>;

/// The transitions of `state` whose label `keep` accepts; a rejected label's target is never
/// built (the monitor asks for the few transitions that can take one observed message out of
/// states with thousands of components).
pub(crate) fn successors(
    sem: &Semantics<'_>,
    state: &State,
    keep: &dyn Fn(&Label) -> bool,
) -> Vec<Transition> {
    let mut opener = Opener::new(Spawner::new(sem, state.fresh));
    opener.open_list(Rc::new(state.procs.to_vec()));
    let offers = std::mem::take(&mut opener.offers);
    let mut stepper = Stepper::new(opener.spawner, &state.queues, keep);
    for offer in &offers {
        stepper.single(offer);
    }
    stepper.communications(&offers);
    let out = std::mem::take(&mut stepper.out);
    out.into_iter().map(|e| e.finish(sem, state)).collect()
}

/// A transition as the rules give it, before it is put into canonical form: what the
/// acting components became (`built`) inside the rest of the state, or the fault it raised.
pub(crate) enum Emitted {
    Step {
        label: Label,
        built: Built,
        queues: Vec<Queue>,
        actors: Vec<Instance>,
        span: Span,
        /// The fresh ids used so far: every id in `built` is below it.
        ids: u32,
    },
    /// A fault raised before anything was built (a failed assertion, a pattern that cannot
    /// be evaluated): labelled `tau`.
    Fault { fault: Fault, actor: Instance },
}

impl Emitted {
    /// The transition out of `state`: the target in canonical form, or the fault.
    fn finish(self, sem: &Semantics<'_>, state: &State) -> Transition {
        match self {
            Emitted::Fault { fault, actor } => fault_at(state, Label::tau(), fault, vec![actor]),
            Emitted::Step {
                label,
                built,
                actors,
                span,
                ..
            } if built.as_ref().is_ok_and(|procs| too_deep(procs)) => {
                let kind = FaultKind::NestedTooDeep;
                fault_at(state, label, Fault { kind, span }, actors)
            }
            Emitted::Step {
                label,
                built: Err(fault),
                actors,
                ..
            } => fault_at(state, label, fault, actors),
            Emitted::Step {
                label,
                built: Ok(procs),
                queues,
                actors,
                ids,
                span,
            } => {
                let replicated = |t| sem.is_replication(t);
                let (target, renaming) = canonicalize(procs, queues, ids, &replicated);
                Transition {
                    label,
                    target,
                    renaming,
                    fault: None,
                    actors,
                    at: Some(span),
                }
            }
        }
    }
}

/// Whether sequential compositions nest past [`crate::MAX_NESTING`] in `procs`.
pub(crate) fn too_deep(procs: &[Proc]) -> bool {
    nesting(procs) > crate::MAX_NESTING
}

pub(crate) struct Stepper<'s, 'p, 'a> {
    pub(crate) spawner: Spawner<'s, 'p>,
    /// The queues of the state the offers were opened in.
    queues: &'a [Queue],
    keep: &'a dyn Fn(&Label) -> bool,
    pub(crate) out: Vec<Emitted>,
}

impl<'s, 'p, 'a> Stepper<'s, 'p, 'a> {
    pub(crate) fn new(
        spawner: Spawner<'s, 'p>,
        queues: &'a [Queue],
        keep: &'a dyn Fn(&Label) -> bool,
    ) -> Self {
        Stepper {
            spawner,
            queues,
            keep,
            out: Vec::new(),
        }
    }
}

impl<'p> Stepper<'_, 'p, '_> {
    /// Rules *Tau*, *Event*, *Assert*, *Assert-Fail*, *Fault*: one closure acts alone.
    fn single(&mut self, offer: &Offer<'p>) {
        if offer.twin.is_some() {
            return;
        }
        let label = match &offer.act {
            Act::Tau | Act::Assert(true) => Label::tau(),
            Act::Event(e, values) => Label {
                head: Head::Event(*e),
                args: values.clone().into(),
            },
            Act::Assert(false) => return self.fault(offer, FaultKind::AssertionFailed),
            Act::Fault(kind) => return self.fault(offer, kind.clone()),
            Act::Out(chan, values) => return self.send(offer, *chan, values),
            Act::In(chan, pats) => return self.receive(offer, *chan, pats),
        };
        if !(self.keep)(&label) {
            return;
        }
        let built = self.alone(offer, offer.frame.clone());
        let queues = self.queues.to_vec();
        self.finish(label, built, queues, vec![offer.instance], offer.span);
    }

    /// The state's components after `offer` acted alone.
    pub(crate) fn alone(&mut self, offer: &Offer<'p>, frame: Vec<Value>) -> Built {
        self.continuation(offer, frame)
            .and_then(|procs| self.wrap(procs, &offer.layers))
    }

    /// Rule *Send*: an output on a buffered channel with room puts the message at the end of
    /// its queue; a lossy channel may also lose it (and loses it when full).
    fn send(&mut self, offer: &Offer<'p>, chan: Chan, values: &[Value]) {
        let Some(buffer) = self.spawner.sem.buffer(chan) else {
            return;
        };
        let label = |head| Label {
            head,
            args: values.to_vec().into(),
        };
        let waiting = find(self.queues, chan).map_or(0, |q| q.messages.len());
        let send = label(Head::Send(chan));
        if waiting < buffer.capacity as usize && (self.keep)(&send) {
            let built = self.alone(offer, offer.frame.clone());
            let queues = push(self.queues, chan, values.to_vec().into());
            self.finish(send, built, queues, vec![offer.instance], offer.span);
        }
        // A lost message is a step of its own label, `c!(v) lost`, so that every printed
        // label says which of the two happened.
        let lost = label(Head::Lost(chan));
        if buffer.lossy && (self.keep)(&lost) {
            let built = self.alone(offer, offer.frame.clone());
            let queues = self.queues.to_vec();
            self.finish(lost, built, queues, vec![offer.instance], offer.span);
        }
    }

    /// Rule *Receive*: an input on a buffered channel takes the oldest message, when it
    /// matches the patterns (otherwise the input waits, as in Promela).
    fn receive(&mut self, offer: &Offer<'p>, chan: Chan, pats: &[agentpi_ir::core::Pattern]) {
        if self.spawner.sem.buffer(chan).is_none() {
            return;
        }
        let Some(oldest) = find(self.queues, chan).and_then(|q| q.messages.first()) else {
            return;
        };
        let values = oldest.clone();
        let mut frame = offer.frame.clone();
        match matches_all(pats, &values, &mut frame, self.spawner.sem.program) {
            Ok(true) => {}
            Ok(false) => return,
            Err(kind) => return self.fault(offer, kind),
        }
        let label = Label {
            head: Head::Receive(chan),
            args: values,
        };
        if !(self.keep)(&label) {
            return;
        }
        let built = self.alone(offer, frame);
        let queues = pop(self.queues, chan);
        self.finish(label, built, queues, vec![offer.instance], offer.span);
    }

    /// Every output with every input on the same channel, in offer order, in every way the
    /// two can meet.
    pub(crate) fn communications(&mut self, offers: &[Offer<'p>]) {
        let mut inputs: FxHashMap<Chan, Vec<usize>> = FxHashMap::default();
        let sem = self.spawner.sem;
        for (j, offer) in offers.iter().enumerate() {
            if let Act::In(chan, _) = offer.act
                && sem.buffer(chan).is_none()
            {
                inputs.entry(chan).or_default().push(j);
            }
        }
        for output in offers {
            let Act::Out(chan, _) = &output.act else {
                continue;
            };
            for &j in inputs.get(chan).map_or(&[][..], Vec::as_slice) {
                self.pair(output, &offers[j]);
            }
        }
    }

    /// An output and an input on the same synchronous channel, in every way they can meet.
    pub(crate) fn pair(&mut self, output: &Offer<'p>, input: &Offer<'p>) {
        let Act::Out(chan, values) = &output.act else {
            return;
        };
        for meeting in meetings(output, input) {
            self.communicate(output, input, meeting, *chan, values);
        }
    }

    /// Rules *Comm*, *Comm-Within*, *Comm-Repl*: an output and an input whose patterns fit
    /// the values, at a meeting of their contexts.
    fn communicate(
        &mut self,
        output: &Offer<'p>,
        input: &Offer<'p>,
        meeting: Meeting,
        chan: Chan,
        values: &[Value],
    ) {
        let input = match meeting {
            Meeting::Copies(k) => self.second_copy(input, k),
            Meeting::Parallel(_) => input.clone_shallow(),
        };
        let Act::In(_, pats) = input.act else {
            unreachable!("an input offer");
        };
        let mut frame = input.frame.clone();
        match matches_all(pats, values, &mut frame, self.spawner.sem.program) {
            Ok(true) => {}
            Ok(false) => return,
            Err(kind) => return self.fault(&input, kind),
        }
        let label = Label {
            head: Head::Chan(chan),
            args: values.to_vec().into(),
        };
        if !(self.keep)(&label) {
            return;
        }
        let built = self.joint(output, &input, frame, meeting);
        let actors = vec![output.instance, input.instance];
        let queues = self.queues.to_vec();
        self.finish(label, built, queues, actors, output.span);
    }

    /// Both continuations in place: each rebuilt up to the layer where the contexts part,
    /// joined there, then rebuilt out to the top level together.
    fn joint(
        &mut self,
        output: &Offer<'p>,
        input: &Offer<'p>,
        frame: Vec<Value>,
        at: Meeting,
    ) -> Built {
        let k = match at {
            Meeting::Parallel(k) | Meeting::Copies(k) => k,
        };
        let mine = self.continuation(output, output.frame.clone())?;
        let mine = self.wrap(mine, &output.layers[k + 1..])?;
        let theirs = self.continuation(input, frame)?;
        let theirs = self.wrap(theirs, &input.layers[k + 1..])?;
        let joined = match (at, &output.layers[k], &input.layers[k]) {
            (Meeting::Parallel(_), Layer::At { list, index: i }, Layer::At { index: j, .. }) => {
                splice_two(list, (*i, mine), (*j, theirs))
            }
            (Meeting::Copies(_), Layer::Repl { leaf, .. }, _) => {
                let mut joined = mine;
                joined.extend(theirs);
                joined.push(Proc::Leaf(leaf.clone()));
                joined
            }
            _ => unreachable!("meetings part at an `At` or meet at a `Repl`"),
        };
        self.wrap(joined, &output.layers[..k])
    }

    /// The input offer as a second copy of the replication at layer `k`: the fresh names
    /// that spawning the first copy made are renamed to new ones.
    fn second_copy(&mut self, input: &Offer<'p>, k: usize) -> Offer<'p> {
        let Layer::Repl { fresh, .. } = &input.layers[k] else {
            unreachable!("a Copies meeting names a Repl layer");
        };
        let before = self.spawner.next_fresh();
        let base = self.spawner.reserve(fresh.end - fresh.start);
        let map: Vec<u32> = (0..before)
            .map(|id| match fresh.contains(&id) {
                true => base + (id - fresh.start),
                false => id,
            })
            .collect();
        let mut copy = input.clone_shallow();
        copy.frame.iter_mut().for_each(|v| v.rename(&map));
        for layer in &mut copy.layers[k + 1..] {
            rename_layer(layer, &map);
        }
        copy
    }

    /// The acting closure's continuation, spawned in its instance.
    fn continuation(&mut self, offer: &Offer<'p>, mut frame: Vec<Value>) -> Built {
        let mut procs = Vec::new();
        self.spawner.set_instance(offer.instance);
        self.spawner.spawn(offer.cont, &mut frame, &mut procs)?;
        Ok(procs)
    }

    /// Rebuilds `procs` (what replaced the innermost layer's component) out through `layers`.
    fn wrap(&mut self, mut procs: Vec<Proc>, layers: &[Layer]) -> Built {
        for layer in layers.iter().rev() {
            procs = match layer {
                Layer::At { list, index } => splice(list, *index, procs),
                Layer::Seq(cont) => self.close_seq(procs, cont)?,
                Layer::Choice(_) => procs,
                Layer::Repl { leaf, .. } => {
                    procs.push(Proc::Leaf(leaf.clone()));
                    procs
                }
            };
        }
        Ok(procs)
    }

    /// Rule *Seq-End*: a left side with no components left hands over to the right side.
    fn close_seq(&mut self, inner: Vec<Proc>, cont: &Arc<Closure>) -> Built {
        if !inner.is_empty() {
            return Ok(vec![Proc::Seq(inner.into_boxed_slice(), cont.clone())]);
        }
        let mut out = Vec::new();
        self.spawner.spawn_closure(cont, &mut out)?;
        Ok(out)
    }

    fn finish(
        &mut self,
        label: Label,
        built: Built,
        queues: Vec<Queue>,
        actors: Vec<Instance>,
        span: Span,
    ) {
        let ids = self.spawner.next_fresh();
        self.out.push(Emitted::Step {
            label,
            built,
            queues,
            actors,
            span,
            ids,
        });
    }

    fn fault(&mut self, offer: &Offer<'p>, kind: FaultKind) {
        if !(self.keep)(&Label::tau()) {
            return;
        }
        let fault = Fault {
            kind,
            span: offer.span,
        };
        self.out.push(Emitted::Fault {
            fault,
            actor: offer.instance,
        });
    }
}

impl<'p> Offer<'p> {
    /// A copy sharing the lists of the context (they are reference counted).
    fn clone_shallow(&self) -> Offer<'p> {
        Offer {
            layers: self.layers.clone(),
            act: match &self.act {
                Act::In(c, pats) => Act::In(*c, pats),
                _ => unreachable!("only inputs are copied"),
            },
            cont: self.cont,
            frame: self.frame.clone(),
            instance: self.instance,
            span: self.span,
            twin: self.twin,
        }
    }
}

/// `list` with the component at `index` replaced by `procs`.
fn splice(list: &[Proc], index: usize, procs: Vec<Proc>) -> Vec<Proc> {
    let mut out = Vec::with_capacity(list.len() + procs.len());
    out.extend_from_slice(&list[..index]);
    out.extend(procs);
    out.extend_from_slice(&list[index + 1..]);
    out
}

/// `list` with two different components replaced.
fn splice_two(list: &[Proc], a: (usize, Vec<Proc>), b: (usize, Vec<Proc>)) -> Vec<Proc> {
    let (mut a, mut b) = (Some(a), Some(b));
    let mut out = Vec::with_capacity(list.len() + 4);
    for (k, proc) in list.iter().enumerate() {
        if let Some((_, procs)) = a.take_if(|(i, _)| *i == k) {
            out.extend(procs);
        } else if let Some((_, procs)) = b.take_if(|(j, _)| *j == k) {
            out.extend(procs);
        } else {
            out.push(proc.clone());
        }
    }
    out
}

fn rename_layer(layer: &mut Layer, map: &[u32]) {
    match layer {
        Layer::At { list, .. } => {
            let mut renamed: Vec<Proc> = list.as_ref().clone();
            rename_procs(&mut renamed, map);
            *list = Rc::new(renamed);
        }
        Layer::Seq(cont) => rename_closure(cont, map),
        Layer::Repl { leaf, .. } => rename_closure(leaf, map),
        Layer::Choice(_) => {}
    }
}

/// How deeply sequential compositions nest in `procs`.
fn nesting(procs: &[Proc]) -> usize {
    procs.iter().map(crate::state::nesting).max().unwrap_or(0)
}

fn fault_at(state: &State, label: Label, fault: Fault, actors: Vec<Instance>) -> Transition {
    let renaming = (0..state.fresh).collect();
    Transition {
        label,
        target: state.clone(),
        renaming,
        at: Some(fault.span),
        fault: Some(fault),
        actors,
    }
}

impl Semantics<'_> {
    /// What a channel carries.
    pub(crate) fn carried(&self, chan: Chan) -> &[agentpi_ir::core::Type] {
        match chan {
            Chan::Global(id) => &self.program.chans[id.0 as usize].carries,
            Chan::Fresh { origin, .. } => &self.origin_carries[origin as usize],
        }
    }
}
