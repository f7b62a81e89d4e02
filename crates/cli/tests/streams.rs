//! No output failure panics or aborts: every command and format is run with standard output,
//! standard error or both on `/dev/full` (every write fails) and on a pipe whose reader has
//! gone (`| head`). A failed standard output is one line on standard error and status 2; a
//! failed standard error changes nothing (there is nowhere left to say so).

use crate::support::repo;
use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};

/// Every command, in every output format, with the status it exits with when all goes well.
fn commands() -> Vec<(Vec<&'static str>, i32)> {
    let aut = "crates/cli/tests/compare/a_tau_b_b.aut";
    let lint = "crates/cli/tests/lint/inputs/banking_broken.json";
    let runs: Vec<(&str, i32)> = vec![
        ("check models/crash_no_timeout.pi", 1),
        ("check models/crash_no_timeout.pi --format json", 1),
        ("check mcp_basic", 0),
        ("lts models/calculator.pi", 0),
        ("lts models/calculator.pi --format dot", 0),
        ("sim models/crash_no_timeout.pi --random", 1),
        ("sim models/calculator.pi", 0),
        ("compare AUT models/tool_calls.pi:Sequential", 1),
        ("compare AUT AUT --format json", 0),
        ("minimize AUT --equiv branching", 0),
        ("minimize AUT --format json", 0),
        ("lint LINT", 1),
        ("lint LINT --format json", 1),
        ("lint LINT --format sarif", 1),
        ("lint LINT --suggest", 0),
        ("lint --explain P101", 0),
        ("models", 0),
        ("--help", 0),
        ("--version", 0),
        ("check --help", 0),
    ];
    runs.into_iter()
        .map(|(line, status)| {
            let args = line
                .split(' ')
                .map(|a| match a {
                    "AUT" => aut,
                    "LINT" => lint,
                    other => other,
                })
                .collect();
            (args, status)
        })
        .collect()
}

/// Where a stream goes.
#[derive(Clone, Copy, Debug)]
enum Sink {
    /// Captured, to be read.
    Read,
    /// `/dev/full`: every write fails with "no space left on device".
    Full,
    /// A pipe whose reader has gone: every write fails with "broken pipe".
    Gone,
}

struct Run {
    status: Option<i32>,
    stderr: String,
}

fn run(args: &[&str], out: Sink, err: Sink) -> Run {
    let stdio = |sink| match sink {
        Sink::Read | Sink::Gone => Stdio::piped(),
        Sink::Full => Stdio::from(File::options().write(true).open("/dev/full").unwrap()),
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(stdio(out))
        .stderr(stdio(err))
        .spawn()
        .unwrap();
    // The interactive `sim` quits at the first prompt; the rest ignore standard input.
    drop(child.stdin.take());
    if let Sink::Gone = out {
        drop(child.stdout.take());
    }
    if let Sink::Gone = err {
        drop(child.stderr.take());
    }
    let output = child.wait_with_output().unwrap();
    Run {
        status: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The status and standard error of `args` with `out` and `err` as the streams.
fn check(args: &[&str], out: Sink, err: Sink, expected: i32) {
    let run = run(args, out, err);
    let what = format!(
        "agentpi {} with stdout {out:?}, stderr {err:?}",
        args.join(" ")
    );
    assert_eq!(run.status, Some(expected), "{what}\n{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{what}\n{}", run.stderr);
    if let (Sink::Full, Sink::Read) = (out, err) {
        assert!(
            run.stderr.ends_with(
                "error: cannot write to standard output: No space left on device (os error 28)\n"
            ),
            "{what}\n{}",
            run.stderr
        );
    }
}

#[test]
fn a_full_standard_output_is_status_2_and_one_line() {
    for (args, _) in commands() {
        check(&args, Sink::Full, Sink::Read, 2);
    }
}

#[test]
fn a_failed_standard_error_changes_nothing() {
    for (args, status) in commands() {
        check(&args, Sink::Read, Sink::Full, status);
        check(&args, Sink::Read, Sink::Gone, status);
    }
}

/// `agentpi check model.pi 2>&1 | head -1`: both streams fail. This aborted (status 134) when
/// the panic that `print!` raised could not be reported either.
#[test]
fn both_streams_failing_is_status_2() {
    for (args, _) in commands() {
        check(&args, Sink::Full, Sink::Full, 2);
        check(&args, Sink::Full, Sink::Gone, 2);
    }
}

/// Input errors are reported on standard error; when that fails too, the status still says so.
#[test]
fn input_errors_keep_their_status_whatever_the_streams() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("streams");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("typo.pi");
    std::fs::write(&bad, "chan c : Nat\nsystem S = c!1\n").unwrap();
    let bad = bad.to_str().unwrap();
    for args in [
        vec!["check", bad],
        vec!["lts", bad],
        vec!["minimize", "nope.aut"],
    ] {
        for err in [Sink::Read, Sink::Full, Sink::Gone] {
            check(&args, Sink::Read, err, 2);
        }
    }
    for err in [Sink::Read, Sink::Full, Sink::Gone] {
        check(&["check", "--no-such-flag"], Sink::Read, err, 2);
    }
}
