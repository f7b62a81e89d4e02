//! `agentpi lts` and `agentpi sim` through the binary, with their output pinned.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `agentpi` from the repository root with `stdin`; returns status and standard output.
fn agentpi(args: &[&str], stdin: &str) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn lts_writes_the_state_space_as_aut() {
    let (status, aut) = agentpi(&["lts", "models/calculator.pi"], "");
    assert_eq!(status, 0);
    insta::assert_snapshot!(aut);
}

#[test]
fn lts_hides_restricted_channels_unless_asked() {
    let (_, hidden) = agentpi(&["lts", "models/crash_no_timeout.pi"], "");
    let (_, shown) = agentpi(
        &["lts", "models/crash_no_timeout.pi", "--keep-restricted"],
        "",
    );
    assert!(!hidden.contains("reply(ok(1))"), "{hidden}");
    assert!(shown.contains("\"reply(ok(1))\""), "{shown}");
}

#[test]
fn lts_writes_dot() {
    let (status, dot) = agentpi(&["lts", "models/calculator.pi", "--format", "dot"], "");
    assert_eq!(status, 0);
    assert!(dot.starts_with("digraph"), "{dot}");
}

#[test]
fn lts_needs_a_system_when_there_are_several() {
    let (status, _) = agentpi(&["lts", "models/tool_calls.pi"], "");
    assert_eq!(status, 2);
}

#[test]
fn random_simulation_is_reproducible() {
    let args = [
        "sim",
        "models/crash_with_timeout.pi",
        "--random",
        "--seed",
        "7",
        "--steps",
        "20",
    ];
    let (status, first) = agentpi(&args, "");
    let (_, second) = agentpi(&args, "");
    assert_eq!(status, 0);
    assert_eq!(first, second);
    insta::assert_snapshot!(first);
}

#[test]
fn interactive_simulation_steps_and_goes_back() {
    let (status, out) = agentpi(&["sim", "models/crash_no_timeout.pi"], "1\n2\nb\nx\nq\n");
    assert_eq!(status, 0);
    insta::assert_snapshot!(out);
}
