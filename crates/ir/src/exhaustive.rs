//! Exhaustiveness of `match`: the usefulness algorithm (Maranget) over a column of patterns,
//! producing witnesses (values no arm matches) to name the missing cases.
//!
//! A column is only split by constructor when it mentions every constructor of its type;
//! otherwise the missing constructors are reported directly, so a wide integer range or a big
//! tuple is never enumerated.

use crate::core::{EnumDef, Expr, Pattern, Type};
use agentpi_diagnostics::{Diagnostic, Span};

/// How many missing cases are named at most.
const LIMIT: usize = 5;
/// Integer ranges up to this size can be covered by listing every value.
const ENUMERABLE: i64 = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Head {
    Bool(bool),
    Int(i64),
    Ctor(u32),
    Tuple,
}

/// A pattern reduced to what matters for coverage.
#[derive(Clone, Debug)]
enum Pat {
    Any,
    Head(Head, Vec<Pat>),
    /// `=e` with a non-constant `e`: may match anything, covers nothing.
    Opaque,
}

/// A value no arm matches (`Other`: some value not named by any arm).
#[derive(Clone, Debug)]
enum Wit {
    Head(Head, Vec<Wit>),
    Any,
}

pub(crate) fn check(
    enums: &[EnumDef],
    ty: &Type,
    pats: &[Pattern],
    span: Span,
    diags: &mut Vec<Diagnostic>,
) {
    let rows: Vec<Vec<Pat>> = pats.iter().map(|p| vec![simplify(p)]).collect();
    let missing = uncovered(enums, &rows, std::slice::from_ref(ty), LIMIT + 1);
    if missing.is_empty() {
        return;
    }
    let mut names: Vec<String> = missing
        .iter()
        .take(LIMIT)
        .map(|w| format!("`{}`", show(enums, ty, &w[0])))
        .collect();
    if missing.len() > LIMIT {
        names.push("more".into());
    }
    let list = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    };
    diags.push(
        Diagnostic::error("E0304", format!("non-exhaustive match: {list} not covered"))
            .at(span)
            .with_label("some values match no arm")
            .with_help("add arms for the missing cases, or a final `_ => ...` arm"),
    );
}

fn simplify(pattern: &Pattern) -> Pat {
    match pattern {
        Pattern::Bind(..) | Pattern::Wild => Pat::Any,
        Pattern::Eq(expr) => constant(expr).unwrap_or(Pat::Opaque),
        Pattern::Ctor(_, index, items) => {
            Pat::Head(Head::Ctor(*index), items.iter().map(simplify).collect())
        }
        Pattern::Tuple(items) => Pat::Head(Head::Tuple, items.iter().map(simplify).collect()),
    }
}

/// A literal or constant value as a pattern.
fn constant(expr: &Expr) -> Option<Pat> {
    Some(match expr {
        Expr::Int(v) => Pat::Head(Head::Int(*v), Vec::new()),
        Expr::Bool(b) => Pat::Head(Head::Bool(*b), Vec::new()),
        Expr::Ctor(_, index, items) => Pat::Head(
            Head::Ctor(*index),
            items.iter().map(constant).collect::<Option<_>>()?,
        ),
        Expr::Tuple(items) => Pat::Head(
            Head::Tuple,
            items.iter().map(constant).collect::<Option<_>>()?,
        ),
        _ => Pat::Head(Head::Int(crate::eval::int(expr)?), Vec::new()),
    })
}

/// Every head of `ty` with its field types; `None` for types too large to list (channels,
/// wide ranges).
fn heads(enums: &[EnumDef], ty: &Type) -> Option<Vec<(Head, Vec<Type>)>> {
    Some(match ty {
        Type::Bool => vec![
            (Head::Bool(false), Vec::new()),
            (Head::Bool(true), Vec::new()),
        ],
        Type::Int { lo, hi } if hi.saturating_sub(*lo) < ENUMERABLE => {
            (*lo..=*hi).map(|v| (Head::Int(v), Vec::new())).collect()
        }
        Type::Enum(id) => {
            let ctors = &enums.get(id.0 as usize)?.ctors;
            ctors
                .iter()
                .enumerate()
                .map(|(i, c)| (Head::Ctor(i as u32), c.fields.clone()))
                .collect()
        }
        Type::Tuple(items) => vec![(Head::Tuple, items.clone())],
        Type::Int { .. } | Type::Chan(_) => return None,
    })
}

/// Up to `limit` witness vectors: values of `tys` that no row matches.
fn uncovered(enums: &[EnumDef], rows: &[Vec<Pat>], tys: &[Type], limit: usize) -> Vec<Vec<Wit>> {
    if rows.iter().any(|r| r.len() != tys.len()) {
        // Only after a type error (already reported): ignore the ill-shaped rows.
        let rows: Vec<Vec<Pat>> = rows
            .iter()
            .filter(|r| r.len() == tys.len())
            .cloned()
            .collect();
        return uncovered(enums, &rows, tys, limit);
    }
    let Some((ty, rest)) = tys.split_first() else {
        return if rows.is_empty() {
            vec![Vec::new()]
        } else {
            Vec::new()
        };
    };
    let present: Vec<&Head> = rows
        .iter()
        .filter_map(|r| {
            if let Pat::Head(h, _) = &r[0] {
                Some(h)
            } else {
                None
            }
        })
        .collect();
    let all = heads(enums, ty);
    let complete = all
        .as_ref()
        .is_some_and(|hs| hs.iter().all(|(h, _)| present.contains(&h)));
    if complete {
        return split(enums, rows, all.unwrap_or_default(), rest, limit);
    }
    let default: Vec<Vec<Pat>> = rows
        .iter()
        .filter(|r| matches!(r[0], Pat::Any))
        .map(|r| r[1..].to_vec())
        .collect();
    let tails = uncovered(enums, &default, rest, limit);
    let Some(tail) = tails.first() else {
        return Vec::new();
    };
    let missing: Vec<Wit> = match all {
        Some(hs) => hs
            .into_iter()
            .filter(|(h, _)| !present.contains(&h))
            .map(|(h, fields)| Wit::Head(h, vec![Wit::Any; fields.len()]))
            .collect(),
        None => vec![Wit::Any],
    };
    missing
        .into_iter()
        .take(limit)
        .map(|w| std::iter::once(w).chain(tail.iter().cloned()).collect())
        .collect()
}

/// Specialises the rows by each head in turn and collects the witnesses.
fn split(
    enums: &[EnumDef],
    rows: &[Vec<Pat>],
    all: Vec<(Head, Vec<Type>)>,
    rest: &[Type],
    limit: usize,
) -> Vec<Vec<Wit>> {
    let mut out = Vec::new();
    for (head, fields) in all {
        let arity = fields.len();
        let specialised: Vec<Vec<Pat>> = rows
            .iter()
            .filter_map(|r| specialise(r, &head, arity))
            .collect();
        let tys: Vec<Type> = fields.into_iter().chain(rest.iter().cloned()).collect();
        for w in uncovered(enums, &specialised, &tys, limit - out.len()) {
            let (args, tail) = w.split_at(arity);
            out.push(
                std::iter::once(Wit::Head(head.clone(), args.to_vec()))
                    .chain(tail.iter().cloned())
                    .collect(),
            );
            if out.len() >= limit {
                return out;
            }
        }
    }
    out
}

fn specialise(row: &[Pat], head: &Head, arity: usize) -> Option<Vec<Pat>> {
    let mut out = match &row[0] {
        Pat::Any => vec![Pat::Any; arity],
        Pat::Head(h, args) if h == head => args.clone(),
        _ => return None,
    };
    out.extend(row[1..].iter().cloned());
    Some(out)
}

fn show(enums: &[EnumDef], ty: &Type, wit: &Wit) -> String {
    let Wit::Head(head, args) = wit else {
        return "_".into();
    };
    let fields: Vec<Type> = match ty {
        Type::Enum(id) => match head {
            Head::Ctor(i) => enums
                .get(id.0 as usize)
                .and_then(|e| e.ctors.get(*i as usize))
                .map(|c| c.fields.clone())
                .unwrap_or_default(),
            _ => Vec::new(),
        },
        Type::Tuple(items) => items.clone(),
        _ => Vec::new(),
    };
    let shown: Vec<String> = args
        .iter()
        .zip(&fields)
        .map(|(w, t)| show(enums, t, w))
        .collect();
    match head {
        Head::Bool(b) => b.to_string(),
        Head::Int(v) => v.to_string(),
        Head::Tuple => format!("({})", shown.join(", ")),
        Head::Ctor(i) => {
            let name = match ty {
                Type::Enum(id) => enums
                    .get(id.0 as usize)
                    .and_then(|e| e.ctors.get(*i as usize))
                    .map_or("?", |c| c.name.as_str()),
                _ => "?",
            };
            if shown.is_empty() {
                name.to_string()
            } else {
                format!("{name}({})", shown.join(", "))
            }
        }
    }
}
