//! Every command under an address-space limit (`ulimit -v 2097152`, 2 GiB, common in CI
//! sandboxes and shared machines) exits as it does without one, with the same output: the
//! thread stacks are small enough (16 MiB, docs/limits.md) and a limit is never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The address-space limit, in KiB as `ulimit -v` takes it.
const LIMIT_KIB: u64 = 2_097_152;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `agentpi ARGS < STDIN` from the repository root, under the limit or not.
fn agentpi(args: &[String], stdin: &str, limited: bool) -> Output {
    let limit = limited.then_some(LIMIT_KIB);
    agentpi_in(&root(), args, stdin, limit)
}

/// `agentpi ARGS < STDIN` in `dir`, under an address-space limit of `limit` KiB if given.
/// `sh` sets the limit and execs the binary, so the limit is the binary's from its first
/// instruction.
fn agentpi_in(dir: &Path, args: &[String], stdin: &str, limit: Option<u64>) -> Output {
    let limit = match limit {
        Some(kib) => format!("ulimit -v {kib}; "),
        None => String::new(),
    };
    Command::new("sh")
        .arg("-c")
        .arg(format!(r#"{limit}exec "$0" "$@" < "{stdin}""#))
        .arg(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// What a case compares between the two runs.
#[derive(Clone, Copy, PartialEq)]
enum Same {
    /// Exit status and standard output.
    Output,
    /// Exit status only: the output holds timings, or the timing of a cancellation the
    /// server races (`monitor`'s C3 on tests/monitor/session.jsonl).
    Status,
}

/// Runs `args` with and without the limit; the runs must agree (`same`), the limited one
/// must not panic, abort or overflow its stack, and its status must be `status`.
fn check(args: &[&str], stdin: &str, same: Same, status: i32) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let free = agentpi(&args, stdin, false);
    let limited = agentpi(&args, stdin, true);
    let err = String::from_utf8_lossy(&limited.stderr);
    for crash in ["panicked", "overflowed its stack", "memory allocation of"] {
        assert!(!err.contains(crash), "{args:?} under ulimit -v: {err}");
    }
    assert_eq!(
        limited.status.code(),
        Some(status),
        "{args:?} under ulimit -v: {err}"
    );
    assert_eq!(free.status.code(), limited.status.code(), "{args:?}: {err}");
    if same == Same::Output {
        let (a, b) = (
            String::from_utf8_lossy(&free.stdout),
            String::from_utf8_lossy(&limited.stdout),
        );
        assert_eq!(a, b, "{args:?}: standard output differs under ulimit -v");
    }
}

#[test]
fn every_command_runs_under_an_address_space_limit() {
    let none = "/dev/null";
    let peer = ["python3", "tests/monitor/peer.py", "good"];
    let with_peer = |head: &[&'static str]| -> Vec<&'static str> {
        let mut args = head.to_vec();
        args.push("--");
        args.extend(peer);
        args
    };
    let cases: Vec<(Vec<&str>, &str, Same, i32)> = vec![
        // The issue's reproducer: one pool of 256 MiB stacks per worker did not fit.
        (
            vec!["check", "banking", "--max-states", "5"],
            none,
            Same::Output,
            1,
        ),
        // 64 workers of 16 MiB: a gigabyte of stacks, which fits.
        (
            vec!["check", "banking", "--threads", "64"],
            none,
            Same::Output,
            1,
        ),
        (
            vec!["check", "models/calculator.pi", "--format", "json"],
            none,
            Same::Status,
            0,
        ),
        (vec!["lts", "models/calculator.pi"], none, Same::Output, 0),
        (
            vec![
                "sim",
                "models/crash_no_timeout.pi",
                "--random",
                "--seed",
                "3",
            ],
            none,
            Same::Output,
            0,
        ),
        (
            vec![
                "compare",
                "mcp_timeout:Mcp",
                "mcp_timeout:Mcp",
                "--equiv",
                "branching",
            ],
            none,
            Same::Output,
            0,
        ),
        (
            vec!["minimize", "mcp_timeout:Mcp", "--no-time"],
            none,
            Same::Output,
            0,
        ),
        (
            vec!["lint", "crates/cli/tests/lint/inputs/banking_clean.json"],
            none,
            Same::Output,
            0,
        ),
        (
            vec![
                "replay",
                "calculator",
                "crates/cli/tests/limits/calculator.labels",
            ],
            none,
            Same::Output,
            0,
        ),
        (
            vec![
                "trace",
                "check",
                "crates/cli/tests/limits/session.trace.jsonl",
            ],
            none,
            Same::Output,
            1,
        ),
        (
            vec!["sgd", "phi", "tests/data/sgd/dev.schema.json", "Alarm_1"],
            none,
            Same::Output,
            0,
        ),
        (vec!["models"], none, Same::Output, 0),
        // No server is given: the workflow is checked, then refused with a clean error.
        (
            vec!["run", "tests/run/pipeline.pi", "--verify-only"],
            none,
            Same::Output,
            2,
        ),
        // The peer starts under the limit too (it inherits it). Python is the quickest to
        // start; node also runs under 2 GiB of address space (checked by hand with v22).
        (
            with_peer(&["monitor"]),
            "tests/monitor/session.jsonl",
            Same::Status,
            0,
        ),
        (with_peer(&["extract"]), none, Same::Output, 0),
        (
            vec!["view", "crates/cli/tests/limits/session.trace.jsonl"],
            none,
            Same::Output,
            0,
        ),
        // The bridge checks mcp/bridge first, then starts the legacy peer; the client (no
        // input) goes away at once.
        (
            with_peer(&["bridge", "--to", "legacy"]),
            none,
            Same::Status,
            0,
        ),
        (with_peer(&["test", "--budget", "1"]), none, Same::Status, 1),
    ];
    for (args, stdin, same, status) in cases {
        check(&args, stdin, same, status);
    }
}

/// A generated input: its file name and text.
fn deep_input(kind: &str, n: usize) -> (String, String) {
    let text = match kind {
        "prefixes" => format!("system S = {}0\ncheck S: deadlock free\n", "tau.".repeat(n)),
        "sequence" => format!(
            "system S = {}\ncheck S: deadlock free\n",
            vec!["tau"; n].join("; ")
        ),
        "parentheses" => format!(
            "system S = {}tau{}\ncheck S: deadlock free\n",
            "(".repeat(n),
            ")".repeat(n)
        ),
        "ifs" => format!(
            "system S = {}0\ncheck S: deadlock free\n",
            "if true then tau else ".repeat(n)
        ),
        "calls" => {
            let calls: String = (0..n)
                .map(|i| format!("proc P{i}() = P{}()\n", i + 1))
                .collect();
            format!("{calls}proc P{n}() = tau\nsystem S = P0()\ncheck S: deadlock free\n")
        }
        "chain" => {
            let moves: String = (0..n)
                .map(|i| format!("({i}, \"a\", {})\n", i + 1))
                .collect();
            format!("des (0, {n}, {})\n{moves}", n + 1)
        }
        _ => unreachable!("{kind}"),
    };
    let ext = if kind == "chain" { "aut" } else { "pi" };
    (format!("{kind}{n}.{ext}"), text)
}

/// Inputs nested or chained far deeper than any model needs: each gives a verdict or a clean
/// error with its place, never a stack overflow (an abort) — on the binary's 16 MiB stacks.
#[test]
fn deep_inputs_give_a_verdict_or_a_clean_error() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("limits");
    std::fs::create_dir_all(&dir).unwrap();
    // (command, input kind, size, exit status, what its output says)
    let cases: &[(&str, &str, usize, i32, &str)] = &[
        // Chains are kept flat: 100 000 steps are checked, not refused.
        (
            "check",
            "prefixes",
            100_000,
            0,
            "holds (100001 states, 100000 transitions)",
        ),
        (
            "check",
            "sequence",
            100_000,
            0,
            "holds (100001 states, 100000 transitions)",
        ),
        (
            "check",
            "parentheses",
            100_000,
            2,
            "error[E0111]: nesting is too deep",
        ),
        (
            "check",
            "ifs",
            100_000,
            2,
            "error[E0111]: nesting is too deep",
        ),
        // `agentpi_semantics::MAX_CALL_DEPTH` is 10 000: one call under it is checked, one
        // past it is unknown.
        ("check", "calls", 9_999, 0, "holds (2 states, 1 transition)"),
        (
            "check",
            "calls",
            10_001,
            3,
            "process calls nest past 10000 levels",
        ),
        (
            "lts",
            "calls",
            10_001,
            3,
            "process calls nest past 10000 levels",
        ),
        // Chains of 10 001 and 10 002 states are told apart only in round 10 002.
        ("compare", "chain", 10_001, 1, "no distinguishing formula"),
    ];
    for &(command, kind, n, status, says) in cases {
        let (name, text) = deep_input(kind, n);
        std::fs::write(dir.join(&name), text).unwrap();
        let mut args = vec![command.to_string(), name.clone()];
        if command == "compare" {
            let (next, text) = deep_input(kind, n + 1);
            std::fs::write(dir.join(&next), text).unwrap();
            args.push(next);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_agentpi"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
        if status == 2 {
            // The error names its place: FILE:LINE:COL.
            assert!(text.contains(&format!("{name}:1:")), "{args:?}: {text}");
        }
    }
}

/// A small address-space limit (200 MB, in KiB): every command starts under it (mimalloc's
/// arena and a 16 MiB stack fit), and the inputs below do not fit.
const SMALL_LIMIT_KIB: u64 = 200_000;

/// An input too big for the memory at hand is a clean error: the allocator's message and exit
/// status 3 (as `unknown`: the question was not answered within the resources given), never
/// Rust's abort ("memory allocation of N bytes failed", SIGABRT) — `compare` and `minimize`
/// have no bound of their own, and `lts` reads the whole source before its bound applies.
#[test]
fn running_out_of_memory_is_a_clean_error() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("limits");
    std::fs::create_dir_all(&dir).unwrap();
    // (command, input kind, size): a 46 MB .aut of 2 million states, a 4 MB .pi of a million
    // prefixes (measured: each took the process past 200 MB and aborted).
    let cases: &[(&str, &str, usize)] = &[
        ("compare", "chain", 2_000_000),
        ("minimize", "chain", 2_000_000),
        ("lts", "prefixes", 1_000_000),
    ];
    for &(command, kind, n) in cases {
        let (name, text) = deep_input(kind, n);
        std::fs::write(dir.join(&name), text).unwrap();
        let mut args = vec![command.to_string(), name.clone()];
        if command == "compare" {
            args.push(name.clone());
        }
        let out = agentpi_in(&dir, &args, "/dev/null", Some(SMALL_LIMIT_KIB));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("agentpi: out of memory: could not allocate "),
            "{args:?}: {err}"
        );
        assert!(!err.contains("memory allocation of"), "{args:?}: {err}");
        // A signal (the abort) leaves no exit code.
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
    }
}
