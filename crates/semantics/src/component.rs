//! One component on its own: what a top-level component of a state can do, found by the very
//! rules `successors` applies (`offers.rs`, `step.rs`), so that an exploration engine can
//! compute it once per distinct component and pair components itself.
//!
//! The offers of a state are the offers of its top-level components, one after another, and
//! every transition of the state is one of: an offer firing alone (rules *Tau*, *Event*,
//! *Assert*, *Send*, *Receive*, *Fault*), two offers of one component meeting (*Comm-Within*,
//! *Comm-Repl*), or an output of one component meeting an input of another (*Comm*), where
//! each of the two is replaced by what its offer continues as. So a component's offers, what
//! each continues as, and its internal communications are all that needs computing per
//! component; [`Moves`] holds them, computed on a state holding that component alone.
//!
//! The second of two equal components side by side is opened as a *twin* (see
//! `Opener::open_list`): it only meets the first, and equal components nested inside it are
//! opened once. [`Semantics::component_moves`] takes the role as an argument.
//!
//! Fresh names. The component's own names keep their ids. Names made while computing (by
//! opening it, or by building what a move continues as) are numbered from the component's
//! *base*, one more than the largest id it holds, and every build says which ids it made
//! ([`Made`]): in a state, `successors` numbers them from the state's count on, in the order
//! it builds, so a user of these moves renumbers each build's ids accordingly.

use crate::eval::{FaultKind, matches_all};
use crate::label::{Head, Label};
use crate::offers::{Act, Offer, Opener};
use crate::spawn::Spawner;
use crate::state::{Proc, for_each_fresh};
use crate::step::{Emitted, Stepper};
use crate::value::{Chan, Value};
use crate::{Fault, Instance, Semantics};
use agentpi_diagnostics::Span;
use std::rc::Rc;

/// What a component became: its replacement in the state's list of components (not yet in
/// canonical form), or the fault that building it raised.
pub type Built = Result<Vec<Proc>, Fault>;

/// What one top-level component can do.
#[derive(Debug)]
pub struct Moves {
    /// Its offers, in the order `successors` opens them.
    pub offers: Vec<Move>,
    /// The communications between two of its own offers, as (output index, input index,
    /// the transitions in the order `successors` gives them), for every such pair on a
    /// synchronous channel, in the order `successors` tries the pairs.
    pub internal: Vec<(u32, u32, Vec<LocalStep>)>,
    /// One more than the largest fresh id the component holds: ids from here on are made.
    pub base: u32,
    /// How many names opening the component made (a replicated body or a branch that
    /// starts with `new`): `[base, base + opened)`. Offers' values may hold them.
    pub opened: u32,
}

/// The ids a build made, `[lo, hi)`; `hi` is also how many ids the computation had used
/// when the build was done.
pub type Made = std::ops::Range<u32>;

/// One offer of a component.
#[derive(Debug)]
pub struct Move {
    pub kind: MoveKind,
    /// The offer is of the second of two equal components side by side inside this one
    /// (see `Opener::open_list`): it never fires alone and meets only offers of the first,
    /// which are inside this component too ([`Moves::internal`] has those meetings).
    pub twin: bool,
    /// The instance of the closure that acts.
    pub instance: Instance,
    /// Where the acting prefix is written.
    pub span: Span,
}

#[derive(Debug)]
pub enum MoveKind {
    /// `tau`, an event or an assertion that holds: fires alone with this label.
    Alone {
        label: Label,
        then: Built,
        made: Made,
    },
    /// A failed assertion, or a prefix whose expressions fault: a fault transition, `tau`.
    Fault(FaultKind),
    /// An output. On a synchronous channel it meets inputs (its label is `chan(values)`); on
    /// a buffered one it is a send (see [`Semantics::send_effects`]).
    Out {
        chan: Chan,
        values: Box<[Value]>,
        then: Built,
        made: Made,
    },
    /// An input; what the component becomes depends on the values
    /// ([`Semantics::component_receives`]). `guard` is the value its first pattern requires,
    /// when that pattern is `=e`: other values do not match. `may_fault`: matching evaluates
    /// an expression (an `=e` pattern), which may fault; otherwise it never does.
    In {
        chan: Chan,
        guard: Option<Value>,
        may_fault: bool,
    },
}

/// A transition of a component alone: its label, what the component became (or the fault),
/// and the instances that moved.
#[derive(Debug)]
pub struct LocalStep {
    pub label: Label,
    pub then: Built,
    pub actors: Vec<Instance>,
    /// The ids its build made (none for a fault raised before building).
    pub made: Made,
}

/// What an input offer does with received values.
#[derive(Debug)]
pub enum Received {
    /// The values do not fit its patterns: no transition.
    NoMatch,
    /// Matching them faulted (a pattern's expression): a fault transition, `tau`, of the
    /// input's instance at its prefix.
    Fault(Fault),
    /// What the component becomes, and the ids building it made.
    Then(Built, Made),
}

/// What an output on a buffered channel does, given the messages waiting there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendEffects {
    /// The message joins the queue (there is room).
    pub push: bool,
    /// The message is lost (a lossy channel).
    pub lose: bool,
}

impl Semantics<'_> {
    /// The moves of `proc` as a top-level component; `twin` when it is the second of two
    /// equal components side by side.
    pub fn component_moves(&self, proc: &Proc, twin: bool) -> Moves {
        let base = fresh_bound(proc);
        let (offers, spawner) = self.open_component(proc, twin, base);
        let opened = spawner.next_fresh() - base;
        let no_queues: &[crate::Queue] = &[];
        let keep = |_: &Label| true;
        let mut stepper = Stepper::new(spawner, no_queues, &keep);
        let moves = offers.iter().map(|o| stepper.describe(o)).collect();
        let internal = stepper.internal(&offers);
        Moves {
            offers: moves,
            internal,
            base,
            opened,
        }
    }

    /// What input offer `offer` of `proc` (in the role `twin`) does with `values`. Names made
    /// are numbered from one more than the largest id `proc` or `values` hold.
    pub fn component_receives(
        &self,
        proc: &Proc,
        twin: bool,
        offer: usize,
        values: &[Value],
    ) -> Received {
        let base = receive_base(proc, values);
        let mut opener = Opener::only(Spawner::new(self, base), offer);
        opener.open_top(Rc::new(vec![proc.clone()]), twin);
        let (mut offers, spawner) = (opener.offers, opener.spawner);
        let Some(input) = offers.first_mut() else {
            return Received::NoMatch;
        };
        let Act::In(_, pats) = input.act else {
            return Received::NoMatch;
        };
        // Building the continuation reads the frame passed, not the offer's.
        let mut frame = std::mem::take(&mut input.frame);
        let input = &*input;
        match matches_all(pats, values, &mut frame, self.program) {
            Ok(false) => Received::NoMatch,
            Err(kind) => Received::Fault(Fault {
                kind,
                span: input.span,
            }),
            Ok(true) => {
                let no_queues: &[crate::Queue] = &[];
                let keep = |_: &Label| true;
                let mut stepper = Stepper::new(spawner, no_queues, &keep);
                let lo = stepper.spawner.next_fresh();
                let then = stepper.alone(input, frame);
                Received::Then(then, lo..stepper.spawner.next_fresh())
            }
        }
    }

    /// Rule *Send*: an output on buffered channel `chan` with `waiting` messages queued joins
    /// the queue when there is room, and may be lost when the channel is lossy.
    pub fn send_effects(&self, chan: Chan, waiting: usize) -> SendEffects {
        match self.buffer(chan) {
            None => SendEffects {
                push: false,
                lose: false,
            },
            Some(buffer) => SendEffects {
                push: waiting < buffer.capacity as usize,
                lose: buffer.lossy,
            },
        }
    }

    /// The offers of a state holding `proc` alone, with fresh names numbered from `base`.
    fn open_component<'s>(
        &'s self,
        proc: &Proc,
        twin: bool,
        base: u32,
    ) -> (Vec<Offer<'s>>, Spawner<'s, 's>) {
        let mut opener = Opener::new(Spawner::new(self, base));
        opener.open_top(Rc::new(vec![proc.clone()]), twin);
        let offers = std::mem::take(&mut opener.offers);
        (offers, opener.spawner)
    }
}

impl<'p> Stepper<'_, 'p, '_> {
    /// One offer as a [`Move`], with what it continues as when it fires alone.
    fn describe(&mut self, offer: &Offer<'p>) -> Move {
        let kind = match &offer.act {
            Act::Tau | Act::Assert(true) => self.alone_move(offer, Label::tau()),
            Act::Event(e, values) => {
                let label = Label {
                    head: Head::Event(*e),
                    args: values.clone().into(),
                };
                self.alone_move(offer, label)
            }
            Act::Assert(false) => MoveKind::Fault(FaultKind::AssertionFailed),
            Act::Fault(kind) => MoveKind::Fault(kind.clone()),
            Act::Out(chan, values) => {
                let lo = self.spawner.next_fresh();
                let then = self.alone(offer, offer.frame.clone());
                MoveKind::Out {
                    chan: *chan,
                    values: values.clone().into(),
                    then,
                    made: lo..self.spawner.next_fresh(),
                }
            }
            Act::In(chan, pats) => MoveKind::In {
                chan: *chan,
                guard: offer.guard(),
                may_fault: pats.iter().any(evaluates),
            },
        };
        Move {
            kind,
            // Layer 0 is the component itself (a twin there is the role it was opened in).
            twin: offer.twin.is_some_and(|(layer, _)| layer > 0),
            instance: offer.instance,
            span: offer.span,
        }
    }

    fn alone_move(&mut self, offer: &Offer<'p>, label: Label) -> MoveKind {
        let lo = self.spawner.next_fresh();
        let then = self.alone(offer, offer.frame.clone());
        MoveKind::Alone {
            label,
            then,
            made: lo..self.spawner.next_fresh(),
        }
    }

    /// Every pair of the component's own offers that `communications` tries, with what it
    /// gives.
    fn internal(&mut self, offers: &[Offer<'p>]) -> Vec<(u32, u32, Vec<LocalStep>)> {
        let sem = self.spawner.sem;
        let mut out = Vec::new();
        for (o, output) in offers.iter().enumerate() {
            let Act::Out(chan, _) = output.act else {
                continue;
            };
            for (j, input) in offers.iter().enumerate() {
                let Act::In(c, _) = input.act else { continue };
                if c != chan || sem.buffer(c).is_some() {
                    continue;
                }
                let mut lo = self.spawner.next_fresh();
                self.pair(output, input);
                let emitted = std::mem::take(&mut self.out);
                let steps = emitted.into_iter().map(|e| local_step(e, &mut lo));
                out.push((o as u32, j as u32, steps.collect()));
            }
        }
        out
    }
}

/// A transition of the component alone; `lo` is where the ids its build made start (the
/// next build's start afterwards).
fn local_step(emitted: Emitted, lo: &mut u32) -> LocalStep {
    match emitted {
        Emitted::Step {
            label,
            built,
            actors,
            ids,
            ..
        } => {
            let made = *lo..ids;
            *lo = ids;
            LocalStep {
                label,
                then: built,
                actors,
                made,
            }
        }
        Emitted::Fault { fault, actor } => LocalStep {
            label: Label::tau(),
            then: Err(fault),
            actors: vec![actor],
            made: *lo..*lo,
        },
    }
}

/// Whether matching the pattern evaluates an expression.
fn evaluates(pattern: &agentpi_ir::core::Pattern) -> bool {
    use agentpi_ir::core::Pattern;
    match pattern {
        Pattern::Eq(_) => true,
        Pattern::Ctor(_, _, ps) | Pattern::Tuple(ps) => ps.iter().any(evaluates),
        Pattern::Bind(..) | Pattern::Wild => false,
    }
}

/// One more than the largest fresh id `proc` holds (0 when it holds none).
fn fresh_bound(proc: &Proc) -> u32 {
    let mut bound = 0;
    for_each_fresh(std::slice::from_ref(proc), &mut |id| {
        bound = bound.max(id + 1)
    });
    bound
}

/// Where the names an input of `proc` makes on receiving `values` are numbered from: one
/// more than the largest fresh id either holds.
fn receive_base(proc: &Proc, values: &[Value]) -> u32 {
    let mut base = fresh_bound(proc);
    values
        .iter()
        .for_each(|v| v.for_each_fresh(&mut |id| base = base.max(id + 1)));
    base
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::State;
    use crate::offers::BRANCH_STEPS;
    use crate::spawn::{CELLS_LOADED, FRAMES_LOADED};
    use std::collections::{HashSet, VecDeque};

    fn load(name: &str, text: &str) -> agentpi_ir::core::Program {
        let loaded = agentpi_ir::load_str(name, text);
        let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        loaded.program
    }

    /// `component_receives` as it was before it opened only the wanted offer: every offer
    /// opened, then the one asked for picked.
    fn receives_opening_all(
        sem: &Semantics<'_>,
        proc: &Proc,
        twin: bool,
        offer: usize,
        values: &[Value],
    ) -> Received {
        let base = receive_base(proc, values);
        let (offers, spawner) = sem.open_component(proc, twin, base);
        let Some(input) = offers.get(offer) else {
            return Received::NoMatch;
        };
        let Act::In(_, pats) = input.act else {
            return Received::NoMatch;
        };
        let mut frame = input.frame.clone();
        match matches_all(pats, values, &mut frame, sem.program) {
            Ok(false) => Received::NoMatch,
            Err(kind) => Received::Fault(Fault {
                kind,
                span: input.span,
            }),
            Ok(true) => {
                let keep = |_: &Label| true;
                let mut stepper = Stepper::new(spawner, &[], &keep);
                let lo = stepper.spawner.next_fresh();
                let then = stepper.alone(input, frame);
                Received::Then(then, lo..stepper.spawner.next_fresh())
            }
        }
    }

    /// The messages a state's inputs may meet: what its outputs send and its queues hold.
    fn messages(sem: &Semantics<'_>, state: &State) -> Vec<(Chan, Vec<Value>)> {
        let mut out: Vec<(Chan, Vec<Value>)> = state
            .queues
            .iter()
            .flat_map(|q| q.messages.iter().map(|m| (q.chan, m.to_vec())))
            .collect();
        for proc in &state.procs {
            for m in sem.component_moves(proc, false).offers {
                if let MoveKind::Out { chan, values, .. } = m.kind {
                    out.push((chan, values.to_vec()));
                }
            }
        }
        out
    }

    /// Every input of every component of the first states of `program`'s systems, given
    /// every message of its state on its channel (and one of another channel), in both
    /// roles: the same answer as opening every offer.
    fn receives_agree(name: &str, program: &agentpi_ir::core::Program) -> usize {
        let sem = Semantics::new(program);
        let mut compared = 0;
        for system in 0..program.systems.len() {
            let Ok(initial) = sem.initial(system) else {
                continue;
            };
            let mut seen = HashSet::from([initial.clone()]);
            let mut queue = VecDeque::from([initial]);
            while let Some(state) = queue.pop_front() {
                let messages = messages(&sem, &state);
                for proc in &state.procs {
                    for twin in [false, true] {
                        let moves = sem.component_moves(proc, twin);
                        for (o, m) in moves.offers.iter().enumerate() {
                            let MoveKind::In { chan, .. } = &m.kind else {
                                continue;
                            };
                            let on_chan = messages.iter().filter(|(c, _)| c == chan);
                            let other = messages.iter().find(|(c, _)| c != chan);
                            for (_, values) in on_chan.chain(other) {
                                let new = sem.component_receives(proc, twin, o, values);
                                let old = receives_opening_all(&sem, proc, twin, o, values);
                                assert_eq!(format!("{new:?}"), format!("{old:?}"), "{name}");
                                compared += 1;
                            }
                        }
                    }
                }
                for t in sem.successors(&state) {
                    if seen.len() < 60 && t.fault.is_none() && seen.insert(t.target.clone()) {
                        queue.push_back(t.target);
                    }
                }
            }
        }
        compared
    }

    /// The rule files and the bundled models exercise choices, replications, sequences and
    /// `new` in branches: opening only the wanted offer makes the same continuation, with
    /// the same fresh names, as opening all of them.
    #[test]
    fn receiving_opens_as_a_full_opening_would() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut compared = 0;
        for dir in ["crates/semantics/tests/rules", "models", "tests/run"] {
            let mut files: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "pi"))
                .collect();
            files.sort();
            for file in files {
                let text = std::fs::read_to_string(&file).unwrap();
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                let loaded = agentpi_ir::load_str(&name, &text);
                if loaded.diagnostics.iter().any(|d| d.is_error()) {
                    continue; // imports, or an error on purpose
                }
                compared += receives_agree(&name, &loaded.program);
            }
        }
        assert!(compared > 1000, "only {compared} receives compared");
    }

    /// Runs of prefix branches counted at once, around branches that are opened (one that
    /// makes a name, one with two offers): the same continuations and names as opening all.
    #[test]
    fn receiving_past_runs_of_prefixes_opens_as_a_full_opening_would() {
        let text = "type N = 0..7\nchan c : N\nevent e(N)\nevent a\nsystem S = \
                    c?x . e(x) + c?y . a + (new k: chan N . (k!1 | k?y . e(y) | c?v . e(v))) \
                    + c?z . e(z) + c?u . a + (c?w . 0 | a) + c?t . e(t) + c?s . a | c!2 | c!3\n";
        let program = load("runs.pi", text);
        assert!(receives_agree("runs.pi", &program) >= 40);
    }

    /// What the n receives of the first state of an n-way choice of inputs (a server's
    /// dispatch) cost: frames loaded, cells loaded and steps over branches.
    fn receives_on_a_wide_choice(n: usize) -> [usize; 3] {
        let branches = "c?x . e(x) + ".repeat(n);
        let text = format!(
            "type N = 0..7\nchan c : N\nevent e(N)\nevent a\nsystem S = {branches}a | c!2\n"
        );
        let program = load("choice.pi", &text);
        let sem = Semantics::new(&program);
        let state = sem.initial(0).expect("an initial state");
        let choice = state
            .procs
            .iter()
            .find(|p| sem.component_moves(p, false).offers.len() == n + 1)
            .expect("the choice");
        let counts =
            || [&FRAMES_LOADED, &CELLS_LOADED, &BRANCH_STEPS].map(|count| count.with(|c| c.get()));
        let before = counts();
        for offer in 0..n {
            let received = sem.component_receives(choice, false, offer, &[Value::Int(2)]);
            assert!(matches!(received, Received::Then(Ok(_), _)));
        }
        let after = counts();
        [0, 1, 2].map(|i| after[i] - before[i])
    }

    /// What each input of a wide choice does with a message loads one frame, not the n of
    /// every branch. Opening all of them made the n receives of the first state load n²
    /// frames of n slots each, a time cubic in n.
    #[test]
    fn receiving_on_one_branch_of_a_wide_choice_loads_one_frame() {
        let [frames, _, _] = receives_on_a_wide_choice(64);
        assert_eq!(frames, 64, "frames loaded by 64 receives");
    }

    /// The same choice: its n branches, each binding its own `x`, share one cell of the
    /// frame, and a receive on one branch counts the branches before and after it at once.
    /// So the n receives of the first state cost O(n) in all: n cells loaded (n² when a
    /// frame had a cell per binder of the system) and 3n - 1 steps over branches (n + 1 per
    /// receive when the prefixes were counted one by one).
    #[test]
    fn receives_on_a_wide_choice_cost_linear_in_all() {
        let n = 64;
        let [_, cells, steps] = receives_on_a_wide_choice(n);
        assert_eq!(cells, n, "cells loaded by {n} receives");
        assert_eq!(steps, 3 * n - 1, "steps over branches by {n} receives");
    }
}
