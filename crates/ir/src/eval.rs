//! Evaluation of closed core expressions: constant folding for range bounds and literal range
//! checks. Anything that reads a variable, or divides by zero, has no constant value.

use crate::core::{BinOp, Expr, UnOp};

/// A closed expression's integer value.
pub(crate) fn int(expr: &Expr) -> Option<i64> {
    match value(expr)? {
        Const::Int(v) => Some(v),
        Const::Bool(_) => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Const {
    Int(i64),
    Bool(bool),
}

fn value(expr: &Expr) -> Option<Const> {
    Some(match expr {
        Expr::Int(v) => Const::Int(*v),
        Expr::Bool(b) => Const::Bool(*b),
        Expr::Unary(UnOp::Neg, x) => Const::Int(as_int(value(x)?)?.checked_neg()?),
        Expr::Unary(UnOp::Not, x) => Const::Bool(!as_bool(value(x)?)?),
        Expr::Binary(op, a, b) => binary(*op, value(a)?, value(b)?)?,
        _ => return None,
    })
}

fn as_int(c: Const) -> Option<i64> {
    match c {
        Const::Int(v) => Some(v),
        Const::Bool(_) => None,
    }
}

fn as_bool(c: Const) -> Option<bool> {
    match c {
        Const::Bool(b) => Some(b),
        Const::Int(_) => None,
    }
}

fn binary(op: BinOp, a: Const, b: Const) -> Option<Const> {
    if matches!(op, BinOp::Eq | BinOp::Ne) {
        return Some(Const::Bool((a == b) == (op == BinOp::Eq)));
    }
    if let (BinOp::And | BinOp::Or, Some(x), Some(y)) = (op, as_bool(a), as_bool(b)) {
        return Some(Const::Bool(if op == BinOp::And { x && y } else { x || y }));
    }
    let (x, y) = (as_int(a)?, as_int(b)?);
    Some(match op {
        BinOp::Add => Const::Int(x.checked_add(y)?),
        BinOp::Sub => Const::Int(x.checked_sub(y)?),
        BinOp::Mul => Const::Int(x.checked_mul(y)?),
        BinOp::Div => Const::Int(x.checked_div(y)?),
        BinOp::Rem => Const::Int(x.checked_rem(y)?),
        BinOp::Lt => Const::Bool(x < y),
        BinOp::Le => Const::Bool(x <= y),
        BinOp::Gt => Const::Bool(x > y),
        BinOp::Ge => Const::Bool(x >= y),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_closed_integer_expressions() {
        let e = Expr::Binary(BinOp::Sub, Box::new(Expr::Int(3)), Box::new(Expr::Int(1)));
        assert_eq!(int(&e), Some(2));
        let div0 = Expr::Binary(BinOp::Div, Box::new(Expr::Int(3)), Box::new(Expr::Int(0)));
        assert_eq!(int(&div0), None);
        assert_eq!(int(&Expr::Var(0)), None);
    }
}
