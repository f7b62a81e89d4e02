//! End-to-end tests of `agentpi lint`: the binary runs on fixture files, on deliberately broken
//! stdio servers (tests/lint/servers/raw_server.py), and on the real reference servers from npm
//! and a modern-era Python `mcp` server, installed by scripts/install-peers.sh. Output and exit
//! status are pinned as insta snapshots in tests/lint/snapshots.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Runs `agentpi lint ARGS` in `cwd` (relative to the repository root).
fn run(cwd: &str, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .arg("lint")
        .args(args)
        .current_dir(repo().join(cwd))
        .output()
        .unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// Runs the linter and pins exit status, stdout and stderr as snapshot `name`.
fn check(name: &str, cwd: &str, args: &[&str]) -> (i32, String) {
    let (code, stdout, stderr) = run(cwd, args);
    let shown = format!(
        "args: {}\nexit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        args.join(" ")
    );
    insta::with_settings!({ snapshot_path => "lint/snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, shown);
    });
    (code, stdout)
}

const INPUTS: &str = "crates/cli/tests/lint/inputs";

fn file(name: &str, args: &[&str]) -> (i32, String) {
    let mut all = args.to_vec();
    let input = name.split('@').next().unwrap();
    all.push(input);
    check(
        &format!("file_{}", name.replace(['.', '@'], "_")),
        INPUTS,
        &all,
    )
}

/// A peer installed by scripts/install-peers.sh, or a failing test saying how to install it.
fn peer(path: &str) -> String {
    let full = repo().join("tests/peers").join(path);
    assert!(
        full.exists(),
        "{} is missing: run `bash scripts/install-peers.sh` first",
        full.display()
    );
    format!("tests/peers/{path}")
}

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap()
}

#[test]
fn clean_banking_tools_have_no_findings() {
    let (code, stdout) = file("banking_clean.json", &[]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("3 tools: 0 errors, 0 warnings, 0 notes"),
        "{stdout}"
    );
}

#[test]
fn broken_banking_tools_break_each_principle_once() {
    let (code, stdout) = file("banking_broken.json", &[]);
    assert_eq!(code, 1);
    let (_, stdout_json, _) = run(INPUTS, &["--format", "json", "banking_broken.json"]);
    let report = json(&stdout_json);
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    let mut principles: Vec<char> = codes.iter().map(|c| c.chars().nth(1).unwrap()).collect();
    principles.sort_unstable();
    assert_eq!(principles, ['1', '2', '3', '4', '5'], "{codes:?}\n{stdout}");
}

#[test]
fn specification_rules() {
    assert_eq!(file("spec_bad.json", &[]).0, 1);
}

#[test]
fn mcp_plus_rules() {
    assert_eq!(file("mcp_plus_rules.json", &[]).0, 1);
}

#[test]
fn description_and_parameter_heuristics() {
    assert_eq!(file("p1_p2_p4.json", &[]).0, 0);
}

#[test]
fn recorded_session_with_pages_and_structured_results() {
    assert_eq!(file("session.jsonl", &[]).0, 1);
}

#[test]
fn provider_profiles() {
    for profile in ["openai", "gemini", "anthropic"] {
        assert_eq!(
            file(&format!("profiles.json@{profile}"), &["--profile", profile]).0,
            1
        );
    }
}

#[test]
fn openai_tool_count_limit() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint-many-tools");
    std::fs::create_dir_all(&dir).unwrap();
    let tool = |i: usize| serde_json::json!({"name": format!("tool_{i}"), "inputSchema": {"type": "object"}});
    let tools: Vec<_> = (0..129).map(tool).collect();
    std::fs::write(
        dir.join("many.json"),
        serde_json::json!({ "tools": tools }).to_string(),
    )
    .unwrap();
    let (code, stdout, _) = run(dir.to_str().unwrap(), &["--profile", "openai", "many.json"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("error[OA02]: the server lists 129 tools"),
        "{stdout}"
    );
    let (_, stdout, _) = run(dir.to_str().unwrap(), &["many.json"]);
    assert!(!stdout.contains("OA02"), "{stdout}");
}

#[test]
fn json_format() {
    file("banking_broken.json@json", &["--format", "json"]);
}

#[test]
fn sarif_format_references_the_rule_catalogue() {
    let (_, stdout) = file("banking_broken.json@sarif", &["--format", "sarif"]);
    let sarif = json(&stdout);
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
}

#[test]
fn unreadable_inputs_exit_2_with_a_position() {
    for name in [
        "not_json.txt",
        "truncated.json",
        "wrong_shape.json",
        "tools_not_array.json",
        "number.json",
        "session_bad_line.jsonl",
        "session_no_listing.jsonl",
        "missing.json",
    ] {
        assert_eq!(file(name, &[]).0, 2, "{name}");
    }
    assert_eq!(check("nothing_to_lint", INPUTS, &[]).0, 2);
}

#[test]
fn config_disables_rules_and_changes_severity() {
    assert_eq!(
        file(
            "p1_p2_p4.json@strict",
            &["--config", "../configs/strict.toml"]
        )
        .0,
        1
    );
    for bad in ["unknown_code", "bad_level", "broken"] {
        let config = format!("../configs/{bad}.toml");
        assert_eq!(
            file(&format!("banking_clean.json@{bad}"), &["--config", &config]).0,
            2
        );
    }
}

#[test]
fn explain_prints_the_rule_page() {
    assert_eq!(check("explain_P202", INPUTS, &["--explain", "P202"]).0, 0);
    assert_eq!(
        check("explain_unknown", INPUTS, &["--explain", "X123"]).0,
        2
    );
}

#[test]
fn suggest_infers_mcp_plus_blocks() {
    assert_eq!(file("p1_p2_p4.json@suggest", &["--suggest"]).0, 0);
}

const RAW: &str = "crates/cli/tests/lint/servers/raw_server.py";

fn raw(mode: &str) -> (i32, String) {
    check(
        &format!("raw_{mode}"),
        ".",
        &["--timeout", "1", "--", "python3", RAW, mode],
    )
}

#[test]
fn server_with_banner_on_stdout_is_linted_and_reported() {
    assert_eq!(raw("banner").0, 0);
}

#[test]
fn paginated_listing_is_followed_and_cursor_loop_stopped() {
    assert!(raw("paged").1.contains("5 tools"));
    let (code, stdout) = raw("loop");
    assert_eq!(code, 1);
    assert!(stdout.contains("error[G301]"), "{stdout}");
}

#[test]
fn broken_servers_exit_2_naming_the_request() {
    for mode in ["silent", "exits", "notjson"] {
        assert_eq!(raw(mode).0, 2, "{mode}");
    }
    let (code, _) = check("server_not_found", ".", &["--", "/nonexistent/mcp-server"]);
    assert_eq!(code, 2);
}

#[test]
fn reference_server_everything() {
    let server = peer("node_modules/.bin/mcp-server-everything");
    check("server_everything", ".", &["--", &server]);
}

#[test]
fn reference_server_filesystem() {
    let server = peer("node_modules/.bin/mcp-server-filesystem");
    check(
        "server_filesystem",
        ".",
        &["--profile", "gemini", "--", &server, INPUTS],
    );
}

#[test]
fn reference_server_memory() {
    let server = peer("node_modules/.bin/mcp-server-memory");
    check("server_memory", ".", &["--", &server]);
}

#[test]
fn modern_python_server() {
    let python = peer(".venv/bin/python");
    let (_, stdout) = check(
        "server_modern_python",
        ".",
        &["--", &python, "crates/cli/tests/lint/servers/modern_py.py"],
    );
    assert!(stdout.contains("modern era, 2026-07-28"), "{stdout}");
}

/// A child process killed when the test ends, pass or fail.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command` (which listens on the port given by `port_arg`), waits until the port
/// accepts connections, lints it with `--url`, and checks that the report equals the one over
/// stdio (`stdio`), apart from the header line that names the origin.
fn same_over_http(command: &[String], env_port: bool, stdio: &[String]) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(repo().join(&command[0]));
    server
        .args(&command[1..])
        .current_dir(repo())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if env_port {
        server.env("PORT", port.to_string());
    } else {
        server.arg(port.to_string());
    }
    let _server = Server(server.spawn().unwrap());
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{command:?} did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, over_http, stderr) = run(".", &["--url", &url]);
    assert_eq!(code, 0, "{stderr}");
    let mut args = vec!["--"];
    args.extend(stdio.iter().map(String::as_str));
    let (_, over_stdio, _) = run(".", &args);
    let body = |text: &str| text.lines().skip(1).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        body(&over_http),
        body(&over_stdio),
        "HTTP and stdio reports differ"
    );
    let era = |text: &str| {
        text.lines()
            .next()
            .unwrap_or("")
            .split_once('(')
            .map(|(_, e)| e.to_string())
    };
    assert_eq!(era(&over_http), era(&over_stdio));
}

#[test]
fn streamable_http_legacy_server() {
    let server = peer("node_modules/.bin/mcp-server-everything");
    same_over_http(&[server.clone(), "streamableHttp".into()], true, &[server]);
}

#[test]
fn streamable_http_modern_server() {
    let python = peer(".venv/bin/python");
    let script = "crates/cli/tests/lint/servers/modern_py.py".to_string();
    same_over_http(
        &[python.clone(), script.clone(), "--http".into()],
        false,
        &[python, script],
    );
}

/// Every rule of the catalogue fires in at least one pinned snapshot (OA02, which needs 129
/// tools, is checked by `openai_tool_count_limit` instead), so no rule ships untested.
#[test]
fn every_rule_fires_in_some_snapshot() {
    let dir = repo().join("crates/cli/tests/lint/snapshots");
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().contains("sarif") {
            text.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    let untested: Vec<&str> = agentpi_mcp::lint::rules::RULES
        .iter()
        .map(|rule| rule.code)
        .filter(|code| *code != "OA02" && !text.contains(&format!("[{code}]")))
        .collect();
    assert!(untested.is_empty(), "rules without a test: {untested:?}");
}
