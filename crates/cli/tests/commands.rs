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
fn sim_and_lts_take_model_colon_system_as_compare_does() {
    for command in ["sim", "lts"] {
        let colon = agentpi(
            &[command, "tool_calls:Sequential", "--random"][..2 + usize::from(command == "sim")],
            "",
        );
        let flag = agentpi(
            &[command, "tool_calls", "--system", "Sequential", "--random"]
                [..4 + usize::from(command == "sim")],
            "",
        );
        assert_eq!(colon.0, 0, "{command}");
        assert_eq!(colon, flag, "{command}");
    }
}

#[test]
fn interactive_simulation_steps_and_goes_back() {
    let (status, out) = agentpi(&["sim", "models/crash_no_timeout.pi"], "1\n2\nb\nx\nq\n");
    assert_eq!(status, 0);
    insta::assert_snapshot!(out);
}

#[test]
fn compare_takes_systems_of_a_model() {
    let spec = "models/tool_calls.pi:Sequential";
    let (status, out) = agentpi(
        &[
            "compare",
            spec,
            "models/tool_calls.pi:Concurrent",
            "--equiv",
            "trace",
        ],
        "",
    );
    assert_eq!(status, 1, "{out}");
    // The shortest difference: the concurrent version reads twice before it writes.
    assert!(
        out.contains("cannot perform `read(me)` after [read(me)]"),
        "{out}"
    );
    let serialized = "models/tool_calls.pi:Serialized";
    let hide = ["--hide", "acquire", "--hide", "release"];
    let (status, out) = agentpi(
        &[
            &["compare", spec, serialized, "--equiv", "trace"][..],
            &hide,
        ]
        .concat(),
        "",
    );
    assert_eq!(status, 0, "{out}");
}

#[test]
fn compare_reports_a_missing_system() {
    let (status, _) = agentpi(
        &[
            "compare",
            "models/tool_calls.pi:Nope",
            "models/tool_calls.pi:Sequential",
        ],
        "",
    );
    assert_eq!(status, 2);
}

/// A reader that stops early (`| head`) closes standard output: one line on standard error and
/// status 2, never a panic. The run prints 80 KB, more than a pipe holds, so the writes fail
/// whatever the timing.
#[test]
fn closed_standard_output_is_reported_not_a_panic() {
    let model = Path::new(env!("CARGO_TARGET_TMPDIR")).join("four_loops.pi");
    let loops = ["a", "b", "c", "d"].map(|e| {
        let body = [e; 9].join(" . ");
        format!("event {e}\nproc P{e} = {body} . P{e}\n")
    });
    std::fs::write(
        &model,
        format!("{}system S = Pa | Pb | Pc | Pd\n", loops.concat()),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(["sim", "--random", "--steps", "10000"])
        .arg(&model)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: cannot write to standard output:"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
