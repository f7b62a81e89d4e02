//! Families: channel arrays (`chan fork[N] : Bool`, `fork[i]!true`) and indexed parallel
//! composition (`par i in 0..N-1 . Phil(i)`), plus buffered channels' declarations.
//!
//! An array is declared as one channel per index value (`fork[0]`, `fork[1]`, ...), in
//! row-major order. An element whose indices are constant is that channel; one chosen at run
//! time is an [`Expr::ChanIndex`]. `par` is unrolled while lowering: its body is lowered once
//! per index value with the index a constant, so each copy (and each call in it) is a term of
//! its own.

use super::{Kind, Lowerer};
use crate::core::{BufferSpec, ChanDecl, ChanId, ChanIndex, Expr, IndexDim, Term};
use crate::names::Value;
use crate::ty::Ty;
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast::{self, TypeExpr};

/// The most channels one array declaration may make, and copies one `par` may unroll.
const MAX_FAMILY: usize = 100_000;

/// One dimension of a family: its type (for checking index expressions), how positions are
/// computed, and every index value as a constant and as printed.
#[derive(Clone, Debug)]
pub(crate) struct Domain {
    pub(crate) ty: Ty,
    pub(crate) dim: IndexDim,
    pub(crate) values: Vec<(Expr, String)>,
}

/// A `chan` declaration after lowering: its first channel and, for an array, its dimensions.
#[derive(Clone, Debug)]
pub(crate) struct DeclaredChan {
    pub(crate) base: ChanId,
    pub(crate) dims: Vec<Domain>,
    /// An array whose index type was invalid (reported at the declaration): its uses are not
    /// checked against dimensions it does not have, which would report every use again.
    pub(crate) broken: bool,
}

impl Lowerer<'_> {
    /// Every `chan` declaration, arrays expanded into their elements.
    pub(super) fn declare_chans(&mut self) {
        for decl in self.g.chans.clone() {
            let tys: Vec<Ty> = decl.carries.iter().map(|t| self.resolve_type(t)).collect();
            let carries: Vec<_> = tys.iter().map(|t| self.core(t)).collect();
            let buffer = decl.buffer.as_ref().and_then(|b| self.buffer_spec(b));
            let dims: Option<Vec<Domain>> = decl.dims.iter().map(|d| self.domain(d)).collect();
            let broken = dims.is_none();
            let dims = dims.unwrap_or_default();
            let base = ChanId(self.prog.chans.len() as u32);
            for name in element_names(&decl.name.name, &dims) {
                self.prog.chans.push(ChanDecl {
                    name,
                    carries: carries.clone(),
                    buffer,
                    span: decl.span,
                });
                self.chan_tys.push(tys.clone());
            }
            self.declared_chans
                .push(DeclaredChan { base, dims, broken });
        }
    }

    /// `buffer N`: a constant capacity of at least 1.
    pub(crate) fn buffer_spec(&mut self, buffer: &ast::Buffer) -> Option<BufferSpec> {
        let capacity = self.const_int(&buffer.capacity)?;
        if !(1..=u32::MAX as i64).contains(&capacity) {
            self.error(
                Diagnostic::error("E0309", format!("a buffer of {capacity} messages"))
                    .at(buffer.capacity.span)
                    .with_label("a buffer holds at least one message")
                    .with_help("leave `buffer` out for a synchronous channel (a handshake)"),
            );
            return None;
        }
        Some(BufferSpec {
            capacity: capacity as u32,
            lossy: buffer.lossy,
        })
    }

    /// The index values of an array dimension or a `par`: a finite type (a range, `Bool`, an
    /// enum without payloads) or a constant `N`, meaning `0..N-1`.
    pub(crate) fn domain(&mut self, ty: &TypeExpr) -> Option<Domain> {
        if let TypeExpr::Named(name) = ty
            && let Some((Value::Const(index), _)) = self.g.values.get(name.name.as_str()).copied()
        {
            self.use_global(Kind::Const, &name.name);
            let n = crate::eval::int(&self.const_value(index).0);
            return match n {
                Some(n) if n >= 1 => self.int_domain(0, n - 1, ty.span()),
                _ if !self.first_bad_use(&[&ast::Expr {
                    kind: ast::ExprKind::Name(name.clone()),
                    span: name.span,
                }]) =>
                {
                    None
                }
                _ => self.not_finite(ty.span(), "a constant of at least 1"),
            };
        }
        match self.resolve_type(ty) {
            Ty::Int(lo, hi) => self.int_domain(lo, hi, ty.span()),
            Ty::Bool => Some(Domain {
                ty: Ty::Bool,
                dim: IndexDim { lo: 0, size: 2 },
                values: vec![
                    (Expr::Bool(false), "false".into()),
                    (Expr::Bool(true), "true".into()),
                ],
            }),
            Ty::Enum(e) => self.enum_domain(e, ty.span()),
            Ty::Error => None,
            _ => self.not_finite(ty.span(), "a range, `Bool` or an enum without payloads"),
        }
    }

    fn int_domain(&mut self, lo: i64, hi: i64, span: Span) -> Option<Domain> {
        let size = hi.checked_sub(lo)?.checked_add(1)?;
        if size as u64 > MAX_FAMILY as u64 {
            return self.not_finite(span, &format!("at most {MAX_FAMILY} index values"));
        }
        Some(Domain {
            ty: Ty::Int(lo, hi),
            dim: IndexDim {
                lo,
                size: size as u32,
            },
            values: (lo..=hi).map(|v| (Expr::Int(v), v.to_string())).collect(),
        })
    }

    fn enum_domain(&mut self, e: crate::core::EnumId, span: Span) -> Option<Domain> {
        let ctors = self.prog.enums[e.0 as usize].ctors.clone();
        if ctors.iter().any(|c| !c.fields.is_empty()) {
            return self.not_finite(span, "an enum whose constructors carry nothing");
        }
        let values = ctors
            .iter()
            .enumerate()
            .map(|(i, c)| (Expr::Ctor(e, i as u32, Vec::new()), c.name.clone()))
            .collect();
        Some(Domain {
            ty: Ty::Enum(e),
            dim: IndexDim {
                lo: 0,
                size: ctors.len() as u32,
            },
            values,
        })
    }

    fn not_finite(&mut self, span: Span, wanted: &str) -> Option<Domain> {
        self.error(
            Diagnostic::error("E0310", "not a finite index type")
                .at(span)
                .with_label(format!("expected {wanted}"))
                .with_help("index channel arrays and `par` by a range such as `0..N-1`, `Bool`, or an enum like `type Id = a | b | c`"),
        );
        None
    }

    /// The declaration a global channel name stands for (`None` while constants, which
    /// channel declarations may use, are being evaluated).
    pub(crate) fn declared_chan(&self, decl: ChanId) -> Option<&DeclaredChan> {
        self.declared_chans.get(decl.0 as usize)
    }

    /// A global channel written with `index` (empty for a plain name): the channel as an
    /// expression and its type; `None` after an error, which is reported.
    pub(crate) fn global_chan(
        &mut self,
        name: &ast::Ident,
        decl: ChanId,
        index: &[ast::Expr],
    ) -> Option<(Expr, Ty)> {
        self.use_global(Kind::Chan, &name.name);
        let Some(declared) = self.declared_chan(decl).cloned() else {
            self.error(
                Diagnostic::error("E0312", "a constant cannot be a channel")
                    .at(name.span)
                    .with_label("a channel")
                    .with_help("use the channel's name where the constant was used"),
            );
            return None;
        };
        if declared.broken {
            return None;
        }
        if declared.dims.len() != index.len() {
            self.index_count_error(name, declared.dims.len(), index.len());
            return None;
        }
        let values: Vec<Expr> = index
            .iter()
            .zip(&declared.dims)
            .map(|(e, d)| self.check_expr(e, &d.ty))
            .collect();
        let ty = self.chan_type(declared.base);
        let constant: Option<Vec<u32>> = values
            .iter()
            .zip(&declared.dims)
            .map(|(v, d)| position(v, d))
            .collect();
        let expr = match constant {
            Some(positions) => Expr::Chan(element(&declared, &positions)),
            None => Expr::ChanIndex(Box::new(ChanIndex {
                base: declared.base,
                dims: declared.dims.iter().map(|d| d.dim).collect(),
                index: values,
            })),
        };
        Some((expr, ty))
    }

    fn index_count_error(&mut self, name: &ast::Ident, dims: usize, written: usize) {
        let (message, help) = match (dims, written) {
            (0, _) => (
                format!("`{}` is a channel, not an array of channels", name.name),
                format!("write `{}` without `[...]`", name.name),
            ),
            (_, 0) => (
                format!("`{}` is an array of channels", name.name),
                format!(
                    "pick an element: `{}[{}]`",
                    name.name,
                    vec!["i"; dims].join("][")
                ),
            ),
            _ => (
                format!(
                    "`{}` has {dims} index{}, not {written}",
                    name.name,
                    if dims == 1 { "" } else { "es" }
                ),
                format!("write `{}[{}]`", name.name, vec!["i"; dims].join("][")),
            ),
        };
        self.error(
            Diagnostic::error("E0311", message)
                .at(name.span)
                .with_label("indexed wrongly")
                .with_help(help),
        );
    }

    /// `par i in T . P`: the body once per value of `T`, with `i` that value, side by side.
    pub(crate) fn par_for(&mut self, var: &ast::Ident, ty: &TypeExpr, body: &ast::Proc) -> Term {
        let Some(domain) = self.domain(ty) else {
            return Term::Nil;
        };
        let slot = self.new_slot(var, domain.ty.clone(), false);
        let first_diag = self.diags.len();
        let mut copies = Vec::with_capacity(domain.values.len());
        for (value, _) in &domain.values {
            self.body.scope.push((var.name.clone(), slot));
            self.body.fixed.insert(slot, value.clone());
            let copy = self.proc(body);
            // Parallel compositions stay flat: a copy that is one is spliced in.
            match self.prog.term(copy) {
                Term::Par(items) => copies.extend(items.clone()),
                _ => copies.push(copy),
            }
            self.body.scope.pop();
        }
        self.body.fixed.remove(&slot);
        super::dedup_diags(self, first_diag);
        Term::Par(copies)
    }
}

/// The names of a declaration's channels: `c`, or `c[0]`, `c[1]`, ... row-major.
fn element_names(name: &str, dims: &[Domain]) -> Vec<String> {
    let mut names = vec![name.to_string()];
    for d in dims {
        names = names
            .iter()
            .flat_map(|n| d.values.iter().map(move |(_, v)| format!("{n}[{v}]")))
            .collect();
    }
    names
}

/// The position of a constant index value in its dimension (`None` when not constant or
/// outside, which the run-time check then reports).
fn position(value: &Expr, domain: &Domain) -> Option<u32> {
    let raw = match value {
        Expr::Ctor(_, i, args) if args.is_empty() => i64::from(*i),
        Expr::Bool(b) => i64::from(*b),
        other => crate::eval::int(other)?,
    };
    let pos = raw.checked_sub(domain.dim.lo)?;
    (0..i64::from(domain.dim.size))
        .contains(&pos)
        .then_some(pos as u32)
}

/// The channel at constant positions.
fn element(declared: &DeclaredChan, positions: &[u32]) -> ChanId {
    let mut offset = 0u32;
    for (d, p) in declared.dims.iter().zip(positions) {
        offset = offset * d.dim.size + p;
    }
    ChanId(declared.base.0 + offset)
}
