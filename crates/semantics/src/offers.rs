//! Offers: what the components of a state can do, found at any depth (rules *Seq-Step*,
//! *Choice*, *Repl* and the prefixes).
//!
//! A waiting choice or replication is *opened*: each branch (one copy of the replicated body)
//! is spawned into a fragment of components, whose own offers, found the same way, become
//! offers of the choice. Opening follows choices, replications and sequences as deep as they
//! nest; it ends because the type checker rejects recursion that passes no prefix.
//!
//! Each offer carries its *context*: the layers from the state's top level down to the closure
//! that acts. Firing an offer rebuilds the state around the continuation layer by layer (see
//! `step.rs`); two offers meet when their contexts allow both to happen at once.

use crate::Instance;
use crate::eval::{FaultKind, check_types, eval, eval_all};
use crate::spawn::Spawner;
use crate::state::{Closure, Proc};
use crate::value::{Chan, Value};
use agentpi_diagnostics::Span;
use agentpi_ir::core::{EventId, Pattern, Prefix, Term, TermId};
use std::rc::Rc;
use std::sync::Arc;

#[cfg(test)]
thread_local! {
    /// How many steps the walks over choices' branches took on this thread (a step opens a
    /// branch or counts a run of prefixes): tests pin the work of opening with it.
    pub(crate) static BRANCH_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What a closure offers to do.
pub(crate) enum Act<'p> {
    Tau,
    Event(EventId, Vec<Value>),
    Assert(bool),
    Out(Chan, Vec<Value>),
    In(Chan, &'p [Pattern]),
    Fault(FaultKind),
}

/// One layer of an offer's context, outermost first.
#[derive(Clone)]
pub(crate) enum Layer {
    /// Position `index` in a list of components: the state, the running left side of a
    /// sequence, or a fragment that opening spawned.
    At { list: Rc<Vec<Proc>>, index: usize },
    /// The component there is `P ; Q` with `P` running; `Q` waits in the closure.
    Seq(Arc<Closure>),
    /// The component there is a choice, and branch `branch` acts.
    Choice(usize),
    /// The component there is a replication, and a copy of its body acts. `fresh` holds
    /// the fresh ids that spawning and opening the copy made: a second copy renames them.
    Repl {
        leaf: Arc<Closure>,
        fresh: std::ops::Range<u32>,
    },
}

impl Layer {
    /// The same place: the same list and index, or the same branch.
    pub(crate) fn same(&self, other: &Layer) -> bool {
        match (self, other) {
            (Layer::At { list: a, index: i }, Layer::At { list: b, index: j }) => {
                Rc::ptr_eq(a, b) && i == j
            }
            (Layer::Seq(_), Layer::Seq(_)) | (Layer::Repl { .. }, Layer::Repl { .. }) => true,
            (Layer::Choice(a), Layer::Choice(b)) => a == b,
            _ => false,
        }
    }
}

/// One action of one closure, with its context and what it continues as.
pub(crate) struct Offer<'p> {
    pub(crate) layers: Vec<Layer>,
    pub(crate) act: Act<'p>,
    pub(crate) cont: TermId,
    /// The acting closure's values in their slots (an input binds into a copy of it).
    pub(crate) frame: Vec<Value>,
    pub(crate) instance: Instance,
    pub(crate) span: Span,
    /// Set when the offer comes from the second of equal components side by side, as
    /// (layer, index): it only meets offers of the first (see [`Opener::open_list`]).
    pub(crate) twin: Option<(usize, usize)>,
}

/// Collects the offers of a state.
pub(crate) struct Opener<'s, 'p> {
    pub(crate) spawner: Spawner<'s, 'p>,
    pub(crate) offers: Vec<Offer<'p>>,
    layers: Vec<Layer>,
    twin: Option<(usize, usize)>,
    /// When set, only the offer of this index (in opening order) is kept in `offers`; the
    /// others are counted, and a prefix's is not even evaluated (see [`Opener::only`]).
    only: Option<usize>,
    /// How many offers were found so far, kept or not.
    found: usize,
}

impl<'s, 'p> Opener<'s, 'p> {
    pub(crate) fn new(spawner: Spawner<'s, 'p>) -> Self {
        Opener {
            spawner,
            offers: Vec::new(),
            layers: Vec::new(),
            twin: None,
            only: None,
            found: 0,
        }
    }

    /// An opener that keeps only offer `index` (what an input does with values needs only
    /// its own offer). The walk is the same, so the fresh names spawning makes, and the
    /// offer's context, are those of a full opening; a prefix other than the one wanted
    /// makes exactly one offer and no name, so it is counted without loading its frame. On
    /// a choice of n prefixes that makes finding one offer O(n) steps of counting instead
    /// of n frames loaded (each as large as the definition's frame, itself O(n) there).
    pub(crate) fn only(spawner: Spawner<'s, 'p>, index: usize) -> Self {
        Opener {
            only: Some(index),
            ..Opener::new(spawner)
        }
    }

    /// Whether the next offer found is one to leave out.
    fn skips_next(&self) -> bool {
        self.only.is_some_and(|wanted| wanted != self.found)
    }

    /// Counts `term`'s one offer without opening it when `term` is a prefix whose offer is
    /// left out; says whether it did.
    fn skipped_prefix(&mut self, term: TermId) -> bool {
        let program = self.spawner.sem.program;
        let skip = self.skips_next() && matches!(program.term(term), Term::Prefix(..));
        self.found += usize::from(skip);
        skip
    }

    /// When only one offer is kept and branch `b` of `choice` starts a run of prefixes: counts
    /// the run's offers up to the wanted one (or all of them) at once, and says which branch
    /// to go on from. A prefix makes exactly one offer and no name, so a receive on one
    /// branch of an n-way choice of inputs costs O(1) steps here, not O(n).
    fn skipped_run(&mut self, choice: TermId, b: usize) -> Option<usize> {
        let wanted = self.only?;
        let end = self.spawner.sem.prefix_run(choice, b)?;
        // Past the wanted offer this wraps round, and the whole run is skipped.
        let ahead = wanted.wrapping_sub(self.found);
        let skip = ahead.min(end - b);
        self.found += skip;
        (skip > 0).then_some(b + skip)
    }

    /// Rule *Seq-Step* and the walk over a list: every component offers what it does; a
    /// sequence offers what its left side does.
    ///
    /// Equal components side by side (canonical lists are sorted) make equal transitions: the
    /// first is opened in full, the second only to meet the first (a communication between
    /// two equal components), and the others not at all. Nothing is lost: a transition of a
    /// third equal component is, state for state, one of the first.
    pub(crate) fn open_list(&mut self, list: Rc<Vec<Proc>>) {
        for index in 0..list.len() {
            let second = index > 0 && list[index] == list[index - 1];
            let third = second && index > 1 && list[index - 1] == list[index - 2];
            if third || (second && self.twin.is_some()) {
                continue;
            }
            if second {
                self.twin = Some((self.layers.len(), index));
            }
            self.open_at(&list, index);
            if second {
                self.twin = None;
            }
        }
    }

    /// The offers of a list holding one top-level component, opened as the second of two
    /// equal components (a twin) when `twin` is set: see `crate::component`.
    pub(crate) fn open_top(&mut self, list: Rc<Vec<Proc>>, twin: bool) {
        if twin {
            self.twin = Some((0, 0));
        }
        self.open_at(&list, 0);
        self.twin = None;
    }

    /// The offers of the component at `index` of `list`.
    fn open_at(&mut self, list: &Rc<Vec<Proc>>, index: usize) {
        self.layers.push(Layer::At {
            list: list.clone(),
            index,
        });
        match &list[index] {
            Proc::Leaf(c) => self.open_leaf(c),
            Proc::Seq(inner, cont) => {
                self.layers.push(Layer::Seq(cont.clone()));
                self.open_list(Rc::new(inner.to_vec()));
                self.layers.pop();
            }
        }
        self.layers.pop();
    }

    /// The offers of one waiting closure.
    fn open_leaf(&mut self, closure: &Arc<Closure>) {
        let program = self.spawner.sem.program;
        match program.term(closure.term) {
            Term::Prefix(..) => self.open_term(closure, closure.term),
            Term::Choice(branches) => {
                // Rule *Choice*: each branch offers what it does; firing drops the others.
                let mut b = 0;
                while b < branches.len() {
                    #[cfg(test)]
                    BRANCH_STEPS.with(|n| n.set(n.get() + 1));
                    if let Some(next) = self.skipped_run(closure.term, b) {
                        b = next;
                        continue;
                    }
                    self.layers.push(Layer::Choice(b));
                    self.open_term(closure, branches[b]);
                    self.layers.pop();
                    b += 1;
                }
            }
            Term::Repl(body) => self.open_copy(closure, *body),
            _ => {}
        }
    }

    /// Rule *Repl*: a copy of the body offers what it does; the replication stays.
    fn open_copy(&mut self, closure: &Arc<Closure>, body: TermId) {
        let first_offer = self.offers.len();
        let lo = self.spawner.next_fresh();
        self.layers.push(Layer::Repl {
            leaf: closure.clone(),
            fresh: lo..lo,
        });
        let depth = self.layers.len() - 1;
        self.open_term(closure, body);
        self.layers.pop();
        let hi = self.spawner.next_fresh();
        for offer in &mut self.offers[first_offer..] {
            if let Layer::Repl { fresh, .. } = &mut offer.layers[depth] {
                *fresh = lo..hi;
            }
        }
    }

    /// The offers of `term` (the closure's own prefix, a branch or a replicated body) in the
    /// closure's values. A prefix offers directly; anything else is spawned into a fragment
    /// whose components are opened in turn.
    fn open_term(&mut self, closure: &Closure, term: TermId) {
        if self.skipped_prefix(term) {
            return;
        }
        let program = self.spawner.sem.program;
        let mut frame = self.spawner.load(closure);
        if let Term::Prefix(prefix, cont) = program.term(term) {
            let act = self.prefix_act(prefix, &frame);
            return self.offer(term, act, *cont, frame, closure.instance);
        }
        self.spawner.set_instance(closure.instance);
        let mut fragment = Vec::new();
        match self.spawner.spawn(term, &mut frame, &mut fragment) {
            Ok(()) => self.open_list(Rc::new(fragment)),
            Err(fault) => {
                let kept = !self.skips_next();
                self.offer(
                    term,
                    Act::Fault(fault.kind),
                    term,
                    Vec::new(),
                    closure.instance,
                );
                if kept {
                    self.offers.last_mut().expect("just pushed").span = fault.span;
                }
            }
        }
    }

    fn prefix_act(&self, prefix: &'p Prefix, frame: &[Value]) -> Act<'p> {
        let sem = self.spawner.sem;
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
                let types = &sem.program.events[event.0 as usize].args;
                check_types(&values, types, sem.program)?;
                Ok(Act::Event(*event, values))
            }),
            Prefix::Assert(e) => eval(e, frame).map(|v| Act::Assert(v == Value::Bool(true))),
        };
        result.unwrap_or_else(Act::Fault)
    }

    fn offer(
        &mut self,
        term: TermId,
        act: Act<'p>,
        cont: TermId,
        frame: Vec<Value>,
        instance: Instance,
    ) {
        let skip = self.skips_next();
        self.found += 1;
        if skip {
            return;
        }
        self.offers.push(Offer {
            layers: self.layers.clone(),
            act,
            cont,
            frame,
            instance,
            span: self.spawner.sem.program.info(term).span,
            twin: self.twin,
        });
    }
}

impl Offer<'_> {
    /// For an input whose first pattern is `=e`: the value of `e`, which the first value
    /// received must equal (when `e` can be evaluated; a fault is the match's to report).
    pub(crate) fn guard(&self) -> Option<Value> {
        let Act::In(_, pats) = self.act else {
            return None;
        };
        match pats.first()? {
            Pattern::Eq(e) => eval(e, &self.frame).ok(),
            _ => None,
        }
    }
}

/// Where two offers can meet, as the index of the layer where their contexts part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Meeting {
    /// Two components of one list (rules *Comm*, *Comm-Within*): the layer is an `At` whose
    /// index differs.
    Parallel(usize),
    /// Two copies of one replication (rule *Comm-Repl*): the layer is that `Repl`.
    Copies(usize),
}

/// Every way the two offers can happen together. Contexts that part at a choice (two
/// branches of one choice) cannot meet; each replication both pass through can give them
/// two different copies.
pub(crate) fn meetings(a: &Offer<'_>, b: &Offer<'_>) -> Vec<Meeting> {
    match (a.twin, b.twin) {
        (Some(_), Some(_)) => return Vec::new(),
        (Some(_), None) => return twin_meeting(a, b),
        (None, Some(_)) => return twin_meeting(b, a),
        (None, None) => {}
    }
    let mut out = Vec::new();
    for (k, (x, y)) in a.layers.iter().zip(&b.layers).enumerate() {
        if let Layer::Repl { .. } = x {
            out.push(Meeting::Copies(k));
        }
        if x.same(y) {
            continue;
        }
        if let (Layer::At { .. }, Layer::At { .. }) = (x, y) {
            out.push(Meeting::Parallel(k));
        }
        break;
    }
    out
}

/// An offer of the second of two equal components meets only the first, side by side (the
/// same list: lists are shared by reference from one opening).
fn twin_meeting(twin: &Offer<'_>, other: &Offer<'_>) -> Vec<Meeting> {
    let Some((k, index)) = twin.twin else {
        return Vec::new();
    };
    let Layer::At { list, .. } = &twin.layers[k] else {
        return Vec::new();
    };
    match other.layers.get(k) {
        Some(Layer::At { list: l, index: i }) if Rc::ptr_eq(l, list) && *i + 1 == index => {
            vec![Meeting::Parallel(k)]
        }
        _ => Vec::new(),
    }
}
