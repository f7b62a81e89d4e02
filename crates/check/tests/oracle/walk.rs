//! A printed trace walked again through `Semantics::successors`, from the system's initial
//! state: every run of the semantics whose steps print as the trace's steps (the same label,
//! the same instances moving), with fresh channels named as docs/check.md says (one name
//! along the trace, `reply#1`, `reply#2` numbered in order of first appearance, no number
//! when a name has one instance in the trace), and, for a lasso, whose loop ends in the state
//! it started from.

use agentpi_check::Trace;
use agentpi_semantics::{Chan, DEAD, Semantics, State, Transition};
use std::collections::{BTreeMap, HashMap};

/// A run of the semantics: `states[i]` takes `steps[i]` to `states[i + 1]`.
#[derive(Clone, Debug)]
pub struct Run {
    pub states: Vec<State>,
    pub steps: Vec<Transition>,
    /// For a lasso, the first step of the loop: `states[loop_start]` is the last state.
    pub loop_start: Option<usize>,
}

/// More candidate runs than this (or more states tried) and the trace is called ambiguous.
const MAX_RUNS: usize = 64;
const MAX_TRIED: usize = 100_000;

/// The runs `trace` prints, of system `system`; a fault is allowed only as the last step,
/// and only when `fault_last`. An error says where no run could follow the trace.
pub fn runs(
    sem: &Semantics<'_>,
    system: usize,
    trace: &Trace,
    fault_last: bool,
) -> Result<Vec<Run>, String> {
    let (initial, instances) = sem
        .initial_with_instances(system)
        .map_err(|f| format!("the initial state faults: {f:?}"))?;
    let mut walker = Walker {
        sem,
        trace,
        instances,
        system: sem.program.systems[system].name.clone(),
        fault_last,
        found: Vec::new(),
        tried: 0,
        deepest: (0, String::new()),
    };
    let start = Run {
        states: vec![initial],
        steps: Vec::new(),
        loop_start: trace.loop_start,
    };
    walker.extend(start, Names::default());
    if walker.tried > MAX_TRIED || walker.found.len() > MAX_RUNS {
        return Err("too many runs print as this trace to confirm it".into());
    }
    if walker.found.is_empty() {
        return Err(format!(
            "no run of the semantics prints as this trace: {}",
            walker.deepest.1
        ));
    }
    Ok(walker.found)
}

struct Walker<'a, 's> {
    sem: &'a Semantics<'s>,
    trace: &'a Trace,
    instances: Vec<String>,
    system: String,
    fault_last: bool,
    found: Vec<Run>,
    tried: usize,
    /// How far the furthest attempt got, and why it stopped there: for the error message.
    deepest: (usize, String),
}

impl Walker<'_, '_> {
    /// Extends `run` (which has followed the first `run.steps.len()` printed steps) by every
    /// transition that prints as the next one.
    fn extend(&mut self, run: Run, names: Names) {
        self.tried += 1;
        if self.tried > MAX_TRIED || self.found.len() > MAX_RUNS {
            return;
        }
        let at = run.steps.len();
        let Some(printed) = self.trace.steps.get(at) else {
            return self.finish(run, &names);
        };
        let state = run.states.last().expect("a run has a state").clone();
        let mut why = format!("no transition of the state prints as `{}`", printed.label);
        let mut followed = false;
        for t in distinct(self.sem.successors(&state)) {
            if t.fault.is_some() && !(self.fault_last && at + 1 == self.trace.steps.len()) {
                continue;
            }
            let actors: Vec<String> = t.actors.iter().map(|&a| self.actor(a)).collect();
            if actors != printed.actors {
                continue;
            }
            let mut names = names.clone();
            if let Err(e) = names.follow(self.sem, &t, &printed.label) {
                why = e;
                continue;
            }
            let mut next = run.clone();
            next.states.push(t.target.clone());
            next.steps.push(t);
            followed = true;
            self.extend(next, names);
        }
        if !followed && at >= self.deepest.0 {
            self.deepest = (at, format!("at step {}, {why}", at + 1));
        }
    }

    /// A run that printed every step: kept when its loop, if any, closes, and no name is
    /// numbered that has one instance in the trace.
    fn finish(&mut self, run: Run, names: &Names) {
        if let Some((base, _)) = names.numbered.iter().find(|(_, count)| **count == 1) {
            let why = format!("`{base}#1` is numbered but `{base}` has one instance in the trace");
            self.deepest = (run.steps.len(), why);
            return;
        }
        match run.loop_start {
            Some(start) if start >= run.steps.len() => {
                self.deepest = (
                    run.steps.len(),
                    "the loop starts after the last step".into(),
                );
            }
            Some(start) if run.states[start] != run.states[run.steps.len()] => {
                let why = "the loop does not return to the state it starts from".into();
                self.deepest = (run.steps.len(), why);
            }
            _ => self.found.push(run),
        }
    }

    /// An instance by the call that started it, instance 0 by the system's name.
    fn actor(&self, actor: u32) -> String {
        match self.instances.get(actor as usize) {
            Some(name) if actor > 0 => name.clone(),
            _ => self.system.clone(),
        }
    }
}

/// The transitions without repeats: components that take the same step into the same state
/// (branches of a choice alike, say) make one run, not several.
fn distinct(transitions: Vec<Transition>) -> Vec<Transition> {
    let mut out: Vec<Transition> = Vec::new();
    for t in transitions {
        let same = |u: &Transition| {
            (&u.label, &u.target, &u.actors, &u.renaming, &u.fault)
                == (&t.label, &t.target, &t.actors, &t.renaming, &t.fault)
        };
        if !out.iter().any(same) {
            out.push(t);
        }
    }
    out
}

/// Fresh channels along a run: each gets an identity when it first shows in a label, kept
/// across the renumbering of canonical states; printed names must stand for identities one
/// to one, numbered as docs/check.md says.
#[derive(Clone, Default)]
struct Names {
    /// A fresh id of the current state to its identity.
    identity: HashMap<u32, u32>,
    next: u32,
    token_of: HashMap<u32, String>,
    identity_of: HashMap<String, u32>,
    /// Per printed name: how many numbered instances were met, and whether one showed bare.
    numbered: BTreeMap<String, u32>,
    bare: BTreeMap<String, bool>,
}

/// Marks a fresh channel in a rendered label: name, separator, identity, end.
const OPEN: char = '\u{1}';
const SEP: char = '\u{2}';
const CLOSE: char = '\u{3}';

impl Names {
    /// Whether `t` prints as `printed`; if so, the names after it.
    fn follow(&mut self, sem: &Semantics<'_>, t: &Transition, printed: &str) -> Result<(), String> {
        let mine = sem.fmt_label(&t.label, &mut |c| match c {
            Chan::Fresh { id, .. } => {
                let next = &mut self.next;
                let identity = *self.identity.entry(id).or_insert_with(|| {
                    *next += 1;
                    *next
                });
                format!("{OPEN}{}{SEP}{identity}{CLOSE}", sem.chan_name(c))
            }
            Chan::Global(_) => sem.chan_name(c).to_string(),
        });
        let fresh = align(&mine, printed)
            .ok_or_else(|| format!("no transition of the state prints as `{printed}`"))?;
        for (base, identity, token) in fresh {
            self.name(base, identity, token, printed)?;
        }
        self.identity = self
            .identity
            .iter()
            .filter_map(|(&id, &identity)| {
                let to = *t.renaming.get(id as usize)?;
                (to != DEAD).then_some((to, identity))
            })
            .collect();
        Ok(())
    }

    /// Records that `token` names the fresh channel `identity` (printed as `base`).
    fn name(
        &mut self,
        base: String,
        identity: u32,
        token: String,
        label: &str,
    ) -> Result<(), String> {
        let known = (self.token_of.get(&identity), self.identity_of.get(&token));
        match known {
            (Some(t), Some(&i)) if *t == token && i == identity => return Ok(()),
            (None, None) => {}
            _ => {
                return Err(format!(
                    "`{token}` in `{label}` names two channels, or a channel has two names"
                ));
            }
        }
        let numbered = token != base;
        let bare = self.bare.entry(base.clone()).or_insert(false);
        let count = self.numbered.entry(base.clone()).or_insert(0);
        if numbered {
            *count += 1;
            if *bare || token != format!("{base}#{count}") {
                return Err(format!(
                    "`{token}` in `{label}` is not numbered in order of first appearance"
                ));
            }
        } else {
            if *count > 0 {
                return Err(format!(
                    "`{base}` in `{label}` shows bare, and numbered elsewhere"
                ));
            }
            *bare = true;
        }
        self.token_of.insert(identity, token.clone());
        self.identity_of.insert(token, identity);
        Ok(())
    }
}

/// Aligns a label rendered with marked fresh channels with its printed form: equal text
/// outside the marks, and at each mark the channel's name, maybe followed by `#k`. Returns
/// each fresh channel's (name, identity, printed token), in order.
fn align(mine: &str, printed: &str) -> Option<Vec<(String, u32, String)>> {
    let (mut mine, mut printed) = (mine, printed);
    let mut out = Vec::new();
    while let Some(open) = mine.find(OPEN) {
        printed = printed.strip_prefix(&mine[..open])?;
        let (base, rest) = mine[open + OPEN.len_utf8()..].split_once(SEP)?;
        let (identity, rest) = rest.split_once(CLOSE)?;
        let after = printed.strip_prefix(base)?;
        let number = match after.strip_prefix('#') {
            Some(digits) => {
                digits.len()
                    - digits
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .len()
            }
            None => 0,
        };
        let token_len = base.len() + if number > 0 { number + 1 } else { 0 };
        out.push((
            base.to_string(),
            identity.parse().ok()?,
            printed[..token_len].to_string(),
        ));
        printed = &printed[token_len..];
        mine = rest;
    }
    (mine == printed).then_some(out)
}
