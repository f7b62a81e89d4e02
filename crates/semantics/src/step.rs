//! The successor function: spawning terms into components, the offers components make, and
//! firing one offer (a silent step, an event, an assertion) or two (a communication).
//!
//! A choice or a replication is *opened* to find its offers: each branch (or one copy of the
//! replicated body) is spawned into a fragment of components, whose offers become offers of the
//! leaf. Firing one rebuilds the fragment around the continuation and puts it where the leaf was
//! (a replication stays as well). The way from the state's top level down to the component that
//! acts is the offer's context: indices into the state, then owned layers inside fragments.

use crate::eval::{self, FaultKind, UNSET, check_types, eval, eval_all, matches_all};
use crate::label::{Head, Label};
use crate::state::{Closure, Proc, State, canonicalize};
use crate::value::{Chan, Value};
use crate::{Actor, Fault, Semantics, Transition};
use agentpi_diagnostics::Span;
use agentpi_ir::core::{EventId, Pattern, Prefix, Term, TermId, Type};
use std::rc::Rc;
use std::sync::Arc;

/// How deep process calls may nest without a prefix before spawning gives up.
const MAX_CALL_DEPTH: u32 = 200;
/// How many choices and replications are opened inside one another to find offers.
const MAX_OPEN_DEPTH: u32 = 3;

/// Spawns terms into components, numbering the fresh names it makes from a counter.
pub(crate) struct Spawner<'s, 'p> {
    sem: &'s Semantics<'p>,
    fresh: u32,
    depth: u32,
}

impl<'s, 'p> Spawner<'s, 'p> {
    pub(crate) fn new(sem: &'s Semantics<'p>, fresh: u32) -> Self {
        Spawner {
            sem,
            fresh,
            depth: 0,
        }
    }

    pub(crate) fn next_fresh(&self) -> u32 {
        self.fresh
    }

    /// Rules *Nil*, *Par*, *New*, *Seq-Start*, *If*, *Match*, *Call*: puts `term` into
    /// component form, appending to `out`.
    pub(crate) fn spawn(
        &mut self,
        term: TermId,
        frame: &mut Vec<Value>,
        out: &mut Vec<Proc>,
    ) -> Result<(), Fault> {
        let program = self.sem.program;
        let fault = |kind| Fault {
            kind,
            span: program.info(term).span,
        };
        match program.term(term) {
            Term::Nil => {}
            Term::Prefix(..) | Term::Choice(_) | Term::Repl(_) => {
                out.push(Proc::Leaf(Arc::new(self.closure(term, frame))))
            }
            Term::Par(ts) => {
                for t in ts {
                    self.spawn(*t, frame, out)?;
                }
            }
            Term::Seq(l, r) => self.spawn_seq(*l, *r, frame, out)?,
            Term::New(names, body) => {
                for (i, n) in names.iter().enumerate() {
                    let origin = self.sem.origin(term, i);
                    frame[n.slot as usize] = Value::Chan(Chan::Fresh {
                        id: self.fresh,
                        origin,
                    });
                    self.fresh += 1;
                }
                self.spawn(*body, frame, out)?;
            }
            Term::If(cond, a, b) => {
                let chosen = if eval(cond, frame).map_err(fault)? == Value::Bool(true) {
                    *a
                } else {
                    *b
                };
                self.spawn(chosen, frame, out)?;
            }
            Term::Match(scrutinee, arms) => {
                let value = eval(scrutinee, frame).map_err(fault)?;
                let arm = self.pick_arm(arms, &value, frame).map_err(fault)?;
                self.spawn(arm, frame, out)?;
            }
            Term::Call(def, args) => self.call(term, *def, args, frame, out)?,
        }
        Ok(())
    }

    fn spawn_seq(
        &mut self,
        l: TermId,
        r: TermId,
        frame: &mut Vec<Value>,
        out: &mut Vec<Proc>,
    ) -> Result<(), Fault> {
        let mut inner = Vec::new();
        self.spawn(l, frame, &mut inner)?;
        if inner.is_empty() {
            // Rule *Seq-Skip*: a left side that terminates at once hands over directly.
            return self.spawn(r, frame, out);
        }
        out.push(Proc::Seq(
            inner.into_boxed_slice(),
            Arc::new(self.closure(r, frame)),
        ));
        Ok(())
    }

    fn pick_arm(
        &self,
        arms: &[(Pattern, TermId)],
        value: &Value,
        frame: &mut [Value],
    ) -> eval::Eval<TermId> {
        for (pattern, body) in arms {
            if matches_all(
                std::slice::from_ref(pattern),
                std::slice::from_ref(value),
                frame,
                self.sem.program,
            )? {
                return Ok(*body);
            }
        }
        Err(FaultKind::NoMatch)
    }

    fn call(
        &mut self,
        term: TermId,
        def: agentpi_ir::core::DefId,
        args: &[agentpi_ir::core::Expr],
        frame: &[Value],
        out: &mut Vec<Proc>,
    ) -> Result<(), Fault> {
        let program = self.sem.program;
        let fault = |kind| Fault {
            kind,
            span: program.info(term).span,
        };
        let def = program.def(def);
        let values = eval_all(args, frame).map_err(fault)?;
        let types: Vec<Type> = def.params.iter().map(|(_, t)| t.clone()).collect();
        check_types(&values, &types, program).map_err(fault)?;
        if self.depth >= MAX_CALL_DEPTH {
            return Err(fault(FaultKind::TooDeep));
        }
        let mut callee = vec![UNSET; self.sem.frame_size()];
        for ((slot, _), v) in def.params.iter().zip(values) {
            callee[*slot as usize] = v;
        }
        self.depth += 1;
        let result = self.spawn(def.body, &mut callee, out);
        self.depth -= 1;
        result
    }

    /// The closure of `term` in `frame`: only the values of its free variables.
    pub(crate) fn closure(&self, term: TermId, frame: &[Value]) -> Closure {
        let free = &self.sem.program.info(term).free;
        Closure {
            term,
            env: free.iter().map(|&s| frame[s as usize].clone()).collect(),
        }
    }

    /// A scratch frame holding a closure's values in their slots.
    pub(crate) fn load(&self, closure: &Closure) -> Vec<Value> {
        let mut frame = vec![UNSET; self.sem.frame_size()];
        for (&slot, v) in self
            .sem
            .program
            .info(closure.term)
            .free
            .iter()
            .zip(closure.env.iter())
        {
            frame[slot as usize] = v.clone();
        }
        frame
    }

    fn spawn_closure(&mut self, closure: &Closure, out: &mut Vec<Proc>) -> Result<(), Fault> {
        let mut frame = self.load(closure);
        self.spawn(closure.term, &mut frame, out)
    }
}

/// What a component offers to do.
enum Act<'p> {
    Tau,
    Event(EventId, Vec<Value>),
    Assert(bool),
    Out(Chan, Vec<Value>),
    In(Chan, &'p [Pattern]),
    Fault(FaultKind),
}

/// A layer of an offer's context inside a fragment that opening made.
#[derive(Clone)]
struct Layer {
    siblings: Rc<Vec<Proc>>,
    index: usize,
    kind: LayerKind,
}

#[derive(Clone)]
enum LayerKind {
    /// Components of an opened choice branch or replica; `keep` is a replication that stays.
    Fragment { keep: Option<Arc<Closure>> },
    /// The left side of a sequential composition inside a fragment.
    Seq(Arc<Closure>),
}

struct Offer<'p> {
    /// Indices from the state's top level (through sequential compositions) to the leaf.
    path: Vec<u32>,
    /// Layers inside fragments, outermost first.
    layers: Vec<Layer>,
    /// The leaf at `path` is a replication and stays.
    keep_leaf: bool,
    act: Act<'p>,
    cont: TermId,
    frame: Vec<Value>,
    actor: Actor,
    span: Span,
}

struct Stepper<'s, 'p> {
    spawner: Spawner<'s, 'p>,
    offers: Vec<Offer<'p>>,
    path: Vec<u32>,
    layers: Vec<Layer>,
}

pub(crate) fn successors(sem: &Semantics<'_>, state: &State) -> Vec<Transition> {
    let mut stepper = Stepper {
        spawner: Spawner::new(sem, state.fresh),
        offers: Vec::new(),
        path: Vec::new(),
        layers: Vec::new(),
    };
    stepper.collect(&state.procs);
    stepper.transitions(state)
}

impl<'s, 'p> Stepper<'s, 'p> {
    fn sem(&self) -> &'s Semantics<'p> {
        self.spawner.sem
    }

    /// Walks the state's components; sequential compositions offer what their left side does
    /// (rule *Seq-Step*).
    fn collect(&mut self, procs: &[Proc]) {
        for (i, proc) in procs.iter().enumerate() {
            self.path.push(i as u32);
            match proc {
                Proc::Leaf(c) => self.open(c, 0),
                Proc::Seq(inner, _) => self.collect(inner),
            }
            self.path.pop();
        }
    }

    /// The offers of one waiting component.
    fn open(&mut self, closure: &Arc<Closure>, depth: u32) {
        let sem = self.sem();
        match sem.program.term(closure.term) {
            Term::Prefix(prefix, cont) => {
                let frame = self.spawner.load(closure);
                let act = self.prefix_act(prefix, &frame);
                self.offer(closure.term, act, *cont, frame);
            }
            Term::Choice(branches) if depth < MAX_OPEN_DEPTH => {
                // Rule *Choice*: each branch offers what it does; firing drops the others.
                for b in branches {
                    if !self.open_prefix(closure, *b, false) {
                        self.open_branch(closure, *b, None, depth);
                    }
                }
            }
            Term::Repl(body) if depth < MAX_OPEN_DEPTH => {
                // Rule *Repl*: a copy of the body offers what it does; the replication stays.
                // Inside a fragment the replication must be put back there, which only the
                // general path does.
                let direct = self.layers.is_empty() && self.open_prefix(closure, *body, true);
                if !direct {
                    self.open_branch(closure, *body, Some(closure.clone()), depth);
                }
            }
            _ => {}
        }
    }

    /// The fast path of opening: a branch (or replicated body) that is a plain prefix offers
    /// it directly, without spawning a fragment. Returns false for any other term.
    fn open_prefix(&mut self, closure: &Closure, branch: TermId, keep_leaf: bool) -> bool {
        let Term::Prefix(prefix, cont) = self.sem().program.term(branch) else {
            return false;
        };
        let frame = self.spawner.load(closure);
        let act = self.prefix_act(prefix, &frame);
        self.offer(branch, act, *cont, frame);
        let offer = self.offers.last_mut().expect("just pushed");
        offer.keep_leaf |= keep_leaf;
        true
    }

    fn open_branch(
        &mut self,
        closure: &Closure,
        branch: TermId,
        keep: Option<Arc<Closure>>,
        depth: u32,
    ) {
        let mut frame = self.spawner.load(closure);
        let mut fragment = Vec::new();
        match self.spawner.spawn(branch, &mut frame, &mut fragment) {
            Ok(()) => {
                self.open_fragment(Rc::new(fragment), LayerKind::Fragment { keep }, depth + 1)
            }
            Err(fault) => self.fault_offer(closure.term, fault),
        }
    }

    fn open_fragment(&mut self, list: Rc<Vec<Proc>>, kind: LayerKind, depth: u32) {
        for (index, proc) in list.iter().enumerate() {
            self.layers.push(Layer {
                siblings: list.clone(),
                index,
                kind: kind.clone(),
            });
            match proc {
                Proc::Leaf(c) => self.open(c, depth),
                Proc::Seq(inner, cont) => {
                    self.open_fragment(
                        Rc::new(inner.to_vec()),
                        LayerKind::Seq(cont.clone()),
                        depth,
                    );
                }
            }
            self.layers.pop();
        }
    }

    fn prefix_act(&self, prefix: &'p Prefix, frame: &[Value]) -> Act<'p> {
        let sem = self.sem();
        let result = match prefix {
            Prefix::Tau => Ok(Act::Tau),
            Prefix::Output { chan, args } => eval(chan, frame).and_then(|c| {
                let chan = c.as_chan().ok_or(FaultKind::Overflow)?;
                let values = eval_all(args, frame)?;
                check_types(&values, sem.carried(chan), sem.program)?;
                Ok(Act::Out(chan, values))
            }),
            Prefix::Input { chan, pats } => eval(chan, frame)
                .and_then(|c| Ok(Act::In(c.as_chan().ok_or(FaultKind::Overflow)?, pats))),
            Prefix::Event { event, args } => eval_all(args, frame).and_then(|values| {
                check_types(
                    &values,
                    &sem.program.events[event.0 as usize].args,
                    sem.program,
                )?;
                Ok(Act::Event(*event, values))
            }),
            Prefix::Assert(e) => eval(e, frame).map(|v| Act::Assert(v == Value::Bool(true))),
        };
        result.unwrap_or_else(Act::Fault)
    }

    fn offer(&mut self, term: TermId, act: Act<'p>, cont: TermId, frame: Vec<Value>) {
        let sem = self.sem();
        let keep_leaf = matches!(
            self.layers.first(),
            Some(Layer {
                kind: LayerKind::Fragment { keep: Some(_) },
                ..
            })
        );
        self.offers.push(Offer {
            path: self.path.clone(),
            layers: self.layers.clone(),
            keep_leaf,
            act,
            cont,
            frame,
            actor: sem.actor(term),
            span: sem.program.info(term).span,
        });
    }

    fn fault_offer(&mut self, term: TermId, fault: Fault) {
        self.offer(term, Act::Fault(fault.kind), term, Vec::new());
        self.offers.last_mut().expect("just pushed").span = fault.span;
    }

    fn transitions(mut self, state: &State) -> Vec<Transition> {
        let offers = std::mem::take(&mut self.offers);
        let mut out = Vec::new();
        for offer in &offers {
            self.single(state, offer, &mut out);
        }
        for (i, o) in offers.iter().enumerate() {
            let Act::Out(chan, values) = &o.act else {
                continue;
            };
            for (j, inp) in offers.iter().enumerate() {
                let Act::In(c2, pats) = &inp.act else {
                    continue;
                };
                if c2 != chan || i == j {
                    continue;
                }
                let pair = (o, inp);
                if may_pair(o, inp) {
                    self.communicate(state, pair, false, *chan, values, pats, &mut out);
                }
                if same_fragment(o, inp) {
                    self.communicate(state, pair, true, *chan, values, pats, &mut out);
                }
            }
        }
        out
    }

    /// Rules *Tau*, *Event*, *Assert*: one component moves alone.
    fn single(&mut self, state: &State, offer: &Offer<'p>, out: &mut Vec<Transition>) {
        let label = match &offer.act {
            Act::Tau | Act::Assert(true) => Label::tau(),
            Act::Event(e, values) => Label {
                head: Head::Event(*e),
                args: values.clone().into(),
            },
            Act::Assert(false) => return out.push(fault(state, offer, FaultKind::AssertionFailed)),
            Act::Fault(kind) => return out.push(fault(state, offer, kind.clone())),
            Act::Out(..) | Act::In(..) => return,
        };
        let edit = self.replacement(offer, offer.frame.clone());
        out.push(self.finish(state, label, vec![(offer, edit)]));
    }

    /// Rule *Comm*: an output and an input on the same channel whose patterns fit the values.
    #[allow(clippy::too_many_arguments)]
    fn communicate(
        &mut self,
        state: &State,
        (o, i): (&Offer<'p>, &Offer<'p>),
        within: bool,
        chan: Chan,
        values: &[Value],
        pats: &[Pattern],
        out: &mut Vec<Transition>,
    ) {
        let mut frame = i.frame.clone();
        match matches_all(pats, values, &mut frame, self.sem().program) {
            Ok(true) => {}
            Ok(false) => return,
            Err(kind) => return out.push(fault(state, i, kind)),
        }
        let label = Label {
            head: Head::Chan(chan),
            args: values.to_vec().into(),
        };
        let edits = if within {
            vec![(o, self.joint_replacement(o, i, frame))]
        } else {
            vec![
                (o, self.replacement(o, o.frame.clone())),
                (i, self.replacement(i, frame)),
            ]
        };
        let mut t = self.finish(state, label, edits);
        t.actors = vec![o.actor, i.actor];
        out.push(t);
    }

    /// Rule *Comm-Within*: two components of one opened fragment meet; what replaces the leaf
    /// is the fragment with both continuations in place.
    fn joint_replacement(
        &mut self,
        o: &Offer<'p>,
        i: &Offer<'p>,
        i_frame: Vec<Value>,
    ) -> Result<Vec<Proc>, Fault> {
        let (mut from_o, mut from_i) = (Vec::new(), Vec::new());
        self.spawner
            .spawn(o.cont, &mut o.frame.clone(), &mut from_o)?;
        self.spawner
            .spawn(i.cont, &mut i_frame.clone(), &mut from_i)?;
        let (layer_o, layer_i) = (&o.layers[0], &i.layers[0]);
        let mut list = Vec::with_capacity(layer_o.siblings.len() + from_o.len() + from_i.len());
        for (k, proc) in layer_o.siblings.iter().enumerate() {
            match k {
                k if k == layer_o.index => list.append(&mut from_o),
                k if k == layer_i.index => list.append(&mut from_i),
                _ => list.push(proc.clone()),
            }
        }
        Ok(list)
    }

    /// What replaces the acting leaf: the continuation, rebuilt into its fragments.
    fn replacement(
        &mut self,
        offer: &Offer<'p>,
        mut frame: Vec<Value>,
    ) -> Result<Vec<Proc>, Fault> {
        let mut procs = Vec::new();
        self.spawner.spawn(offer.cont, &mut frame, &mut procs)?;
        for (depth, layer) in offer.layers.iter().enumerate().rev() {
            let mut list: Vec<Proc> = layer.siblings[..layer.index].to_vec();
            list.extend(procs);
            list.extend_from_slice(&layer.siblings[layer.index + 1..]);
            procs = match &layer.kind {
                LayerKind::Fragment { keep: Some(c) } if depth > 0 => {
                    list.push(Proc::Leaf(c.clone()));
                    list
                }
                LayerKind::Fragment { .. } => list,
                LayerKind::Seq(cont) => self.close_seq(list, cont)?,
            };
        }
        Ok(procs)
    }

    /// Rule *Seq-End*: a left side with no components left hands over to the right side.
    fn close_seq(&mut self, inner: Vec<Proc>, cont: &Arc<Closure>) -> Result<Vec<Proc>, Fault> {
        let mut out = Vec::new();
        if inner.is_empty() {
            self.spawner.spawn_closure(cont, &mut out)?;
        } else {
            out.push(Proc::Seq(inner.into_boxed_slice(), cont.clone()));
        }
        Ok(out)
    }

    fn finish(
        &mut self,
        state: &State,
        label: Label,
        edits: Vec<(&Offer<'p>, Result<Vec<Proc>, Fault>)>,
    ) -> Transition {
        let actors = edits.iter().map(|(o, _)| o.actor).collect();
        let span = edits[0].0.span;
        let mut ready = Vec::new();
        for (offer, edit) in edits {
            match edit {
                Ok(procs) => ready.push((offer.path.as_slice(), procs, offer.keep_leaf)),
                Err(f) => return fault_at(state, label, f, actors),
            }
        }
        match self.rebuild(&state.procs, &ready, 0) {
            Ok(procs) if nesting(&procs) > crate::MAX_NESTING => {
                let fault = Fault {
                    kind: FaultKind::NestedTooDeep,
                    span,
                };
                fault_at(state, label, fault, actors)
            }
            Ok(procs) => {
                let (target, renaming) = canonicalize(procs, self.spawner.next_fresh());
                Transition {
                    label,
                    target,
                    renaming,
                    fault: None,
                    actors,
                }
            }
            Err(f) => fault_at(state, label, f, actors),
        }
    }

    /// Copies `list`, replacing the leaves that `edits` name.
    fn rebuild(
        &mut self,
        list: &[Proc],
        edits: &[(&[u32], Vec<Proc>, bool)],
        depth: usize,
    ) -> Result<Vec<Proc>, Fault> {
        let mut out = Vec::with_capacity(list.len() + 2);
        for (i, proc) in list.iter().enumerate() {
            // Most components are untouched: test before collecting the edits that name one.
            if !edits.iter().any(|e| e.0[depth] == i as u32) {
                out.push(proc.clone());
                continue;
            }
            let mine: Vec<_> = edits
                .iter()
                .filter(|e| e.0[depth] == i as u32)
                .cloned()
                .collect();
            match proc {
                Proc::Leaf(_) => {
                    let keep = mine.iter().any(|e| e.2);
                    mine.into_iter().for_each(|e| out.extend(e.1));
                    if keep {
                        out.push(proc.clone());
                    }
                }
                Proc::Seq(inner, cont) => {
                    let inner = self.rebuild(inner, &mine, depth + 1)?;
                    out.extend(self.close_seq(inner, cont)?);
                }
            }
        }
        Ok(out)
    }
}

/// How deeply sequential compositions nest in `procs`, counted without recursion.
fn nesting(procs: &[Proc]) -> usize {
    let mut deepest = 0;
    let mut todo: Vec<(&[Proc], usize)> = vec![(procs, 0)];
    while let Some((list, depth)) = todo.pop() {
        deepest = deepest.max(depth);
        for proc in list {
            if let Proc::Seq(inner, _) = proc {
                todo.push((inner, depth + 1));
            }
        }
    }
    deepest
}

/// Two offers can meet unless they come from one leaf, which only a replication allows (two
/// copies of its body).
fn may_pair(a: &Offer<'_>, b: &Offer<'_>) -> bool {
    a.path != b.path || (a.keep_leaf && b.keep_leaf)
}

/// Two different components directly inside one opened fragment (one choice branch, one copy
/// of a replication) can also meet each other. Deeper nesting is not searched.
fn same_fragment(a: &Offer<'_>, b: &Offer<'_>) -> bool {
    a.path == b.path
        && a.layers.len() == 1
        && b.layers.len() == 1
        && Rc::ptr_eq(&a.layers[0].siblings, &b.layers[0].siblings)
        && a.layers[0].index != b.layers[0].index
}

fn fault(state: &State, offer: &Offer<'_>, kind: FaultKind) -> Transition {
    fault_at(
        state,
        Label::tau(),
        Fault {
            kind,
            span: offer.span,
        },
        vec![offer.actor],
    )
}

fn fault_at(state: &State, label: Label, fault: Fault, actors: Vec<Actor>) -> Transition {
    let renaming = (0..state.fresh).collect();
    Transition {
        label,
        target: state.clone(),
        renaming,
        fault: Some(fault),
        actors,
    }
}

impl Semantics<'_> {
    /// What a channel carries.
    pub(crate) fn carried(&self, chan: Chan) -> &[Type] {
        match chan {
            Chan::Global(id) => &self.program.chans[id.0 as usize].carries,
            Chan::Fresh { origin, .. } => &self.origin_carries[origin as usize],
        }
    }
}
