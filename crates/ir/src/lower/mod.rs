//! Lowering with type checking: the syntax trees of all loaded files to one core [`Program`].
//!
//! One pass per process body resolves names, infers and checks types and emits core terms;
//! binder types are patched into the terms when the body is finished, because an untyped
//! `new x` learns its type from a later use. Whole-program checks (guardedness, properties,
//! unused definitions) run after every body is lowered.

mod decls;
mod expr;
mod externs;
mod family;
mod forall;
mod label_args;
mod layout;
pub(crate) use family::DeclaredChan;
mod pattern;
mod prefix;
mod process;
mod property;
mod relation;
mod state;
mod strong_on;
mod unused;

use crate::core::{DefId, Pattern, Program, Slot, Term, TermId, TermInfo, Type};
use crate::names::{Globals, sorted, suggest};
use crate::ty::{Ty, Unifier};
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast;
use rustc_hash::{FxHashMap, FxHashSet};

/// Lowers `files` (the root first); returns the program and every diagnostic found.
/// `checks_run` says whose `check`s run (by default the root's only). `syntax_errors` says
/// whether parsing failed (then unused definitions are not reported: the broken text may
/// have used them). `generated` is the source of the tool models, when they are loaded.
pub(crate) fn lower(
    files: &[ast::File],
    checks_run: &[bool],
    defines: &[ast::ConstDecl],
    syntax_errors: bool,
    generated: Option<agentpi_diagnostics::FileId>,
) -> (Program, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let g = Globals::collect(files, checks_run, defines, &mut diags);
    let mut lw = Lowerer::new(g, diags);
    lw.generated = generated;
    lw.declare();
    externs::lower(&mut lw);
    lw.lower_bodies();
    crate::guard::check(&lw.prog, &mut lw.diags);
    property::lower_checks(&mut lw);
    if !syntax_errors {
        unused::warn(&mut lw);
    }
    (lw.prog, lw.diags)
}

/// What kind of global a use refers to, for unused-definition warnings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Type,
    Const,
    Chan,
    Event,
    Proc,
}

pub(crate) struct Lowerer<'a> {
    pub(crate) g: Globals<'a>,
    pub(crate) prog: Program,
    pub(crate) diags: Vec<Diagnostic>,
    pub(crate) u: Unifier,
    pub(crate) enum_ids: FxHashMap<&'a str, crate::core::EnumId>,
    alias_done: FxHashMap<&'a str, Ty>,
    alias_busy: FxHashSet<&'a str>,
    const_done: Vec<Option<(crate::core::Expr, Ty)>>,
    const_busy: Vec<bool>,
    pub(crate) sigs: Vec<Vec<Ty>>,
    pub(crate) chan_tys: Vec<Vec<Ty>>,
    pub(crate) event_tys: Vec<Vec<Ty>>,
    pub(crate) used: FxHashSet<(Kind, String)>,
    /// Every `new` name of every body with its type: labels may name them.
    pub(crate) new_names: Vec<(String, Type)>,
    /// Each `chan` declaration's first channel and dimensions (by declaration).
    pub(crate) declared_chans: Vec<family::DeclaredChan>,
    /// Constants already reported as an index of fewer than one value (`-D N=0`): reported
    /// once, at their first use as an index, not at every family they size.
    pub(crate) bad_index_consts: FxHashSet<String>,
    /// The source of the tool models of `extern` channels, once they are written.
    pub(crate) generated: Option<agentpi_diagnostics::FileId>,
    body: Body,
}

/// State of the body being lowered.
#[derive(Default)]
struct Body {
    scope: Vec<(String, Slot)>,
    slots: Vec<SlotInfo>,
    owner: Option<DefId>,
    first_term: usize,
    /// Diagnostics before the body: exhaustiveness is not checked after a type error.
    first_diag: usize,
    matches: Vec<PendingMatch>,
    /// Slots of `par` indices, with the constant each stands for in the copy being lowered.
    fixed: FxHashMap<Slot, crate::core::Expr>,
}

struct SlotInfo {
    name: String,
    span: Span,
    ty: Ty,
    /// Made by `new`: an unresolved type is reported for these.
    new: bool,
}

/// A `match` whose exhaustiveness is checked once the body's types are known.
struct PendingMatch {
    ty: Ty,
    pats: Vec<Pattern>,
    span: Span,
}

impl<'a> Lowerer<'a> {
    fn new(g: Globals<'a>, diags: Vec<Diagnostic>) -> Self {
        let enum_ids = g
            .enums
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.name.as_str(), crate::core::EnumId(i as u32)))
            .collect();
        let consts = g.consts.len();
        Lowerer {
            g,
            prog: Program::default(),
            diags,
            u: Unifier::default(),
            enum_ids,
            alias_done: FxHashMap::default(),
            alias_busy: FxHashSet::default(),
            const_done: vec![None; consts],
            const_busy: vec![false; consts],
            sigs: Vec::new(),
            chan_tys: Vec::new(),
            event_tys: Vec::new(),
            used: FxHashSet::default(),
            new_names: Vec::new(),
            declared_chans: Vec::new(),
            bad_index_consts: FxHashSet::default(),
            generated: None,
            body: Body::default(),
        }
    }

    pub(crate) fn error(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    pub(crate) fn use_global(&mut self, kind: Kind, name: &str) {
        self.used.insert((kind, name.to_string()));
    }

    pub(crate) fn show(&self, ty: &Ty) -> String {
        self.u.show(ty, &self.prog.enums)
    }

    fn lower_bodies(&mut self) {
        for index in 0..self.g.proc_decls.len() {
            let decl = self.g.proc_decls[index];
            let id = DefId(index as u32);
            self.start_body(Some(id));
            let params = self.sigs[index].clone();
            let count = params.len() as u32;
            for (param, ty) in decl.params.iter().zip(params) {
                let slot = self.new_slot(&param.name, ty, false);
                self.body.scope.push((param.name.name.clone(), slot));
            }
            let body = self.proc(&decl.body);
            let frame = self.finish_body(body, count);
            let slot_names = self.slot_names();
            let def = &mut self.prog.defs[index];
            def.body = body;
            def.frame = frame;
            def.slot_names = slot_names;
        }
        for index in 0..self.g.system_decls.len() {
            let decl = self.g.system_decls[index];
            self.start_body(None);
            let body = self.proc(&decl.body);
            let frame = self.finish_body(body, 0);
            let name = decl.name.name.clone();
            let span = decl.span;
            let slot_names = self.slot_names();
            self.prog.systems.push(crate::core::SystemDef {
                name,
                body,
                frame,
                slot_names,
                span,
            });
        }
    }

    /// The names of the body's slots, in frame order.
    fn slot_names(&self) -> Vec<String> {
        self.body.slots.iter().map(|s| s.name.clone()).collect()
    }

    fn start_body(&mut self, owner: Option<DefId>) {
        self.body = Body {
            owner,
            first_term: self.prog.terms.len(),
            first_diag: self.diags.len(),
            ..Body::default()
        };
    }

    /// Allocates a frame slot for a binder (every binder has its own slot).
    pub(crate) fn new_slot(&mut self, name: &ast::Ident, ty: Ty, new: bool) -> Slot {
        let info = SlotInfo {
            name: name.name.clone(),
            span: name.span,
            ty,
            new,
        };
        self.body.slots.push(info);
        self.body.slots.len() as Slot - 1
    }

    pub(crate) fn lookup_local(&self, name: &str) -> Option<(Slot, Ty)> {
        let (_, slot) = self.body.scope.iter().rev().find(|(n, _)| n == name)?;
        Some((*slot, self.body.slots[*slot as usize].ty.clone()))
    }

    /// The constant a `par` index stands for in the copy being lowered.
    pub(crate) fn fixed_value(&self, slot: Slot) -> Option<crate::core::Expr> {
        self.body.fixed.get(&slot).cloned()
    }

    pub(crate) fn local_names(&self) -> Vec<&str> {
        self.body.scope.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Resolves binder types, patches them into the body's terms, checks its matches and lays
    /// out its frame (`layout.rs`). `root` is the body, `params` its parameter count. Returns
    /// the frame size.
    fn finish_body(&mut self, root: TermId, params: u32) -> u32 {
        let mut types = Vec::with_capacity(self.body.slots.len());
        for slot in &self.body.slots {
            let ty = self.u.to_core(&slot.ty);
            if ty.is_none() && slot.new {
                self.diags.push(
                    Diagnostic::error(
                        "E0306",
                        format!("cannot infer the type of channel `{}`", slot.name),
                    )
                    .at(slot.span)
                    .with_label("nothing here says what this channel carries")
                    .with_help(format!("write its type: `new {}: chan T`", slot.name)),
                );
            }
            types.push(ty.unwrap_or(Type::Bool));
        }
        for term in &mut self.prog.terms[self.body.first_term..] {
            patch_term(term, &types);
        }
        for slot in (0..types.len()).filter(|&i| self.body.slots[i].new) {
            self.new_names
                .push((self.body.slots[slot].name.clone(), types[slot].clone()));
        }
        let clean = self.diags.len() == self.body.first_diag;
        for mut pending in std::mem::take(&mut self.body.matches)
            .into_iter()
            .filter(|_| clean)
        {
            // Binder types matter: a binder of a narrower range covers only part of a column.
            pending
                .pats
                .iter_mut()
                .for_each(|p| patch_pattern(p, &types));
            let ty = self.u.zonk(&pending.ty);
            if let Some(ty) = self.u.to_core(&ty) {
                crate::exhaustive::check(
                    &self.prog.enums,
                    &ty,
                    &pending.pats,
                    pending.span,
                    &mut self.diags,
                );
            }
        }
        let (first, slots) = (self.body.first_term, types.len() as u32);
        layout::lay_out(&mut self.prog, first, root, params, slots)
    }

    /// Appends a term with its span, free slots and owner.
    pub(crate) fn push(&mut self, term: Term, span: Span) -> TermId {
        let free = crate::free::free_slots(&self.prog, &term);
        let owner = self.body.owner;
        let info = TermInfo {
            span,
            free,
            // Filled when the body's frame is laid out.
            cells: Vec::new(),
            owner,
        };
        self.prog.push(term, info)
    }

    /// Runs `f` with an empty local scope (for the property checker).
    pub(crate) fn in_global_scope_pub<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.in_global_scope(f)
    }

    /// Runs `f` with an empty local scope (constants and types see only globals).
    fn in_global_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::take(&mut self.body.scope);
        let result = f(self);
        self.body.scope = saved;
        result
    }
}

fn patch_term(term: &mut Term, types: &[Type]) {
    match term {
        Term::Prefix(crate::core::Prefix::Input { pats, .. }, _) => {
            pats.iter_mut().for_each(|p| patch_pattern(p, types));
        }
        Term::Match(_, arms) => arms.iter_mut().for_each(|(p, _)| patch_pattern(p, types)),
        Term::New(names, _) => {
            for name in names {
                name.ty = types[name.slot as usize].clone();
            }
        }
        _ => {}
    }
}

fn patch_pattern(pattern: &mut Pattern, types: &[Type]) {
    match pattern {
        Pattern::Bind(slot, ty) => *ty = types[*slot as usize].clone(),
        Pattern::Ctor(_, _, ps) | Pattern::Tuple(ps) => {
            ps.iter_mut().for_each(|p| patch_pattern(p, types))
        }
        Pattern::Wild | Pattern::Eq(_) => {}
    }
}

impl Lowerer<'_> {
    /// Checks an expression that may use only globals (property arguments).
    pub(crate) fn global_expr(&mut self, expr: &ast::Expr, expected: &Ty) -> crate::core::Expr {
        self.in_global_scope(|lw| lw.check_expr(expr, expected))
    }
}

/// Drops the diagnostics since `first` that repeat an earlier one: the same mistake in every
/// copy of a `par` or instance of a `forall` is one mistake.
pub(crate) fn dedup_diags(lw: &mut Lowerer, first: usize) {
    let mut seen = FxHashSet::default();
    let mut index = first;
    while index < lw.diags.len() {
        let d = &lw.diags[index];
        if seen.insert((d.code.clone(), d.message.clone(), d.span())) {
            index += 1;
        } else {
            lw.diags.remove(index);
        }
    }
}

/// A check names a system the model does not define (the check's own, or the other side of
/// a relation).
pub(super) fn unknown_system(lw: &mut Lowerer, name: &ast::Ident) {
    let names = sorted(lw.g.systems.keys().copied());
    let mut diag = Diagnostic::error("E0206", format!("unknown system `{}`", name.name))
        .at(name.span)
        .with_label("no system of this name");
    diag = match suggest(&name.name, names) {
        Some(s) => diag.with_help(format!("did you mean `{s}`?")),
        None => diag.with_help(format!("define it with `system {} = ...`", name.name)),
    };
    lw.error(diag);
}
