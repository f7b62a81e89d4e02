//! The shape of lowered programs: terms with their free slots, definitions with their frames,
//! properties with resolved label patterns. Printed compactly and pinned with insta.

use agentpi_ir::core::*;
use std::fmt::Write;

fn dump(program: &Program) -> String {
    let mut out = String::new();
    for def in &program.defs {
        let params: Vec<String> = def
            .params
            .iter()
            .map(|(s, t)| format!("${s}: {t:?}"))
            .collect();
        let daemon = if def.daemon { "daemon " } else { "" };
        let _ = writeln!(
            out,
            "{daemon}proc {}({}) frame={}",
            def.name,
            params.join(", "),
            def.frame
        );
        term(program, def.body, 1, &mut out);
    }
    for system in &program.systems {
        let _ = writeln!(out, "system {} frame={}", system.name, system.frame);
        term(program, system.body, 1, &mut out);
    }
    for check in &program.checks {
        let system = &program.systems[check.system].name;
        let _ = writeln!(
            out,
            "check {system} fair={} {:?}\n  text: {}",
            check.fair, check.property, check.text
        );
    }
    out
}

/// One line per term: `#id kind free=[slots] owner`, children indented.
fn term(program: &Program, id: TermId, depth: usize, out: &mut String) {
    let info = program.info(id);
    let owner = info
        .owner
        .map_or("system".to_string(), |d| program.def(d).name.clone());
    let children: Vec<TermId> = match program.term(id) {
        Term::Nil => vec![],
        Term::Prefix(_, next) => vec![*next],
        Term::Choice(items) | Term::Par(items) => items.clone(),
        Term::Seq(a, b) => vec![*a, *b],
        Term::New(_, body) | Term::Repl(body) => vec![*body],
        Term::If(_, a, b) => vec![*a, *b],
        Term::Match(_, arms) => arms.iter().map(|(_, t)| *t).collect(),
        Term::Call(..) => vec![],
    };
    let head = match program.term(id) {
        Term::Prefix(prefix, _) => format!("Prefix {prefix:?}"),
        Term::Choice(_) => "Choice".into(),
        Term::Par(_) => "Par".into(),
        Term::Seq(..) => "Seq".into(),
        Term::New(names, _) => format!("New {names:?}"),
        Term::Repl(_) => "Repl".into(),
        Term::If(cond, ..) => format!("If {cond:?}"),
        Term::Match(e, arms) => format!(
            "Match {e:?} {:?}",
            arms.iter().map(|(p, _)| p).collect::<Vec<_>>()
        ),
        other => format!("{other:?}"),
    };
    let _ = writeln!(
        out,
        "{}{head} free={:?} in {owner}",
        "  ".repeat(depth),
        info.free
    );
    for child in children {
        term(program, child, depth + 1, out);
    }
}

fn lowered(text: &str) -> String {
    let loaded = agentpi_ir::load_str("m.pi", text);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    dump(&loaded.program)
}

#[test]
fn client_server_with_fresh_reply_channels() {
    insta::assert_snapshot!(lowered(
        r#"
type Outcome = ok(0..3) | err
daemon proc Server(call: chan (chan Outcome, 0..3)) =
    call?(reply, n) . (reply!ok(n) + reply!err) ; Server(call)
proc Client(call: chan (chan Outcome, 0..3), k: 0..3) =
    new reply . call!(reply, k) . reply?r . match r { ok(=k) => 0, ok(_) => tau, err => 0 }
system S = new call . (Server(call) | Client(call, 1) | Client(call, 2))
check S: deadlock free
check S: fair call(c, n) leads to c(ok(n))
check S: never reply(err)
"#
    ));
}

#[test]
fn constants_are_inlined_and_nested_operators_flattened() {
    insta::assert_snapshot!(lowered(
        "const N = 2\nchan c : 0..N\nevent e(0..N)\nsystem S = (c!N + (c!1 + tau)) | (e(N - 1) | !c?x . assert(x <= N))\ncheck S: reachable e(N)\n"
    ));
}
