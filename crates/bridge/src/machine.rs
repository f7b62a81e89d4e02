//! A process of `mcp/bridge` stepped against the real wire. Its components' moves are found
//! by the rules `Semantics::successors` applies (`Semantics::component_moves` and
//! `component_receives`), with the wire channels left open: an input on `lc2s` or `ms2c`
//! fires only with the model value of a message that has really arrived, and an output on
//! `ls2c` or `mc2s` is a message to write. So every step the bridge takes is a transition
//! of the process the checks explored, and a message no enabled input takes is refused,
//! never guessed at.
//!
//! A step is a function of the copy's state and what is asked of it (the semantics are pure),
//! so each is computed once per process: the states a copy reaches are numbered as they are
//! first met and each step is remembered (`Table`), and a request's copy then steps by a
//! look-up instead of opening its components' terms again. The states are those of the
//! checked process (finite: the checks explored them), so the table is bounded by the model.

use crate::model::Model;
use crate::msg::Msg;
use agentpi_ir::core::ChanId;
use agentpi_semantics::state::canonicalize;
use agentpi_semantics::{Chan, MoveKind, Proc, Received};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// One copy of a process: its state, numbered in the table its copies share.
#[derive(Clone)]
pub struct Machine {
    model: &'static Model,
    table: Arc<Mutex<Table>>,
    state: usize,
}

/// Why a machine did not step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No enabled input takes the message.
    NoInput,
    /// The step raised a fault of the model (a value out of range, ...).
    Fault(String),
}

/// What is asked of a state.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Ask {
    Input(ChanId, Msg),
    Output(Box<[ChanId]>),
    Internal,
}

/// What a state did when asked: nothing (no output, no internal move), or the state it went
/// to with the message it wrote (an output's).
type Step = Result<Option<(usize, Option<(ChanId, Msg)>)>, Refusal>;

/// The states the copies of one process met, numbered, and the steps they took.
#[derive(Default)]
struct Table {
    states: Vec<Arc<[Proc]>>,
    numbers: HashMap<Arc<[Proc]>, usize>,
    steps: HashMap<(usize, Ask), Step>,
}

impl Table {
    /// The number of state `procs`, given it now if it is new.
    fn number(&mut self, procs: Vec<Proc>) -> usize {
        if let Some(&n) = self.numbers.get(&procs[..]) {
            return n;
        }
        let procs: Arc<[Proc]> = procs.into();
        self.states.push(procs.clone());
        self.numbers.insert(procs, self.states.len() - 1);
        self.states.len() - 1
    }
}

/// The table of `system`'s copies in `model`, shared by every copy the process makes (over
/// HTTP, every legacy session's process).
fn table(model: &'static Model, system: &str) -> Arc<Mutex<Table>> {
    type Tables = Vec<(usize, String, Arc<Mutex<Table>>)>;
    static TABLES: Mutex<Tables> = Mutex::new(Vec::new());
    let mut tables = TABLES.lock().unwrap_or_else(PoisonError::into_inner);
    let key = std::ptr::from_ref(model) as usize;
    if let Some((_, _, t)) = tables.iter().find(|(m, s, _)| *m == key && s == system) {
        return t.clone();
    }
    let t = Arc::new(Mutex::new(Table::default()));
    tables.push((key, system.to_string(), t.clone()));
    t
}

impl Machine {
    /// The process of system `system` at its start.
    pub fn start(model: &'static Model, system: &str) -> Result<Machine, String> {
        let index = model
            .sem
            .program
            .system(system)
            .ok_or_else(|| format!("mcp/bridge has no system {system}"))?;
        let state = model
            .sem
            .initial(index)
            .map_err(|f| format!("{system} faults at its start: {:?}", f.kind))?;
        let table = table(model, system);
        let state = lock(&table).number(state.procs.to_vec());
        Ok(Machine {
            model,
            table,
            state,
        })
    }

    /// Whether every component has terminated (the copy has nothing more to do).
    pub fn ended(&self) -> bool {
        lock(&self.table).states[self.state].is_empty()
    }

    /// Takes `msg` on `chan` (an input of the process); refused when no enabled input of any
    /// component takes it.
    pub fn input(&mut self, chan: ChanId, msg: Msg) -> Result<(), Refusal> {
        self.step(Ask::Input(chan, msg)).map(drop)
    }

    /// Takes the first enabled output on `chan` or `other`, in the order `successors`
    /// gives them; returns the channel and the message to write.
    pub fn output(&mut self, chans: &[ChanId]) -> Result<Option<(ChanId, Msg)>, Refusal> {
        Ok(self.step(Ask::Output(chans.into()))?.flatten())
    }

    /// Takes the first enabled move of a component alone (the model's `tau`: in `ToLegacy`
    /// the timeout of a held call whose retry never came); false when there is none.
    pub fn internal(&mut self) -> Result<bool, Refusal> {
        Ok(self.step(Ask::Internal)?.is_some())
    }

    /// Whether this copy is in the same state as `other` (a copy back at its template).
    pub fn same_as(&self, other: &Machine) -> bool {
        if Arc::ptr_eq(&self.table, &other.table) {
            return self.state == other.state;
        }
        let mine = lock(&self.table).states[self.state].clone();
        let theirs = lock(&other.table).states[other.state].clone();
        mine == theirs
    }

    /// The step `ask` of the copy's state: remembered, or found and remembered; the copy
    /// goes to the state it reaches. `None` when it does not move; else the message it wrote
    /// (an output's).
    fn step(&mut self, ask: Ask) -> Result<Option<Option<(ChanId, Msg)>>, Refusal> {
        let mut table = lock(&self.table);
        let key = (self.state, ask);
        let step = match table.steps.get(&key) {
            Some(step) => step.clone(),
            None => {
                let procs = table.states[self.state].clone();
                let found = find(self.model, &procs, &key.1);
                let step = found.map(|f| f.map(|(procs, written)| (table.number(procs), written)));
                table.steps.insert(key, step.clone());
                step
            }
        };
        drop(table);
        let step = step?;
        if let Some((to, _)) = step {
            self.state = to;
        }
        Ok(step.map(|(_, written)| written))
    }
}

fn lock(table: &Mutex<Table>) -> MutexGuard<'_, Table> {
    table.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the semantics do when `ask` is asked of `procs`: the components after, with the
/// message an output writes.
type Found = Result<Option<(Vec<Proc>, Option<(ChanId, Msg)>)>, Refusal>;

fn find(model: &Model, procs: &[Proc], ask: &Ask) -> Found {
    match ask {
        Ask::Input(chan, msg) => input(model, procs, *chan, *msg).map(|p| Some((p, None))),
        Ask::Output(chans) => {
            let out = output(model, procs, chans)?;
            Ok(out.map(|(p, chan, msg)| (p, Some((chan, msg)))))
        }
        Ask::Internal => Ok(internal(model, procs)?.map(|p| (p, None))),
    }
}

/// `Machine::input` by the semantics: the components after.
fn input(model: &Model, procs: &[Proc], chan: ChanId, msg: Msg) -> Result<Vec<Proc>, Refusal> {
    let sem = &model.sem;
    let value = msg.value(sem.program);
    for k in 0..procs.len() {
        let moves = sem.component_moves(&procs[k], false);
        for (o, m) in moves.offers.iter().enumerate() {
            let MoveKind::In { chan: c, .. } = &m.kind else {
                continue;
            };
            if *c != Chan::Global(chan) {
                continue;
            }
            let received =
                sem.component_receives(&procs[k], false, o, std::slice::from_ref(&value));
            match received {
                Received::NoMatch => continue,
                Received::Fault(f) => return Err(Refusal::Fault(format!("{:?}", f.kind))),
                Received::Then(Err(f), _) => {
                    return Err(Refusal::Fault(format!("{:?}", f.kind)));
                }
                Received::Then(Ok(then), _) => return Ok(replaced(model, procs, k, then)),
            }
        }
    }
    Err(Refusal::NoInput)
}

/// `Machine::output` by the semantics: the components after, the channel and the message.
fn output(
    model: &Model,
    procs: &[Proc],
    chans: &[ChanId],
) -> Result<Option<(Vec<Proc>, ChanId, Msg)>, Refusal> {
    let sem = &model.sem;
    for k in 0..procs.len() {
        let moves = sem.component_moves(&procs[k], false);
        for m in moves.offers {
            let MoveKind::Out {
                chan: Chan::Global(c),
                values,
                then,
                ..
            } = m.kind
            else {
                continue;
            };
            if !chans.contains(&c) {
                continue;
            }
            let msg = values
                .first()
                .and_then(|v| Msg::of(sem.program, v))
                .ok_or_else(|| Refusal::Fault("an output that is no message".into()))?;
            let then = then.map_err(|f| Refusal::Fault(format!("{:?}", f.kind)))?;
            return Ok(Some((replaced(model, procs, k, then), c, msg)));
        }
    }
    Ok(None)
}

/// `Machine::internal` by the semantics: the components after.
fn internal(model: &Model, procs: &[Proc]) -> Result<Option<Vec<Proc>>, Refusal> {
    let sem = &model.sem;
    for k in 0..procs.len() {
        let moves = sem.component_moves(&procs[k], false);
        for m in moves.offers {
            let MoveKind::Alone { then, .. } = m.kind else {
                continue;
            };
            let then = then.map_err(|f| Refusal::Fault(format!("{:?}", f.kind)))?;
            return Ok(Some(replaced(model, procs, k, then)));
        }
    }
    Ok(None)
}

/// Component `k` of `procs` become `then`; the whole put back in canonical form (a sequence
/// whose left side ended goes on with its right side).
fn replaced(model: &Model, procs: &[Proc], k: usize, then: Vec<Proc>) -> Vec<Proc> {
    let mut procs = procs.to_vec();
    procs.splice(k..k + 1, then);
    let sem = &model.sem;
    let (state, _) = canonicalize(procs, Vec::new(), 0, &|t| sem.is_replication(t));
    state.procs.to_vec()
}
