//! Hennessy–Milner logic with the modalities needed to explain why two states differ, and a
//! model checker for it (so evidence is checked, never trusted).
//!
//! | syntax | meaning at state s |
//! |---|---|
//! | `true` | always |
//! | `!f`, `f && g` | negation, conjunction |
//! | `<a>f` / `[a]f` | some / every `a`-step leads to a state satisfying `f` |
//! | `<<a>>f` / `[[a]]f` | the same for weak steps `tau* a tau*` (`<<tau>>f`: `tau*`) |
//! | `<{g}a>f` / `[{g}a]f` | some / every `tau`-path whose states all satisfy `g`, followed by an `a`-step (`a` visible), leads to `f` |
//! | `<{g}(tau)>f` / `[{g}(tau)]f` | the same with an optional `tau`-step: some / every `tau`-path through `g`-states ends in `f`, or is followed by a `tau`-step into `f` |
//! | `<tau* a>f`, `<tau*>f` | `<{true}a>f`, `<{true}(tau)>f` (some state reachable by `tau`-steps satisfies `f`) |
//! | `div{g}` | an infinite `tau`-path whose states all satisfy `g` |
//!
//! Strong bisimilarity is characterised by `<a>`, weak by `<<a>>`, branching by `<{g}a>`
//! (De Nicola–Vaandrager's until; `Until(g, "tau", f)` is always the optional step, as in the
//! definition of branching bisimulation: a required `tau`-step would tell apart a state from
//! the same state behind an inert `tau`) and divergence-preserving branching by adding
//! `div{g}`. Labels are compared by text, so one formula can be evaluated on two LTSs.

use crate::lts::{Lts, TAU};
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;

/// A formula; subformulas are shared (`Rc`) because evidence reuses them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    True,
    Not(Rc<Formula>),
    And(Vec<Rc<Formula>>),
    /// `<a>f`
    Diamond(String, Rc<Formula>),
    /// `<<a>>f`
    WeakDiamond(String, Rc<Formula>),
    /// `<{g}a>f`; for `a = tau` the step is optional (`<{g}(tau)>f`)
    Until(Rc<Formula>, String, Rc<Formula>),
    /// `div{g}`
    Diverge(Rc<Formula>),
}

impl Formula {
    /// A conjunction, simplified: nested conjunctions flattened, `true` and repeated
    /// conjuncts dropped, and `<a>true` dropped next to another `<a>f` (which implies it).
    pub fn and(parts: Vec<Rc<Formula>>) -> Rc<Formula> {
        let mut flat: Vec<Rc<Formula>> = Vec::new();
        for part in parts {
            match &*part {
                Formula::True => {}
                Formula::And(inner) => flat.extend(inner.iter().cloned()),
                _ => flat.push(part),
            }
        }
        let mut seen = std::collections::HashSet::new();
        flat.retain(|p| seen.insert(p.clone()));
        let implied: Vec<bool> = flat
            .iter()
            .map(|p| flat.iter().any(|q| !Rc::ptr_eq(p, q) && implies(q, p)))
            .collect();
        let mut kept = flat
            .into_iter()
            .zip(implied)
            .filter(|(_, i)| !i)
            .map(|(p, _)| p);
        match (kept.next(), kept.next()) {
            (None, _) => Rc::new(Formula::True),
            (Some(one), None) => one,
            (Some(a), Some(b)) => Rc::new(Formula::And([a, b].into_iter().chain(kept).collect())),
        }
    }

    /// The negation, removing a double negation.
    pub fn negate(f: Rc<Formula>) -> Rc<Formula> {
        match &*f {
            Formula::Not(g) => g.clone(),
            _ => Rc::new(Formula::Not(f)),
        }
    }

    /// The number of operators, a measure of how readable the evidence is.
    pub fn size(&self) -> usize {
        match self {
            Formula::True => 1,
            Formula::Not(f)
            | Formula::Diamond(_, f)
            | Formula::WeakDiamond(_, f)
            | Formula::Diverge(f) => 1 + f.size(),
            Formula::And(fs) => fs.iter().map(|f| f.size()).sum::<usize>() + fs.len() - 1,
            Formula::Until(g, _, f) => 1 + g.size() + f.size(),
        }
    }
}

/// Whether `q` obviously implies `p`: `p` is a modality with target `true` and `q` is the
/// same modality with a stronger target.
fn implies(q: &Formula, p: &Formula) -> bool {
    match (q, p) {
        (Formula::Diamond(a, _), Formula::Diamond(b, t)) => a == b && **t == Formula::True,
        (Formula::WeakDiamond(a, _), Formula::WeakDiamond(b, t)) => a == b && **t == Formula::True,
        (Formula::Until(g, a, _), Formula::Until(h, b, t)) => {
            g == h && a == b && **t == Formula::True
        }
        _ => false,
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Formula::True => write!(f, "true"),
            Formula::Not(g) if matches!(**g, Formula::Not(_)) => write!(f, "!{}", Atom(g)),
            Formula::Not(g) => write!(f, "{}", Negated(g)),
            Formula::And(parts) => {
                let texts: Vec<String> = parts.iter().map(|p| Atom(p).to_string()).collect();
                write!(f, "{}", texts.join(" && "))
            }
            Formula::Diamond(a, g) => write!(f, "<{}>{}", Label(a), Atom(g)),
            Formula::WeakDiamond(a, g) => write!(f, "<<{}>>{}", Label(a), Atom(g)),
            Formula::Until(g, a, h) => write!(f, "<{}>{}", Path(g, a), Atom(h)),
            Formula::Diverge(g) => write!(f, "div{{{g}}}"),
        }
    }
}

/// Prints the path part of an until modality: `{g}a`, or `tau* a` when `g` is `true`; the
/// optional `tau`-step is `(tau)`, and `tau*` alone when `g` is `true` (`true⟨(τ)⟩f` holds
/// when some state reachable by `tau`-steps satisfies `f`).
struct Path<'a>(&'a Formula, &'a str);

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1 == "tau") {
            (Formula::True, true) => write!(f, "tau*"),
            (Formula::True, false) => write!(f, "tau* {}", Label(self.1)),
            (g, true) => write!(f, "{{{g}}}(tau)"),
            (g, false) => write!(f, "{{{g}}}{}", Label(self.1)),
        }
    }
}

/// A label as written in a formula: as it is, unless it holds a character of the formula
/// syntax (`!`, `<`, `[`, `&`, ...) or starts with `(` (as the optional step `(tau)` does),
/// which would make the formula ambiguous; then quoted, as in a `.aut` file.
struct Label<'a>(&'a str);

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let special = |c: char| "!<>[]{}&|\"*\\".contains(c);
        let plain = !self.0.contains(special) && !self.0.starts_with('(');
        if plain && self.0.trim() == self.0 && !self.0.is_empty() {
            return f.write_str(self.0);
        }
        write!(
            f,
            "\"{}\"",
            self.0.replace('\\', "\\\\").replace('"', "\\\"")
        )
    }
}

/// Prints a subformula, parenthesised when it is a conjunction.
struct Atom<'a>(&'a Formula);

impl fmt::Display for Atom<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Formula::And(_) => write!(f, "({})", self.0),
            other => write!(f, "{other}"),
        }
    }
}

/// Prints the negation of a formula: a modality's is its box with the negated target
/// (`!<a>true` is `[a]false`).
struct Negated<'a>(&'a Formula);

impl fmt::Display for Negated<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Formula::Not(g) => write!(f, "{}", Atom(g)),
            Formula::True => write!(f, "false"),
            Formula::Diamond(a, h) => write!(f, "[{}]{}", Label(a), Negated(h)),
            Formula::WeakDiamond(a, h) => write!(f, "[[{}]]{}", Label(a), Negated(h)),
            Formula::Until(g, a, h) => write!(f, "[{}]{}", Path(g, a), Negated(h)),
            other => write!(f, "!{}", Atom(other)),
        }
    }
}

/// Evaluates formulas on one LTS.
#[derive(Debug)]
pub struct Checker<'a> {
    lts: &'a Lts,
    /// Predecessors with labels, CSR: `pred[off[t]..off[t+1]]` are (label, source).
    off: Vec<u32>,
    pred: Vec<(u32, u32)>,
}

impl<'a> Checker<'a> {
    /// Prepares the predecessor lists of `lts`.
    pub fn new(lts: &'a Lts) -> Self {
        let n = lts.num_states();
        let mut off = vec![0u32; n + 1];
        for (_, _, t) in lts.transitions() {
            off[t as usize + 1] += 1;
        }
        for i in 0..n {
            off[i + 1] += off[i];
        }
        let mut fill = off.clone();
        let mut pred = vec![(0, 0); lts.num_transitions()];
        for (s, l, t) in lts.transitions() {
            pred[fill[t as usize] as usize] = (l, s);
            fill[t as usize] += 1;
        }
        Checker { lts, off, pred }
    }

    /// Whether `state` satisfies `formula`.
    pub fn holds(&self, formula: &Formula, state: u32) -> bool {
        self.sat(formula)[state as usize]
    }

    /// The set of states satisfying `formula`.
    pub fn sat(&self, formula: &Formula) -> Vec<bool> {
        self.sat_from(formula, &mut |g| self.sat(g))
    }

    /// The set of states satisfying `formula`, evaluating its immediate subformulas with
    /// `sub` (so that a caller can remember them: see `witness`).
    pub(crate) fn sat_from(
        &self,
        formula: &Formula,
        sub: &mut dyn FnMut(&Formula) -> Vec<bool>,
    ) -> Vec<bool> {
        let n = self.lts.num_states();
        match formula {
            Formula::True => vec![true; n],
            Formula::Not(f) => sub(f).into_iter().map(|b| !b).collect(),
            Formula::And(fs) => fs.iter().fold(vec![true; n], |acc, f| {
                acc.into_iter().zip(sub(f)).map(|(a, b)| a && b).collect()
            }),
            Formula::Diamond(a, f) => self.pre(self.label(a), &sub(f)),
            Formula::WeakDiamond(a, f) => self.weak_pre(self.label(a), &sub(f)),
            Formula::Until(g, a, f) => {
                let (g, f) = (sub(g), sub(f));
                let a = self.label(a);
                // For `tau` the step is optional: a `g`-state satisfying `f` ends the path.
                let start: Vec<bool> = (self.pre(a, &f).iter().zip(&f).zip(&g))
                    .map(|((&step, &here), &guard)| guard && (step || (here && a == Some(TAU))))
                    .collect();
                self.tau_closure_within(start, &g)
            }
            Formula::Diverge(g) => self.divergent_within(&sub(g)),
        }
    }

    /// The LTS this checker evaluates on.
    pub fn lts(&self) -> &Lts {
        self.lts
    }

    pub(crate) fn label(&self, text: &str) -> Option<u32> {
        if text == "tau" {
            Some(TAU)
        } else {
            self.lts.label_id(text)
        }
    }

    /// States with an `a`-step into `target` (no states when the LTS lacks the label).
    fn pre(&self, a: Option<u32>, target: &[bool]) -> Vec<bool> {
        let mut out = vec![false; target.len()];
        if let Some(a) = a {
            for (s, l, t) in self.lts.transitions() {
                if l == a && target[t as usize] {
                    out[s as usize] = true;
                }
            }
        }
        out
    }

    /// States with a weak `a`-step (`tau* a tau*`, or `tau*` for `tau`) into `target`.
    fn weak_pre(&self, a: Option<u32>, target: &[bool]) -> Vec<bool> {
        let all = vec![true; target.len()];
        let after = self.tau_closure_within(target.to_vec(), &all);
        if a == Some(TAU) {
            return after;
        }
        self.tau_closure_within(self.pre(a, &after), &all)
    }

    /// The least superset of `start` closed under `tau`-predecessors that lie in `within`.
    fn tau_closure_within(&self, mut set: Vec<bool>, within: &[bool]) -> Vec<bool> {
        let mut queue: VecDeque<u32> = (0..set.len() as u32).filter(|&s| set[s as usize]).collect();
        while let Some(t) = queue.pop_front() {
            for &(l, s) in
                &self.pred[self.off[t as usize] as usize..self.off[t as usize + 1] as usize]
            {
                if l == TAU && within[s as usize] && !set[s as usize] {
                    set[s as usize] = true;
                    queue.push_back(s);
                }
            }
        }
        set
    }

    /// The states of `within` that have an infinite `tau`-path inside `within`.
    pub(crate) fn divergent_within(&self, within: &[bool]) -> Vec<bool> {
        let mut alive = within.to_vec();
        let mut count: Vec<u32> = (0..within.len() as u32)
            .map(|s| {
                self.lts
                    .tau_successors(s)
                    .filter(|&t| within[t as usize])
                    .count() as u32
            })
            .collect();
        let mut queue: VecDeque<u32> = (0..within.len() as u32)
            .filter(|&s| alive[s as usize] && count[s as usize] == 0)
            .collect();
        while let Some(t) = queue.pop_front() {
            alive[t as usize] = false;
            for &(l, s) in
                &self.pred[self.off[t as usize] as usize..self.off[t as usize + 1] as usize]
            {
                if l == TAU && alive[s as usize] {
                    count[s as usize] -= 1;
                    if count[s as usize] == 0 {
                        queue.push_back(s);
                    }
                }
            }
        }
        alive
    }
}
