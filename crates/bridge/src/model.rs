//! The bundled bridge model `mcp/bridge` (`models/mcp/bridge.pi`), the checks of a direction
//! run before the bridge relays a byte, and the roots of the processes the runtime steps.

use agentpi_check::{Options, Outcome, Progress};
use agentpi_ir::core::{ChanId, Program};
use agentpi_semantics::Semantics;
use std::sync::OnceLock;

pub const BRIDGE: &str = include_str!("../../../models/mcp/bridge.pi");

/// Systems of the processes the runtime steps alone, their wire channels bound to real
/// peers instead of the model's clients and servers. Appended to the checked text: they add
/// roots, not behaviour, so what runs is the process the checks explored.
const ROOTS: &str = "
system RunToModern = ToModern
system RunPong = Pong
system RunToLegacy = ToLegacy(false, full)
system RunLists = TMLists
system RunWatch = TMRes
system RunTurn = TLTurn
";

/// The systems whose checks guard `--to modern`: the bridged session (with a conforming
/// server, one that may go away, one that asks for undeclared input) and the losses that go
/// through `ToModern`.
pub const TO_MODERN_SYSTEMS: &[&str] = &[
    "LegacyBridged",
    "LegacyCrashBridged",
    "LegacyRudeBridged",
    "SubBridged",
    "SubCrossBridged",
    "SubEndBridged",
    "ListsEndBridged",
    "LogBridged",
    "TaskBridged",
];

/// The systems whose checks guard `--to legacy`: the bridged session, the losses that go
/// through `ToLegacy`, and two calls sharing a legacy session on stdio (the turn, `TLTurn`).
pub const TO_LEGACY_SYSTEMS: &[&str] = &[
    "ModernBridged",
    "ModernCrashBridged",
    "RootsBridged",
    "DeclinedBridged",
    "TwoCallsBridged",
];

/// K, the `input_required` rounds the bridge carries (`const K` of the model; constants are
/// inlined when it is lowered, so it is read from the text).
pub fn rounds() -> i64 {
    BRIDGE
        .lines()
        .find_map(|l| l.strip_prefix("const K = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(2)
}

/// The loaded model, its semantics, the four wire channels and the legacy session's turn.
pub struct Model {
    pub sem: Semantics<'static>,
    pub lc2s: ChanId,
    pub ls2c: ChanId,
    pub mc2s: ChanId,
    pub ms2c: ChanId,
    pub turn: ChanId,
}

/// The model, loaded once per process.
pub fn model() -> Result<&'static Model, String> {
    static MODEL: OnceLock<Result<Model, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| load(BRIDGE))
        .as_ref()
        .map_err(Clone::clone)
}

/// Loads `text` as the bridge model (the bundled one, or a variant a test edits: the runtime
/// roots are added to it). The model lives for the rest of the process.
pub fn load(text: &str) -> Result<Model, String> {
    let loaded = agentpi_ir::load_str("mcp/bridge", &format!("{text}{ROOTS}"));
    if loaded.has_errors() {
        return Err("the bundled model mcp/bridge does not load".to_string());
    }
    let program: &'static Program = Box::leak(Box::new(loaded.program));
    let chan = |name: &str| {
        program
            .chans
            .iter()
            .position(|c| c.name == name)
            .map(|i| ChanId(i as u32))
            .ok_or_else(|| format!("mcp/bridge has no channel {name}"))
    };
    Ok(Model {
        lc2s: chan("lc2s")?,
        ls2c: chan("ls2c")?,
        mc2s: chan("mc2s")?,
        ms2c: chan("ms2c")?,
        turn: chan("turn")?,
        sem: Semantics::new(program),
    })
}

/// Runs the checks of `systems` as `agentpi check` does; returns how many held, or each
/// check that did not hold (`System: property: verdict`).
pub fn check(model: &Model, systems: &[&str]) -> Result<usize, Vec<String>> {
    let program = model.sem.program;
    let mut held = 0;
    let mut failed = Vec::new();
    for name in systems {
        let Some(system) = program.system(name) else {
            failed.push(format!("{name}: no such system in mcp/bridge"));
            continue;
        };
        let checks: Vec<usize> = (0..program.checks.len())
            .filter(|&c| program.checks[c].system == system)
            .collect();
        let options = Options {
            threads: 1,
            ..Options::default()
        };
        let report =
            agentpi_check::check_system(program, system, &checks, &options, &Progress::default());
        for result in &report.results {
            match result.outcome {
                Outcome::Holds => held += 1,
                ref other => failed.push(format!("{name}: {}: {other:?}", result.property)),
            }
        }
    }
    match failed.is_empty() {
        true => Ok(held),
        false => Err(failed),
    }
}
