//! Trace acceptance: steps a model along an observed sequence of labels and keeps the set of
//! model states consistent with what was seen so far.
//!
//! The observer sees some labels ([`Class::Visible`]) and not others ([`Class::Hidden`]): after
//! each observation the engine closes over the hidden steps. Labels of class [`Class::Flag`]
//! are hidden steps that count against an explanation (an observer process raising a rule
//! id): the engine keeps only the explanations with the fewest flags, so a flag is reported
//! only when no flag-free explanation exists.
//!
//! Observed identifiers (request ids, tokens) are bound to the model's fresh names: an
//! [`Arg::Name`] matches the name bound to its key, or, while the key is unbound, a name bound
//! to no key, which is then bound. Bindings follow each step through
//! [`Transition::renaming`], so they survive the canonical renumbering, and vanish with the
//! name they are bound to.

use agentpi_ir::core::{LabelDir, Program};
use agentpi_semantics::{DEAD, Fault, Head, Label, Semantics, State, Transition};
use explain::{Explanation, Steps, dedup, match_observation};
use rustc_hash::FxHashSet;
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

pub mod explain;
pub mod memo;

use memo::{Memo, SMALL_STATE};

/// An observed identifier (`c2s:5`, `token:"abc"`, ...).
pub type Key = Arc<str>;

/// A channel, event or constructor name in an observation: a monitor builds one or more
/// observations a message from names it knows at compile time, held without a copy.
pub type Word = Cow<'static, str>;

/// How the observer sees a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Taken only when observed.
    Visible,
    /// Taken freely between observations.
    Hidden,
    /// Taken freely, but each one counts against the explanation it is on.
    Flag,
}

/// Which labels are visible, hidden or flags, by channel and event name. Names not listed are
/// hidden.
#[derive(Clone, Debug, Default)]
pub struct Alphabet {
    visible: FxHashSet<String>,
    flags: FxHashSet<String>,
}

impl Alphabet {
    /// `visible` and `flags` are channel or event names of `program` (a fresh channel by the
    /// name of its `new`); an unknown name is an error naming it.
    pub fn new(program: &Program, visible: &[&str], flags: &[&str]) -> Result<Alphabet, String> {
        let sem = Semantics::new(program);
        let known = |n: &str| {
            program.chans.iter().any(|c| c.name == n)
                || program.events.iter().any(|e| e.name == n)
                || sem.origin_names().iter().any(|o| o == n)
        };
        if let Some(unknown) = visible.iter().chain(flags).find(|n| !known(n)) {
            return Err(format!("no channel or event `{unknown}` in the model"));
        }
        let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        Ok(Alphabet {
            visible: set(visible),
            flags: set(flags),
        })
    }

    pub fn class(&self, sem: &Semantics<'_>, label: &Label) -> Class {
        let name = match &label.head {
            Head::Tau => return Class::Hidden,
            // A buffered channel's sends and receives are both its steps.
            Head::Chan(c) | Head::Send(c) | Head::Lost(c) | Head::Receive(c) => sem.chan_name(*c),
            Head::Event(e) => &sem.program.events[e.0 as usize].name,
        };
        if self.visible.contains(name) {
            Class::Visible
        } else if self.flags.contains(name) {
            Class::Flag
        } else {
            Class::Hidden
        }
    }
}

/// What an observed label must look like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    pub head: HeadPat,
    /// `c!(v)` observes only a send into buffered channel `c`, `c?(v)` only a receive from
    /// it, `c(v)` either (or a handshake), as labels print them.
    pub dir: LabelDir,
    /// `c!(v) lost`: a send that a lossy channel lost (and not one it queued).
    pub lost: bool,
    pub args: Vec<Arg>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeadPat {
    /// A channel (by its declared or `new` name) or an event.
    Named(Word),
    /// The fresh channel bound to this key (bound now if the key is unbound).
    Name(Key),
}

/// A pattern for one value of an observed label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Any,
    Int(i64),
    Bool(bool),
    /// An enum constructor by name, with exactly these payload patterns.
    Ctor(Word, Vec<Arg>),
    Tuple(Vec<Arg>),
    /// A channel by its declared or `new` name.
    Chan(String),
    /// The fresh channel bound to the key; while the key is unbound, a fresh channel bound to
    /// no key, which becomes bound to it.
    Name(Key),
    /// The first pattern where the key is bound (in the explanation at hand), the second
    /// where it is not.
    IfBound(Key, Box<Arg>, Box<Arg>),
}

impl Observation {
    /// `head(args)`: a `&'static str` head is held without a copy.
    pub fn new(head: impl Into<Word>, args: Vec<Arg>) -> Observation {
        Observation {
            head: HeadPat::Named(head.into()),
            dir: LabelDir::Any,
            lost: false,
            args,
        }
    }
}

/// Resource bounds of a replay.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Keep only states where no hidden step is possible (the model's hidden steps are then
    /// taken eagerly), instead of every state the hidden steps reach.
    pub maximal: bool,
    /// The most states one closure may visit before the step is given up.
    pub max_states: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            maximal: true,
            max_states: 100_000,
        }
    }
}

/// The outcome of one observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Some explanation takes it without a flag.
    Accepted,
    /// Every explanation raises a flag; these are the flags of the least-flagged ones.
    Flagged(Vec<Flag>),
    /// No state can take it; the set of states is left as it was.
    Refused,
}

/// A flagged label, and how it prints with bound names shown by their keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    pub label: Label,
    pub text: String,
}

/// Why a replay could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The initial state faulted.
    Initial(Fault),
    /// A closure visited more than [`Options::max_states`] states.
    TooManyStates(usize),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Initial(fault) => write!(f, "the initial state faults: {:?}", fault.kind),
            ReplayError::TooManyStates(n) => {
                write!(f, "more than {n} states are consistent with the trace")
            }
        }
    }
}

/// One explanation: a state and the keys bound to its fresh names (sorted by key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Hyp {
    state: State,
    names: Vec<(Key, u32)>,
}

/// Steps a model along observations.
pub struct Replay<'s, 'p> {
    sem: &'s Semantics<'p>,
    alphabet: Alphabet,
    options: Options,
    hyps: Vec<Hyp>,
    memo: RefCell<Memo>,
    /// The transitions of states, from each component's moves computed once (shared by
    /// copies: what a component can do does not depend on the trace).
    cached: Rc<RefCell<crate::Cached<'s, 'p>>>,
}

/// A copy keeps the explanations and starts with an empty memo: the monitor takes one before
/// each message so that, when the message is flagged, it can still say what the model would
/// have accepted instead.
impl Clone for Replay<'_, '_> {
    fn clone(&self) -> Self {
        Replay {
            sem: self.sem,
            alphabet: self.alphabet.clone(),
            options: self.options,
            hyps: self.hyps.clone(),
            memo: RefCell::default(),
            cached: self.cached.clone(),
        }
    }
}

impl std::fmt::Debug for Replay<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("hypotheses", &self.hyps.len())
            .finish()
    }
}

impl<'s, 'p> Replay<'s, 'p> {
    /// Starts at system `system`'s initial state, closed over hidden steps (flags there are
    /// kept, as for any step: see [`Replay::initial_flags`]).
    pub fn new(
        sem: &'s Semantics<'p>,
        system: usize,
        alphabet: Alphabet,
        options: Options,
    ) -> Result<(Replay<'s, 'p>, Vec<Flag>), ReplayError> {
        let initial = sem.initial(system).map_err(ReplayError::Initial)?;
        let mut replay = Replay {
            sem,
            alphabet,
            options,
            hyps: Vec::new(),
            memo: RefCell::default(),
            cached: Rc::new(RefCell::new(crate::Cached::new(sem))),
        };
        let seed = Hyp {
            state: initial,
            names: Vec::new(),
        };
        let (hyps, flags) = replay.close(vec![seed])?;
        replay.hyps = hyps;
        Ok((replay, flags))
    }

    /// How many explanations the trace so far has.
    pub fn hypotheses(&self) -> usize {
        self.hyps.len()
    }

    /// The states consistent with the trace so far.
    pub fn states(&self) -> impl Iterator<Item = &State> {
        self.hyps.iter().map(|h| &h.state)
    }

    /// Whether `key` is bound to a live name in some explanation.
    pub fn is_bound(&self, key: &str) -> bool {
        self.hyps.iter().any(|h| h.bound(key).is_some())
    }

    /// Lets go of `key` in every explanation: its name lives on, bound to no key, and a later
    /// label with `key` means a new name.
    pub fn forget(&mut self, key: &str) {
        for h in &mut self.hyps {
            h.names.retain(|(k, _)| &**k != key);
        }
    }

    /// Every key bound in some explanation, sorted.
    pub fn bound_keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .hyps
            .iter()
            .flat_map(|h| h.names.iter().map(|(k, _)| k.clone()))
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// Takes one observed label.
    pub fn step(&mut self, obs: &Observation) -> Result<Verdict, ReplayError> {
        Ok(self.step_explained(obs)?.0)
    }

    /// Takes one observed label; when it is flagged or refused, also what the model would
    /// have accepted instead (the [`Replay::expected`] of the explanations before the step),
    /// without copying the explanations on every step.
    pub fn step_explained(
        &mut self,
        obs: &Observation,
    ) -> Result<(Verdict, Vec<String>), ReplayError> {
        let Some((hyps, flags)) = self.next(obs)? else {
            return Ok((Verdict::Refused, self.expected()?));
        };
        let explained = if flags.is_empty() {
            (Verdict::Accepted, Vec::new())
        } else {
            (Verdict::Flagged(flags), self.expected()?)
        };
        self.hyps = hyps;
        Ok(explained)
    }

    /// The explanations after `obs` and their flags, or `None` when no state can take it.
    #[allow(clippy::type_complexity)]
    fn next(&self, obs: &Observation) -> Result<Option<(Vec<Hyp>, Vec<Flag>)>, ReplayError> {
        let mut seeds = Vec::new();
        for hyp in &self.hyps {
            // Only the transitions that take `obs` are built: a state with many requests in
            // flight offers a few labels each, and building every target would cost the
            // square of their number per message.
            let takes = |l: &Label| {
                self.class(l) == Class::Visible
                    && match_observation(self.sem, obs, l, hyp).is_some()
            };
            let found: Arc<[Transition]> = if hyp.state.procs.len() <= SMALL_STATE {
                self.visible(&hyp.state)
            } else {
                let cached = &mut self.cached.borrow_mut();
                cached.successors_where(&hyp.state, &takes).into()
            };
            for t in found.iter() {
                if t.fault.is_some() {
                    continue;
                }
                if let Some(new) = match_observation(self.sem, obs, &t.label, hyp) {
                    seeds.push(hyp.advance(&new, t));
                }
            }
        }
        if seeds.is_empty() {
            return Ok(None);
        }
        dedup(&mut seeds);
        self.close(seeds).map(Some)
    }

    /// The visible labels the model would accept next without a flag, printed with bound
    /// names shown by their keys, sorted and without repeats.
    pub fn expected(&self) -> Result<Vec<String>, ReplayError> {
        let mut out = Vec::new();
        let visible = |l: &Label| self.class(l) == Class::Visible;
        for hyp in &self.hyps {
            let found = self
                .cached
                .borrow_mut()
                .successors_where(&hyp.state, &visible);
            for t in found.iter() {
                if t.fault.is_some() {
                    continue;
                }
                let (_, flags) = self.close(vec![hyp.advance(&[], t)])?;
                if flags.is_empty() {
                    out.push(self.render(&t.label, hyp));
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Whether some explanation may end here (every component terminated or a waiting
    /// daemon).
    pub fn at_valid_end(&self) -> bool {
        self.hyps.iter().any(|h| self.sem.is_valid_end(&h.state))
    }

    /// The visible transitions of `state`, remembered; only for small states (a session
    /// whose states recur, as a sequential one's do, then costs a lookup per message).
    fn visible(&self, state: &State) -> Arc<[Transition]> {
        self.remembered(state, true)
    }

    fn remembered(&self, state: &State, visible: bool) -> Arc<[Transition]> {
        let wanted = |l: &Label| (self.class(l) == Class::Visible) == visible;
        let compute = || self.cached.borrow_mut().successors_where(state, &wanted);
        Memo::transitions(&self.memo, state, visible, compute)
    }

    /// Closes `seeds` over hidden and flag steps (see [`explain::close`]).
    fn close(&self, seeds: Vec<Hyp>) -> Result<(Vec<Hyp>, Vec<Flag>), ReplayError> {
        explain::close(self, seeds, &mut |_| {})
    }

    fn render(&self, label: &Label, hyp: &Hyp) -> String {
        explain::render(self.sem, label, hyp)
    }
}

impl Steps for Replay<'_, '_> {
    fn semantics(&self) -> &Semantics<'_> {
        self.sem
    }

    fn options(&self) -> &Options {
        &self.options
    }

    fn class(&self, label: &Label) -> Class {
        self.alphabet.class(self.sem, label)
    }

    /// The hidden and flagged transitions of `state` (what a closure follows), remembered.
    fn hidden(&self, state: &State) -> Arc<[Transition]> {
        self.remembered(state, false)
    }
}

impl Explanation for Hyp {
    fn state(&self) -> &State {
        &self.state
    }

    fn names(&self) -> &[(Key, u32)] {
        &self.names
    }

    fn bound(&self, key: &str) -> Option<u32> {
        self.names
            .binary_search_by(|(k, _)| (**k).cmp(key))
            .ok()
            .map(|i| self.names[i].1)
    }

    fn advance(&self, new: &[(Key, u32)], t: &Transition) -> Hyp {
        let mut names: Vec<(Key, u32)> = self
            .names
            .iter()
            .chain(new)
            .filter_map(|(k, id)| {
                let to = t.renaming.get(*id as usize).copied().unwrap_or(DEAD);
                (to != DEAD).then(|| (k.clone(), to))
            })
            .collect();
        names.sort();
        Hyp {
            state: t.target.clone(),
            names,
        }
    }
}

/// Reads an observation written as a label: `call(c1, search, 2)`, `reply#1(ok(3))`, `tick`,
/// `link!(1)` and `link?(1)` (a send into and a receive from a buffered channel).
/// Constructors and channel names of `program` are themselves; `_` is any value; any other
/// lower-case name (and a head that is not a channel or event) is an observed identifier.
pub fn parse_observation(program: &Program, text: &str) -> Result<Observation, String> {
    parse_observation_at(program, text).map_err(|(column, e)| format!("column {column}: {e}"))
}

/// [`parse_observation`], an error as the column (from 1, in `text` as given) and what was
/// expected there.
pub fn parse_observation_at(program: &Program, text: &str) -> Result<Observation, (usize, String)> {
    let indent = text.chars().take_while(|c| c.is_whitespace()).count();
    read_observation(program, text).map_err(|(at, e)| (indent + at + 1, e))
}

fn read_observation(program: &Program, text: &str) -> Result<Observation, (usize, String)> {
    let mut p = ObsParser {
        program,
        chars: text.trim().chars().collect(),
        at: 0,
    };
    let head = p
        .ident()
        .ok_or_else(|| p.error("a channel or event name"))?;
    let known_head = program.chans.iter().any(|c| c.name == head)
        || program.events.iter().any(|e| e.name == head)
        || Semantics::new(program).origin_names().contains(&head);
    let head = if known_head {
        HeadPat::Named(head.into())
    } else {
        HeadPat::Name(head.into())
    };
    let dir = match p.chars.get(p.at) {
        Some('!') => LabelDir::Send,
        Some('?') => LabelDir::Receive,
        _ => LabelDir::Any,
    };
    p.at += usize::from(dir != LabelDir::Any);
    let args = if p.eat('(') { p.list(')')? } else { Vec::new() };
    p.skip_space();
    let lost = dir == LabelDir::Send && p.word("lost");
    p.skip_space();
    if p.at < p.chars.len() {
        let end = if dir == LabelDir::Send {
            "`lost` or the end of the label"
        } else {
            "the end of the label"
        };
        return Err(p.error(end));
    }
    Ok(Observation {
        head,
        dir,
        lost,
        args,
    })
}

struct ObsParser<'a> {
    program: &'a Program,
    chars: Vec<char>,
    at: usize,
}

impl ObsParser<'_> {
    /// Where the parser is (from 0) and what it expected there.
    fn error(&self, wanted: &str) -> (usize, String) {
        (self.at, format!("expected {wanted}"))
    }

    fn skip_space(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    /// Takes `word` when it is all that is left.
    fn word(&mut self, word: &str) -> bool {
        let rest: String = self.chars[self.at..].iter().collect();
        let found = rest.trim_end() == word;
        if found {
            self.at = self.chars.len();
        }
        found
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        let found = self.chars.get(self.at) == Some(&c);
        self.at += usize::from(found);
        found
    }

    /// An identifier; `#` and digits may follow (`reply#2` names an instance).
    fn ident(&mut self) -> Option<String> {
        self.skip_space();
        let start = self.at;
        let ok = |c: char, first: bool| {
            c.is_ascii_alphabetic() || c == '_' || (!first && (c.is_ascii_digit() || c == '#'))
        };
        while self
            .chars
            .get(self.at)
            .is_some_and(|&c| ok(c, self.at == start))
        {
            self.at += 1;
        }
        // An element of a channel array prints with its indices: `prepare[0]`, `c[1][red]`.
        while self.at > start && self.chars.get(self.at) == Some(&'[') {
            let Some(close) = self.chars[self.at..].iter().position(|&c| c == ']') else {
                break;
            };
            self.at += close + 1;
        }
        (self.at > start).then(|| self.chars[start..self.at].iter().collect())
    }

    fn list(&mut self, close: char) -> Result<Vec<Arg>, (usize, String)> {
        let mut args = Vec::new();
        if self.eat(close) {
            return Ok(args);
        }
        loop {
            args.push(self.arg()?);
            if self.eat(close) {
                return Ok(args);
            }
            if !self.eat(',') {
                return Err(self.error(&format!("`,` or `{close}`")));
            }
        }
    }

    fn arg(&mut self) -> Result<Arg, (usize, String)> {
        self.skip_space();
        if self.eat('(') {
            return Ok(Arg::Tuple(self.list(')')?));
        }
        if let Some(n) = self.int() {
            return Ok(Arg::Int(n));
        }
        let name = self.ident().ok_or_else(|| self.error("a value"))?;
        Ok(match name.as_str() {
            "_" => Arg::Any,
            "true" => Arg::Bool(true),
            "false" => Arg::Bool(false),
            _ if self.is_ctor(&name) => {
                let args = if self.eat('(') {
                    self.list(')')?
                } else {
                    Vec::new()
                };
                Arg::Ctor(name.into(), args)
            }
            _ if self.program.chans.iter().any(|c| c.name == name) => Arg::Chan(name),
            _ => Arg::Name(name.into()),
        })
    }

    fn int(&mut self) -> Option<i64> {
        let start = self.at;
        if self.chars.get(self.at) == Some(&'-') {
            self.at += 1;
        }
        let digits = self.at;
        while self.chars.get(self.at).is_some_and(char::is_ascii_digit) {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        match text.parse() {
            Ok(n) if self.at > digits => Some(n),
            _ => {
                self.at = start;
                None
            }
        }
    }

    fn is_ctor(&self, name: &str) -> bool {
        self.program
            .enums
            .iter()
            .any(|e| e.ctors.iter().any(|c| c.name == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: &str = "
        type Id = chan ()
        type Answer = known(Id) | stray
        chan req : Id
        chan resp : Answer
        daemon proc Client = new r . req!r . Client + resp?_ . Client
        daemon proc Server = req?r . (resp!known(r) | Server) + resp!stray . Server
        system S = Client | Server
    ";

    /// `resp(known(k))` where `k` is bound, `resp(stray)` where it is not.
    fn answer(key: &str) -> Observation {
        let key: Key = key.into();
        let known = Arg::Ctor("known".into(), vec![Arg::Name(key.clone())]);
        let stray = Arg::Ctor("stray".into(), vec![]);
        Observation::new("resp", vec![Arg::IfBound(key, known.into(), stray.into())])
    }

    #[test]
    fn if_bound_picks_the_pattern_per_explanation() {
        let loaded = agentpi_ir::load_str("m.pi", MODEL);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let sem = Semantics::new(&loaded.program);
        let alphabet = Alphabet::new(&loaded.program, &["req", "resp"], &[]).unwrap();
        let (mut replay, _) = Replay::new(&sem, 0, alphabet, Options::default()).unwrap();
        let request = parse_observation(&loaded.program, "req(a)").unwrap();
        assert_eq!(replay.step(&request), Ok(Verdict::Accepted));
        assert!(replay.is_bound("a"));
        assert_eq!(replay.step(&answer("a")), Ok(Verdict::Accepted));
        assert!(!replay.is_bound("a"), "the name vanished with its answer");
        // Unbound now: the same observation reads as a stray answer, which the server offers.
        assert_eq!(replay.step(&answer("a")), Ok(Verdict::Accepted));
        assert!(!replay.is_bound("a"));
    }

    #[test]
    fn unknown_alphabet_names_are_errors() {
        let loaded = agentpi_ir::load_str("m.pi", MODEL);
        let error = Alphabet::new(&loaded.program, &["req", "nope"], &[]).unwrap_err();
        assert!(error.contains("`nope`"), "{error}");
    }

    #[test]
    fn observations_parse_against_the_program() {
        let loaded = agentpi_ir::load_str("m.pi", MODEL);
        let obs = parse_observation(&loaded.program, "resp(known(x))").unwrap();
        assert_eq!(
            obs.args,
            vec![Arg::Ctor("known".into(), vec![Arg::Name("x".into())])]
        );
        assert!(parse_observation(&loaded.program, "resp(known(x)").is_err());
        assert!(parse_observation(&loaded.program, "req(a) b").is_err());
    }
}
