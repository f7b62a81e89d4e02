//! Spawning: from a term and the values of its variables to the components it stands for
//! (rules *Nil*, *Par*, *New*, *Seq-Start*, *Seq-Skip*, *If*, *Match*, *Call*, *Leaf*).
//!
//! Every component is labelled with the instance it belongs to: in the initial state, each
//! process call starts an instance of its own (`Phil(3)`); later, whatever a component spawns
//! belongs to the component's instance.

use crate::eval::{self, FaultKind, UNSET, check_types, eval, eval_all, matches_all};
use crate::state::{Closure, Proc};
use crate::value::{Chan, Value};
use crate::{Fault, Instance, Semantics};
use agentpi_ir::core::{DefId, Expr, Pattern, Term, TermId, Type};
use std::sync::Arc;

/// How deep process calls may nest without a prefix. The type checker rejects unguarded
/// recursion, so only a chain of that many distinct definitions, each calling the next,
/// reaches it; past it a step is a [`FaultKind::TooDeep`], which the checker reports as a
/// limit, never as a verdict. Spawning recurses once per call: 10 000 levels took under
/// 8 MiB of stack in the test profile, half of the 16 MiB the threads that spawn are given
/// (`agentpi::STACK_BYTES`, the explorer's pool); 20 000 did not fit in 8 MiB.
pub const MAX_CALL_DEPTH: u32 = 10_000;

#[cfg(test)]
thread_local! {
    /// How many frames [`Spawner::load`] built on this thread, and how many cells they had
    /// in all (each frame costs its size): tests pin the work of opening with them.
    pub(crate) static FRAMES_LOADED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    pub(crate) static CELLS_LOADED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Spawns terms into components, numbering the fresh names it makes from a counter.
pub(crate) struct Spawner<'s, 'p> {
    pub(crate) sem: &'s Semantics<'p>,
    fresh: u32,
    depth: u32,
    /// The instance new components belong to.
    instance: Instance,
    /// While spawning an initial state: the calls of the system's body met so far, by
    /// instance, with their arguments.
    naming: Option<rustc_hash::FxHashMap<Instance, String>>,
}

impl<'s, 'p> Spawner<'s, 'p> {
    pub(crate) fn new(sem: &'s Semantics<'p>, fresh: u32) -> Self {
        Spawner {
            sem,
            fresh,
            depth: 0,
            instance: 0,
            naming: None,
        }
    }

    /// A spawner for an initial state, which remembers how the calls of the system's body
    /// that it meets print (`Phil(3)`).
    pub(crate) fn initial(sem: &'s Semantics<'p>) -> Self {
        Spawner {
            naming: Some(Default::default()),
            ..Spawner::new(sem, 0)
        }
    }

    /// The calls of the system's body that an initial spawn met, by instance.
    pub(crate) fn call_texts(self) -> rustc_hash::FxHashMap<Instance, String> {
        self.naming.unwrap_or_default()
    }

    pub(crate) fn next_fresh(&self) -> u32 {
        self.fresh
    }

    /// Reserves `count` fresh ids after every one used so far; returns the first.
    pub(crate) fn reserve(&mut self, count: u32) -> u32 {
        let first = self.fresh;
        self.fresh += count;
        first
    }

    /// Components spawned from now on belong to `instance`.
    pub(crate) fn set_instance(&mut self, instance: Instance) {
        self.instance = instance;
    }

    /// Puts `term` into component form, appending to `out`.
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
            Term::Prefix(..) | Term::Choice(_) => {
                out.push(Proc::Leaf(Arc::new(self.closure(term, frame))))
            }
            Term::Repl(_) => {
                let term = self.sem.innermost_replication(term);
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

    /// Rules *Seq-Start* and *Seq-Skip*.
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

    /// Rule *Call*: the body with the parameters bound to the argument values.
    fn call(
        &mut self,
        term: TermId,
        def: DefId,
        args: &[Expr],
        frame: &[Value],
        out: &mut Vec<Proc>,
    ) -> Result<(), Fault> {
        let program = self.sem.program;
        let fault = |kind| Fault {
            kind,
            span: program.info(term).span,
        };
        let values = eval_all(args, frame).map_err(fault)?;
        let callee_def = program.def(def);
        let types: Vec<Type> = callee_def.params.iter().map(|(_, t)| t.clone()).collect();
        check_types(&values, &types, program).map_err(fault)?;
        if self.depth >= MAX_CALL_DEPTH {
            return Err(fault(FaultKind::TooDeep));
        }
        let mut callee = vec![UNSET; self.sem.frame_size()];
        for ((slot, _), v) in callee_def.params.iter().zip(&values) {
            callee[*slot as usize] = v.clone();
        }
        let outer = self.enter_instance(term, def, &values);
        self.depth += 1;
        let result = self.spawn(callee_def.body, &mut callee, out);
        self.depth -= 1;
        self.instance = outer;
        result
    }

    /// A call written in a system's body starts its own instance (see [`Instance`]); returns
    /// the instance to go back to afterwards.
    fn enter_instance(&mut self, term: TermId, def: DefId, values: &[Value]) -> Instance {
        let outer = self.instance;
        let site = self.sem.call_instance(term);
        if site != 0 {
            self.instance = site;
            let text = self
                .naming
                .is_some()
                .then(|| self.sem.call_text(def, values));
            if let (Some(names), Some(text)) = (&mut self.naming, text) {
                names.insert(site, text);
            }
        }
        outer
    }

    /// Rule *Leaf*: the closure of `term` in `frame`, keeping only its free variables.
    pub(crate) fn closure(&self, term: TermId, frame: &[Value]) -> Closure {
        let cells = &self.sem.program.info(term).cells;
        Closure {
            term,
            env: cells.iter().map(|&c| frame[c as usize].clone()).collect(),
            instance: self.instance,
        }
    }

    /// A scratch frame holding a closure's values in their slots.
    pub(crate) fn load(&self, closure: &Closure) -> Vec<Value> {
        #[cfg(test)]
        FRAMES_LOADED.with(|n| n.set(n.get() + 1));
        #[cfg(test)]
        CELLS_LOADED.with(|n| n.set(n.get() + self.sem.frame_size()));
        let mut frame = vec![UNSET; self.sem.frame_size()];
        let cells = &self.sem.program.info(closure.term).cells;
        for (&cell, v) in cells.iter().zip(closure.env.iter()) {
            frame[cell as usize] = v.clone();
        }
        frame
    }

    /// Spawns a waiting closure's term again (the right side of a sequence, when it starts),
    /// in the closure's instance.
    pub(crate) fn spawn_closure(
        &mut self,
        closure: &Closure,
        out: &mut Vec<Proc>,
    ) -> Result<(), Fault> {
        let mut frame = self.load(closure);
        self.instance = closure.instance;
        self.spawn(closure.term, &mut frame, out)
    }
}
