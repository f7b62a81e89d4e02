//! Declarations: enum, channel, event and process signatures, type expressions, constants.

use super::{Kind, Lowerer};
use crate::core::{CtorDef, Def, EnumDef, EventDecl, Expr, TermId, Type};
use crate::names::{Value, sorted, suggest};
use crate::ty::Ty;
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast::{self, TypeDef, TypeExpr};

impl Lowerer<'_> {
    pub(super) fn declare(&mut self) {
        self.declare_enums();
        for index in 0..self.g.type_decls.len() {
            if let TypeDef::Alias(_) = self.g.type_decls[index].def {
                self.alias(self.g.type_decls[index]);
            }
        }
        for index in 0..self.g.consts.len() {
            self.const_value(index);
        }
        self.declare_chans();
        for decl in self.g.events.clone() {
            let tys: Vec<Ty> = decl.args.iter().map(|t| self.resolve_type(t)).collect();
            let args = tys.iter().map(|t| self.core(t)).collect();
            self.prog.events.push(EventDecl {
                name: decl.name.name.clone(),
                args,
                span: decl.span,
            });
            self.event_tys.push(tys);
        }
        for index in 0..self.g.consts.len() {
            self.const_value(index);
        }
        self.declare_defs();
    }

    /// Enum names first (fields may refer to any enum), then their constructors.
    fn declare_enums(&mut self) {
        for decl in &self.g.enums {
            self.prog.enums.push(EnumDef {
                name: decl.name.name.clone(),
                ctors: Vec::new(),
            });
        }
        for (index, decl) in self.g.enums.clone().into_iter().enumerate() {
            let TypeDef::Enum(variants) = &decl.def else {
                continue;
            };
            let mut ctors = Vec::new();
            for variant in variants {
                let fields = variant
                    .fields
                    .iter()
                    .map(|t| self.resolve_type(t))
                    .collect::<Vec<_>>();
                let fields = fields.iter().map(|t| self.core(t)).collect();
                ctors.push(CtorDef {
                    name: variant.name.name.clone(),
                    fields,
                });
            }
            self.prog.enums[index].ctors = ctors;
        }
    }

    fn declare_defs(&mut self) {
        for decl in self.g.proc_decls.clone() {
            let tys: Vec<Ty> = decl
                .params
                .iter()
                .map(|p| self.resolve_type(&p.ty))
                .collect();
            let params = tys
                .iter()
                .enumerate()
                .map(|(i, t)| (i as u32, self.core(t)))
                .collect();
            self.prog.defs.push(Def {
                name: decl.name.name.clone(),
                params,
                body: TermId(0),
                daemon: decl.daemon,
                frame: 0,
                slot_names: Vec::new(),
                span: decl.span,
            });
            self.sigs.push(tys);
        }
    }

    /// A declared type as a core type (declared types have no inference variables).
    pub(crate) fn core(&self, ty: &Ty) -> Type {
        self.u.to_core(ty).unwrap_or(Type::Bool)
    }

    pub(crate) fn resolve_type(&mut self, ty: &TypeExpr) -> Ty {
        match ty {
            TypeExpr::Named(name) => self.named_type(name),
            TypeExpr::Range(lo_expr, hi_expr, span) => {
                let (lo, hi) = (self.const_int(lo_expr), self.const_int(hi_expr));
                match (lo, hi) {
                    (Some(lo), Some(hi)) if lo <= hi => Ty::Int(lo, hi),
                    // One error per constant that makes ranges or arrays empty (`-D N=0`):
                    // every other use of it would say the same again.
                    (Some(_), Some(_)) if !self.first_bad_use(&[&**lo_expr, &**hi_expr]) => {
                        Ty::Error
                    }
                    (Some(lo), Some(hi)) => {
                        self.error(
                            Diagnostic::error("E0307", format!("the range {lo}..{hi} is empty"))
                                .at(*span)
                                .with_label("no integer lies in this range")
                                .with_help(
                                    "a range `lo..hi` includes both ends and needs lo <= hi",
                                ),
                        );
                        Ty::Error
                    }
                    _ => Ty::Error,
                }
            }
            TypeExpr::Tuple(ts, _) => Ty::Tuple(ts.iter().map(|t| self.resolve_type(t)).collect()),
            TypeExpr::Chan(ts, _) => Ty::Chan(ts.iter().map(|t| self.resolve_type(t)).collect()),
            TypeExpr::Error(_) => Ty::Error,
        }
    }

    /// Records the names `exprs` mention as constants with an invalid value; whether none of
    /// them was recorded before (then the error is reported, else it was already).
    pub(crate) fn first_bad_use(&mut self, exprs: &[&ast::Expr]) -> bool {
        let mut names = Vec::new();
        for e in exprs {
            names_in(e, &mut names);
        }
        let seen = names.iter().any(|n| self.bad_index_consts.contains(n));
        self.bad_index_consts.extend(names);
        !seen
    }

    fn named_type(&mut self, name: &ast::Ident) -> Ty {
        if name.name == "Bool" {
            return Ty::Bool;
        }
        let Some(&(decl, _)) = self.g.types.get(name.name.as_str()) else {
            let names = sorted(self.g.types.keys().copied().chain(["Bool"]));
            let mut diag = Diagnostic::error("E0203", format!("unknown type `{}`", name.name))
                .at(name.span)
                .with_label("not declared");
            diag = match suggest(&name.name, names) {
                _ if matches!(name.name.as_str(), "Int" | "Nat" | "Integer") => diag
                    .with_help("integers are bounded: write a range such as `0..7`, or declare `type Int = 0..7`"),
                Some(s) => diag.with_help(format!("did you mean `{s}`?")),
                None => diag.with_help(format!(
                    "declare it, for example `type {} = 0..3`",
                    name.name
                )),
            };
            self.error(diag);
            return Ty::Error;
        };
        self.use_global(Kind::Type, &name.name);
        match &decl.def {
            TypeDef::Enum(_) => Ty::Enum(self.enum_ids[decl.name.name.as_str()]),
            TypeDef::Alias(_) => self.alias(decl),
        }
    }

    /// The type an alias stands for; a cycle of aliases is an error (E0210).
    fn alias(&mut self, decl: &ast::TypeDecl) -> Ty {
        let name = decl.name.name.as_str();
        if let Some(ty) = self.alias_done.get(name) {
            return ty.clone();
        }
        let Some(&(decl, _)) = self.g.types.get(name) else {
            return Ty::Error;
        };
        let TypeDef::Alias(body) = &decl.def else {
            return Ty::Error;
        };
        if !self.alias_busy.insert(&decl.name.name) {
            self.cycle_error("type", &decl.name.name, decl.name.span);
            return Ty::Error;
        }
        let ty = self.resolve_type(body);
        self.alias_busy.remove(decl.name.name.as_str());
        self.alias_done.insert(&decl.name.name, ty.clone());
        ty
    }

    fn cycle_error(&mut self, kind: &str, name: &str, span: Span) {
        self.error(
            Diagnostic::error(
                "E0210",
                format!("the {kind} `{name}` is defined in terms of itself"),
            )
            .at(span)
            .with_label("this definition refers back to itself")
            .with_help(format!(
                "give `{name}` a definition that does not depend on `{name}`"
            )),
        );
    }

    /// The inlined value of constant `index` and its type.
    pub(crate) fn const_value(&mut self, index: usize) -> (Expr, Ty) {
        if let Some(done) = &self.const_done[index] {
            return done.clone();
        }
        let decl = self.g.consts[index];
        if self.const_busy[index] {
            self.cycle_error("constant", &decl.name.name, decl.name.span);
            return (Expr::Int(0), Ty::Error);
        }
        self.const_busy[index] = true;
        let mut value = self.in_global_scope(|lw| lw.infer_expr(&decl.value));
        if let Some(v) = crate::eval::int(&value.0) {
            // Folded, so that `N - 1` costs nothing at run time.
            value = (Expr::Int(v), Ty::Int(v, v));
        }
        self.const_busy[index] = false;
        self.const_done[index] = Some(value.clone());
        value
    }

    /// A constant integer expression (range bounds).
    pub(crate) fn const_int(&mut self, expr: &ast::Expr) -> Option<i64> {
        let (value, ty) = self.in_global_scope(|lw| lw.infer_expr(expr));
        if ty == Ty::Error {
            return None;
        }
        let result = crate::eval::int(&value);
        if result.is_none() {
            self.error(
                Diagnostic::error("E0308", "a range bound must be a constant integer")
                    .at(expr.span)
                    .with_label("not a constant integer")
                    .with_help("use integer literals or constants declared with `const`"),
            );
        }
        result
    }

    /// Whether `name` is a global constructor; its enum and index.
    /// The payload types of a constructor (none while enums are still being declared).
    pub(crate) fn ctor_fields(&self, e: crate::core::EnumId, i: u32) -> Vec<Type> {
        let ctor = self
            .prog
            .enums
            .get(e.0 as usize)
            .and_then(|d| d.ctors.get(i as usize));
        ctor.map(|c| c.fields.clone()).unwrap_or_default()
    }

    /// A declared channel's type (`Error` while channels are still being declared).
    pub(crate) fn chan_type(&self, id: crate::core::ChanId) -> Ty {
        self.chan_tys
            .get(id.0 as usize)
            .map_or(Ty::Error, |t| Ty::Chan(t.clone()))
    }

    /// Using a constructor counts as using its enum type.
    pub(crate) fn ctor(&mut self, name: &str) -> Option<(crate::core::EnumId, u32)> {
        let Some((Value::Ctor(e, i), _)) = self.g.values.get(name).copied() else {
            return None;
        };
        let enum_name = self.prog.enums[e.0 as usize].name.clone();
        self.use_global(Kind::Type, &enum_name);
        Some((e, i))
    }
}

/// The names an expression mentions (variables, constants, constructors), in order.
fn names_in(expr: &ast::Expr, out: &mut Vec<String>) {
    use ast::ExprKind as K;
    match &expr.kind {
        K::Name(n) => out.push(n.name.clone()),
        K::Apply(_, args) | K::Index(_, args) | K::Tuple(args) => {
            args.iter().for_each(|a| names_in(a, out));
        }
        K::Unary(_, a) => names_in(a, out),
        K::Binary(_, a, b) => {
            names_in(a, out);
            names_in(b, out);
        }
        K::Int(_) | K::Bool(_) | K::Error => {}
    }
}
