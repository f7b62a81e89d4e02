//! Parser tests: each case is a source text and the tree (or errors) it must give, printed as
//! compact S-expressions so that precedence and recovery are visible at a glance.

use agentpi_diagnostics::{FileId, SourceMap, render};
use agentpi_syntax::ast::*;

/// Parses `text` and returns the printed items followed by the rendered diagnostics.
fn run(text: &str) -> String {
    let (file, diags) = agentpi_syntax::parse(FileId(0), text);
    let mut out: Vec<String> = file.items.iter().map(item).collect();
    let mut sources = SourceMap::new();
    sources.add("t.pi", text);
    out.extend(
        diags
            .iter()
            .map(|d| render::terminal(d, &sources).trim_end().to_string()),
    );
    out.join("\n")
}

fn check(text: &str, expected: &str) {
    assert_eq!(run(text), expected.trim(), "input: {text}");
}

fn item(item: &Item) -> String {
    match item {
        Item::Import(i) => format!("(import {:?})", i.path),
        Item::Type(t) => format!("(type {} {})", t.name.name, type_def(&t.def)),
        Item::Const(c) => format!("(const {} {})", c.name.name, expr(&c.value)),
        Item::Chan(c) => format!("(chan {}{})", c.name.name, list(&c.carries, ty)),
        Item::Event(e) => format!("(event {}{})", e.name.name, list(&e.args, ty)),
        Item::Proc(p) => {
            let params: Vec<_> = p
                .params
                .iter()
                .map(|x| format!("{}:{}", x.name.name, ty(&x.ty)))
                .collect();
            let daemon = if p.daemon { "daemon " } else { "" };
            format!(
                "({daemon}proc {} [{}] {})",
                p.name.name,
                params.join(" "),
                proc(&p.body)
            )
        }
        Item::System(s) => format!("(system {} {})", s.name.name, proc(&s.body)),
        Item::Check(c) => format!(
            "(check {} fair={} {} {:?})",
            c.system.name,
            c.fair,
            property(&c.property),
            c.text
        ),
        Item::Extern(x) => {
            let names: Vec<_> = x.chans.iter().map(|c| c.name.as_str()).collect();
            let within = x.within.as_ref().map(expr).unwrap_or_default();
            let arms: Vec<_> = x
                .outcomes
                .iter()
                .map(|a| {
                    let kinds: Vec<_> = a.kinds.iter().map(|k| k.name.as_str()).collect();
                    format!("({} {})", kinds.join("|"), expr(&a.value))
                })
                .collect();
            format!(
                "(extern {} within={within} parallel={} [{}])",
                names.join(" "),
                x.parallel,
                arms.join(" ")
            )
        }
    }
}

fn list<T>(items: &[T], f: fn(&T) -> String) -> String {
    items.iter().map(|x| format!(" {}", f(x))).collect()
}

fn type_def(def: &TypeDef) -> String {
    match def {
        TypeDef::Enum(vs) => {
            let vs: Vec<_> = vs
                .iter()
                .map(|v| format!("({}{})", v.name.name, list(&v.fields, ty)))
                .collect();
            format!("(enum {})", vs.join(" "))
        }
        TypeDef::Alias(t) => ty(t),
    }
}

fn ty(t: &TypeExpr) -> String {
    match t {
        TypeExpr::Named(n) => n.name.clone(),
        TypeExpr::Range(lo, hi, _) => format!("{}..{}", expr(lo), expr(hi)),
        TypeExpr::Tuple(ts, _) => format!("(tuple{})", list(ts, ty)),
        TypeExpr::Chan(ts, _) => format!("(chan{})", list(ts, ty)),
        TypeExpr::Error(_) => "ERR".into(),
    }
}

fn proc(p: &Proc) -> String {
    match &p.kind {
        ProcKind::Nil => "0".into(),
        ProcKind::Prefixed(ps, cont) => {
            let ps: Vec<_> = ps.iter().map(prefix).collect();
            format!("(. {} {})", ps.join(" "), proc(cont))
        }
        ProcKind::Choice(ps) => format!("(+{})", list(ps, proc)),
        ProcKind::Seq(ps) => format!("(;{})", list(ps, proc)),
        ProcKind::Par(ps) => format!("(|{})", list(ps, proc)),
        ProcKind::New(bs, body) => {
            let bs: Vec<_> = bs
                .iter()
                .map(|b| {
                    b.ty.as_ref().map_or(b.name.name.clone(), |t| {
                        format!("{}:{}", b.name.name, ty(t))
                    })
                })
                .collect();
            format!("(new [{}] {})", bs.join(" "), proc(body))
        }
        ProcKind::Repl(body) => format!("(! {})", proc(body)),
        ProcKind::ParFor(i, t, body) => format!("(par {} {} {})", i.name, ty(t), proc(body)),
        ProcKind::End(body) => format!("(end {})", proc(body)),
        ProcKind::Point(l, body) => format!("({}: {})", l.name, proc(body)),
        ProcKind::If(c, a, b) => format!("(if {} {} {})", expr(c), proc(a), proc(b)),
        ProcKind::Match(e, arms) => {
            let arms: Vec<_> = arms
                .iter()
                .map(|a| format!("({} {})", pattern(&a.pat), proc(&a.body)))
                .collect();
            format!("(match {} {})", expr(e), arms.join(" "))
        }
        ProcKind::Call(n, args) => format!("(call {}{})", n.name, list(args, expr)),
        ProcKind::Error => "ERR".into(),
    }
}

fn prefix(p: &Prefix) -> String {
    match &p.kind {
        PrefixKind::Output { chan, index, args } => {
            let at = index
                .iter()
                .map(|e| format!("[{}]", expr(e)))
                .collect::<String>();
            format!("{}{at}!({})", chan.name, list(args, expr).trim_start())
        }
        PrefixKind::Input { chan, index, pats } => {
            let at = index
                .iter()
                .map(|e| format!("[{}]", expr(e)))
                .collect::<String>();
            format!("{}{at}?({})", chan.name, list(pats, pattern).trim_start())
        }
        PrefixKind::Tau => "tau".into(),
        PrefixKind::Event { name, args } => {
            format!("{}<{}>", name.name, list(args, expr).trim_start())
        }
        PrefixKind::Assert(e) => format!("assert({})", expr(e)),
    }
}

fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Name(n) => n.name.clone(),
        ExprKind::Apply(n, args) => format!("({}{})", n.name, list(args, expr)),
        ExprKind::Index(n, index) => format!("(index {}{})", n.name, list(index, expr)),
        ExprKind::Tuple(es) => format!("(tuple{})", list(es, expr)),
        ExprKind::Unary(op, x) => format!("({op:?} {})", expr(x)),
        ExprKind::Binary(op, a, b) => format!("({op:?} {} {})", expr(a), expr(b)),
        ExprKind::Error => "ERR".into(),
    }
}

fn pattern(p: &Pattern) -> String {
    match &p.kind {
        PatternKind::Name(n) => n.name.clone(),
        PatternKind::Typed(n, t) => format!("{}:{}", n.name, ty(t)),
        PatternKind::Wild => "_".into(),
        PatternKind::Eq(e) => format!("={}", expr(e)),
        PatternKind::Ctor(n, ps) => format!("({}{})", n.name, list(ps, pattern)),
        PatternKind::Tuple(ps) => format!("(tuple{})", list(ps, pattern)),
        PatternKind::Error => "ERR".into(),
    }
}

fn property(p: &Property) -> String {
    match p {
        Property::DeadlockFree => "deadlock-free".into(),
        Property::Never(l) => format!("(never {})", label(l)),
        Property::Reachable(l) => format!("(reachable {})", label(l)),
        Property::Eventually(l) => format!("(eventually {})", label(l)),
        Property::AlwaysEventually(l) => format!("(always-eventually {})", label(l)),
        Property::LeadsTo(a, b) => format!("(leads-to {} {})", label(a), label(b)),
        Property::Ltl(f) => format!("(ltl {})", ltl(f)),
        Property::Relation(r) => {
            let other = r
                .other
                .as_ref()
                .map_or(String::new(), |o| format!(" {}", o.name));
            format!("({:?}{other})", r.kind)
        }
        Property::Forall(bs, body) => {
            let bs: Vec<String> = bs
                .iter()
                .map(|b| format!("{}:{}", b.name.name, ty(&b.ty)))
                .collect();
            format!("(forall [{}] {})", bs.join(" "), property(body))
        }
        Property::State(c, p) => format!("({c:?} {p:?})"),
        Property::Error => "ERR".into(),
    }
}

fn ltl(f: &Ltl) -> String {
    let two = |op: &str, a: &Ltl, b: &Ltl| format!("({op} {} {})", ltl(a), ltl(b));
    match &f.kind {
        LtlKind::True => "true".into(),
        LtlKind::False => "false".into(),
        LtlKind::Atom(l) => label(l),
        LtlKind::State(p) => format!("{p:?}"),
        LtlKind::Not(a) => format!("(not {})", ltl(a)),
        LtlKind::Always(a) => format!("([] {})", ltl(a)),
        LtlKind::Eventually(a) => format!("(<> {})", ltl(a)),
        LtlKind::Next(a) => format!("(X {})", ltl(a)),
        LtlKind::And(a, b) => two("and", a, b),
        LtlKind::Or(a, b) => two("or", a, b),
        LtlKind::Implies(a, b) => two("->", a, b),
        LtlKind::Until(a, b) => two("U", a, b),
        LtlKind::Release(a, b) => two("R", a, b),
        LtlKind::WeakUntil(a, b) => two("W", a, b),
    }
}

fn label(l: &LabelPat) -> String {
    let head = match &l.head {
        LabelHead::Tau => "tau".to_string(),
        LabelHead::Name(n) => n.name.clone(),
    };
    match &l.args {
        None => head,
        Some(args) => format!("{head}({})", list(args, pattern).trim_start()),
    }
}

#[test]
fn declarations() {
    check(
        "type Op = add | sub\ntype Outcome = ok(Small) | err(Failure)\ntype Small = 0..N-1\ntype Job = (Op, Small)\n\
         const N = 3\nchan req : (Op, Small)\nchan ping\nchan c : chan (chan Outcome, Op)\nevent log(Small)\nevent crash\nimport \"mcp\"",
        r#"
(type Op (enum (add) (sub)))
(type Outcome (enum (ok Small) (err Failure)))
(type Small 0..(Sub N 1))
(type Job (tuple Op Small))
(const N 3)
(chan req Op Small)
(chan ping)
(chan c (chan (chan Outcome) Op))
(event log Small)
(event crash)
(import "mcp")"#,
    );
}

#[test]
fn operator_precedence_is_prefix_choice_seq_par() {
    check(
        "proc P = a!1 . b?x + c! ; d | e . f",
        "(proc P [] (| (; (+ (. a!(1) b?(x) 0) (. c!() 0)) (. d<> 0)) (. e<> f<> 0)))",
    );
}

#[test]
fn new_extends_to_the_right_and_if_else_is_one_operand() {
    check(
        "system S = a . new x, y: chan Small . x!1 | y?v\nproc Q(b: Bool) = if b then a | c else d ; e",
        "(system S (. a<> (new [x y:(chan Small)] (| (. x!(1) 0) (. y?(v) 0)))))\n\
         (proc Q [b:Bool] (; (if b (| (. a<> 0) (. c<> 0)) (. d<> 0)) (. e<> 0)))",
    );
}

#[test]
fn prefixes_patterns_and_expressions() {
    check(
        "proc P = c!(x + 1, ok(2)) . c?(=y, _, err(t), (a, 3), z: 0..N) . log(-1) . assert(not a and b or x >= 2 * 3) . tau . !Q(1)",
        "(proc P [] (. c!((Add x 1) (ok 2)) c?(=y _ (err t) (tuple a =3) z:0..N) log<-1> \
         assert((Or (And (Not a) b) (Ge x (Mul 2 3)))) tau (! (call Q 1))))",
    );
}

#[test]
fn match_arms_and_properties() {
    check(
        "proc P = match r { ok(_) => 0, err(timeout) => a!1 | b!2, _ => tau }\n\
         check S: fair call(c, _) leads to c(ok(_))\ncheck S: deadlock free\ncheck S: always eventually tau\ncheck S: never  crash",
        r#"
(proc P [] (match r ((ok _) 0) ((err timeout) (| (. a!(1) 0) (. b!(2) 0))) (_ (. tau 0))))
(check S fair=true (leads-to call(c _) c((ok _))) "fair call(c, _) leads to c(ok(_))")
(check S fair=false deadlock-free "deadlock free")
(check S fair=false (always-eventually tau) "always eventually tau")
(check S fair=false (never crash) "never crash")"#,
    );
}

/// Relations as FDR users write them, with their default models; `strong fair`; and the
/// words used as label names where no relation can start.
#[test]
fn relations_and_strong_fairness() {
    check(
        "check I: refines S\ncheck I: refines S fd\ncheck A: equivalent B\n\
         check A: equivalent B dpbranching\ncheck A: equivalent B traces\n\
         check S: deterministic\ncheck S: deterministic failures\n\
         check S: strong fair eventually done\ncheck S: never deterministic(1)\n\
         check S: refines leads to equivalent",
        r#"(check I fair=false (Refines(Failures) S) "refines S")
(check I fair=false (Refines(FailuresDivergences) S) "refines S fd")
(check A fair=false (Bisimilar(Strong) B) "equivalent B")
(check A fair=false (Bisimilar(DivBranching) B) "equivalent B dpbranching")
(check A fair=false (EquivalentIn(Traces) B) "equivalent B traces")
(check S fair=false (Deterministic(FailuresDivergences)) "deterministic")
(check S fair=false (Deterministic(Failures)) "deterministic failures")
(check S fair=true (eventually done) "strong fair eventually done")
(check S fair=false (never deterministic(=1)) "never deterministic(1)")
(check S fair=false (leads-to refines equivalent) "refines leads to equivalent")"#,
    );
}

#[test]
fn ltl_precedence_prefix_then_until_and_or_implies() {
    check(
        "check S: ltl [] (call(r, _) -> <> r(_))\n\
         check S: ltl not a U b and X c or d -> always eventually e -> f\n\
         check S: ltl a W b R c\n\
         check S: fair ltl next (true until false)\n",
        r#"(check S fair=false (ltl ([] (-> call(r _) (<> r(_))))) "ltl [] (call(r, _) -> <> r(_))")
(check S fair=false (ltl (-> (or (and (U (not a) b) (X c)) d) (-> ([] (<> e)) f))) "ltl not a U b and X c or d -> always eventually e -> f")
(check S fair=false (ltl (W a (R b c))) "ltl a W b R c")
(check S fair=true (ltl (X (U true false))) "fair ltl next (true until false)")"#,
    );
}

#[test]
fn ltl_errors_name_the_operator_words_and_foreign_spellings() {
    let out = run("check S: ltl [] (a && !b)\ncheck S: ltl X U b\n");
    assert!(
        out.contains("t.pi:1:20: error[E0114]: `&&` is written `and` here"),
        "{out}"
    );
    assert!(
        out.contains("t.pi:1:23: error[E0114]: `!` is not negation here"),
        "{out}"
    );
    assert!(
        out.contains("t.pi:2:16: error[E0115]: `U` is an operator in a formula"),
        "{out}"
    );
}

#[test]
fn extern_declarations_and_extern_as_a_name() {
    check(
        "extern fetch_a, fetch_b within 2000\nextern put parallel { ok => ok, err | timeout | crash => fail }\n\
         extern q { ok => done(1) } within N parallel\nchan extern\nproc P = extern!1 . match x { extern => 0 }",
        r#"
(extern fetch_a fetch_b within=2000 parallel=false [])
(extern put within= parallel=true [(ok ok) (err|timeout|crash fail)])
(extern q within=N parallel=true [(ok (done 1))])
(chan extern)
(proc P [] (. extern!(1) (match x (extern 0))))"#,
    );
    check(
        "extern a within\nchan c\nextern b { ok }",
        r#"
t.pi:2:1: error[E0110]: expected the deadline in milliseconds, as in `within 2000`, found `chan`
  |
2 | chan c
  | ^^^^ expected the deadline in milliseconds, as in `within 2000`
t.pi:3:15: error[E0110]: expected `=>` and the value answered, found `}`
  |
3 | extern b { ok }
  |               ^ expected `=>` and the value answered"#,
    );
}

#[test]
fn three_independent_errors_give_three_diagnostics() {
    check(
        "proc P = a!1 . . 0\nproc q = 0\nsystem S = (P | )\ncheck S: nevr crash",
        r#"
(proc P [] (. a!(1) ERR))
(proc q [] 0)
(system S (| (call P) ERR))
t.pi:1:16: error[E0110]: expected a process, found `.`
  |
1 | proc P = a!1 . . 0
  |                ^ expected a process
t.pi:2:6: error[E0112]: the name of a process starts with an upper-case letter
  |
2 | proc q = 0
  |      ^ wrong case
  = help: rename it, for example to `Q`
t.pi:3:17: error[E0110]: expected a process, found `)`
  |
3 | system S = (P | )
  |                 ^ expected a process
t.pi:4:10: error[E0113]: expected a property
  |
4 | check S: nevr crash
  |          ^^^^ not a property
  = help: a property is one of `deadlock free`, `never PAT`, `reachable PAT`, `eventually PAT`, `always eventually PAT`, `PAT leads to PAT`, `ltl FORMULA`, `never PRED`, `reachable PRED`, `always PRED` (PRED over states: `at Proc.point`, `len(c) == n`, `c contains v`), optionally after `fair`, `strong fair` or `forall i in T:`; or `refines System`, `equivalent System`, `deterministic`"#,
    );
}

#[test]
fn recovery_inside_match_arms_keeps_the_other_arms() {
    check(
        "proc P = match x { a => b!1 +, c => d?(1 }\nsystem S = P",
        r#"
(proc P [] (match x (a (+ (. b!(1) 0) ERR)) (c ERR)))
(system S (call P))
t.pi:1:30: error[E0110]: expected a process, found `,`
  |
1 | proc P = match x { a => b!1 +, c => d?(1 }
  |                              ^ expected a process
t.pi:1:42: error[E0110]: expected `,` or `)`, found `}`
  |
1 | proc P = match x { a => b!1 +, c => d?(1 }
  |                                          ^ expected `,` or `)`"#,
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "proc P = {}0{}\nproc Q = 0",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let out = run(&deep);
    assert!(
        out.starts_with("(proc P [] ERR)\n(proc Q [] 0)\nt.pi:1:"),
        "{out}"
    );
    assert!(out.contains("error[E0111]: nesting is too deep"), "{out}");
    let long = format!("const N = {}1", "1 + ".repeat(5000));
    assert!(run(&long).contains("error[E0111]: expression is too long"));
    let chain = format!("proc P = {}0", "a!1 . ".repeat(20000));
    assert!(run(&chain).starts_with("(proc P [] (. a!(1)"));
}

#[test]
fn a_number_where_a_process_is_expected_gets_a_hint() {
    check(
        "chan c : 0..3\nsystem S = c!x+1",
        r#"
(chan c 0..3)
(system S ERR)
t.pi:2:16: error[E0110]: expected a process, found integer `1`
  |
2 | system S = c!x+1
  |                ^ expected a process
  = help: `0` is the only number that is a process; to send an expression, parenthesise it: `c!(x + 1)`"#,
    );
}

#[test]
fn several_errors_in_one_body_are_all_reported() {
    check(
        "proc P = a!(1 +) . b!1 | c?(x . d!x | e!(2 * ) ; Q(,)",
        r#"
(proc P [] (| (. a!(ERR) b!(1) 0) ERR (; (. e!(ERR) 0) (call Q ERR))))
t.pi:1:16: error[E0110]: expected an expression, found `)`
  |
1 | proc P = a!(1 +) . b!1 | c?(x . d!x | e!(2 * ) ; Q(,)
  |                ^ expected an expression
t.pi:1:31: error[E0110]: expected `,` or `)`, found `.`
  |
1 | proc P = a!(1 +) . b!1 | c?(x . d!x | e!(2 * ) ; Q(,)
  |                               ^ expected `,` or `)`
t.pi:1:46: error[E0110]: expected an expression, found `)`
  |
1 | proc P = a!(1 +) . b!1 | c?(x . d!x | e!(2 * ) ; Q(,)
  |                                              ^ expected an expression
t.pi:1:52: error[E0110]: expected an expression, found `,`
  |
1 | proc P = a!(1 +) . b!1 | c?(x . d!x | e!(2 * ) ; Q(,)
  |                                                    ^ expected an expression"#,
    );
}
