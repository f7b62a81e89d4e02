//! Prefixes: output, input, `tau`, events and assertions, with the channel's or event's arity
//! and types checked.

use super::expr::are;
use super::pattern::Binds;
use super::{Kind, Lowerer};
use crate::core::{Expr, Pattern, Prefix};
use crate::names::{Value, suggest};
use crate::ty::Ty;
use agentpi_diagnostics::Diagnostic;
use agentpi_syntax::ast::{self, PrefixKind};

impl Lowerer<'_> {
    /// Lowers one prefix; the binders of an input are returned to enter scope after it.
    pub(crate) fn prefix(&mut self, prefix: &ast::Prefix, binds: &mut Binds) -> Prefix {
        match &prefix.kind {
            PrefixKind::Output { chan, index, args } => {
                let (chan, carried) = self.channel(chan, index, args.len(), "sent");
                let args: Vec<Expr> = match &carried {
                    Some((tys, _)) => args
                        .iter()
                        .zip(tys)
                        .map(|(a, t)| self.check_expr(a, t))
                        .collect(),
                    None => args.iter().map(|a| self.infer_expr(a).0).collect(),
                };
                let tupled = carried.is_some_and(|(_, tupled)| tupled);
                let args = if tupled {
                    vec![Expr::Tuple(args)]
                } else {
                    args
                };
                Prefix::Output { chan, args }
            }
            PrefixKind::Input { chan, index, pats } => {
                let (chan, carried) = self.channel(chan, index, pats.len(), "received");
                let (tys, tupled) = carried.unwrap_or_else(|| (vec![Ty::Error; pats.len()], false));
                let pats: Vec<Pattern> = pats
                    .iter()
                    .zip(&tys)
                    .map(|(p, t)| self.pattern(p, t, binds))
                    .collect();
                let pats = if tupled {
                    vec![Pattern::Tuple(pats)]
                } else {
                    pats
                };
                Prefix::Input { chan, pats }
            }
            PrefixKind::Tau => Prefix::Tau,
            PrefixKind::Event { name, args } => self.event(name, args),
            PrefixKind::Assert(cond) => Prefix::Assert(self.check_expr(cond, &Ty::Bool)),
        }
    }

    /// Resolves the channel of `c!`/`c?` and the types of the `count` values written (`None`
    /// after an error). The flag is set when the channel carries one tuple of `count`
    /// elements: `c!(a, b)` then sends the tuple `(a, b)`.
    fn channel(
        &mut self,
        name: &ast::Ident,
        index: &[ast::Expr],
        count: usize,
        verb: &str,
    ) -> (Expr, Option<(Vec<Ty>, bool)>) {
        let local = self.lookup_local(&name.name);
        if local.is_some() && !index.is_empty() {
            self.not_a(
                name,
                "a channel variable",
                "an array of channels",
                "only channels declared with `chan c[N]` have elements",
            );
            return (Expr::Bool(false), None);
        }
        let (expr, ty) = match local {
            Some((slot, ty)) => (Expr::Var(slot), ty),
            None => match self.g.values.get(name.name.as_str()).map(|v| v.0) {
                Some(Value::Chan(id)) => match self.global_chan(name, id, index) {
                    Some(found) => found,
                    None => return (Expr::Bool(false), None),
                },
                Some(Value::Event(_)) => {
                    let help = format!(
                        "an event has no `!` or `?`: write `{}` or `{}(...)`",
                        name.name, name.name
                    );
                    self.not_a(name, "an event", "a channel", &help);
                    return (Expr::Bool(false), None);
                }
                Some(_) => {
                    self.not_a(
                        name,
                        "a constant or constructor",
                        "a channel",
                        "declare a channel with `chan c : T`",
                    );
                    return (Expr::Bool(false), None);
                }
                None => {
                    self.unknown_channel(name);
                    return (Expr::Bool(false), None);
                }
            },
        };
        (expr, self.carried(name, &ty, count, verb))
    }

    fn carried(
        &mut self,
        name: &ast::Ident,
        ty: &Ty,
        count: usize,
        verb: &str,
    ) -> Option<(Vec<Ty>, bool)> {
        match self.u.shallow(ty) {
            Ty::Chan(tys) if tys.len() == count => Some((tys, false)),
            Ty::Chan(tys)
                if count > 1 && tys.len() == 1 && self.tuple_of(&tys[0], count).is_some() =>
            {
                self.tuple_of(&tys[0], count).map(|items| (items, true))
            }
            Ty::Chan(tys) => {
                let shown = self.show(&Ty::Chan(tys.clone()));
                self.error(
                    Diagnostic::error(
                        "E0302",
                        format!(
                            "channel `{}` carries {}, but {} {verb}",
                            name.name,
                            super::expr::count(tys.len(), "values"),
                            are(count)
                        ),
                    )
                    .at(name.span)
                    .with_label(format!("this channel has type `{shown}`")),
                );
                None
            }
            var @ Ty::Var(_) => {
                let tys: Vec<Ty> = (0..count).map(|_| self.u.fresh()).collect();
                self.u.unify(&var, &Ty::Chan(tys.clone()));
                Some((tys, false))
            }
            Ty::Error => None,
            other => {
                let shown = self.show(&other);
                self.error(
                    Diagnostic::error(
                        "E0301",
                        format!("`{}` is not a channel: it has type `{shown}`", name.name),
                    )
                    .at(name.span)
                    .with_label("used as a channel here"),
                );
                None
            }
        }
    }

    /// The element types of `ty` if it is a tuple of `count` elements.
    fn tuple_of(&self, ty: &Ty, count: usize) -> Option<Vec<Ty>> {
        match self.u.shallow(ty) {
            Ty::Tuple(items) if items.len() == count => Some(items),
            _ => None,
        }
    }

    fn unknown_channel(&mut self, name: &ast::Ident) {
        let mut candidates: Vec<&str> = self.local_names();
        candidates.extend(self.g.chans.iter().map(|c| c.name.name.as_str()));
        let mut diag = Diagnostic::error("E0201", format!("unknown channel `{}`", name.name))
            .at(name.span)
            .with_label("no channel of this name is in scope");
        diag = match suggest(&name.name, candidates) {
            Some(s) => diag.with_help(format!("did you mean `{s}`?")),
            None => diag.with_help(format!(
                "declare it with `chan {} : T`, receive it, or create it with `new {}`",
                name.name, name.name
            )),
        };
        self.error(diag);
    }

    /// `ev` or `ev(e, ...)`.
    fn event(&mut self, name: &ast::Ident, args: &[ast::Expr]) -> Prefix {
        let is_channel = self.lookup_local(&name.name).is_some()
            || matches!(
                self.g.values.get(name.name.as_str()),
                Some((Value::Chan(_), _))
            );
        if is_channel {
            let help = format!("write `{0}!` to send or `{0}?` to receive", name.name);
            self.not_a(name, "a channel", "an event", &help);
            args.iter().for_each(|a| drop(self.infer_expr(a)));
            return Prefix::Tau;
        }
        let Some((Value::Event(id), _)) = self.g.values.get(name.name.as_str()).copied() else {
            self.unknown_event(name);
            args.iter().for_each(|a| drop(self.infer_expr(a)));
            return Prefix::Tau;
        };
        self.use_global(Kind::Event, &name.name);
        let tys = self
            .event_tys
            .get(id.0 as usize)
            .cloned()
            .unwrap_or_default();
        if tys.len() != args.len() {
            self.arity_error(
                name.span,
                &format!("event `{}`", name.name),
                tys.len(),
                args.len(),
                "values",
            );
            return Prefix::Event {
                event: id,
                args: Vec::new(),
            };
        }
        let args = args
            .iter()
            .zip(&tys)
            .map(|(a, t)| self.check_expr(a, t))
            .collect();
        Prefix::Event { event: id, args }
    }

    fn unknown_event(&mut self, name: &ast::Ident) {
        let events = self.g.events.iter().map(|e| e.name.name.as_str());
        let mut diag = Diagnostic::error("E0204", format!("unknown event `{}`", name.name))
            .at(name.span)
            .with_label("not a declared event");
        diag = match suggest(&name.name, events) {
            Some(s) => diag.with_help(format!("did you mean `{s}`?")),
            None => diag.with_help(format!("declare it with `event {}`", name.name)),
        };
        self.error(diag);
    }
}
