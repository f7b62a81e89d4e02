//! Bad and unusual inputs through the binary, as a newcomer meets them: directories, empty
//! files, files that are not UTF-8, a model where a state space was expected, `.aut` headers
//! that lie, 50,000 errors, a library with nothing to check. Each command's exit status,
//! stdout and stderr are pinned in one snapshot per group.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder the commands run in, with the bad files written into it: once per run, since
/// tests run in parallel and rewriting a file truncates it first (another test's command
/// read `latin1.pi` empty now and then).
fn fixtures() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(write_fixtures).clone()
}

fn write_fixtures() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("inputs");
    std::fs::create_dir_all(dir.join("folder.pi")).unwrap();
    std::fs::create_dir_all(dir.join("folder.aut")).unwrap();
    let files: [(&str, &[u8]); 12] = [
        ("latin1.trace", b"c2s(stray_res)\n# caf\xe9\n"),
        ("latin1.json", b"{\"name\": \"caf\xe9\"}\n"),
        ("empty.pi", b""),
        ("empty.json", b""),
        ("empty.aut", b""),
        ("latin1.pi", b"// caf\xe9\nchan c\nsystem S = c! | c?\n"),
        ("latin1.aut", b"des (0, 1, 2)\n(0, \"caf\xe9\", 1)\n"),
        ("short.aut", b"des (0, 3, 2)\n(0, \"a\", 1)\n\n"),
        (
            "huge_header.aut",
            b"des (0, 1, 4000000000)\n(0, \"a\", 1)\n",
        ),
        (
            "sparse.aut",
            b"des (0, 1, 4000000000)\n(0, \"a\", 3999999999)\n",
        ),
        (
            "unreachable.aut",
            b"des (0, 2, 4)\n(0, \"a\", 1)\n(2, \"b\", 3)\n",
        ),
        (
            "model.pi",
            b"chan c\nsystem Ping = c! | c?\nsystem Pong = c! | c?\n",
        ),
    ];
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let errors = format!("proc P = {}0\n", "a!. ".repeat(50_000));
    std::fs::write(dir.join("errors.pi"), errors).unwrap();
    dir
}

/// Runs `agentpi ARGS` in the fixtures folder and renders what a user would see.
fn run(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    format!(
        "$ agentpi {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs every command and pins the output in one snapshot named `name`.
fn check(name: &str, commands: &[&[&str]]) {
    let dir = fixtures();
    let text: Vec<String> = commands.iter().map(|args| run(&dir, args)).collect();
    insta::with_settings!({snapshot_path => "inputs", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text.join("\n"));
    });
}

#[test]
fn model_files_that_are_not_models() {
    check(
        "model_files",
        &[
            &["check", "folder.pi"],
            &["check", "latin1.pi"],
            &["check", "missing.pi"],
            &["check", "empty.pi"],
            &["lts", "folder.pi"],
            &["sim", "latin1.pi"],
        ],
    );
}

/// The first errors and a count of the rest, whatever their number.
#[test]
fn fifty_thousand_errors_show_the_first_twenty() {
    let out = run(&fixtures(), &["check", "errors.pi"]);
    assert_eq!(out.matches("error[E0201]").count(), 20, "{out}");
    assert!(
        out.ends_with("... and 49980 more errors not shown\nerrors.pi: 50000 errors found; nothing was checked\n"),
        "{}",
        &out[out.len().saturating_sub(300)..]
    );
    // Each snippet is cut around its caret: the output does not grow with the line.
    assert!(out.len() < 20 * 1024, "{} bytes", out.len());
}

/// Every command that reads a file names the place of its first byte that is not UTF-8.
#[test]
fn other_files_that_are_not_utf8_name_their_first_bad_byte() {
    check(
        "not_utf8",
        &[
            &["replay", "mcp/legacy:Monitor", "latin1.trace"],
            &["replay", "mcp/legacy:Monitor", "folder.pi"],
            &[
                "compare",
                "model.pi:Ping",
                "model.pi:Pong",
                "--map",
                "latin1.trace",
            ],
            &["sgd", "model", "latin1.json", "Banks_1"],
            &["trace", "check", "latin1.trace"],
            &["lint", "latin1.json"],
        ],
    );
}

#[test]
fn a_library_has_nothing_to_check_and_warnings_are_not_errors() {
    check(
        "nothing_to_check",
        &[
            &["check", "mcp_basic"],
            &["check", "mcp_basic", "--format", "json"],
            &["check", "model.pi"],
        ],
    );
}

#[test]
fn state_space_inputs() {
    check(
        "state_spaces",
        &[
            &["minimize", "mcp_timeout:Mcp", "--no-time"],
            &["minimize", "model.pi:Pong", "--no-time"],
            &["lts", "model.pi:Pong"],
            &["lts", "calculator:Calc", "--format", "dot"],
            &["compare", "model.pi:Ping", "model.pi:Pong"],
            &["minimize", "model.pi"],
            &["minimize", "mcp_timeout"],
            &["minimize", "mcp_timeout:Nope"],
            &["compare", "folder.aut", "short.aut"],
            &["minimize", "empty.aut"],
            &["minimize", "short.aut"],
            &["minimize", "latin1.aut"],
            &["minimize", "huge_header.aut", "--no-time"],
            &["minimize", "sparse.aut"],
            &[
                "minimize",
                "unreachable.aut",
                "--no-time",
                "--format",
                "json",
            ],
        ],
    );
}

#[test]
fn lint_inputs() {
    check(
        "lint_inputs",
        &[
            &["lint", "empty.json"],
            &["lint", "folder.pi"],
            &["lint", "latin1.pi"],
        ],
    );
}

#[test]
fn models_lists_every_bundled_model() {
    let dir = fixtures();
    let listing = run(&dir, &["models"]);
    insta::with_settings!({snapshot_path => "inputs", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("models", listing);
    });
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if !path.is_dir() {
            names.push(stem);
            continue;
        }
        // A folder of models (models/paper/): each `.pi` in it is bundled as `folder/name`.
        for inner in std::fs::read_dir(&path).unwrap() {
            let inner = inner.unwrap().path();
            if inner.extension().is_some_and(|e| e == "pi") {
                let name = inner.file_stem().unwrap().to_string_lossy();
                names.push(format!("{stem}/{name}"));
            }
        }
    }
    for name in names {
        assert!(
            listing.contains(&format!("\n{name} ")),
            "{name} is not listed"
        );
    }
}

/// Every command's help says what its exit statuses mean.
#[test]
fn every_help_gives_the_exit_statuses() {
    let dir = fixtures();
    let help = run(&dir, &["help"]);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 7, "{help}");
    for command in commands {
        let text = run(&dir, &[command, "--help"]);
        assert!(text.contains("Exit status: 0 "), "{command}:\n{text}");
    }
}
