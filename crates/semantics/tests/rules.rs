//! Every rule of docs/semantics.md, exercised: each file in tests/rules/ names the rules it
//! covers (`// rule: A, B`) and, for each, facts of a system's state space that show the rule
//! at work, written by hand (`//~ Rule: System: 0 -tau-> 1`, `//~ Rule: System: 2: deadlock`,
//! `//~ Rule: System: 3 states, 2 transitions`, or `not` and the start of a line no state
//! may have). The facts are asserted, and the full breadth-first state space of each system
//! is pinned as a snapshot besides.

use agentpi_semantics::{Semantics, State};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write;
use std::path::Path;

const RULES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/rules");
const SEMANTICS_DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/semantics.md");

/// The whole state space of every system in `file`, as text.
fn check(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let loaded = agentpi_ir::load_str(&file.file_name().unwrap().to_string_lossy(), &text);
    let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{}: {errors:?}", file.display());
    let sem = Semantics::new(&loaded.program);
    let mut out = String::new();
    for (i, system) in loaded.program.systems.iter().enumerate() {
        out.push_str(&state_space(&sem, i, &system.name));
    }
    out
}

fn state_space(sem: &Semantics<'_>, system: usize, name: &str) -> String {
    let initial = sem.initial(system).expect("initial state");
    let mut ids: HashMap<State, usize> = HashMap::from([(initial.clone(), 0)]);
    let mut queue = VecDeque::from([initial]);
    let mut lines = String::new();
    let mut transitions = 0;
    while let Some(state) = queue.pop_front() {
        let from = ids[&state];
        let successors = sem.successors(&state);
        if successors.is_empty() {
            let end = if sem.is_valid_end(&state) {
                "valid end"
            } else {
                "deadlock"
            };
            let _ = writeln!(lines, "  {from}: {end}");
        }
        for t in successors {
            transitions += 1;
            let label = sem.label_text(&t.label);
            if let Some(fault) = &t.fault {
                let _ = writeln!(lines, "  {from} -{label}-> fault: {}", fault.kind);
                continue;
            }
            let next = ids.len();
            let to = *ids.entry(t.target.clone()).or_insert_with(|| {
                queue.push_back(t.target.clone());
                next
            });
            let _ = writeln!(lines, "  {from} -{label}-> {to}");
        }
    }
    format!(
        "system {name}: {} states, {transitions} transitions\n{lines}",
        ids.len()
    )
}

fn rule_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(RULES_DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "pi"));
    files.sort();
    files
}

#[test]
fn every_rule_file_has_its_state_space_pinned() {
    for file in rule_files() {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(name, check(&file));
    }
}

/// The rule names of docs/semantics.md: bold words at the start of a table row.
fn documented_rules() -> Vec<String> {
    let doc = std::fs::read_to_string(SEMANTICS_DOC).unwrap();
    let mut rules = Vec::new();
    for line in doc
        .lines()
        .filter(|l| l.starts_with("| **") || l.starts_with("- **"))
    {
        for part in line.split("**").skip(1).step_by(2) {
            rules.push(part.to_string());
        }
    }
    rules
}

/// A hand-written fact about a rule: in `system`'s state space, the line `fact` (or, for
/// `not X`, no line starting with `X`).
struct Fact {
    rule: String,
    system: String,
    fact: String,
}

/// The facts of a rule file, each `//~ Rule: System: fact`.
fn facts(text: &str) -> Vec<Fact> {
    let mut facts = Vec::new();
    for line in text.lines().filter_map(|l| l.strip_prefix("//~ ")) {
        let mut parts = line.splitn(3, ": ");
        let (Some(rule), Some(system), Some(fact)) = (parts.next(), parts.next(), parts.next())
        else {
            panic!("a fact is `//~ Rule: System: fact`: {line}");
        };
        let (rule, system, fact) = (rule.into(), system.into(), fact.into());
        facts.push(Fact { rule, system, fact });
    }
    facts
}

/// The lines of `system`'s state space in `space` (the text `check` writes), header first
/// without `system NAME: `.
fn lines_of<'a>(space: &'a str, system: &str) -> Vec<&'a str> {
    let header = format!("system {system}: ");
    let mut lines = space.lines().skip_while(|l| !l.starts_with(&header));
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    let rest = lines.take_while(|l| l.starts_with("  ")).map(str::trim);
    std::iter::once(&first[header.len()..])
        .chain(rest)
        .collect()
}

fn holds(fact: &Fact, space: &str) -> bool {
    let lines = lines_of(space, &fact.system);
    match fact.fact.strip_prefix("not ") {
        Some(absent) => !lines.is_empty() && !lines.iter().any(|l| l.starts_with(absent)),
        None => lines.contains(&fact.fact.as_str()),
    }
}

/// Every rule a file names is shown by facts of that file, and every fact holds.
#[test]
fn every_named_rule_is_shown_by_facts_that_hold() {
    for file in rule_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let (space, facts) = (check(&file), facts(&text));
        for fact in &facts {
            let name = file.display();
            let (rule, system, what) = (&fact.rule, &fact.system, &fact.fact);
            assert!(
                holds(fact, &space),
                "{name}: {rule}: {system}: {what}\n{space}"
            );
        }
        for line in text.lines().filter_map(|l| l.strip_prefix("// rule:")) {
            for rule in line.split(',').map(str::trim) {
                let shown = facts.iter().any(|f| f.rule == rule);
                assert!(
                    shown,
                    "{}: {rule} is named but no fact shows it",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn every_documented_rule_has_a_test() {
    let mut covered = Vec::new();
    for file in rule_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        covered.extend(facts(&text).into_iter().map(|f| f.rule));
    }
    let rules = documented_rules();
    assert!(rules.len() >= 20, "found only {rules:?}");
    let missing: Vec<_> = rules.iter().filter(|r| !covered.contains(r)).collect();
    assert!(
        missing.is_empty(),
        "rules without a fact that shows them: {missing:?}"
    );
}

/// The model of the acceptance test: a client making `n` sequential calls, each with a fresh
/// reply channel, to a server that spawns a handler per call.
fn calls_model(n: u32) -> String {
    format!(
        "chan call : chan Bool
         daemon proc Server = call?r . (Handler(r) | Server)
         proc Handler(r: chan Bool) = r!true
         proc Client(k: 0..{n}) = if k == 0 then 0 else new reply: chan Bool . call!reply . reply?x . Client(k - 1)
         system S = Client({n}) | Server"
    )
}

fn state_count(text: &str) -> usize {
    let loaded = agentpi_ir::load_str("calls.pi", text);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let sem = Semantics::new(&loaded.program);
    let out = state_space(&sem, 0, "S");
    out.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[test]
fn sequential_calls_with_fresh_channels_grow_linearly() {
    let counts: Vec<usize> = [5, 10, 20]
        .iter()
        .map(|&n| state_count(&calls_model(n)))
        .collect();
    // 2n + 1: each call is a send, a reply and back; used reply channels vanish.
    assert_eq!(counts, [11, 21, 41]);
}

/// Rule Comm-Within for a replication: one copy's two components meet (two components left:
/// the replication and the continuation), besides two copies meeting (Comm-Repl, four left).
/// The state space is infinite, so only the first step is looked at.
#[test]
fn a_copy_of_a_replication_can_talk_to_itself() {
    let loaded = agentpi_ir::load_str(
        "copy.pi",
        "chan d\nevent seen\nsystem Copy = !(d! | d? . seen)",
    );
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let sem = Semantics::new(&loaded.program);
    let initial = sem.initial(0).unwrap();
    let mut sizes: Vec<usize> = sem
        .successors(&initial)
        .iter()
        .map(|t| t.target.procs.len())
        .collect();
    sizes.sort();
    assert_eq!(sizes, [2, 4]);
}

/// Which labels a `successors_where` call asks for.
type Keep = dyn Fn(&agentpi_semantics::Label) -> bool;

/// `successors_where` is `successors` filtered by label, the same transitions in the same
/// order, on every state (up to a bound) of every rule file and of the monitor's MCP models
/// (where it matters: the monitor asks for the few transitions that take one message).
#[test]
fn successors_where_is_successors_filtered_by_label() {
    let mcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/mcp");
    let mut files = rule_files();
    files.extend(["legacy.pi", "modern.pi"].map(|f| mcp.join(f)));
    let keeps: [(&str, &Keep); 3] = [
        ("tau", &|l| l.is_tau()),
        ("visible", &|l| !l.is_tau()),
        ("odd arity", &|l| l.args.len() % 2 == 1),
    ];
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let loaded = agentpi_ir::load_str("model.pi", &text);
        let sem = Semantics::new(&loaded.program);
        for system in 0..loaded.program.systems.len() {
            for state in some_states(&sem, system, 400) {
                let all = sem.successors(&state);
                for (what, keep) in &keeps {
                    let filtered: Vec<String> = all
                        .iter()
                        .filter(|t| keep(&t.label))
                        .map(|t| format!("{t:?}"))
                        .collect();
                    let direct: Vec<String> = sem
                        .successors_where(&state, *keep)
                        .iter()
                        .map(|t| format!("{t:?}"))
                        .collect();
                    assert_eq!(direct, filtered, "{}: {what}", file.display());
                }
            }
        }
    }
}

/// The first `limit` states of `system` in breadth-first order.
fn some_states(sem: &Semantics<'_>, system: usize, limit: usize) -> Vec<State> {
    let Ok(initial) = sem.initial(system) else {
        return Vec::new();
    };
    let mut seen: HashMap<State, ()> = HashMap::from([(initial.clone(), ())]);
    let mut order = vec![initial];
    let mut next = 0;
    while next < order.len() && order.len() < limit {
        for t in sem.successors(&order[next]) {
            if t.fault.is_none() && seen.insert(t.target.clone(), ()).is_none() {
                order.push(t.target);
            }
        }
        next += 1;
    }
    order
}
