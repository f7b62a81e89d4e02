//! The characterising logics of strong, weak, branching and divergence-preserving branching
//! bisimilarity, written from their textbook definitions for the tests to judge the evidence
//! `compare` prints. Shares no code with `agentpi_lts` (its own graph, formulas, parser and
//! evaluator; std only), so that a bug in the library's model checker cannot confirm itself.
//! `crates/cli/tests/compare.rs` includes this file by path.
//!
//! The logics, with `s ⇒ s'` for a path of zero or more `τ`-steps:
//!
//! | logic | operators besides `true`, `false`, `¬`, `∧`, `∨` | holds at s when |
//! |---|---|---|
//! | HML (strong) | `⟨a⟩φ` (any a, `τ` included) | some `s -a-> s'` has `s' ⊨ φ` |
//! | weak HML (weak) | `⟨⟨a⟩⟩φ`, a visible | some `s ⇒ -a-> ⇒ s'` has `s' ⊨ φ` |
//! | | `⟨⟨ε⟩⟩φ` | some `s ⇒ s'` has `s' ⊨ φ` |
//! | HML with until (branching) | `φ⟨a⟩ψ`, a visible | some `s = s0 -τ-> … -τ-> sn -a-> s'` has every `si ⊨ φ`, `s' ⊨ ψ` |
//! | | `φ⟨(τ)⟩ψ` | some `s = s0 -τ-> … -τ-> sn` has every `si ⊨ φ` and `sn ⊨ ψ` or some `sn -τ-> s' ⊨ ψ` |
//! | … with divergence (dpbranching) | `Δφ` | some infinite `s = s0 -τ-> s1 -τ-> …` has every `si ⊨ φ` |
//!
//! The box of each modality is the dual `¬⟨a⟩¬φ`. The until modality is De Nicola and
//! Vaandrager's (*Three logics for branching bisimulation*, JACM 1995); for `τ` its step is
//! optional, `(τ)`, as in the definition of branching bisimulation, where a `τ`-step may be
//! answered by not moving: that is what makes it invariant under branching bisimilarity. The
//! divergence modality `Δφ` adds what divergence-preserving branching bisimilarity (van
//! Glabbeek, Luttik and Trčka, *Branching bisimilarity with explicit divergence*, 2009) also
//! tells apart. `evidence.rs` checks on random LTSs that no random formula of a logic tells an
//! LTS from one equivalent to it.
//!
//! The printed syntax (docs/compare.md) maps to these operators so ([`parse`]):
//!
//! | printed | operator |
//! |---|---|
//! | `true`, `false`, `!f`, `f && g` | `true`, `false`, `¬f`, `f ∧ g` (`f \|\| g` is `f ∨ g`) |
//! | `<a>f`, `[a]f` | `⟨a⟩f`, `¬⟨a⟩¬f` (strong) |
//! | `<<a>>f`, `[[a]]f` | `⟨⟨a⟩⟩f`, `¬⟨⟨a⟩⟩¬f`; `<<tau>>` is `⟨⟨ε⟩⟩` (weak) |
//! | `<{g}a>f`, `[{g}a]f` (a visible) | `g⟨a⟩f`, `¬(g⟨a⟩¬f)`; `<tau* a>` is `<{true}a>` (branching) |
//! | `<{g}(tau)>f`, `[{g}(tau)]f` | `g⟨(τ)⟩f`, `¬(g⟨(τ)⟩¬f)`; `<tau*>` is `<{true}(tau)>` (branching) |
//! | `div{g}` | `Δg` (divergence-preserving branching) |
//! | `<{g}tau>f`, `<tau* tau>f` | a `τ`-path through `g` and then *at least one* `τ`-step into `f`: in no characterising logic ([`Phi::TauStepUntil`]) |
//!
//! The last row is what `compare` printed before issue 33 was fixed: `[tau* tau]false` ("no
//! state reachable by `τ`-steps has a `τ`-step") tells apart a state from the same state
//! behind an inert `τ`, which branching bisimilarity identifies.

#![allow(dead_code)]

use std::collections::VecDeque;

/// An action: the silent one or a visible label (compared by text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Act {
    Tau,
    Visible(String),
}

impl Act {
    /// `tau` is the silent action (and `i` in `.aut` files: see [`Graph::from_aut`]).
    pub fn from_label(text: &str) -> Act {
        if text == "tau" {
            Act::Tau
        } else {
            Act::Visible(text.to_string())
        }
    }
}

/// A finite LTS of its own: `edges[s]` are the transitions `(action, target)` out of `s`.
#[derive(Clone, Debug)]
pub struct Graph {
    pub initial: usize,
    pub edges: Vec<Vec<(Act, usize)>>,
}

impl Graph {
    /// A graph of `states` states with the given transitions.
    pub fn new<'a>(
        initial: usize,
        states: usize,
        transitions: impl IntoIterator<Item = (usize, &'a str, usize)>,
    ) -> Graph {
        let mut edges = vec![Vec::new(); states.max(initial + 1)];
        for (s, label, t) in transitions {
            let need = s.max(t) + 1;
            if edges.len() < need {
                edges.resize(need, Vec::new());
            }
            edges[s].push((Act::from_label(label), t));
        }
        Graph { initial, edges }
    }

    /// Reads Aldebaran `.aut` text (as `agentpi lts` writes it); panics on malformed input.
    pub fn from_aut(text: &str) -> Graph {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = lines.next().expect("a des header");
        let numbers = header
            .trim()
            .strip_prefix("des")
            .and_then(|h| h.trim().strip_prefix('('))
            .and_then(|h| h.strip_suffix(')'))
            .expect("des (INITIAL, TRANSITIONS, STATES)");
        let numbers: Vec<usize> = numbers
            .split(',')
            .map(|n| n.trim().parse().unwrap())
            .collect();
        let transitions: Vec<(usize, String, usize)> = lines.map(aut_line).collect();
        Graph::new(
            numbers[0],
            numbers[2],
            transitions.iter().map(|(s, l, t)| (*s, l.as_str(), *t)),
        )
    }

    fn len(&self) -> usize {
        self.edges.len()
    }

    /// The states reachable from `s` by zero or more `τ`-steps through states of `within`
    /// (`s` itself included when it is in `within`).
    fn tau_reach(&self, s: usize, within: &[bool]) -> Vec<usize> {
        if !within[s] {
            return Vec::new();
        }
        let mut seen = vec![false; self.len()];
        seen[s] = true;
        let mut order = vec![s];
        let mut queue = VecDeque::from([s]);
        while let Some(u) = queue.pop_front() {
            for (a, v) in &self.edges[u] {
                if *a == Act::Tau && within[*v] && !seen[*v] {
                    seen[*v] = true;
                    order.push(*v);
                    queue.push_back(*v);
                }
            }
        }
        order
    }
}

/// One `(FROM, LABEL, TO)` line; the label may be quoted with `\"` and `\\` escapes.
fn aut_line(line: &str) -> (usize, String, usize) {
    let body = line
        .trim()
        .strip_prefix('(')
        .unwrap()
        .strip_suffix(')')
        .unwrap();
    let (from, rest) = body.split_once(',').unwrap();
    let (label, to) = rest.trim_start().rsplit_once(',').unwrap();
    let label = label.trim();
    let label = match label.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        Some(quoted) => unescape(quoted),
        None => label.to_string(),
    };
    // CADP writes the silent action `i`.
    let label = if label == "i" {
        "tau".to_string()
    } else {
        label
    };
    (
        from.trim().parse().unwrap(),
        label,
        to.trim().parse().unwrap(),
    )
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' { chars.next().unwrap() } else { c });
    }
    out
}

/// A formula of one of the logics (see the module table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phi {
    True,
    False,
    Not(Box<Phi>),
    And(Vec<Phi>),
    Or(Vec<Phi>),
    /// `⟨a⟩φ`
    Diamond(Act, Box<Phi>),
    /// `⟨⟨a⟩⟩φ`; with `Act::Tau`, `⟨⟨ε⟩⟩φ`
    WeakDiamond(Act, Box<Phi>),
    /// `φ⟨a⟩ψ`; with `Act::Tau`, `φ⟨(τ)⟩ψ` (the `τ`-step is optional)
    Until(Box<Phi>, Act, Box<Phi>),
    /// A `τ`-path through `φ`, then a `τ`-step (not optional) into `ψ`: no logic's operator.
    TauStepUntil(Box<Phi>, Box<Phi>),
    /// `Δφ`
    Diverge(Box<Phi>),
}

/// The equivalence whose logic a formula must belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    Strong,
    Weak,
    Branching,
    DivBranching,
}

impl Logic {
    /// The logic of an `--equiv` name.
    pub fn named(name: &str) -> Logic {
        match name {
            "strong" => Logic::Strong,
            "weak" => Logic::Weak,
            "branching" => Logic::Branching,
            "dpbranching" => Logic::DivBranching,
            _ => panic!("no characterising logic for {name}"),
        }
    }
}

/// `Ok` when `phi` is a formula of `logic`, else the first operator that is not.
pub fn belongs(phi: &Phi, logic: Logic) -> Result<(), String> {
    let allowed = match phi {
        Phi::True | Phi::False | Phi::Not(_) | Phi::And(_) | Phi::Or(_) => true,
        Phi::Diamond(..) => logic == Logic::Strong,
        Phi::WeakDiamond(..) => logic == Logic::Weak,
        Phi::Until(..) => matches!(logic, Logic::Branching | Logic::DivBranching),
        Phi::TauStepUntil(..) => false,
        Phi::Diverge(_) => logic == Logic::DivBranching,
    };
    if !allowed {
        return Err(format!("{phi:?} is not an operator of the {logic:?} logic"));
    }
    children(phi)
        .into_iter()
        .try_for_each(|c| belongs(c, logic))
}

fn children(phi: &Phi) -> Vec<&Phi> {
    match phi {
        Phi::True | Phi::False => vec![],
        Phi::Not(f) | Phi::Diamond(_, f) | Phi::WeakDiamond(_, f) | Phi::Diverge(f) => vec![f],
        Phi::And(fs) | Phi::Or(fs) => fs.iter().collect(),
        Phi::Until(g, _, f) | Phi::TauStepUntil(g, f) => vec![g, f],
    }
}

/// Whether `phi` holds in the initial state of `graph`.
pub fn holds(graph: &Graph, phi: &Phi) -> bool {
    sat(graph, phi)[graph.initial]
}

/// The states of `graph` satisfying `phi`, operator by operator as the definitions say: each
/// modality searches the paths it quantifies over forward from every state.
pub fn sat(graph: &Graph, phi: &Phi) -> Vec<bool> {
    let n = graph.len();
    let states = 0..n;
    match phi {
        Phi::True => vec![true; n],
        Phi::False => vec![false; n],
        Phi::Not(f) => sat(graph, f).into_iter().map(|b| !b).collect(),
        Phi::And(fs) => {
            let sets: Vec<Vec<bool>> = fs.iter().map(|f| sat(graph, f)).collect();
            states.map(|s| sets.iter().all(|set| set[s])).collect()
        }
        Phi::Or(fs) => {
            let sets: Vec<Vec<bool>> = fs.iter().map(|f| sat(graph, f)).collect();
            states.map(|s| sets.iter().any(|set| set[s])).collect()
        }
        Phi::Diamond(a, f) => {
            let target = sat(graph, f);
            states
                .map(|s| graph.edges[s].iter().any(|(b, t)| b == a && target[*t]))
                .collect()
        }
        Phi::WeakDiamond(a, f) => {
            let target = sat(graph, f);
            states
                .map(|s| weak_step(graph, s, a).into_iter().any(|t| target[t]))
                .collect()
        }
        Phi::Until(g, a, f) => until(graph, &sat(graph, g), a, &sat(graph, f), true),
        Phi::TauStepUntil(g, f) => until(graph, &sat(graph, g), &Act::Tau, &sat(graph, f), false),
        Phi::Diverge(g) => {
            let within = sat(graph, g);
            let cycling = on_cycle_within(graph, &within);
            let reach = |s| graph.tau_reach(s, &within);
            states
                .map(|s| reach(s).into_iter().any(|u| cycling[u]))
                .collect()
        }
    }
}

/// The states `s'` with `s ⇒ -a-> ⇒ s'` (`s ⇒ s'` for `τ`).
fn weak_step(graph: &Graph, s: usize, a: &Act) -> Vec<usize> {
    let all = vec![true; graph.len()];
    let before = graph.tau_reach(s, &all);
    if *a == Act::Tau {
        return before;
    }
    let mut out = Vec::new();
    for u in before {
        for (b, v) in &graph.edges[u] {
            if b == a {
                out.extend(graph.tau_reach(*v, &all));
            }
        }
    }
    out
}

/// `g⟨a⟩f` at every state: a `τ`-path through `g`-states, then an `a`-step into `f` (for
/// `a = τ` and `optional`, the step may be left out: the last `g`-state satisfies `f`).
fn until(graph: &Graph, g: &[bool], a: &Act, f: &[bool], optional: bool) -> Vec<bool> {
    (0..graph.len())
        .map(|s| {
            graph.tau_reach(s, g).into_iter().any(|u| {
                (optional && *a == Act::Tau && f[u])
                    || graph.edges[u].iter().any(|(b, v)| b == a && f[*v])
            })
        })
        .collect()
}

/// The states of `within` on a `τ`-cycle inside `within`. In a finite graph an infinite
/// `τ`-path through `within` exists from `s` exactly when `s` reaches one of them so.
fn on_cycle_within(graph: &Graph, within: &[bool]) -> Vec<bool> {
    (0..graph.len())
        .map(|u| {
            graph.edges[u].iter().any(|(b, v)| {
                *b == Act::Tau && within[u] && graph.tau_reach(*v, within).contains(&u)
            })
        })
        .collect()
}

/// Reads a formula as `compare` prints it (docs/compare.md; the mapping is the module table).
pub fn parse(text: &str) -> Result<Phi, String> {
    let mut p = Parser { text, at: 0 };
    let phi = p.formula()?;
    p.blank();
    if p.at != text.len() {
        return Err(p.error("end of formula"));
    }
    Ok(phi)
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn blank(&mut self) {
        self.at = self.text.len() - self.rest().trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.blank();
        let found = self.rest().starts_with(token);
        if found {
            self.at += token.len();
        }
        found
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("`{token}`")))
        }
    }

    fn error(&self, wanted: &str) -> String {
        format!("expected {wanted} at {} in `{}`", self.at, self.text)
    }

    /// `f || g` binds looser than `f && g`.
    fn formula(&mut self) -> Result<Phi, String> {
        let mut parts = vec![self.conjunction()?];
        while self.eat("||") {
            parts.push(self.conjunction()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Phi::Or(parts)
        })
    }

    fn conjunction(&mut self) -> Result<Phi, String> {
        let mut parts = vec![self.unary()?];
        while self.eat("&&") {
            parts.push(self.unary()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Phi::And(parts)
        })
    }

    fn unary(&mut self) -> Result<Phi, String> {
        if self.eat("true") {
            return Ok(Phi::True);
        }
        if self.eat("false") {
            return Ok(Phi::False);
        }
        if self.eat("!") {
            return Ok(Phi::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let phi = self.formula()?;
            self.expect(")")?;
            return Ok(phi);
        }
        if self.eat("div{") {
            let g = self.formula()?;
            self.expect("}")?;
            return Ok(Phi::Diverge(Box::new(g)));
        }
        if self.eat("<<") {
            return self.weak(false);
        }
        if self.eat("[[") {
            return self.weak(true);
        }
        if self.eat("<") {
            return self.modality(false);
        }
        if self.eat("[") {
            return self.modality(true);
        }
        Err(self.error("a formula"))
    }

    /// `<<a>>f` or `[[a]]f`, after the opening brackets.
    fn weak(&mut self, boxed: bool) -> Result<Phi, String> {
        let a = self.label(if boxed { "]]" } else { ">>" })?;
        self.expect(if boxed { "]]" } else { ">>" })?;
        let f = self.unary()?;
        Ok(dual(boxed, f, |f| Phi::WeakDiamond(a, f)))
    }

    /// `<a>f`, `<tau* a>f`, `<tau*>f`, `<{g}a>f`, `<{g}(tau)>f` or their boxes, after the
    /// opening bracket.
    fn modality(&mut self, boxed: bool) -> Result<Phi, String> {
        let close = if boxed { "]" } else { ">" };
        let (guard, star) = if self.eat("{") {
            let g = self.formula()?;
            self.expect("}")?;
            (Some(g), false)
        } else if self.eat("tau*") {
            (Some(Phi::True), true)
        } else {
            (None, false)
        };
        let Some(g) = guard else {
            let a = self.label(close)?;
            self.expect(close)?;
            let f = self.unary()?;
            return Ok(dual(boxed, f, |f| Phi::Diamond(a, f)));
        };
        // After the guard: `(tau)` (the optional step), nothing after `tau*` (`<tau*>`, the
        // same), or a label.
        self.blank();
        let optional = self.eat("(tau)") || (star && self.rest().starts_with(close));
        let a = if optional {
            Act::Tau
        } else {
            self.label(close)?
        };
        self.expect(close)?;
        let f = self.unary()?;
        let g = Box::new(g);
        Ok(dual(boxed, f, |f| match (&a, optional) {
            (Act::Tau, false) => Phi::TauStepUntil(g, f),
            _ => Phi::Until(g, a, f),
        }))
    }

    /// A label: quoted as in `.aut`, or bare up to the closing bracket.
    fn label(&mut self, close: &str) -> Result<Act, String> {
        self.blank();
        if self.eat("\"") {
            let mut text = String::new();
            let mut chars = self.rest().char_indices();
            loop {
                match chars.next() {
                    Some((i, '"')) => {
                        self.at += i + 1;
                        return Ok(Act::from_label(&text));
                    }
                    Some((_, '\\')) => text.push(chars.next().ok_or("bad escape")?.1),
                    Some((_, c)) => text.push(c),
                    None => return Err(self.error("a closing quote")),
                }
            }
        }
        let end = self.rest().find(close).ok_or_else(|| self.error(close))?;
        let text = self.rest()[..end].to_string();
        if text.is_empty() || text.trim() != text {
            return Err(self.error("a label"));
        }
        self.at += end;
        Ok(Act::from_label(&text))
    }
}

/// The modality built by `diamond` on `f`, or its box `¬diamond(¬f)`.
fn dual(boxed: bool, f: Phi, diamond: impl FnOnce(Box<Phi>) -> Phi) -> Phi {
    if boxed {
        Phi::Not(Box::new(diamond(Box::new(Phi::Not(Box::new(f))))))
    } else {
        diamond(Box::new(f))
    }
}
