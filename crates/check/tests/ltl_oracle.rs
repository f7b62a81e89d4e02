//! `ltl` against an independent reading of the formula: on generated models (seeded, so
//! every run checks the same ones), every counterexample the checker prints must falsify its
//! formula when the formula is evaluated directly on the printed run (a lasso, or a path
//! without loop extended by the stutter step forever), and a formula and its negation never
//! both hold (some maximal path exists, and it satisfies one of them).

mod common;
use common::Rng;

use agentpi_check::{CheckResult, Options, Outcome, Progress, Trace, check_system};

/// The labels atoms name: three events, `tau` and a handshake on `h`.
const ATOMS: [&str; 5] = ["a", "b", "c", "tau", "h"];

#[derive(Clone, Debug)]
enum F {
    Const(bool),
    Atom(&'static str),
    Not(Box<F>),
    Bin(&'static str, Box<F>, Box<F>),
    Un(&'static str, Box<F>),
}

fn formula(rng: &mut Rng, depth: u32) -> F {
    if depth == 0 || rng.below(4) == 0 {
        return match rng.below(10) {
            0 => F::Const(rng.below(2) == 0),
            _ => F::Atom(ATOMS[rng.below(ATOMS.len())]),
        };
    }
    let sub = |rng: &mut Rng| Box::new(formula(rng, depth - 1));
    match rng.below(10) {
        0 => F::Not(sub(rng)),
        1..=3 => {
            let op = ["[]", "<>", "X"][rng.below(3)];
            F::Un(op, sub(rng))
        }
        _ => {
            let op = ["and", "or", "->", "U", "R", "W"][rng.below(6)];
            F::Bin(op, sub(rng), sub(rng))
        }
    }
}

fn show(f: &F) -> String {
    match f {
        F::Const(b) => b.to_string(),
        F::Atom(a) => a.to_string(),
        F::Not(a) => format!("not ({})", show(a)),
        F::Un(op, a) => format!("{op} ({})", show(a)),
        F::Bin(op, a, b) => format!("({}) {op} ({})", show(a), show(b)),
    }
}

/// The truth of `f` at each position of a run whose position `i` is followed by `next[i]`.
fn eval(f: &F, word: &[&str], next: &[usize]) -> Vec<bool> {
    let n = word.len();
    match f {
        F::Const(b) => vec![*b; n],
        F::Atom(a) => word.iter().map(|w| w == a).collect(),
        F::Not(a) => eval(a, word, next).into_iter().map(|x| !x).collect(),
        F::Un("X", a) => {
            let v = eval(a, word, next);
            (0..n).map(|i| v[next[i]]).collect()
        }
        F::Un(op, a) => {
            let (b, a) = (eval(a, word, next), vec![*op == "<>"; n]);
            fixpoint(&a, &b, next, *op == "<>")
        }
        F::Bin(op, a, b) => {
            let (x, y) = (eval(a, word, next), eval(b, word, next));
            match *op {
                "and" => x.iter().zip(&y).map(|(p, q)| *p && *q).collect(),
                "or" => x.iter().zip(&y).map(|(p, q)| *p || *q).collect(),
                "->" => x.iter().zip(&y).map(|(p, q)| !*p || *q).collect(),
                "U" => fixpoint(&x, &y, next, true),
                "R" => fixpoint(&x, &y, next, false),
                _ => {
                    // a W b = (a U b) or [] a
                    let until = fixpoint(&x, &y, next, true);
                    let always = fixpoint(&vec![false; n], &x, next, false);
                    until.iter().zip(&always).map(|(p, q)| *p || *q).collect()
                }
            }
        }
    }
}

/// `a U b` (least fixpoint) when `until`, else `a R b` (greatest): `<> b` is `true U b` and
/// `[] b` is `false R b`.
fn fixpoint(a: &[bool], b: &[bool], next: &[usize], until: bool) -> Vec<bool> {
    let n = a.len();
    let mut s = vec![!until; n];
    for _ in 0..=n {
        s = (0..n)
            .map(|i| match until {
                true => b[i] || (a[i] && s[next[i]]),
                false => b[i] && (a[i] || s[next[i]]),
            })
            .collect();
    }
    s
}

/// The run a counterexample stands for: its labels, and each position's successor.
fn run_of(trace: &Trace) -> (Vec<&str>, Vec<usize>) {
    let mut word: Vec<&str> = trace.steps.iter().map(|s| s.label.as_str()).collect();
    let loop_start = trace.loop_start.unwrap_or_else(|| {
        word.push("<stutter>");
        word.len() - 1
    });
    let mut next: Vec<usize> = (1..word.len()).collect();
    next.push(loop_start);
    (word, next)
}

fn model(rng: &mut Rng) -> String {
    let count = 2 + rng.below(3);
    let names: Vec<String> = (0..count).map(|i| format!("P{i}")).collect();
    let mut text = String::from("event a\nevent b\nevent c\nchan h\n");
    for name in &names {
        let options: Vec<String> = (0..1 + rng.below(3))
            .map(|_| {
                let prefix = rng.pick(&["a", "b", "c", "a", "tau", "h!", "h?"]);
                let then = match rng.below(count + 1) {
                    0 => "0".to_string(),
                    k => names[k - 1].clone(),
                };
                format!("{prefix} . {then}")
            })
            .collect();
        text += &format!("proc {name} = {}\n", options.join(" + "));
    }
    let parts: Vec<&str> = (0..1 + rng.below(3))
        .map(|_| names[rng.below(count)].as_str())
        .collect();
    text + &format!("system S = {}\n", parts.join(" | "))
}

fn results(text: &str) -> Vec<CheckResult> {
    let loaded = agentpi_ir::load_str("oracle.pi", text);
    assert!(!loaded.has_errors(), "{text}\n{:?}", loaded.diagnostics);
    let checks: Vec<usize> = (0..loaded.program.checks.len()).collect();
    let options = Options::default();
    let report = check_system(&loaded.program, 0, &checks, &options, &Progress::default());
    report.results
}

#[test]
fn counterexamples_falsify_their_formula_and_no_formula_holds_with_its_negation() {
    let (mut violated, mut held) = (0, 0);
    for seed in 1..=150u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut text = model(&mut rng);
        let mut formulas = Vec::new();
        for _ in 0..4 {
            let f = formula(&mut rng, 3);
            let fair = if rng.below(3) == 0 { "fair " } else { "" };
            text += &format!("check S: {fair}ltl {}\n", show(&f));
            text += &format!("check S: {fair}ltl not ({})\n", show(&f));
            formulas.push(f.clone());
            formulas.push(F::Not(Box::new(f)));
        }
        let results = results(&text);
        for (pair, fs) in results.chunks(2).zip(formulas.chunks(2)) {
            let both_hold = pair.iter().all(|r| r.outcome == Outcome::Holds);
            assert!(
                !both_hold,
                "{text}\n{} and its negation both hold",
                pair[0].property
            );
            for (result, f) in pair.iter().zip(fs) {
                if result.outcome != Outcome::Violated {
                    held += 1;
                    continue;
                }
                violated += 1;
                let (word, next) = run_of(result.trace.as_ref().expect("a counterexample"));
                let truth = eval(f, &word, &next)[0];
                assert!(!truth, "{text}\n{}: {word:?} satisfies it", result.property);
            }
        }
    }
    assert!(
        violated > 300 && held > 150,
        "{violated} violated, {held} held"
    );
}
