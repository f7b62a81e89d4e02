//! Structural invariants of lowered programs, checked on every valid model of the test corpus
//! and every example of docs/language.md: what `semantics` relies on.
//!
//! - `TermInfo::cells` equals the free cells recomputed here by an independent walk, and
//!   `TermInfo::free` gives one slot for each, increasing;
//! - every cell is below the frame size, and no binder takes the cell of one in scope (a
//!   closure's values never share a cell);
//! - each term's owner is the definition (or system) it belongs to;
//! - choices and parallel compositions are flat; calls have one argument per parameter;
//! - a binder of an input on a declared channel has the type the channel carries.

mod common;

use agentpi_ir::core::*;
use std::collections::BTreeSet;

struct Walk<'a> {
    program: &'a Program,
    owner: Option<DefId>,
    frame: u32,
    /// The cells of the binders in scope.
    scope: Vec<Slot>,
    errors: Vec<String>,
}

impl Walk<'_> {
    /// Checks `id` and returns its free cells.
    fn term(&mut self, id: TermId) -> BTreeSet<Slot> {
        let p = self.program;
        let free = match p.term(id) {
            Term::Nil => BTreeSet::new(),
            Term::Prefix(prefix, next) => self.prefix(prefix, *next),
            Term::Choice(items) | Term::Par(items) => {
                let same = |t: &Term| {
                    matches!(
                        (p.term(id), t),
                        (Term::Choice(_), Term::Choice(_)) | (Term::Par(_), Term::Par(_))
                    )
                };
                if items.iter().any(|&t| same(p.term(t))) {
                    self.errors.push(format!("{id:?} is not flat"));
                }
                items.iter().flat_map(|&t| self.term(t)).collect()
            }
            Term::Seq(a, b) => self.term(*a).into_iter().chain(self.term(*b)).collect(),
            Term::New(names, body) => {
                let bound: Vec<Slot> = names.iter().map(|n| n.slot).collect();
                names
                    .iter()
                    .filter(|n| !matches!(n.ty, Type::Chan(_)))
                    .for_each(|n| self.errors.push(format!("new {} is not a channel", n.name)));
                self.scoped(bound, *body)
            }
            Term::Repl(body) => self.term(*body),
            Term::If(cond, a, b) => {
                let mut free = vars(cond);
                free.extend(self.term(*a));
                free.extend(self.term(*b));
                free
            }
            Term::Match(e, arms) => {
                let mut free = vars(e);
                for (pat, body) in arms {
                    let mut bound = Vec::new();
                    pattern(pat, &mut free, &mut bound);
                    free.extend(self.scoped(bound, *body));
                }
                free
            }
            Term::Call(def, args) => {
                if p.def(*def).params.len() != args.len() {
                    self.errors.push(format!(
                        "{id:?} calls {} with {} arguments",
                        p.def(*def).name,
                        args.len()
                    ));
                }
                args.iter().flat_map(vars).collect()
            }
        };
        let info = p.info(id);
        if info.owner != self.owner {
            self.errors.push(format!(
                "{id:?} has owner {:?}, expected {:?}",
                info.owner, self.owner
            ));
        }
        if info.cells != free.iter().copied().collect::<Vec<_>>() {
            self.errors.push(format!(
                "{id:?} cells {:?}, recomputed {free:?}",
                info.cells
            ));
        }
        if info.free.len() != info.cells.len() || !info.free.is_sorted_by(|a, b| a < b) {
            self.errors.push(format!(
                "{id:?} free {:?}, cells {:?}",
                info.free, info.cells
            ));
        }
        free
    }

    /// The free cells of `body`, in the scope of binders `bound` (their cells).
    fn scoped(&mut self, bound: Vec<Slot>, body: TermId) -> BTreeSet<Slot> {
        let mark = self.scope.len();
        bound.iter().for_each(|&s| self.bind(s));
        let free = self.term(body);
        self.scope.truncate(mark);
        free.into_iter().filter(|s| !bound.contains(s)).collect()
    }

    fn prefix(&mut self, prefix: &Prefix, next: TermId) -> BTreeSet<Slot> {
        let mut free = BTreeSet::new();
        let mut bound = Vec::new();
        match prefix {
            Prefix::Output { chan, args } => {
                free.extend(vars(chan));
                args.iter().for_each(|a| free.extend(vars(a)));
            }
            Prefix::Input { chan, pats } => {
                free.extend(vars(chan));
                pats.iter().for_each(|p| pattern(p, &mut free, &mut bound));
                self.input_types(chan, pats);
            }
            Prefix::Tau => {}
            Prefix::Event { args, .. } => args.iter().for_each(|a| free.extend(vars(a))),
            Prefix::Assert(cond) => free.extend(vars(cond)),
        }
        free.extend(self.scoped(bound, next));
        free
    }

    fn input_types(&mut self, chan: &Expr, pats: &[Pattern]) {
        let Expr::Chan(id) = chan else { return };
        let carried = &self.program.chans[id.0 as usize].carries;
        for (pat, ty) in pats.iter().zip(carried) {
            if let Pattern::Bind(slot, bound) = pat
                && bound != ty
            {
                self.errors.push(format!(
                    "binder ${slot} has type {bound:?}, channel carries {ty:?}"
                ));
            }
        }
    }

    fn bind(&mut self, cell: Slot) {
        if cell >= self.frame {
            self.errors
                .push(format!("cell {cell} outside frame {}", self.frame));
        }
        if self.scope.contains(&cell) {
            self.errors
                .push(format!("cell {cell} bound while in scope"));
        }
        self.scope.push(cell);
    }
}

fn vars(expr: &Expr) -> BTreeSet<Slot> {
    match expr {
        Expr::Var(s) => BTreeSet::from([*s]),
        Expr::Int(_) | Expr::Bool(_) | Expr::Chan(_) => BTreeSet::new(),
        Expr::Ctor(_, _, items) | Expr::Tuple(items) => items.iter().flat_map(vars).collect(),
        Expr::Unary(_, x) => vars(x),
        Expr::Binary(_, a, b) => vars(a).into_iter().chain(vars(b)).collect(),
        Expr::ChanIndex(c) => c.index.iter().flat_map(vars).collect(),
    }
}

fn pattern(pat: &Pattern, reads: &mut BTreeSet<Slot>, binds: &mut Vec<Slot>) {
    match pat {
        Pattern::Bind(s, _) => binds.push(*s),
        Pattern::Wild => {}
        Pattern::Eq(e) => reads.extend(vars(e)),
        Pattern::Ctor(_, _, items) | Pattern::Tuple(items) => {
            items.iter().for_each(|p| pattern(p, reads, binds))
        }
    }
}

fn check_program(program: &Program) -> Vec<String> {
    let mut errors = Vec::new();
    for (index, def) in program.defs.iter().enumerate() {
        let mut walk = Walk {
            program,
            owner: Some(DefId(index as u32)),
            frame: def.frame,
            scope: Vec::new(),
            errors: Vec::new(),
        };
        def.params.iter().for_each(|(s, _)| walk.bind(*s));
        let free = walk.term(def.body);
        if free.iter().any(|s| !def.params.iter().any(|(p, _)| p == s)) {
            walk.errors.push(format!(
                "body of {} reads non-parameters {free:?}",
                def.name
            ));
        }
        errors.extend(
            walk.errors
                .into_iter()
                .map(|e| format!("{}: {e}", def.name)),
        );
    }
    for system in &program.systems {
        let mut walk = Walk {
            program,
            owner: None,
            frame: system.frame,
            scope: Vec::new(),
            errors: Vec::new(),
        };
        if !walk.term(system.body).is_empty() {
            walk.errors.push("system body has free slots".into());
        }
        errors.extend(
            walk.errors
                .into_iter()
                .map(|e| format!("{}: {e}", system.name)),
        );
    }
    errors
}

#[test]
fn lowered_programs_satisfy_the_core_invariants() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ok");
    let mut models: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("tests/ok exists")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).expect("readable"),
            )
        })
        .collect();
    models.extend(
        common::doc_examples()
            .into_iter()
            .map(|(line, text)| (format!("docs/language.md:{line}"), text)),
    );
    assert!(models.len() > 15);
    let mut failures = Vec::new();
    for (name, text) in &models {
        let loaded = agentpi_ir::load_str(name, text);
        assert!(!loaded.has_errors(), "{name} has errors");
        failures.extend(
            check_program(&loaded.program)
                .into_iter()
                .map(|e| format!("{name}: {e}")),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
