//! The protocol models, bundled: `models/mcp/legacy.pi` (2025-06-18, 2025-11-25) and
//! `models/mcp/modern.pi` (2026-07-28). Each is
//! loaded once per process and kept for its lifetime, so sessions borrow it freely.

use crate::follow::Follow;
use crate::stepper::Stepper;
use agentpi_check::replay::memo::{Memo, SHARED_WEIGHT};
use agentpi_check::replay::{Alphabet, Options, Replay};
use agentpi_ir::core::Program;
use agentpi_semantics::Semantics;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

pub const LEGACY: &str = include_str!("../../../models/mcp/legacy.pi");
pub const MODERN: &str = include_str!("../../../models/mcp/modern.pi");

/// A loaded model and its semantics.
pub struct Model {
    pub sem: Semantics<'static>,
    system: usize,
    alphabet: Alphabet,
}

/// `violation` marks an observer raising a rule id.
const FLAGS: &[&str] = &["violation"];

/// Loads a model; `visible` are the labels the monitor observes.
fn load(name: &str, text: &str, visible: &[&str]) -> Result<Model, String> {
    let loaded = agentpi_ir::load_str(name, text);
    if loaded.has_errors() {
        return Err(format!("the bundled model {name} does not load"));
    }
    let program: &'static Program = Box::leak(Box::new(loaded.program));
    let system = program
        .system("Monitor")
        .ok_or_else(|| format!("{name} has no system Monitor"))?;
    let alphabet = Alphabet::new(program, visible, FLAGS)?;
    Ok(Model {
        sem: Semantics::new(program),
        system,
        alphabet,
    })
}

/// The legacy model (loaded on first use).
pub fn legacy() -> Result<&'static Model, String> {
    static MODEL: OnceLock<Result<Model, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| load("mcp/legacy.pi", LEGACY, &["c2s", "s2c", "decl"]))
        .as_ref()
        .map_err(Clone::clone)
}

/// The modern model (loaded on first use).
pub fn modern() -> Result<&'static Model, String> {
    static MODEL: OnceLock<Result<Model, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| load("mcp/modern.pi", MODERN, &["c2s", "s2c"]))
        .as_ref()
        .map_err(Clone::clone)
}

thread_local! {
    /// Per model (by address), the memo of transitions the steppers of this thread share.
    static MEMOS: RefCell<Vec<(usize, Rc<RefCell<Memo>>)>> = const { RefCell::new(Vec::new()) };
}

impl Model {
    /// The memo every session of this model on this thread steps with: its transitions are
    /// the model's, whichever session asks (a session's states recur in the others: the same
    /// lifecycle, the same requests), so one memo under one bound serves them all, instead
    /// of one per session (about 280 KiB each at 1,000 live sessions: docs/monitor.md).
    /// Per thread, as the memo is not shared across threads; the checker is one thread.
    fn memo(&'static self) -> Rc<RefCell<Memo>> {
        let key = std::ptr::from_ref(self) as usize;
        MEMOS.with_borrow_mut(|memos| {
            if let Some((_, memo)) = memos.iter().find(|(k, _)| *k == key) {
                return memo.clone();
            }
            let memo = Rc::new(RefCell::new(Memo::with_bound(SHARED_WEIGHT)));
            memos.push((key, memo.clone()));
            memo
        })
    }

    /// The model at its start: the monitor's replay, or the reference (`reference`).
    pub fn start(&'static self, reference: bool) -> Result<Follow, String> {
        let options = Options {
            maximal: true,
            max_states: 200_000,
        };
        let alphabet = self.alphabet.clone();
        if reference || !Stepper::supports(&self.sem) {
            return Replay::new(&self.sem, self.system, alphabet, options)
                .map(|(replay, _)| Follow::Reference(Box::new(replay)))
                .map_err(|e| e.to_string());
        }
        Stepper::with_memo(&self.sem, self.system, alphabet, options, self.memo())
            .map(|stepper| Follow::Stepper(Box::new(stepper)))
            .map_err(|e| e.to_string())
    }
}
