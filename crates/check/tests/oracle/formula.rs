//! The oracle's own reading of properties: label patterns matched against the semantics'
//! labels, and formulas over them, written from docs/language.md and docs/check.md (not from
//! `check::pattern` or `ir::ltl`'s normal form). The lowered property is read as data only.

use agentpi_ir::core::{ArgPattern, LabelDir, LabelHead, LabelPattern, Property};
use agentpi_ir::ltl::Ltl;
use agentpi_semantics::{Chan, DEAD, Head, Label, Semantics, Value};

/// Values bound to a formula's variables; fresh channels are numbered as the current state
/// numbers them (a channel that vanished is numbered [`DEAD`], which no label carries).
pub type Env = Vec<(String, Value)>;

/// What an atom of a formula names.
#[derive(Clone, Debug)]
pub enum Atom {
    /// A label pattern of a `.pi` file, as lowered.
    Pattern(LabelPattern),
    /// A label by its printed text, with no variables (the generated formulas' atoms).
    Text(String),
}

/// A temporal formula read along a run, one position per step.
#[derive(Clone, Debug)]
pub enum Formula {
    Const(bool),
    Atom(Atom),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    /// `A -> f` with a label pattern `A`: where the step matches `A`, `f` holds with the
    /// values `A` bound; where it does not, the implication holds.
    Bind(Atom, Box<Formula>),
    Next(Box<Formula>),
    Until(Box<Formula>, Box<Formula>),
    Release(Box<Formula>, Box<Formula>),
}

fn boxed(f: &Ltl) -> Result<Box<Formula>, String> {
    Ok(Box::new(Formula::from_ltl(f)?))
}

/// Why the oracle does not read a property over states.
pub const REFUSED: &str = "the oracle reads labels only: it refuses a property over states (`at`, `len`, `contains`), whose verdicts tests/props/state.pi pins and whose evidence sugar.rs checks against its `ltl` form";

impl Formula {
    /// An `ltl` formula as docs/language.md defines its operators: `[] f` is `false R f`,
    /// `<> f` is `true U f`, `f W g` is `f U g` or `f` forever. A state predicate is refused
    /// ([`REFUSED`]).
    pub fn from_ltl(f: &Ltl) -> Result<Formula, String> {
        Ok(match f {
            Ltl::True => Formula::Const(true),
            Ltl::False => Formula::Const(false),
            Ltl::Atom(p) => Formula::Atom(Atom::Pattern(p.clone())),
            Ltl::State(_) => return Err(REFUSED.to_string()),
            Ltl::Not(a) => Formula::Not(boxed(a)?),
            Ltl::And(a, b) => Formula::And(boxed(a)?, boxed(b)?),
            Ltl::Or(a, b) => Formula::Or(boxed(a)?, boxed(b)?),
            Ltl::Implies(a, b) => match &**a {
                Ltl::Atom(p) => Formula::Bind(Atom::Pattern(p.clone()), boxed(b)?),
                _ => Formula::Or(Box::new(Formula::Not(boxed(a)?)), boxed(b)?),
            },
            Ltl::Always(a) => always(Formula::from_ltl(a)?),
            Ltl::Eventually(a) => eventually(Formula::from_ltl(a)?),
            Ltl::Next(a) => Formula::Next(boxed(a)?),
            Ltl::Until(a, b) => Formula::Until(boxed(a)?, boxed(b)?),
            Ltl::Release(a, b) => Formula::Release(boxed(a)?, boxed(b)?),
            Ltl::WeakUntil(a, b) => {
                let until = Formula::Until(boxed(a)?, boxed(b)?);
                Formula::Or(Box::new(until), Box::new(always(Formula::from_ltl(a)?)))
            }
        })
    }

    /// The liveness shapes and `ltl` as formulas, from their definitions in
    /// docs/semantics.md (*Properties*); `None` for the safety shapes and what the oracle
    /// refuses ([`Formula::from_ltl`]).
    pub fn of_property(property: &Property) -> Option<Formula> {
        let atom = |p: &LabelPattern| Formula::Atom(Atom::Pattern(p.clone()));
        Some(match property {
            Property::Eventually(p) => eventually(atom(p)),
            Property::AlwaysEventually(p) => always(eventually(atom(p))),
            Property::LeadsTo(l, r) => {
                let answered = Formula::Next(Box::new(eventually(atom(r))));
                always(Formula::Bind(Atom::Pattern(l.clone()), Box::new(answered)))
            }
            Property::Ltl(f) => Formula::from_ltl(f).ok()?,
            Property::DeadlockFree
            | Property::Never(_)
            | Property::Reachable(_)
            | Property::Relation(_)
            | Property::State(..) => return None,
        })
    }
}

pub fn always(f: Formula) -> Formula {
    Formula::Release(Box::new(Formula::Const(false)), Box::new(f))
}

pub fn eventually(f: Formula) -> Formula {
    Formula::Until(Box::new(Formula::Const(true)), Box::new(f))
}

/// The variables an atom names (bound here, or bound by an enclosing `A -> f`).
pub fn variables(atom: &Atom) -> Vec<String> {
    fn arg(a: &ArgPattern, out: &mut Vec<String>) {
        match a {
            ArgPattern::Var(x) => out.push(x.clone()),
            ArgPattern::Ctor(_, _, ps) | ArgPattern::Tuple(ps) => {
                ps.iter().for_each(|p| arg(p, out))
            }
            ArgPattern::Wild | ArgPattern::Value(_) => {}
        }
    }
    let mut out = Vec::new();
    let Atom::Pattern(p) = atom else {
        return out;
    };
    if let LabelHead::Var(x) = &p.head {
        out.push(x.clone());
    }
    p.args.iter().flatten().for_each(|a| arg(a, &mut out));
    out
}

/// Whether `label` (`None`: the stutter step, which matches nothing) matches `atom` under
/// `env`; on a match, `env` with the atom's own variables bound.
pub fn matches(sem: &Semantics<'_>, atom: &Atom, label: Option<&Label>, env: &Env) -> Option<Env> {
    let label = label?;
    let pattern = match atom {
        Atom::Text(text) => return (sem.label_text(label) == *text).then(|| env.clone()),
        Atom::Pattern(p) => p,
    };
    let mut bound = env.clone();
    if !head_matches(sem, pattern, label, &bound) {
        return None;
    }
    let Some(args) = &pattern.args else {
        return Some(bound);
    };
    let all = args.len() == label.args.len()
        && args
            .iter()
            .zip(label.args.iter())
            .all(|(p, v)| arg_matches(p, v, &mut bound));
    all.then_some(bound)
}

/// The head: `tau`, an event, a channel by the name it was created with (`c!` only the
/// sends of a buffered channel, `c?` only its receives), an element of a family (`c[...]`),
/// or a channel bound to a variable.
fn head_matches(sem: &Semantics<'_>, pattern: &LabelPattern, label: &Label, env: &Env) -> bool {
    let chan = match (&pattern.head, &label.head) {
        (LabelHead::Tau, Head::Tau) => return true,
        (LabelHead::Event(e), Head::Event(f)) => return e == f,
        (LabelHead::Tau | LabelHead::Event(_), _) => return false,
        (_, Head::Chan(c)) if pattern.dir == LabelDir::Any => *c,
        (_, Head::Send(c) | Head::Lost(c)) if pattern.dir != LabelDir::Receive => *c,
        (_, Head::Receive(c)) if pattern.dir != LabelDir::Send => *c,
        _ => return false,
    };
    match &pattern.head {
        LabelHead::Chan(name) => sem.chan_name(chan) == name,
        LabelHead::Family(base) => sem
            .chan_name(chan)
            .strip_prefix(base.as_str())
            .is_some_and(|index| index.starts_with('[')),
        LabelHead::Var(x) => lookup(env, x) == Some(&Value::Chan(chan)),
        LabelHead::Tau | LabelHead::Event(_) => false,
    }
}

fn lookup<'e>(env: &'e Env, name: &str) -> Option<&'e Value> {
    env.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// An argument: `_`, a variable (equal to its value when bound, else bound here), a closed
/// expression (evaluated by the semantics), a constructor or a tuple, part by part.
fn arg_matches(pattern: &ArgPattern, value: &Value, env: &mut Env) -> bool {
    match (pattern, value) {
        (ArgPattern::Wild, _) => true,
        (ArgPattern::Var(x), v) => match lookup(env, x) {
            Some(bound) => bound == v,
            None => {
                env.push((x.clone(), v.clone()));
                true
            }
        },
        (ArgPattern::Value(e), v) => agentpi_semantics::eval::eval(e, &[]).is_ok_and(|w| w == *v),
        (ArgPattern::Ctor(e, i, ps), Value::Ctor(f, j, vs)) if (e, i) == (f, j) => {
            ps.len() == vs.len()
                && ps
                    .iter()
                    .zip(vs.iter())
                    .all(|(p, v)| arg_matches(p, v, env))
        }
        (ArgPattern::Tuple(ps), Value::Tuple(vs)) => {
            ps.len() == vs.len()
                && ps
                    .iter()
                    .zip(vs.iter())
                    .all(|(p, v)| arg_matches(p, v, env))
        }
        _ => false,
    }
}

/// `env` after a step whose target numbers the source's fresh ids by `renaming`.
pub fn rename(env: &Env, renaming: Option<&[u32]>) -> Env {
    let Some(renaming) = renaming else {
        return env.clone();
    };
    let mut out = env.clone();
    for (_, value) in &mut out {
        rename_value(value, renaming);
    }
    out
}

fn rename_value(value: &mut Value, renaming: &[u32]) {
    match value {
        Value::Chan(Chan::Fresh { id, .. }) => {
            *id = renaming.get(*id as usize).copied().unwrap_or(DEAD);
        }
        Value::Ctor(_, _, vs) | Value::Tuple(vs) => {
            vs.iter_mut().for_each(|v| rename_value(v, renaming));
        }
        _ => {}
    }
}
