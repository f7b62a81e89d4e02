//! The interpreter: it steps the checked system through the one semantics
//! (`Semantics::successors`), and every step it takes is a transition of the state space the
//! check explored. A communication on an extern channel sends the real call; the tool model's
//! outcome event for that call (`fetch_a_ok(r)`, `fetch_a_err(r)`, ...) is taken only once the
//! real call has settled, and only the event of the outcome it had. Every other choice is the
//! scheduler's: seeded, it picks among the steps that need no tool first, so that parallel
//! branches send their calls before any is waited for, and when every branch waits on a tool
//! it picks which call to wait for. The path is thus a function of the seed and the calls'
//! outcomes, not of their timing.

use crate::args::{self, Arg, Results};
use crate::calls::Calls;
use agentpi_check::trace::RunNames;
use agentpi_ir::core::{ChanId, EventId, OutcomeKind};
use agentpi_semantics::{Chan, Fault, Head, Semantics, State, Transition, Value};
use agentpi_tester::rng::Rng;
use serde_json::Value as Json;
use std::time::Duration;

/// An extern channel bound to a real tool.
#[derive(Clone, Debug)]
pub struct Tool {
    pub chan: ChanId,
    pub name: String,
    pub server: usize,
    pub tool: String,
    /// The binding's argument template.
    pub args: Option<Json>,
    /// The tool's input properties in schema order (for calls without a template).
    pub order: Vec<String>,
    pub within: Option<Duration>,
    /// The tool model's outcome events.
    pub events: Vec<(EventId, OutcomeKind)>,
}

/// One step of the path taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub label: String,
    pub actors: Vec<String>,
    /// What the step did in the world: `calls fs.write_file`, `ok`, `err`, ...
    pub note: String,
    /// The call the step started or settled.
    pub call: Option<usize>,
    /// A communication on a channel made by `new` (what `agentpi replay` leaves to the model).
    pub restricted: bool,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum End {
    /// Every component terminated or rests at a valid end.
    Valid,
    /// No step is possible, and this is not a valid end.
    Deadlock,
    /// A step failed (an assertion, a value out of its range).
    Fault(Fault),
    /// The run took this many steps and was stopped.
    Limit(usize),
    /// A call settled with an outcome the tool model has no step for.
    Unmodeled(String),
}

/// The path a run took and how it ended.
#[derive(Clone, Debug)]
pub struct Path {
    pub steps: Vec<Step>,
    pub end: End,
}

/// A call the model has started and not yet seen settle.
struct Open {
    call: usize,
    tool: usize,
    /// The reply channel, numbered as in the current state.
    reply: Value,
}

/// A run in progress.
pub struct Interp<'s, 'p> {
    sem: &'s Semantics<'p>,
    tools: &'s [Tool],
    /// Instance names, for the actors of each step.
    instances: Vec<String>,
    system: String,
    state: State,
    names: RunNames,
    rng: Rng,
    open: Vec<Open>,
    results: Results,
    steps: Vec<Step>,
}

impl<'s, 'p> Interp<'s, 'p> {
    /// A run of system `system` (an index into the program's systems).
    pub fn new(
        sem: &'s Semantics<'p>,
        system: usize,
        tools: &'s [Tool],
        seed: u64,
    ) -> Result<Self, Fault> {
        let (state, instances) = sem.initial_with_instances(system)?;
        let names = RunNames::new(sem, &state);
        Ok(Interp {
            sem,
            tools,
            instances,
            system: sem.program.systems[system].name.clone(),
            state,
            names,
            rng: Rng::new(seed),
            open: Vec::new(),
            results: Results::new(),
            steps: Vec::new(),
        })
    }

    /// Runs to an end, or for at most `max_steps` steps.
    pub fn run(mut self, calls: &mut Calls, max_steps: usize) -> Path {
        let end = loop {
            if self.steps.len() >= max_steps {
                break End::Limit(max_steps);
            }
            let ts = self.sem.successors(&self.state);
            if ts.is_empty() {
                break match self.sem.is_valid_end(&self.state) {
                    true => End::Valid,
                    false => End::Deadlock,
                };
            }
            let free: Vec<usize> = (0..ts.len())
                .filter(|&i| self.outcome_of(&ts[i]).is_none())
                .collect();
            let chosen = match free.is_empty() {
                false => free[self.rng.below(free.len())],
                true => match self.await_outcome(&ts, calls) {
                    Ok(i) => i,
                    Err(why) => break End::Unmodeled(why),
                },
            };
            let t = &ts[chosen];
            if let Some(fault) = &t.fault {
                self.record(t, String::new(), None);
                break End::Fault(fault.clone());
            }
            self.take(t, calls);
        };
        let mut steps = self.steps;
        renumber(&mut steps);
        Path { steps, end }
    }

    /// For an outcome event of a tool model: the tool, the kind and the reply channel.
    fn outcome_of(&self, t: &Transition) -> Option<(usize, OutcomeKind, Value)> {
        let Head::Event(ev) = t.label.head else {
            return None;
        };
        for (k, tool) in self.tools.iter().enumerate() {
            if let Some(&(_, kind)) = tool.events.iter().find(|(e, _)| *e == ev) {
                return Some((k, kind, t.label.args.first()?.clone()));
            }
        }
        None
    }

    /// Every branch waits on a tool: picks one of the calls the model can settle, waits for
    /// its real outcome, and returns the transition of that outcome.
    fn await_outcome(&mut self, ts: &[Transition], calls: &mut Calls) -> Result<usize, String> {
        let mut waiting: Vec<usize> = ts
            .iter()
            .filter_map(|t| self.outcome_of(t))
            .filter_map(|(tool, _, reply)| {
                self.open
                    .iter()
                    .find(|o| o.tool == tool && o.reply == reply)
            })
            .map(|o| o.call)
            .collect();
        waiting.sort_unstable();
        waiting.dedup();
        let Some(&call) = self.rng.pick(&waiting) else {
            return Err("an outcome step of a call that was never sent".to_string());
        };
        let kind = calls.settle(call).kind;
        let open = self
            .open
            .iter()
            .find(|o| o.call == call)
            .expect("waiting calls are open");
        let found = ts.iter().position(|t| {
            self.outcome_of(t).is_some_and(|(tool, k, reply)| {
                tool == open.tool && k == kind && reply == open.reply
            })
        });
        found.ok_or_else(|| {
            let name = &self.tools[open.tool].name;
            format!(
                "call {} on `{name}` had the outcome `{}`, which its tool model cannot answer",
                call + 1,
                kind.name()
            )
        })
    }

    /// Takes one step: sends the call it starts, or notes the outcome it settles.
    fn take(&mut self, t: &Transition, calls: &mut Calls) {
        let (note, call) = if let Some(tool) = self.call_start(t) {
            let k = self.start_call(t, tool, calls);
            let tool = &self.tools[tool];
            let server = &calls.peers[tool.server].name;
            (format!("calls {server}.{}", tool.tool), Some(k))
        } else if let Some((tool, kind, reply)) = self.outcome_of(t) {
            let at = self
                .open
                .iter()
                .position(|o| o.tool == tool && o.reply == reply);
            let open = self
                .open
                .remove(at.expect("an outcome step is taken for an open call"));
            let settled = calls.calls[open.call]
                .settled
                .clone()
                .expect("taken once settled");
            if let (OutcomeKind::Ok, Some(text)) = (kind, settled.text) {
                self.results.insert(self.tools[tool].name.clone(), text);
            }
            let cancelled = calls.calls[open.call].cancelled;
            (outcome_note(kind, cancelled), Some(open.call))
        } else {
            (String::new(), None)
        };
        self.record(t, note, call);
        self.names = self.names.after(self.sem, t);
        for open in &mut self.open {
            open.reply.rename(&t.renaming);
        }
        self.state = t.target.clone();
    }

    fn record(&mut self, t: &Transition, note: String, call: Option<usize>) {
        let label = self
            .sem
            .fmt_label(&t.label, &mut |c| self.names.name(self.sem, c));
        let actors = t.actors.iter().map(|&a| self.actor(a)).collect();
        let restricted = matches!(t.label.head.chan(), Some(Chan::Fresh { .. }));
        self.steps.push(Step {
            label,
            actors,
            note,
            call,
            restricted,
        });
    }

    fn actor(&self, actor: u32) -> String {
        match self.instances.get(actor as usize) {
            Some(name) if actor > 0 => name.clone(),
            _ => self.system.clone(),
        }
    }

    /// The tool a communication on an extern channel calls.
    fn call_start(&self, t: &Transition) -> Option<usize> {
        let Head::Chan(Chan::Global(c)) = t.label.head else {
            return None;
        };
        self.tools.iter().position(|tool| tool.chan == c)
    }

    fn start_call(&mut self, t: &Transition, tool: usize, calls: &mut Calls) -> usize {
        let (reply, values) = t
            .label
            .args
            .split_last()
            .expect("an extern carries its reply channel");
        let values: Vec<Arg> = values.iter().map(|v| self.arg(v)).collect();
        let spec = &self.tools[tool];
        let arguments = args::build(spec.args.as_ref(), &values, &self.results, &spec.order);
        let call = calls.start(&spec.name, spec.server, &spec.tool, arguments, spec.within);
        self.open.push(Open {
            call,
            tool,
            reply: reply.clone(),
        });
        call
    }

    /// A request value as JSON and as text.
    fn arg(&self, value: &Value) -> Arg {
        let mut text = String::new();
        self.sem
            .fmt_value(&mut text, value, &mut |c| self.names.name(self.sem, c));
        Arg {
            json: self.json(value),
            text,
        }
    }

    fn json(&self, value: &Value) -> Json {
        let program = self.sem.program;
        match value {
            Value::Bool(b) => Json::from(*b),
            Value::Int(i) => Json::from(*i),
            Value::Chan(c) => Json::from(self.names.name(self.sem, *c)),
            Value::Ctor(e, i, payload) => {
                let name = program.enums[e.0 as usize].ctors[*i as usize].name.clone();
                match payload.is_empty() {
                    true => Json::from(name),
                    false => {
                        let items: Vec<Json> = payload.iter().map(|v| self.json(v)).collect();
                        serde_json::json!({ name: items })
                    }
                }
            }
            Value::Tuple(items) => Json::Array(items.iter().map(|v| self.json(v)).collect()),
        }
    }
}

/// Numbers fresh channels in the order they first appear in the path (`r#1` is the first
/// reply channel a label shows), and leaves the number out of a name with one instance, as
/// `agentpi check` prints traces.
fn renumber(steps: &mut [Step]) {
    let mut order: Vec<(String, String)> = Vec::new();
    for step in steps.iter() {
        for (base, k) in fresh_names(&step.label) {
            if !order.iter().any(|(b, n)| *b == base && *n == k) {
                order.push((base, k));
            }
        }
    }
    let printed = |base: &str, k: &str| {
        let same: Vec<&(String, String)> = order.iter().filter(|(b, _)| b == base).collect();
        let position = same.iter().position(|(_, n)| n == k).unwrap_or(0) + 1;
        match same.len() {
            1 => base.to_string(),
            _ => format!("{base}#{position}"),
        }
    };
    for step in steps.iter_mut() {
        let mut out = String::new();
        let mut rest = step.label.as_str();
        while let Some((before, base, k, after)) = next_fresh(rest) {
            out.push_str(before);
            out.push_str(&printed(base, k));
            rest = after;
        }
        out.push_str(rest);
        step.label = out;
    }
}

/// The `name#k` of a label, in order.
fn fresh_names(label: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = label;
    while let Some((_, base, k, after)) = next_fresh(rest) {
        found.push((base.to_string(), k.to_string()));
        rest = after;
    }
    found
}

/// The next `name#k` in `text`: what comes before it, the name, the number, what follows.
fn next_fresh(text: &str) -> Option<(&str, &str, &str, &str)> {
    let hash = text.find('#')?;
    let start = text[..hash]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let digits = text[hash + 1..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(text.len(), |i| hash + 1 + i);
    Some((
        &text[..start],
        &text[start..hash],
        &text[hash + 1..digits],
        &text[digits..],
    ))
}

fn outcome_note(kind: OutcomeKind, cancelled: bool) -> String {
    match (kind, cancelled) {
        (OutcomeKind::Timeout, true) => "timeout: cancelled".to_string(),
        (kind, _) => kind.name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(label: &str) -> Step {
        Step {
            label: label.to_string(),
            actors: Vec::new(),
            note: String::new(),
            call: None,
            restricted: false,
        }
    }

    #[test]
    fn fresh_names_are_numbered_by_first_appearance() {
        let mut steps = vec![
            step("a(r#2)"),
            step("b(r#1, q#5)"),
            step("r#2(ok)"),
            step("x#3"),
        ];
        renumber(&mut steps);
        let labels: Vec<&str> = steps.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["a(r#1)", "b(r#2, q)", "r#1(ok)", "x"]);
    }
}
