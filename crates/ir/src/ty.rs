//! Types during checking: core types plus inference variables, and their unification.
//!
//! Untyped `new x` gets a variable that the first use fixes. Integer ranges are compatible
//! with each other (values are range-checked at run time); a variable bound to a range widens
//! to the hull of every range unified with it, so an inferred channel carries all values sent.

use crate::core::{EnumDef, EnumId, Type};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Bool,
    Int(i64, i64),
    Enum(EnumId),
    Tuple(Vec<Ty>),
    Chan(Vec<Ty>),
    Var(u32),
    /// The type of an erroneous term: unifies with everything, so one mistake is one error.
    Error,
}

impl Ty {
    pub(crate) fn from_core(ty: &Type) -> Ty {
        match ty {
            Type::Bool => Ty::Bool,
            Type::Int { lo, hi } => Ty::Int(*lo, *hi),
            Type::Enum(id) => Ty::Enum(*id),
            Type::Tuple(ts) => Ty::Tuple(ts.iter().map(Ty::from_core).collect()),
            Type::Chan(ts) => Ty::Chan(ts.iter().map(Ty::from_core).collect()),
        }
    }
}

#[derive(Default)]
pub(crate) struct Unifier {
    vars: Vec<Option<Ty>>,
}

impl Unifier {
    pub(crate) fn fresh(&mut self) -> Ty {
        self.vars.push(None);
        Ty::Var(self.vars.len() as u32 - 1)
    }

    /// Follows bound variables: returns the last variable of the chain (if any) and the type.
    fn root(&self, ty: &Ty) -> (Option<u32>, Ty) {
        let mut last = None;
        let mut ty = ty.clone();
        while let Ty::Var(v) = ty {
            match &self.vars[v as usize] {
                Some(bound) => {
                    last = Some(v);
                    ty = bound.clone();
                }
                None => return (None, Ty::Var(v)),
            }
        }
        (last, ty)
    }

    pub(crate) fn shallow(&self, ty: &Ty) -> Ty {
        self.root(ty).1
    }

    /// Substitutes every bound variable.
    pub(crate) fn zonk(&self, ty: &Ty) -> Ty {
        match self.shallow(ty) {
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| self.zonk(t)).collect()),
            Ty::Chan(ts) => Ty::Chan(ts.iter().map(|t| self.zonk(t)).collect()),
            other => other,
        }
    }

    /// The core type, or `None` if a variable is still unresolved.
    pub(crate) fn to_core(&self, ty: &Ty) -> Option<Type> {
        Some(match self.shallow(ty) {
            Ty::Bool | Ty::Error => Type::Bool,
            Ty::Int(lo, hi) => Type::Int { lo, hi },
            Ty::Enum(id) => Type::Enum(id),
            Ty::Tuple(ts) => {
                Type::Tuple(ts.iter().map(|t| self.to_core(t)).collect::<Option<_>>()?)
            }
            Ty::Chan(ts) => Type::Chan(ts.iter().map(|t| self.to_core(t)).collect::<Option<_>>()?),
            Ty::Var(_) => return None,
        })
    }

    /// Makes `a` and `b` equal if they can be; false on a mismatch.
    pub(crate) fn unify(&mut self, a: &Ty, b: &Ty) -> bool {
        let (va, a) = self.root(a);
        let (vb, b) = self.root(b);
        match (a, b) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::Var(x), Ty::Var(y)) if x == y => true,
            (Ty::Var(x), other) | (other, Ty::Var(x)) => {
                if self.occurs(x, &other) {
                    return false;
                }
                self.vars[x as usize] = Some(other);
                true
            }
            (Ty::Int(l1, h1), Ty::Int(l2, h2)) => {
                let hull = Ty::Int(l1.min(l2), h1.max(h2));
                for v in [va, vb].into_iter().flatten() {
                    self.vars[v as usize] = Some(hull.clone());
                }
                true
            }
            (Ty::Bool, Ty::Bool) => true,
            (Ty::Enum(x), Ty::Enum(y)) => x == y,
            (Ty::Tuple(xs), Ty::Tuple(ys)) | (Ty::Chan(xs), Ty::Chan(ys)) => {
                xs.len() == ys.len() && xs.iter().zip(&ys).all(|(x, y)| self.unify(x, y))
            }
            _ => false,
        }
    }

    fn occurs(&self, var: u32, ty: &Ty) -> bool {
        match self.shallow(ty) {
            Ty::Var(v) => v == var,
            Ty::Tuple(ts) | Ty::Chan(ts) => ts.iter().any(|t| self.occurs(var, t)),
            _ => false,
        }
    }

    /// How a type is written in messages.
    pub(crate) fn show(&self, ty: &Ty, enums: &[EnumDef]) -> String {
        match self.shallow(ty) {
            Ty::Bool => "Bool".into(),
            Ty::Int(lo, hi) if lo == hi => "integer".into(),
            Ty::Int(lo, hi) => format!("{lo}..{hi}"),
            Ty::Enum(id) => enums
                .get(id.0 as usize)
                .map_or("?".into(), |e| e.name.clone()),
            Ty::Tuple(ts) => format!("({})", self.show_list(&ts, enums)),
            Ty::Chan(ts) if ts.is_empty() => "chan".into(),
            Ty::Chan(ts) if ts.len() == 1 => format!("chan {}", self.show(&ts[0], enums)),
            Ty::Chan(ts) => format!("chan ({})", self.show_list(&ts, enums)),
            Ty::Var(_) | Ty::Error => "_".into(),
        }
    }

    pub(crate) fn show_list(&self, ts: &[Ty], enums: &[EnumDef]) -> String {
        ts.iter()
            .map(|t| self.show(t, enums))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_bound_to_ranges_widen() {
        let mut u = Unifier::default();
        let v = u.fresh();
        assert!(u.unify(&v, &Ty::Int(5, 5)));
        assert!(u.unify(&Ty::Int(0, 3), &v));
        assert_eq!(u.zonk(&v), Ty::Int(0, 5));
        let c = u.fresh();
        assert!(u.unify(&c, &Ty::Chan(vec![Ty::Bool])));
        assert!(!u.unify(&c, &Ty::Chan(vec![Ty::Bool, Ty::Bool])));
        assert!(!u.unify(&c, &Ty::Chan(vec![c.clone()])));
    }
}
