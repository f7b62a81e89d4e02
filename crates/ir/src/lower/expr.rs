//! Expressions: name resolution, type inference and checking, literal range checks.

use super::{Kind, Lowerer};
use crate::core::{BinOp, Expr, UnOp};
use crate::names::{Value, suggest};
use crate::ty::Ty;
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast::{self, ExprKind};

impl Lowerer<'_> {
    /// Lowers `expr` and checks it against `expected`.
    pub(crate) fn check_expr(&mut self, expr: &ast::Expr, expected: &Ty) -> Expr {
        if let (ExprKind::Tuple(items), Ty::Tuple(tys)) = (&expr.kind, self.u.shallow(expected))
            && items.len() == tys.len()
        {
            let items = items
                .iter()
                .zip(&tys)
                .map(|(e, t)| self.check_expr(e, t))
                .collect();
            return Expr::Tuple(items);
        }
        let (value, ty) = self.infer_expr(expr);
        self.expect_type(expected, &ty, expr.span);
        self.check_range(&value, expected, expr.span);
        value
    }

    /// Reports a mismatch between the expected and the found type (E0301).
    pub(crate) fn expect_type(&mut self, expected: &Ty, found: &Ty, span: Span) -> bool {
        if self.u.unify(expected, found) {
            return true;
        }
        let (e, f) = (self.show(expected), self.show(found));
        self.error(
            Diagnostic::error(
                "E0301",
                format!("type mismatch: expected `{e}`, found `{f}`"),
            )
            .at(span)
            .with_label(format!("this has type `{f}`")),
        );
        false
    }

    /// A constant outside the expected integer range is an error (E0303).
    fn check_range(&mut self, value: &Expr, expected: &Ty, span: Span) {
        let Ty::Int(lo, hi) = self.u.shallow(expected) else {
            return;
        };
        let Some(v) = crate::eval::int(value) else {
            return;
        };
        if v < lo || v > hi {
            self.error(
                Diagnostic::error(
                    "E0303",
                    format!("the value {v} is outside the range {lo}..{hi}"),
                )
                .at(span)
                .with_label(format!("expected a value in {lo}..{hi}"))
                .with_help("use a value in the range, or widen the range in the type"),
            );
        }
    }

    pub(crate) fn infer_expr(&mut self, expr: &ast::Expr) -> (Expr, Ty) {
        match &expr.kind {
            ExprKind::Int(v) => (Expr::Int(*v), Ty::Int(*v, *v)),
            ExprKind::Bool(b) => (Expr::Bool(*b), Ty::Bool),
            ExprKind::Name(name) => self.name_expr(name),
            ExprKind::Apply(name, args) => self.apply(name, args, expr.span),
            ExprKind::Index(name, index) => self.indexed_chan(name, index),
            ExprKind::Tuple(items) => {
                let (values, tys) = items.iter().map(|e| self.infer_expr(e)).unzip();
                (Expr::Tuple(values), Ty::Tuple(tys))
            }
            ExprKind::Unary(op, operand) => self.unary(*op, operand),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::Error => (Expr::Bool(false), Ty::Error),
        }
    }

    fn name_expr(&mut self, name: &ast::Ident) -> (Expr, Ty) {
        if let Some((slot, ty)) = self.lookup_local(&name.name) {
            let value = self.fixed_value(slot).unwrap_or(Expr::Var(slot));
            return (value, ty);
        }
        match self.g.values.get(name.name.as_str()).map(|v| v.0) {
            Some(Value::Chan(id)) => self
                .global_chan(name, id, &[])
                .unwrap_or((Expr::Bool(false), Ty::Error)),
            Some(Value::Ctor(e, i)) => {
                self.ctor(&name.name);
                let fields = self.ctor_fields(e, i).len();
                if fields > 0 {
                    self.arity_error(
                        name.span,
                        &format!("constructor `{}`", name.name),
                        fields,
                        0,
                        "values",
                    );
                }
                (Expr::Ctor(e, i, Vec::new()), Ty::Enum(e))
            }
            Some(Value::Const(index)) => {
                self.use_global(Kind::Const, &name.name);
                self.const_value(index)
            }
            Some(Value::Event(_)) => {
                self.not_a(
                    name,
                    "an event",
                    "a value",
                    "events are actions: write `name` or `name(...)` as a prefix",
                );
                (Expr::Bool(false), Ty::Error)
            }
            None => {
                self.unknown_value(name);
                (Expr::Bool(false), Ty::Error)
            }
        }
    }

    /// `c[e, ...]`: an element of a channel array, as a value.
    fn indexed_chan(&mut self, name: &ast::Ident, index: &[ast::Expr]) -> (Expr, Ty) {
        let global = match self.g.values.get(name.name.as_str()).map(|v| v.0) {
            Some(Value::Chan(id)) if self.lookup_local(&name.name).is_none() => {
                self.global_chan(name, id, index)
            }
            _ => {
                self.not_a(
                    name,
                    "not an array of channels",
                    "an array of channels",
                    "declare one with `chan c[N] : T` and pick an element with `c[i]`",
                );
                None
            }
        };
        global.unwrap_or((Expr::Bool(false), Ty::Error))
    }

    /// `ctor(e, ...)`.
    fn apply(&mut self, name: &ast::Ident, args: &[ast::Expr], span: Span) -> (Expr, Ty) {
        let Some((e, i)) = self.ctor(&name.name) else {
            let ctors = self.ctor_names();
            let mut diag =
                Diagnostic::error("E0208", format!("unknown constructor `{}`", name.name))
                    .at(name.span)
                    .with_label("not a constructor of any enum type");
            if let Some(s) = suggest(&name.name, ctors) {
                diag = diag.with_help(format!("did you mean `{s}`?"));
            }
            self.error(diag);
            args.iter().for_each(|a| drop(self.infer_expr(a)));
            return (Expr::Bool(false), Ty::Error);
        };
        let fields = self.ctor_fields(e, i);
        if fields.len() != args.len() {
            self.arity_error(
                span,
                &format!("constructor `{}`", name.name),
                fields.len(),
                args.len(),
                "values",
            );
            args.iter().for_each(|a| drop(self.infer_expr(a)));
            return (Expr::Ctor(e, i, Vec::new()), Ty::Enum(e));
        }
        let values = args
            .iter()
            .zip(&fields)
            .map(|(a, f)| self.check_expr(a, &Ty::from_core(f)))
            .collect();
        (Expr::Ctor(e, i, values), Ty::Enum(e))
    }

    pub(crate) fn ctor_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .prog
            .enums
            .iter()
            .flat_map(|e| e.ctors.iter().map(|c| c.name.as_str()))
            .collect();
        names.sort_unstable();
        names
    }

    fn unary(&mut self, op: ast::UnOp, operand: &ast::Expr) -> (Expr, Ty) {
        match op {
            ast::UnOp::Neg => {
                let (value, (lo, hi)) = self.int_operand(operand);
                let ty = Ty::Int(hi.saturating_neg(), lo.saturating_neg());
                (Expr::Unary(UnOp::Neg, Box::new(value)), ty)
            }
            ast::UnOp::Not => {
                let value = self.check_expr(operand, &Ty::Bool);
                (Expr::Unary(UnOp::Not, Box::new(value)), Ty::Bool)
            }
        }
    }

    /// An operand of arithmetic or ordering, and its range.
    fn int_operand(&mut self, expr: &ast::Expr) -> (Expr, (i64, i64)) {
        let (value, ty) = self.infer_expr(expr);
        match self.u.shallow(&ty) {
            Ty::Int(lo, hi) => (value, (lo, hi)),
            Ty::Error => (value, (0, 0)),
            var @ Ty::Var(_) => {
                self.u.unify(&var, &Ty::Int(0, 0));
                (value, (0, 0))
            }
            other => {
                let shown = self.show(&other);
                self.error(
                    Diagnostic::error(
                        "E0301",
                        format!("type mismatch: expected an integer, found `{shown}`"),
                    )
                    .at(expr.span)
                    .with_label(format!("this has type `{shown}`")),
                );
                (value, (0, 0))
            }
        }
    }

    fn binary(&mut self, op: ast::BinOp, a: &ast::Expr, b: &ast::Expr) -> (Expr, Ty) {
        use ast::BinOp as B;
        let core_op = core_binop(op);
        let (x, y, ty) = match op {
            B::And | B::Or => (
                self.check_expr(a, &Ty::Bool),
                self.check_expr(b, &Ty::Bool),
                Ty::Bool,
            ),
            B::Eq | B::Ne => {
                let (x, tx) = self.infer_expr(a);
                let (y, ty) = self.infer_expr(b);
                self.expect_type(&tx, &ty, b.span);
                (x, y, Ty::Bool)
            }
            B::Lt | B::Le | B::Gt | B::Ge => {
                let ((x, _), (y, _)) = (self.int_operand(a), self.int_operand(b));
                (x, y, Ty::Bool)
            }
            B::Add | B::Sub | B::Mul | B::Div | B::Rem => {
                let ((x, rx), (y, ry)) = (self.int_operand(a), self.int_operand(b));
                let (lo, hi) = interval(op, rx, ry);
                (x, y, Ty::Int(lo, hi))
            }
        };
        (Expr::Binary(core_op, Box::new(x), Box::new(y)), ty)
    }

    pub(crate) fn arity_error(
        &mut self,
        span: Span,
        what: &str,
        expected: usize,
        found: usize,
        unit: &str,
    ) {
        let want = count(expected, unit);
        self.error(
            Diagnostic::error(
                "E0302",
                format!("{what} takes {want}, but {} given", are(found)),
            )
            .at(span)
            .with_label(format!("expected {want}")),
        );
    }

    /// `name` denotes `is` where `wanted` is needed (E0209).
    pub(crate) fn not_a(&mut self, name: &ast::Ident, is: &str, wanted: &str, help: &str) {
        self.error(
            Diagnostic::error("E0209", format!("`{}` is {is}, not {wanted}", name.name))
                .at(name.span)
                .with_label(format!("expected {wanted}"))
                .with_help(help),
        );
    }

    /// Unknown variable, channel, constant or constructor (E0201), with a suggestion.
    pub(crate) fn unknown_value(&mut self, name: &ast::Ident) {
        let mut candidates: Vec<&str> = self.local_names();
        candidates.extend(self.g.value_names());
        let mut diag = Diagnostic::error("E0201", format!("unknown name `{}`", name.name))
            .at(name.span)
            .with_label("not a variable, channel, constant or constructor in scope");
        diag = match suggest(&name.name, candidates) {
            Some(s) => diag.with_help(format!("did you mean `{s}`?")),
            None => diag,
        };
        self.error(diag);
    }
}

/// `1 is`, `2 are`.
pub(crate) fn are(n: usize) -> String {
    if n == 1 {
        "1 is".into()
    } else {
        format!("{n} are")
    }
}

/// `1 value`, `2 values`.
pub(crate) fn count(n: usize, unit: &str) -> String {
    if n == 1 {
        format!("1 {}", unit.trim_end_matches('s'))
    } else {
        format!("{n} {unit}")
    }
}

fn core_binop(op: ast::BinOp) -> BinOp {
    use ast::BinOp as B;
    match op {
        B::Add => BinOp::Add,
        B::Sub => BinOp::Sub,
        B::Mul => BinOp::Mul,
        B::Div => BinOp::Div,
        B::Rem => BinOp::Rem,
        B::Eq => BinOp::Eq,
        B::Ne => BinOp::Ne,
        B::Lt => BinOp::Lt,
        B::Le => BinOp::Le,
        B::Gt => BinOp::Gt,
        B::Ge => BinOp::Ge,
        B::And => BinOp::And,
        B::Or => BinOp::Or,
    }
}

/// The range of an arithmetic result, for inferring what untyped channels carry.
fn interval(op: ast::BinOp, (l1, h1): (i64, i64), (l2, h2): (i64, i64)) -> (i64, i64) {
    use ast::BinOp as B;
    match op {
        B::Add => (l1.saturating_add(l2), h1.saturating_add(h2)),
        B::Sub => (l1.saturating_sub(h2), h1.saturating_sub(l2)),
        B::Mul => {
            let products = [
                l1.saturating_mul(l2),
                l1.saturating_mul(h2),
                h1.saturating_mul(l2),
                h1.saturating_mul(h2),
            ];
            (
                products.into_iter().min().unwrap_or(0),
                products.into_iter().max().unwrap_or(0),
            )
        }
        B::Div => {
            let m = l1.saturating_abs().max(h1.saturating_abs());
            if l1 >= 0 && l2 > 0 { (0, h1) } else { (-m, m) }
        }
        _ => {
            let d = l2
                .saturating_abs()
                .max(h2.saturating_abs())
                .saturating_sub(1)
                .max(0);
            if l1 >= 0 { (0, d.min(h1)) } else { (-d, d) }
        }
    }
}
