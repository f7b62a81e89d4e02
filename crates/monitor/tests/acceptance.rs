//! The monitor's stepper held to an oracle that shares no code with the replay it is built
//! from (`tests/oracle`: a subset construction on the era model's LTS, see there for what it
//! decides and why it builds the LTS on demand rather than reading `agentpi lts`'s `.aut`).
//! `tests/stepper.rs` holds the stepper to `agentpi_check::replay`, but both step by
//! `check::replay::explain`: a bug there would move both together, and not this oracle.
//!
//! Compared, observation by observation: the verdict (accepted, flagged, refused: so also
//! the first refused position), for a flagged one the flags (each on a way with the fewest
//! flags, and one on the way to each explanation kept), and every answer to "is this key
//! bound" the session chose its observations by; at the end of each walk, also the labels
//! allowed next (what `agentpi test` chooses from; costly, so only there). On every bundled trace, read as one session
//! and as `trace check` reads it (through each session's journal of what it asked its
//! model), and on generated sequences: random walks
//! on each era model's LTS, and mutations of them (a step dropped, repeated or swapped with
//! the next, a direction, constructor, key or boolean changed), which the model then often
//! refuses. The generated ones also go through the reference replay. The counts of what was
//! compared are pinned, so that a run that compares nothing fails.

mod oracle;
mod support;

use agentpi_check::replay::{Alphabet, Arg, HeadPat, Key, Observation, Options, Replay, Verdict};
use agentpi_monitor::follow::Asked;
use agentpi_monitor::session::Era;
use agentpi_monitor::stepper::Stepper;
use agentpi_monitor::{Session, Sessions, model, trace};
use agentpi_semantics::{Chan, Semantics, Value};
use oracle::{Answer, Expl, Lts, Oracle};
use std::collections::BTreeSet;
use support::trace_files;

/// What was compared.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    sequences: usize,
    steps: usize,
    accepted: usize,
    flagged: usize,
    refused: usize,
    /// Sequences with a refused step.
    refusing: usize,
    /// "Is this key bound" answers compared.
    bound: usize,
    /// Sets of labels allowed next compared.
    expected: usize,
}

impl Counts {
    fn add(&mut self, answer: &Answer) {
        self.steps += 1;
        match answer {
            Answer::Accepted => self.accepted += 1,
            Answer::Flagged { .. } => self.flagged += 1,
            Answer::Refused => self.refused += 1,
        }
    }
}

/// Whether the stepper's `verdict` is the oracle's `answer`; why not, when it is not.
fn agree(sem: &Semantics<'_>, answer: &Answer, verdict: &Verdict) -> Result<(), String> {
    match (answer, verdict) {
        (Answer::Accepted, Verdict::Accepted) | (Answer::Refused, Verdict::Refused) => Ok(()),
        (Answer::Flagged { per_state, .. }, Verdict::Flagged(flags)) => {
            let said: BTreeSet<String> = flags.iter().map(|f| sem.label_text(&f.label)).collect();
            let possible: BTreeSet<&String> = per_state.iter().flatten().collect();
            if said.is_empty() || said.iter().any(|f| !possible.contains(f)) {
                return Err(format!("flags {said:?}, on fewest-flag ways {possible:?}"));
            }
            if per_state.iter().any(|s| s.is_disjoint(&said)) {
                return Err(format!("flags {said:?}, none on some way of {per_state:?}"));
            }
            Ok(())
        }
        _ => Err(format!("oracle {answer:?}, stepper {verdict:?}")),
    }
}

fn lts(era: Era) -> Lts {
    let model = match era {
        Era::Legacy => model::legacy(),
        _ => model::modern(),
    };
    Lts::new(&model.unwrap().sem, "Monitor")
}

/// The LTS the oracle builds is the one `agentpi lts` writes: on each era model's finite
/// system `Session`, the same number of states and of transitions as the explorer finds.
#[test]
fn the_oracle_builds_the_lts_agentpi_lts_explores() {
    let mut sizes = Vec::new();
    for model in [model::legacy(), model::modern()] {
        let sem = &model.unwrap().sem;
        let mut lts = Lts::new(sem, "Session");
        let system = sem.program.system("Session").unwrap();
        let options = agentpi_check::Options::default();
        let progress = agentpi_check::Progress::default();
        let graph = agentpi_check::explore_system(sem, system, &options, &progress).unwrap();
        assert!(graph.limit.is_none());
        let mut transitions = std::collections::HashSet::new();
        for s in 0..graph.state_count() as u32 {
            for e in graph.successors(s) {
                transitions.insert((s, e.label, e.target));
            }
        }
        let explored = (graph.state_count(), transitions.len());
        assert_eq!(lts.whole(), explored);
        sizes.push(explored);
    }
    assert_eq!(sizes, [(1100, 3689), (247, 801)]);
}

/// Every bundled trace, as one session and as `trace check` takes it (each session of it on
/// its own): what each session asked of its stepper, asked of the oracle.
#[test]
fn bundled_traces_agree_with_the_oracle() {
    let (mut legacy, mut modern) = (lts(Era::Legacy), lts(Era::Modern));
    let mut counts = Counts::default();
    for file in trace_files() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let events = trace::parse(&std::fs::read(&file).unwrap()).unwrap();
        let mut session = Session::with_journal();
        let journal = session.journal();
        events.iter().for_each(|e| drop(session.feed(e)));
        drop(session.finish());
        let mut sessions = Sessions::with_journals();
        events.iter().for_each(|e| drop(sessions.feed(e)));
        let journals = sessions.journals();
        drop(sessions.finish());
        for (n, journal) in std::iter::once(journal).chain(journals).enumerate() {
            let asked = journal.borrow();
            let name = format!("{name} (session {n})");
            let lts = (&mut legacy, &mut modern);
            ask_the_oracle(&asked, lts, &name, &mut counts);
        }
    }
    let pinned = Counts {
        sequences: 164,
        steps: 1853,
        accepted: 1805,
        flagged: 48,
        refused: 0,
        refusing: 0,
        bound: 1434,
        expected: 0,
    };
    assert_eq!(counts, pinned);
}

/// Asks the oracle what `asked` asked of a session's stepper: the same answers.
fn ask_the_oracle(asked: &[Asked], lts: (&mut Lts, &mut Lts), name: &str, counts: &mut Counts) {
    let (legacy, modern) = lts;
    let mut oracle: Option<Oracle> = None;
    let refused = counts.refused;
    for (i, ask) in asked.iter().enumerate() {
        let at = format!("{name}: question {i}, {ask:?}");
        match ask {
            Asked::Start("legacy") => oracle = Some(Oracle::new(&mut *legacy)),
            Asked::Start("modern") => oracle = Some(Oracle::new(&mut *modern)),
            Asked::Start(era) => panic!("{at}: no model of era {era}"),
            Asked::Step(obs, verdict) => {
                let oracle = oracle.as_mut().expect("started");
                let answer = oracle.step(obs);
                let verdict = verdict.as_ref().unwrap_or_else(|e| panic!("{at}: {e}"));
                agree(oracle.lts.sem, &answer, verdict).unwrap_or_else(|e| panic!("{at}: {e}"));
                counts.add(&answer);
            }
            Asked::Forget(key) => oracle.as_mut().expect("started").forget(key),
            Asked::Bound(key, bound) => {
                let oracle = oracle.as_ref().expect("started");
                assert_eq!(oracle.is_bound(key), *bound, "{at}");
                counts.bound += 1;
            }
        }
    }
    counts.sequences += usize::from(!asked.is_empty());
    counts.refusing += usize::from(counts.refused > refused);
    assert_eq!(oracle.map_or(0, |o| o.cycles), 0, "{name}: a hidden cycle");
}

/// A deterministic source of choices (SplitMix64).
struct Choices(u64);

impl Choices {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// What a generated sequence does: observe a label, or let go of a key.
#[derive(Clone, Debug)]
enum Op {
    Step(Observation),
    Forget(Key),
}

/// The three followers of one sequence: the oracle, the stepper and the reference replay.
struct Three<'l> {
    oracle: Oracle<'l>,
    stepper: Stepper,
    reference: Replay<'static, 'static>,
}

impl<'l> Three<'l> {
    fn new(lts: &'l mut Lts) -> Three<'l> {
        let sem = lts.sem;
        let system = sem.program.system("Monitor").unwrap();
        let visible: &[&str] = match sem.program.events.iter().any(|e| e.name == "decl") {
            true => &["c2s", "s2c", "decl"],
            false => &["c2s", "s2c"],
        };
        let alphabet = Alphabet::new(sem.program, visible, &["violation"]).unwrap();
        let options = Options {
            maximal: true,
            max_states: 200_000,
        };
        let stepper = Stepper::new(sem, system, alphabet.clone(), options).unwrap();
        let (reference, _) = Replay::new(sem, system, alphabet, options).unwrap();
        Three {
            oracle: Oracle::new(lts),
            stepper,
            reference,
        }
    }

    /// Takes `op` on all three; the oracle's answer, after checking the others agree (and
    /// agree on every key of `keys` being bound).
    fn take(&mut self, op: &Op, keys: &BTreeSet<Key>, expected: bool, at: &str) -> Option<Answer> {
        let sem = self.oracle.lts.sem;
        let answer = match op {
            Op::Step(obs) => {
                let answer = self.oracle.step(obs);
                let fast = self.stepper.step_explained(obs).unwrap().0;
                agree(sem, &answer, &fast).unwrap_or_else(|e| panic!("{at}: stepper: {e}"));
                let slow = self.reference.step(obs).unwrap();
                agree(sem, &answer, &slow).unwrap_or_else(|e| panic!("{at}: reference: {e}"));
                Some(answer)
            }
            Op::Forget(key) => {
                self.oracle.forget(key);
                self.stepper.forget(key);
                self.reference.forget(key);
                None
            }
        };
        if expected {
            let want = self.oracle.expected();
            assert_eq!(
                self.stepper.expected().unwrap(),
                want,
                "{at}: stepper: expected"
            );
            assert_eq!(
                self.reference.expected().unwrap(),
                want,
                "{at}: reference: expected"
            );
        }
        for key in keys {
            let bound = self.oracle.is_bound(key);
            assert_eq!(
                self.stepper.is_bound(key),
                bound,
                "{at}: stepper: {key} bound"
            );
            assert_eq!(
                self.reference.is_bound(key),
                bound,
                "{at}: reference: {key} bound"
            );
        }
        answer
    }
}

/// The observation of a visible edge taken from explanation `from`: bound names by their
/// keys, others by new keys (or, now and then, `_`, as an absent progress token is).
fn observe(
    sem: &Semantics<'_>,
    from: &Expl,
    edge: &oracle::Edge,
    c: &mut Choices,
    next: &mut usize,
) -> Observation {
    let head = match &edge.label.head {
        agentpi_semantics::Head::Event(e) => sem.program.events[e.0 as usize].name.clone(),
        h => sem.chan_name(h.chan().unwrap()).to_string(),
    };
    let mut fresh: Vec<(u32, Arg)> = Vec::new();
    let args = (edge.label.args.iter())
        .map(|v| to_arg(sem, v, from, c, next, &mut fresh))
        .collect();
    Observation::new(head, args)
}

fn to_arg(
    sem: &Semantics<'_>,
    value: &Value,
    from: &Expl,
    c: &mut Choices,
    next: &mut usize,
    fresh: &mut Vec<(u32, Arg)>,
) -> Arg {
    let mut all = |vs: &[Value], c: &mut Choices, next: &mut usize| -> Vec<Arg> {
        vs.iter()
            .map(|v| to_arg(sem, v, from, c, next, fresh))
            .collect()
    };
    match value {
        Value::Bool(b) => Arg::Bool(*b),
        Value::Int(i) => Arg::Int(*i),
        Value::Ctor(e, i, vs) => {
            let name = sem.program.enums[e.0 as usize].ctors[*i as usize]
                .name
                .clone();
            Arg::Ctor(name.into(), all(vs, c, next))
        }
        Value::Tuple(vs) => Arg::Tuple(all(vs, c, next)),
        Value::Chan(ch @ Chan::Global(_)) => Arg::Chan(sem.chan_name(*ch).to_string()),
        Value::Chan(Chan::Fresh { id, .. }) => {
            if let Some((key, _)) = from.names.iter().find(|(_, v)| **v == *id) {
                return Arg::Name(key.clone());
            }
            if let Some((_, arg)) = fresh.iter().find(|(v, _)| v == id) {
                return arg.clone();
            }
            let arg = if c.below(4) == 0 {
                Arg::Any
            } else {
                *next += 1;
                Arg::Name(format!("k{next}").into())
            };
            fresh.push((*id, arg.clone()));
            arg
        }
    }
}

/// A random walk of `length` operations on the LTS of `lts`, checked as it goes: each step
/// observes a visible edge of some explanation (now and then a key is let go of instead).
fn walk(lts: &mut Lts, seed: u64, length: usize, counts: &mut Counts) -> Vec<Op> {
    let sem = lts.sem;
    let mut c = Choices(seed);
    let mut three = Three::new(lts);
    let (mut ops, mut keys, mut next) = (Vec::new(), BTreeSet::new(), 0);
    for i in 0..length {
        let op = if !keys.is_empty() && c.below(12) == 0 {
            let all: Vec<&Key> = keys.iter().collect();
            Op::Forget(all[c.below(all.len())].clone())
        } else {
            let moves = three.oracle.moves();
            if moves.is_empty() {
                break;
            }
            let (from, edges, at) = &moves[c.below(moves.len())];
            Op::Step(observe(sem, from, &edges[*at], &mut c, &mut next))
        };
        keys.extend(keys_of(&op));
        let expected = i + 1 == length;
        let answer = three.take(
            &op,
            &keys,
            expected,
            &format!("walk {seed}, op {i}, {op:?}"),
        );
        counts.expected += usize::from(expected);
        counts.add_some(answer.as_ref());
        counts.bound += keys.len();
        ops.push(op);
    }
    counts.sequences += 1;
    assert_eq!(three.oracle.cycles, 0, "walk {seed}: a hidden cycle");
    ops
}

/// `ops` again from the start, checked, as sequence `name`.
fn again(lts: &mut Lts, ops: &[Op], name: &str, counts: &mut Counts) {
    let mut three = Three::new(lts);
    let keys: BTreeSet<Key> = ops.iter().flat_map(keys_of).collect();
    let refused = counts.refused;
    for (i, op) in ops.iter().enumerate() {
        let answer = three.take(op, &keys, false, &format!("{name}, op {i}, {op:?}"));
        counts.add_some(answer.as_ref());
        counts.bound += keys.len();
    }
    counts.sequences += 1;
    counts.refusing += usize::from(counts.refused > refused);
}

impl Counts {
    fn add_some(&mut self, answer: Option<&Answer>) {
        if let Some(answer) = answer {
            self.add(answer);
        }
    }
}

fn keys_of(op: &Op) -> Vec<Key> {
    let mut out = Vec::new();
    match op {
        Op::Forget(key) => out.push(key.clone()),
        Op::Step(obs) => {
            if let HeadPat::Name(key) = &obs.head {
                out.push(key.clone());
            }
            for arg in &obs.args {
                visit(&mut arg.clone(), &mut |a| {
                    if let Arg::Name(key) | Arg::IfBound(key, _, _) = a {
                        out.push(key.clone());
                    }
                });
            }
        }
    }
    out
}

/// Calls `f` on every pattern of `arg`, outermost first.
fn visit(arg: &mut Arg, f: &mut dyn FnMut(&mut Arg)) {
    f(arg);
    match arg {
        Arg::Ctor(_, args) | Arg::Tuple(args) => args.iter_mut().for_each(|a| visit(a, f)),
        Arg::IfBound(_, yes, no) => {
            visit(yes, f);
            visit(no, f);
        }
        _ => {}
    }
}

/// `ops` changed in one place: an operation dropped, repeated or swapped with the next, or
/// in one observation the direction, a constructor (for another of its type with as many
/// values), a key (for another of the sequence, or a new one) or a boolean changed.
fn mutate(sem: &Semantics<'_>, ops: &[Op], c: &mut Choices) -> Vec<Op> {
    let mut ops = ops.to_vec();
    let i = c.below(ops.len());
    match c.below(6) {
        0 => drop(ops.remove(i)),
        1 => ops.insert(i, ops[i].clone()),
        2 if i + 1 < ops.len() => ops.swap(i, i + 1),
        _ => {
            let keys: Vec<Key> = ops.iter().flat_map(keys_of).collect();
            if let Op::Step(obs) = &mut ops[i] {
                change(sem, obs, &keys, c);
            }
        }
    }
    ops
}

fn change(sem: &Semantics<'_>, obs: &mut Observation, keys: &[Key], c: &mut Choices) {
    let mut count = 1;
    obs.args
        .iter_mut()
        .for_each(|a| visit(a, &mut |_| count += 1));
    let at = c.below(count);
    if at == 0 {
        if let HeadPat::Named(head) = &mut obs.head {
            *head = match head.as_ref() {
                "c2s" => "s2c".into(),
                "s2c" => "c2s".into(),
                _ => "c2s".into(),
            };
        }
        return;
    }
    let mut seen = 0;
    let mut changed = |arg: &mut Arg| {
        seen += 1;
        if seen != at {
            return;
        }
        match arg {
            Arg::Bool(b) => *b = !*b,
            Arg::Ctor(name, args) => {
                let others: Vec<&str> = (sem.program.enums.iter())
                    .filter(|e| e.ctors.iter().any(|k| k.name == *name))
                    .flat_map(|e| &e.ctors)
                    .filter(|k| k.name != *name && k.fields.len() == args.len())
                    .map(|k| k.name.as_str())
                    .collect();
                if !others.is_empty() {
                    *name = others[c.below(others.len())].to_string().into();
                }
            }
            Arg::Name(key) | Arg::IfBound(key, _, _) => {
                *key = match c.below(2 * keys.len() + 1) {
                    n if n < keys.len() => keys[n].clone(),
                    _ => "z".into(),
                }
            }
            Arg::Any => *arg = Arg::Name("z".into()),
            Arg::Int(_) | Arg::Tuple(_) | Arg::Chan(_) => {}
        }
    };
    for arg in &mut obs.args {
        visit(arg, &mut changed);
    }
}

/// Random walks on each era model's LTS and mutations of each: the same verdicts from the
/// oracle, the stepper and the reference replay, at every step.
#[test]
fn walks_and_their_mutations_agree_with_the_oracle() {
    let mut counts = Counts::default();
    for era in [Era::Legacy, Era::Modern] {
        let mut lts = lts(era);
        for seed in 0..WALKS {
            let ops = walk(&mut lts, seed, LENGTH, &mut counts);
            let mut c = Choices(seed + 1000);
            for m in 0..MUTANTS {
                let mutant = mutate(lts.sem, &ops, &mut c);
                again(
                    &mut lts,
                    &mutant,
                    &format!("{era:?} walk {seed}, mutant {m}"),
                    &mut counts,
                );
            }
        }
    }
    let pinned = Counts {
        sequences: 140,
        steps: 3134,
        accepted: 1947,
        flagged: 1148,
        refused: 39,
        refusing: 35,
        bound: 24739,
        expected: 20,
    };
    assert_eq!(counts, pinned);
}

const WALKS: u64 = 10;
const LENGTH: usize = 24;
const MUTANTS: usize = 6;
