//! A process of `mcp/bridge` stepped against the real wire. Its components' moves are found
//! by the rules `Semantics::successors` applies (`Semantics::component_moves` and
//! `component_receives`), with the wire channels left open: an input on `lc2s` or `ms2c`
//! fires only with the model value of a message that has really arrived, and an output on
//! `ls2c` or `mc2s` is a message to write. So every step the bridge takes is a transition
//! of the process the checks explored, and a message no enabled input takes is refused,
//! never guessed at.

use crate::model::Model;
use crate::msg::Msg;
use agentpi_ir::core::ChanId;
use agentpi_semantics::state::canonicalize;
use agentpi_semantics::{Chan, MoveKind, Proc, Received};

/// One copy of a process: its top-level components.
#[derive(Clone)]
pub struct Machine {
    model: &'static Model,
    procs: Vec<Proc>,
}

/// Why a machine did not step.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No enabled input takes the message.
    NoInput,
    /// The step raised a fault of the model (a value out of range, ...).
    Fault(String),
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
        Ok(Machine {
            model,
            procs: state.procs.to_vec(),
        })
    }

    /// Whether every component has terminated (the copy has nothing more to do).
    pub fn ended(&self) -> bool {
        self.procs.is_empty()
    }

    /// Takes `msg` on `chan` (an input of the process); refused when no enabled input of any
    /// component takes it.
    pub fn input(&mut self, chan: ChanId, msg: Msg) -> Result<(), Refusal> {
        let sem = &self.model.sem;
        let value = msg.value(sem.program);
        for k in 0..self.procs.len() {
            let moves = sem.component_moves(&self.procs[k], false);
            for (o, m) in moves.offers.iter().enumerate() {
                let MoveKind::In { chan: c, .. } = &m.kind else {
                    continue;
                };
                if *c != Chan::Global(chan) {
                    continue;
                }
                let received =
                    sem.component_receives(&self.procs[k], false, o, std::slice::from_ref(&value));
                match received {
                    Received::NoMatch => continue,
                    Received::Fault(f) => return Err(Refusal::Fault(format!("{:?}", f.kind))),
                    Received::Then(Err(f), _) => {
                        return Err(Refusal::Fault(format!("{:?}", f.kind)));
                    }
                    Received::Then(Ok(then), _) => {
                        self.replace(k, then);
                        return Ok(());
                    }
                }
            }
        }
        Err(Refusal::NoInput)
    }

    /// Takes the first enabled output on `chan` or `other`, in the order `successors`
    /// gives them; returns the channel and the message to write.
    pub fn output(&mut self, chans: &[ChanId]) -> Result<Option<(ChanId, Msg)>, Refusal> {
        let sem = &self.model.sem;
        for k in 0..self.procs.len() {
            let moves = sem.component_moves(&self.procs[k], false);
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
                self.replace(k, then);
                return Ok(Some((c, msg)));
            }
        }
        Ok(None)
    }

    /// Takes the first enabled move of a component alone (the model's `tau`: in `ToLegacy`
    /// the timeout of a held call whose retry never came); false when there is none.
    pub fn internal(&mut self) -> Result<bool, Refusal> {
        let sem = &self.model.sem;
        for k in 0..self.procs.len() {
            let moves = sem.component_moves(&self.procs[k], false);
            for m in moves.offers {
                let MoveKind::Alone { then, .. } = m.kind else {
                    continue;
                };
                let then = then.map_err(|f| Refusal::Fault(format!("{:?}", f.kind)))?;
                self.replace(k, then);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether this copy is in the same state as `other` (a copy back at its template).
    pub fn same_as(&self, other: &Machine) -> bool {
        self.procs == other.procs
    }

    /// Component `k` becomes `then`; the whole put back in canonical form (a sequence whose
    /// left side ended goes on with its right side).
    fn replace(&mut self, k: usize, then: Vec<Proc>) {
        let mut procs = std::mem::take(&mut self.procs);
        procs.splice(k..k + 1, then);
        let sem = &self.model.sem;
        let (state, _) = canonicalize(procs, Vec::new(), 0, &|t| sem.is_replication(t));
        self.procs = state.procs.to_vec();
    }
}
