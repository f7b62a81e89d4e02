//! Expressions, patterns and range checks, evaluated in a frame of slot values.

use crate::value::{Chan, Value};
use agentpi_ir::core::{BinOp, Expr, Pattern, Program, Type, UnOp};

/// Why a step could not be computed. The checker reports it as a property violation with the
/// source position of the term that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A value left the range of the type it was given to.
    Range {
        value: i64,
        lo: i64,
        hi: i64,
    },
    DivisionByZero,
    Overflow,
    /// No arm of a `match` fits the value.
    NoMatch,
    AssertionFailed,
    /// Spawning went deeper than the recursion bound (a call cycle without a prefix).
    TooDeep,
    /// A value grew past [`MAX_VALUE_SIZE`] parts (a recursive type that keeps growing).
    TooLarge,
    /// Sequential compositions nested past [`crate::MAX_NESTING`] while running.
    NestedTooDeep,
}

/// The most parts (constructors, tuple items, scalars) a value may have: a bound that keeps a
/// recursive enum that doubles each step from taking all memory.
pub const MAX_VALUE_SIZE: usize = 10_000;

impl FaultKind {
    /// A bound of the semantics rather than an error of the model: what lies past it is
    /// unknown, never a violation.
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            FaultKind::TooDeep | FaultKind::TooLarge | FaultKind::NestedTooDeep
        )
    }
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FaultKind::Range { value, lo, hi } => write!(f, "value {value} is outside {lo}..{hi}"),
            FaultKind::DivisionByZero => write!(f, "division by zero"),
            FaultKind::Overflow => write!(f, "integer overflow"),
            FaultKind::NoMatch => write!(f, "no arm of the match fits the value"),
            FaultKind::AssertionFailed => write!(f, "assertion failed"),
            FaultKind::TooDeep => write!(
                f,
                "process calls nest past {} levels without a prefix",
                crate::MAX_CALL_DEPTH
            ),
            FaultKind::TooLarge => write!(f, "a value grew past {MAX_VALUE_SIZE} parts"),
            FaultKind::NestedTooDeep => {
                write!(
                    f,
                    "sequential compositions nest past {} levels",
                    crate::MAX_NESTING
                )
            }
        }
    }
}

pub type Eval<T> = Result<T, FaultKind>;

/// A placeholder for slots not yet bound; never read by well-typed code.
pub const UNSET: Value = Value::Bool(false);

pub fn eval(expr: &Expr, frame: &[Value]) -> Eval<Value> {
    Ok(match expr {
        Expr::Int(i) => Value::Int(*i),
        Expr::Bool(b) => Value::Bool(*b),
        Expr::Var(slot) => frame[*slot as usize].clone(),
        Expr::Chan(id) => Value::Chan(Chan::Global(*id)),
        Expr::Ctor(e, i, args) => bounded(Value::Ctor(*e, *i, eval_all(args, frame)?.into()))?,
        Expr::Tuple(items) => bounded(Value::Tuple(eval_all(items, frame)?.into()))?,
        Expr::Unary(op, e) => unary(*op, eval(e, frame)?)?,
        Expr::Binary(op, a, b) => binary(*op, a, b, frame)?,
        Expr::ChanIndex(c) => Value::Chan(Chan::Global(element(c, frame)?)),
    })
}

/// The channel an array element chosen at run time stands for; an index outside its
/// dimension is a range fault.
fn element(c: &agentpi_ir::core::ChanIndex, frame: &[Value]) -> Eval<agentpi_ir::core::ChanId> {
    let mut offset: i64 = 0;
    for (dim, e) in c.dims.iter().zip(&c.index) {
        let raw = match eval(e, frame)? {
            Value::Int(v) => v,
            Value::Bool(b) => i64::from(b),
            Value::Ctor(_, i, _) => i64::from(i),
            _ => return Err(FaultKind::Overflow),
        };
        let hi = dim.lo + i64::from(dim.size) - 1;
        if raw < dim.lo || raw > hi {
            return Err(FaultKind::Range {
                value: raw,
                lo: dim.lo,
                hi,
            });
        }
        offset = offset * i64::from(dim.size) + (raw - dim.lo);
    }
    Ok(agentpi_ir::core::ChanId(c.base.0 + offset as u32))
}

/// The value, unless it has grown past [`MAX_VALUE_SIZE`] parts.
fn bounded(value: Value) -> Eval<Value> {
    if size(&value, MAX_VALUE_SIZE + 1) > MAX_VALUE_SIZE {
        return Err(FaultKind::TooLarge);
    }
    Ok(value)
}

/// The number of parts of `value`, counting no further than `limit`.
fn size(value: &Value, limit: usize) -> usize {
    let mut count = 0;
    let mut todo = vec![value];
    while let Some(v) = todo.pop() {
        count += 1;
        if count >= limit {
            break;
        }
        if let Value::Ctor(_, _, vs) | Value::Tuple(vs) = v {
            todo.extend(vs.iter());
        }
    }
    count
}

pub fn eval_all(exprs: &[Expr], frame: &[Value]) -> Eval<Vec<Value>> {
    exprs.iter().map(|e| eval(e, frame)).collect()
}

fn unary(op: UnOp, v: Value) -> Eval<Value> {
    match (op, v) {
        (UnOp::Neg, Value::Int(i)) => i.checked_neg().map(Value::Int).ok_or(FaultKind::Overflow),
        (UnOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
        _ => Err(FaultKind::Overflow),
    }
}

fn binary(op: BinOp, a: &Expr, b: &Expr, frame: &[Value]) -> Eval<Value> {
    // `and` and `or` short-circuit, so `x != 0 and 10 / x > 1` is safe.
    match op {
        BinOp::And if eval(a, frame)?.as_bool() == Some(false) => return Ok(Value::Bool(false)),
        BinOp::Or if eval(a, frame)?.as_bool() == Some(true) => return Ok(Value::Bool(true)),
        BinOp::And | BinOp::Or => return eval(b, frame),
        _ => {}
    }
    let (x, y) = (eval(a, frame)?, eval(b, frame)?);
    match op {
        BinOp::Eq => return Ok(Value::Bool(x == y)),
        BinOp::Ne => return Ok(Value::Bool(x != y)),
        _ => {}
    }
    let (Some(x), Some(y)) = (x.as_int(), y.as_int()) else {
        return Err(FaultKind::Overflow);
    };
    arithmetic(op, x, y)
}

fn arithmetic(op: BinOp, x: i64, y: i64) -> Eval<Value> {
    let int = |r: Option<i64>| r.map(Value::Int).ok_or(FaultKind::Overflow);
    match op {
        BinOp::Add => int(x.checked_add(y)),
        BinOp::Sub => int(x.checked_sub(y)),
        BinOp::Mul => int(x.checked_mul(y)),
        BinOp::Div if y == 0 => Err(FaultKind::DivisionByZero),
        BinOp::Rem if y == 0 => Err(FaultKind::DivisionByZero),
        BinOp::Div => int(x.checked_div(y)),
        BinOp::Rem => int(x.checked_rem(y)),
        BinOp::Lt => Ok(Value::Bool(x < y)),
        BinOp::Le => Ok(Value::Bool(x <= y)),
        BinOp::Gt => Ok(Value::Bool(x > y)),
        BinOp::Ge => Ok(Value::Bool(x >= y)),
        BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or => unreachable!("handled by binary"),
    }
}

/// Matches `value` against `pattern`, binding slots in `frame`. A binder whose integer range
/// does not hold the value does not match.
pub fn matches(
    pattern: &Pattern,
    value: &Value,
    frame: &mut [Value],
    program: &Program,
) -> Eval<bool> {
    match (pattern, value) {
        (Pattern::Wild, _) => Ok(true),
        (Pattern::Bind(slot, ty), v) => {
            frame[*slot as usize] = v.clone();
            Ok(check_type(v, ty, program).is_ok())
        }
        (Pattern::Eq(e), v) => Ok(eval(e, frame)? == *v),
        (Pattern::Ctor(e, i, ps), Value::Ctor(f, j, vs)) if e == f && i == j => {
            matches_all(ps, vs, frame, program)
        }
        (Pattern::Tuple(ps), Value::Tuple(vs)) => matches_all(ps, vs, frame, program),
        _ => Ok(false),
    }
}

pub fn matches_all(
    pats: &[Pattern],
    values: &[Value],
    frame: &mut [Value],
    program: &Program,
) -> Eval<bool> {
    if pats.len() != values.len() {
        return Ok(false);
    }
    for (p, v) in pats.iter().zip(values) {
        if !matches(p, v, frame, program)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Checks that `value` lies within `ty` (integer ranges, also inside tuples and payloads).
pub fn check_type(value: &Value, ty: &Type, program: &Program) -> Eval<()> {
    match (value, ty) {
        (Value::Int(v), Type::Int { lo, hi }) if v < lo || v > hi => Err(FaultKind::Range {
            value: *v,
            lo: *lo,
            hi: *hi,
        }),
        (Value::Tuple(vs), Type::Tuple(ts)) => check_types(vs, ts, program),
        (Value::Ctor(e, i, vs), Type::Enum(_)) => {
            let fields = &program.enums[e.0 as usize].ctors[*i as usize].fields;
            check_types(vs, fields, program)
        }
        _ => Ok(()),
    }
}

pub fn check_types(values: &[Value], types: &[Type], program: &Program) -> Eval<()> {
    values
        .iter()
        .zip(types)
        .try_for_each(|(v, t)| check_type(v, t, program))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: BinOp, a: i64, b: i64) -> Eval<Value> {
        eval(
            &Expr::Binary(op, Box::new(Expr::Int(a)), Box::new(Expr::Int(b))),
            &[],
        )
    }

    #[test]
    fn arithmetic_faults_are_values_not_panics() {
        assert_eq!(bin(BinOp::Add, 2, 3), Ok(Value::Int(5)));
        assert_eq!(bin(BinOp::Div, 1, 0), Err(FaultKind::DivisionByZero));
        assert_eq!(bin(BinOp::Mul, i64::MAX, 2), Err(FaultKind::Overflow));
        assert_eq!(bin(BinOp::Rem, 7, 3), Ok(Value::Int(1)));
    }

    #[test]
    fn short_circuit_skips_the_faulty_side() {
        let div = Expr::Binary(BinOp::Div, Box::new(Expr::Int(1)), Box::new(Expr::Int(0)));
        let e = Expr::Binary(BinOp::And, Box::new(Expr::Bool(false)), Box::new(div));
        assert_eq!(eval(&e, &[]), Ok(Value::Bool(false)));
    }

    #[test]
    fn ranges_are_checked() {
        let program = Program::default();
        let small = Type::Int { lo: 0, hi: 7 };
        assert!(check_type(&Value::Int(7), &small, &program).is_ok());
        assert_eq!(
            check_type(&Value::Int(8), &small, &program),
            Err(FaultKind::Range {
                value: 8,
                lo: 0,
                hi: 7
            })
        );
    }
}
