//! The engine behind `Semantics::successors_where` for callers that step one state at a time
//! (the monitor's replay): each distinct component's moves are computed once and kept, so a
//! state with thousands of components (a flood of requests in flight) costs a look-up per
//! component and the targets of the transitions asked for, instead of opening every
//! component again for every message.

use super::*;
use agentpi_semantics::Transition;

/// The transitions of states, as `Semantics::successors_where` gives them, from cached moves.
pub struct Cached<'s, 'p> {
    sem: &'s Semantics<'p>,
    store: Store,
    engine: Engine<'s, 'p>,
    /// Room reused from call to call (and what `Order` remembers).
    work: Work,
}

/// The cache starts over past this many bytes: a long session meets new components (new
/// request ids) all the time.
const LIMIT: u64 = 64 << 20;

impl<'s, 'p> Cached<'s, 'p> {
    pub fn new(sem: &'s Semantics<'p>) -> Self {
        Cached {
            sem,
            store: Store::default(),
            engine: Engine::new(sem, false),
            work: Work::default(),
        }
    }

    /// `Semantics::successors_where(state, keep)`: the same transitions in the same order.
    pub fn successors_where(
        &mut self,
        state: &State,
        keep: &dyn Fn(&Label) -> bool,
    ) -> Vec<Transition> {
        if self.store.bytes() > LIMIT {
            *self = Cached::new(self.sem);
        }
        let ids = self.store.intern(state).ids;
        for _ in 0..4 {
            let work = &mut self.work;
            match self.engine.assemble(
                &self.store,
                &ids,
                None,
                Some(keep),
                work,
                Default::default(),
            ) {
                Ok((out, _, _)) => return self.transitions(state, out),
                Err(misses) if !misses.is_empty() => {
                    self.engine.fill_now(&mut self.store, misses, true);
                }
                Err(_) => break,
            }
        }
        self.sem.successors_where(state, keep)
    }

    fn transitions(&self, source: &State, out: Vec<FastSucc>) -> Vec<Transition> {
        let labels = &self.engine.labels.items;
        out.into_iter()
            .map(|succ| match succ {
                FastSucc::To {
                    label,
                    actors,
                    target: Target::State(target),
                    renaming,
                } => Transition {
                    label: labels[label as usize].clone(),
                    target: *target,
                    renaming,
                    fault: None,
                    actors: actors.to_vec(),
                    at: None,
                },
                FastSucc::Fault {
                    label,
                    fault,
                    actors,
                } => Transition {
                    label: labels[label as usize].clone(),
                    target: source.clone(),
                    renaming: (0..source.fresh).collect(),
                    fault: Some(fault),
                    actors: actors.to_vec(),
                    at: None,
                },
                FastSucc::To { .. } => unreachable!("states are built whole without a store"),
            })
            .collect()
    }
}
