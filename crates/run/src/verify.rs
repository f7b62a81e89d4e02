//! What is checked before a run, beyond the file's own checks of the workflow: deadlock
//! freedom; every call answered (`fair c(_, r) leads to r(_)`: the tool model answers, a
//! timeout included, and the workflow takes the answer); and no two writing calls to one
//! resource in flight at once, unless the file says `parallel`. A call writes unless its
//! tool is annotated `readOnlyHint: true`; its resource is the binding's `resource`, or else
//! the tool itself. These are written as `check` declarations of the workflow system and
//! loaded with the model (`agentpi_ir::load_with_checks`).

use agentpi_ir::core::Program;
use agentpi_ir::externs::outcome_event;
use std::collections::BTreeMap;

/// The display name of the generated checks.
pub const SOURCE_NAME: &str = "(checks of agentpi run)";

/// An extern as the checks see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Writer {
    pub chan: String,
    /// Where it writes (`server.tool`, or the binding's resource); `None` when it only reads
    /// or the file says `parallel`.
    pub resource: Option<String>,
}

/// The checks a run adds to system `system` of `program` (which already has the file's own).
pub fn checks(program: &Program, system: &str, writers: &[Writer]) -> String {
    let mut out = String::from("// What agentpi run checks before a run.\n");
    let has = |text: &str| {
        program
            .checks
            .iter()
            .any(|c| c.text == text && program.systems[c.system].name == system)
    };
    if !has("deadlock free") {
        out.push_str(&format!("check {system}: deadlock free\n"));
    }
    let reply = fresh_variable(program);
    for ext in &program.externs {
        let mut pattern: Vec<&str> = vec!["_"; ext.args.len()];
        pattern.push(&reply);
        out.push_str(&format!(
            "check {system}: fair {}({}) leads to {reply}(_)\n",
            ext.name,
            pattern.join(", ")
        ));
    }
    for (resource, chans) in by_resource(writers) {
        out.push_str(&format!("// calls that write {resource}\n"));
        out.push_str(&format!(
            "check {system}: {}\n",
            no_overlap(program, &chans)
        ));
    }
    out
}

/// The writing externs of each resource.
fn by_resource(writers: &[Writer]) -> BTreeMap<&str, Vec<&str>> {
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for w in writers {
        if let Some(resource) = &w.resource {
            out.entry(resource).or_default().push(&w.chan);
        }
    }
    out
}

/// After a call starts on any of `chans`, no other starts until one of them has an outcome:
/// calls that overlap are two in flight at once (calls settle in the order they started or
/// not, one outcome at a time).
fn no_overlap(program: &Program, chans: &[&str]) -> String {
    let starts = chans.join(" or ");
    let mut outcomes = Vec::new();
    for ext in program
        .externs
        .iter()
        .filter(|e| chans.contains(&e.name.as_str()))
    {
        for o in &ext.outcomes {
            outcomes.push(outcome_event(&ext.name, o.kind));
        }
    }
    format!(
        "ltl [] (({starts}) -> X (not ({starts}) W ({})))",
        outcomes.join(" or ")
    )
}

/// A variable name for label patterns that names nothing global (so it binds).
fn fresh_variable(program: &Program) -> String {
    let taken = |name: &str| {
        program.chans.iter().any(|c| c.name == name)
            || program.events.iter().any(|e| e.name == name)
            || program
                .enums
                .iter()
                .any(|e| e.ctors.iter().any(|c| c.name == name))
    };
    let mut name = "r".to_string();
    let mut k = 0;
    while taken(&name) {
        k += 1;
        name = format!("r{k}");
    }
    name
}
