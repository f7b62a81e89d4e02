//! `forall i in T, j in U: PROPERTY` after `check S:`: a property over a family, checked once
//! per value of its index variables. `forall` and `in` are words here, not keywords.

use super::{PResult, Parser};
use crate::ast::{ForallBinder, Property};
use crate::token::Tok;
use agentpi_diagnostics::Diagnostic;

impl Parser<'_> {
    /// `forall`, its binders, `:` and the property they range over.
    pub(super) fn forall(&mut self) -> PResult<Property> {
        self.bump();
        let mut binders = vec![self.forall_binder()?];
        while self.eat(&Tok::Comma) {
            binders.push(self.forall_binder()?);
        }
        self.expect(&Tok::Colon, "`:` and the property for each value")?;
        if self.word_at(0, "fair") {
            let diag = Diagnostic::error("E0110", "`fair` goes before `forall`")
                .at(self.span())
                .with_label("not here")
                .with_help("write `check S: fair forall i in T: ...`");
            self.report(diag);
            return Err(super::Abandon);
        }
        let inner = self.nested(|p| p.property())?;
        Ok(Property::Forall(binders, Box::new(inner)))
    }

    /// `i in T`: an index variable and its finite type (a range, `Bool`, an enum, or a
    /// constant `N` for `0..N-1`, as after `par`).
    fn forall_binder(&mut self) -> PResult<ForallBinder> {
        let name = self.ident("an index variable, as in `forall i in 0..N-1: ...`")?;
        if !self.word_at(0, "in") {
            return Err(self.unexpected_with(
                "`in` and a type",
                "write `forall i in 0..N-1: PROPERTY` (or a finite type after `in`)",
            ));
        }
        self.bump();
        let ty = self.type_expr()?;
        Ok(ForallBinder { name, ty })
    }
}
