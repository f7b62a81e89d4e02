//! End-to-end tests of `agentpi lint`: the binary runs on fixture files (among them one per
//! rule of the catalogue, tests/lint/rules, each asserted to trigger exactly its rule), on
//! deliberately broken stdio servers (tests/lint/servers/raw_server.py), on the real servers
//! pinned in tests/peers (the npm reference servers, the PyPI servers fetch, git and time, a
//! FastMCP 2 server and a modern-era Python `mcp` server), installed by
//! scripts/install-peers.sh. Output and exit status are pinned as insta snapshots in
//! tests/lint/snapshots; the findings on the real servers are also pinned, each with a verdict,
//! in tests/lint/judged.json, from which the precision reported in docs/lint.md is computed.

use crate::cases::each_in_parallel;
use crate::support::{listening_on_any_port, repo};
use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// T901: each invalid `x-mcp-header` annotation is an error; the valid one is not reported.
#[test]
fn header_annotations() {
    let (code, stdout) = file("header_annotations.json", &[]);
    assert_eq!(code, 1);
    assert_eq!(stdout.matches("T901").count(), 4, "{stdout}");
    assert!(
        !stdout.contains("tool region_lookup: x-mcp-header"),
        "{stdout}"
    );
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
        "empty.json",
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
    assert_eq!(check("explain_GE05", INPUTS, &["--explain", "ge05"]).0, 0);
    assert_eq!(
        check("explain_unknown", INPUTS, &["--explain", "X123"]).0,
        2
    );
}

/// Every new rule on a real-world example (the sources are in each tool's comment in the
/// generator of the file and on the rules' explanation pages).
#[test]
fn real_world_examples_of_the_new_rules() {
    let args = [
        "--profile",
        "openai",
        "--profile",
        "gemini",
        "--profile",
        "anthropic",
    ];
    assert_eq!(file("real_world.json", &args).0, 1);
}

#[test]
fn mcp_plus_rules_on_request() {
    let (code, stdout) = file("real_world.json@mcp_plus", &["--mcp-plus"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("note[P002]: tool `get_weather` carries no MCP+ block"),
        "{stdout}"
    );
}

#[test]
fn byte_order_mark_and_deep_schemas_are_read() {
    let dir = scratch("lint-odd-json");
    let tool = r#"{"name": "t", "description": "Returns the nested fixture value.", "inputSchema": {"type": "object"}}"#;
    std::fs::write(
        dir.join("bom.json"),
        format!("\u{feff}{{\"tools\": [{tool}]}}"),
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.to_str().unwrap(), &["bom.json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1 tool: 0 errors"), "{stdout}");
    let deep_around = |keyword: &str, levels: usize, leaf: &str| {
        let open = format!(r#"{{"{keyword}": "#).repeat(levels);
        let close = "}".repeat(levels);
        format!(
            r#"{{"tools": [{{"name": "deep", "description": "A schema nested very deep, still valid.", "inputSchema": {{"type": "object", "properties": {{"x": {open}{leaf}{close}}}}}}}]}}"#
        )
    };
    let deep = |keyword: &str, levels: usize| deep_around(keyword, levels, "{}");
    let codes = |name: &str| {
        let (code, stdout, stderr) = run(dir.to_str().unwrap(), &["--format", "json", name]);
        assert_eq!(code, 0, "{stderr}");
        let report = json(&stdout);
        let codes: Vec<String> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect();
        codes
    };
    // 990 levels of `items` inside the document's 6: near the deepest the linter reads
    // (`lint::json::MAX_DEPTH`, sized to its 16 MiB stack).
    std::fs::write(dir.join("deep.json"), deep("items", 990)).unwrap();
    // Valid, so no T203; `x` is undescribed (P104).
    assert_eq!(codes("deep.json"), ["P002", "P201", "P104"]);
    // Nested `not`s cost the validator, to compile, their depth times what they hold (T208).
    let values: Vec<String> = (0..3_000).map(|i| i.to_string()).collect();
    let wide = format!(r#"{{"enum": [{}]}}"#, values.join(", "));
    std::fs::write(dir.join("not.json"), deep_around("not", 990, &wide)).unwrap();
    assert!(codes("not.json").contains(&"T208".to_string()));
    std::fs::write(dir.join("deeper.json"), deep("items", 2_000)).unwrap();
    let (code, _, stderr) = run(dir.to_str().unwrap(), &["deeper.json"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: deeper.json:1:") && stderr.contains("deeper than 1000 levels"),
        "{stderr}"
    );
}

/// `--save-listing` writes the live listing and findings point into it (FILE:LINE:COL); SARIF
/// results carry fingerprints that do not depend on the tool's position.
#[test]
fn saved_listing_locates_live_findings_and_sarif_fingerprints_them() {
    let dir = scratch("lint-save-listing");
    let saved = dir.join("listing.json");
    let script = repo().join(RAW);
    let (code, stdout, stderr) = run(
        dir.to_str().unwrap(),
        &[
            "--format",
            "sarif",
            "--save-listing",
            "listing.json",
            "--timeout",
            "60",
            "--",
            "python3",
            script.to_str().unwrap(),
            "banner",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.starts_with("{\n  \"tools\": ["), "{text}");
    let results = json(&stdout)["runs"][0]["results"].clone();
    for result in results.as_array().unwrap() {
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(
            location["artifactLocation"]["uri"], "listing.json",
            "{result}"
        );
        assert!(
            location["region"]["startLine"].as_u64().is_some(),
            "{result}"
        );
        let print = result["partialFingerprints"]["agentpiFinding/v1"]
            .as_str()
            .unwrap();
        assert_eq!(print.len(), 16, "{result}");
    }
}

/// Issue 30's findings on server-pdf's `interact` and excel-mcp-server's tools that were no
/// defects (inputs/false_positives.json holds those tools as the servers list them): P105 on
/// the keys of a JSON example and on quoted examples of data, P106 on `at`, a cell.
#[test]
fn false_positives_of_real_servers_are_gone() {
    let (_, stdout) = file("false_positives.json", &[]);
    for code in ["P105", "P106"] {
        assert!(!stdout.contains(&format!("[{code}]")), "{stdout}");
    }
}

/// A finding whose pointer names a member the tool lacks (P201 at `/tools/0/annotations`, on
/// server-pdf's `interact`) points at the tool in a saved listing: a line and a SARIF region.
#[test]
fn saved_listing_locates_findings_on_missing_members() {
    let dir = scratch("lint-save-listing-missing");
    let server = repo().join("crates/cli/tests/lint/servers/fixture_server.py");
    let fixture = repo().join(INPUTS).join("false_positives.json");
    let (_, stdout, stderr) = run(
        dir.to_str().unwrap(),
        &[
            "--format",
            "sarif",
            "--save-listing",
            "listing.json",
            "--timeout",
            "60",
            "--",
            "python3",
            server.to_str().unwrap(),
            fixture.to_str().unwrap(),
        ],
    );
    let results = json(&stdout)["runs"][0]["results"].clone();
    let p201 = results
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "P201")
        .unwrap_or_else(|| panic!("no P201: {stdout}{stderr}"));
    let region = &p201["locations"][0]["physicalLocation"]["region"];
    // Line 3 of the saved listing opens the first tool: `{`, `"tools": [`, `{`.
    assert_eq!(region["startLine"], 3, "{p201}");
    assert_eq!(region["startColumn"], 5, "{p201}");
}

#[test]
fn suggest_infers_mcp_plus_blocks() {
    assert_eq!(file("p1_p2_p4.json@suggest", &["--suggest"]).0, 0);
}

const RAW: &str = "crates/cli/tests/lint/servers/raw_server.py";

fn raw(mode: &str) -> (i32, String) {
    // `--timeout` bounds the whole connection, so servers that should be linted get room for a
    // slow start on a loaded machine; a server that exits at once must be seen to exit during
    // the 2 s probe; the silent one is meant to run out of time.
    let timeout = match mode {
        "silent" => "1",
        "notjson" => "5",
        "exits" => "10",
        _ => "20",
    };
    check(
        &format!("raw_{mode}"),
        ".",
        &["--timeout", timeout, "--", "python3", RAW, mode],
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
fn stdout_noise_can_be_made_an_error() {
    let (code, _) = check(
        "raw_banner_deny",
        ".",
        &[
            "--deny",
            "S201",
            "--timeout",
            "5",
            "--",
            "python3",
            RAW,
            "banner",
        ],
    );
    assert_eq!(code, 1);
    let (code, stdout, _) = run(".", &["--allow", "s201", "--", "python3", RAW, "banner"]);
    assert_eq!(code, 0);
    assert!(!stdout.contains("S201"), "{stdout}");
    assert_eq!(
        check(
            "deny_unknown_code",
            INPUTS,
            &["--deny", "X999", "banking_clean.json"]
        )
        .0,
        2
    );
}

/// A legacy server that never answers `server/discover` and refuses `initialize` sent 10 s or
/// more after the probe: the probe must be short, whatever --timeout is.
#[test]
fn legacy_server_silent_on_discover_is_probed_briefly() {
    let (code, stdout, stderr) = run(
        ".",
        &["--timeout", "20", "--", "python3", RAW, "nodiscover"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("(legacy era, 2025-11-25, 2 tools)"),
        "{stdout}"
    );
}

/// A modern-only stdio server that starts after the short probe gave up: it answers the probe
/// late and refuses `initialize` (-32022), and the client asks `server/discover` again.
#[test]
fn slow_modern_server_is_found_after_the_probe() {
    let (code, stdout, stderr) = run(
        ".",
        &["--timeout", "20", "--", "python3", RAW, "slowmodern"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("(modern era, 2026-07-28, 2 tools)"),
        "{stdout}"
    );
}

#[test]
fn broken_servers_exit_2_naming_the_request() {
    each_in_parallel(&["silent", "exits", "notjson"], |mode| {
        assert_eq!(raw(mode).0, 2, "{mode}");
    });
    let (code, _) = check("server_not_found", ".", &["--", "/nonexistent/mcp-server"]);
    assert_eq!(code, 2);
}

/// The real servers the precision of docs/lint.md is measured on: name and command line
/// (paths relative to the repository root; filesystem's directory and git's repository are
/// fixed so that the listing does not depend on the machine).
fn real_server(name: &str) -> Vec<String> {
    let bin = |tool: &str| peer(&format!("node_modules/.bin/{tool}"));
    let py = |tool: &str| peer(&format!(".venv/bin/{tool}"));
    let args: Vec<String> = match name {
        "everything" => vec![bin("mcp-server-everything")],
        "filesystem" => vec![bin("mcp-server-filesystem"), INPUTS.into()],
        "memory" => vec![bin("mcp-server-memory")],
        "sequential-thinking" => vec![bin("mcp-server-sequential-thinking")],
        "fetch" => vec![py("mcp-server-fetch")],
        "git" => vec![py("mcp-server-git"), "--repository".into(), ".".into()],
        "time" => vec![
            py("mcp-server-time"),
            "--local-timezone".into(),
            "UTC".into(),
        ],
        "fastmcp2" => vec![
            peer(".venv-fastmcp/bin/python"),
            "crates/cli/tests/lint/servers/fastmcp2_tasks.py".into(),
        ],
        other => panic!("no real server {other}"),
    };
    args
}

/// Seconds a real server gets to start and list its tools: Python servers import a lot, and
/// the tests may run on a loaded machine.
const REAL_TIMEOUT: &str = "120";

const REAL_SERVERS: [&str; 8] = [
    "everything",
    "filesystem",
    "memory",
    "sequential-thinking",
    "fetch",
    "git",
    "time",
    "fastmcp2",
];

/// The judged findings of tests/lint/judged.json: per server, `[{code, tool, pointer, fix,
/// why}]`.
fn judged() -> serde_json::Value {
    let text = std::fs::read_to_string(repo().join("crates/cli/tests/lint/judged.json")).unwrap();
    json(&text)
}

/// `(code, tool, pointer)` of each finding, in report order.
fn keys(findings: &serde_json::Value) -> Vec<(String, String, String)> {
    let field = |f: &serde_json::Value, k: &str| f[k].as_str().unwrap_or("").to_string();
    findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (field(f, "code"), field(f, "tool"), field(f, "pointer")))
        .collect()
}

/// Lints real server `name` as its author would (no options): pins the text report as a
/// snapshot and checks that the findings are exactly the judged ones.
fn lint_real_server(name: &str) {
    let command = real_server(name);
    let mut args = vec!["--timeout", REAL_TIMEOUT, "--"];
    args.extend(command.iter().map(String::as_str));
    check(&format!("real_{name}"), ".", &args);
    let mut json_args = vec!["--format", "json"];
    json_args.extend(&args);
    let (_, stdout, stderr) = run(".", &json_args);
    let found = keys(&json(&stdout)["findings"]);
    let expected = keys(&judged()[name]);
    assert_eq!(
        found, expected,
        "{name}: findings differ from judged.json\n{stderr}"
    );
}

#[test]
fn real_server_everything() {
    lint_real_server("everything");
}

#[test]
fn real_server_filesystem() {
    lint_real_server("filesystem");
}

#[test]
fn real_server_memory() {
    lint_real_server("memory");
}

#[test]
fn real_server_sequential_thinking() {
    lint_real_server("sequential-thinking");
}

#[test]
fn real_server_fetch() {
    lint_real_server("fetch");
}

#[test]
fn real_server_git() {
    lint_real_server("git");
}

#[test]
fn real_server_time() {
    lint_real_server("time");
}

#[test]
fn real_server_fastmcp2() {
    lint_real_server("fastmcp2");
}

/// The goal of docs/lint.md, on the judged findings of the real servers: at most one MCP+
/// adoption note (P002) per server, and at least 90% of the other default findings ones the
/// author would fix.
#[test]
fn precision_on_real_servers() {
    let judged = judged();
    let (mut fixed, mut total) = (0, 0);
    for name in REAL_SERVERS {
        let findings = judged[name].as_array().unwrap();
        let adoption = findings.iter().filter(|f| f["code"] == "P002").count();
        assert!(adoption <= 1, "{name}: {adoption} MCP+ adoption notes");
        for finding in findings.iter().filter(|f| f["code"] != "P002") {
            total += 1;
            fixed += usize::from(finding["fix"].as_bool().unwrap());
            assert!(
                finding["why"].is_string(),
                "{name}: a verdict without a reason"
            );
        }
    }
    assert!(
        fixed * 10 >= total * 9,
        "precision {fixed}/{total} is under 90%"
    );
}

/// The provider profiles on the real servers: what OpenAI, Gemini and Anthropic would refuse.
#[test]
fn real_servers_under_provider_profiles() {
    for name in ["sequential-thinking", "fetch", "fastmcp2"] {
        let command = real_server(name);
        let mut args = vec![
            "--timeout",
            REAL_TIMEOUT,
            "--profile",
            "openai",
            "--profile",
            "gemini",
            "--profile",
            "anthropic",
            "--",
        ];
        args.extend(command.iter().map(String::as_str));
        check(&format!("real_{name}_profiles"), ".", &args);
    }
}

#[test]
fn modern_python_server() {
    let python = peer(".venv/bin/python");
    let (_, stdout) = check(
        "server_modern_python",
        ".",
        &[
            "--timeout",
            REAL_TIMEOUT,
            "--",
            &python,
            "crates/cli/tests/lint/servers/modern_py.py",
        ],
    );
    assert!(stdout.contains("modern era, 2026-07-28"), "{stdout}");
}

/// Starts `command` (which listens on the port given by `port_arg`), waits until the port
/// accepts connections, lints it with `--url`, and checks that the report equals the one over
/// stdio (`stdio`), apart from the header line that names the origin.
fn same_over_http(command: &[String], env_port: bool, stdio: &[String]) {
    let mut server = Command::new(repo().join(&command[0]));
    server
        .args(&command[1..])
        .current_dir(repo())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Any free port: the one the server got is read back once it listens.
    if env_port {
        server.env("PORT", "0");
    } else {
        server.arg("0");
    }
    let (_server, port) = listening_on_any_port(server.spawn().unwrap());
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, over_http, stderr) = run(".", &["--timeout", REAL_TIMEOUT, "--url", &url]);
    assert_eq!(code, 0, "{stderr}");
    let mut args = vec!["--timeout", REAL_TIMEOUT, "--"];
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

/// A TCP port that accepts connections but never speaks HTTP (a stdio server behind a socket,
/// or the wrong port): the error names the request and suggests stdio.
#[test]
fn http_port_that_never_answers_gets_a_hint() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let done = Arc::new(AtomicBool::new(false));
    let finished = Arc::clone(&done);
    // Accepts and keeps every connection, answering nothing, until the test is done.
    let held = std::thread::spawn(move || {
        let mut kept = Vec::new();
        for stream in listener.incoming() {
            if finished.load(Ordering::SeqCst) {
                break;
            }
            kept.push(stream);
        }
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, _, stderr) = run(".", &["--timeout", "1", "--url", &url]);
    done.store(true, Ordering::SeqCst);
    let _ = std::net::TcpStream::connect(("127.0.0.1", port));
    held.join().unwrap();
    assert_eq!(code, 2);
    assert!(stderr.contains("did not answer"), "{stderr}");
    assert!(stderr.contains("stdio server"), "{stderr}");
}

/// `http://[::1]:PORT` names an IPv6 loopback address (brackets, RFC 3986).
#[test]
fn streamable_http_over_ipv6_loopback() {
    drop(TcpListener::bind("[::1]:0").expect("this test needs IPv6 loopback"));
    let server = peer("node_modules/.bin/mcp-server-everything");
    let mut child = Command::new(repo().join(&server));
    child
        .arg("streamableHttp")
        .env("PORT", "0")
        .current_dir(repo())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Node listens on `::`, both families: the port it got, on the IPv6 loopback.
    let (_server, port) = listening_on_any_port(child.spawn().unwrap());
    let url = format!("http://[::1]:{port}/mcp");
    let (code, stdout, stderr) = run(".", &["--url", &url]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("legacy era, 2025-11-25, 13 tools"),
        "{stdout}"
    );
}

/// The fixtures of tests/lint/rules: one per rule of the catalogue, `CODE.json` (a tools/list
/// result) or `CODE.jsonl` (a recorded session, whose first line holds the fields below), built
/// to trigger that rule alone. Fields: `why` (what is wrong, one line), `args` (flags the rule
/// needs: a profile, `--config` with a sidecar `.toml`), `also` (rules that cannot be kept from
/// firing with it, each with the reason), `serve` (linted live through
/// servers/fixture_server.py: a banner on stdout, a cursor loop).
const RULE_FIXTURES: &str = "crates/cli/tests/lint/rules";

/// Fixtures too large to commit, written by the test: their fields and their `tools` array as
/// JSON text. OA02 needs 129 tools, T208 a schema that nests `not` 990 deep around an `enum` of
/// 6,000 values (built as text:
/// `serde_json` reads and drops such a value recursively).
fn generated_fixture(code: &str) -> Option<(serde_json::Value, String)> {
    let stock = "a stock MCP server (no MCP+ block): one adoption note for the whole server";
    match code {
        "OA02" => {
            let tool = |i: usize| {
                serde_json::json!({
                    "name": format!("get_metric_{i}"),
                    "description": format!("Returns today's value of metric {i}."),
                    "inputSchema": {"type": "object"},
                    "annotations": {"readOnlyHint": true, "openWorldHint": false}
                })
            };
            let tools: Vec<_> = (0..129).map(tool).collect();
            let fields = serde_json::json!({
                "why": "129 tools, one more than OpenAI accepts in a request",
                "args": ["--profile", "openai"], "also": {"P002": stock}
            });
            Some((fields, serde_json::Value::from(tools).to_string()))
        }
        "T208" => {
            // Under the linter's 1,000 levels of nesting: 990 `not`s around a wide `enum`.
            let values: Vec<String> = (0..6_000).map(|i| i.to_string()).collect();
            let filter = format!(
                r#"{{"description": "A filter that no validator can compile.", "not": {}{{"enum": [{}]}}{}}}"#,
                r#"{"not": "#.repeat(989),
                values.join(", "),
                "}".repeat(989)
            );
            let tool = serde_json::json!({
                "name": "filter_rows",
                "description": "Returns the rows of the table that the filter accepts.",
                "inputSchema": {"type": "object", "properties": {"filter": "FILTER"}},
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            });
            let tools = format!("[{tool}]").replace(r#""FILTER""#, &filter);
            let fields = serde_json::json!({
                "why": "`not` nested 990 deep around 6,000 values: compiling it would copy millions of values",
                "also": {
                    "P002": stock,
                    "P405": "T208 needs nested `not`s around many values, which cost over the default budget of 10,000 tokens"
                }
            });
            Some((fields, tools))
        }
        _ => None,
    }
}

/// Where rule `code`'s fixture is: the directory to run in, the file name, and its fields.
fn rule_fixture(code: &str) -> Result<(PathBuf, String, serde_json::Value), String> {
    let dir = repo().join(RULE_FIXTURES);
    let committed: Vec<String> = [format!("{code}.json"), format!("{code}.jsonl")]
        .into_iter()
        .filter(|name| dir.join(name).exists())
        .collect();
    match (committed.as_slice(), generated_fixture(code)) {
        ([name], None) => {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let head = if name.ends_with(".jsonl") {
                text.lines().next().unwrap_or("")
            } else {
                &text
            };
            let fields = serde_json::from_str(head).map_err(|e| format!("{name}: {e}"))?;
            Ok((dir, name.clone(), fields))
        }
        ([], Some((fields, tools))) => {
            let scratch = scratch(&format!("lint-rule-{code}"));
            let name = format!("{code}.json");
            let head = fields.to_string();
            let text = format!("{},\"tools\": {tools}}}", &head[..head.len() - 1]);
            std::fs::write(scratch.join(&name), text).unwrap();
            Ok((scratch, name, fields))
        }
        ([], None) => Err("no fixture".into()),
        _ => Err("more than one fixture".into()),
    }
}

/// The codes rule `code`'s fixture must trigger: the rule and its `also` list, each of which
/// needs a reason.
fn expected_codes(code: &str, fields: &serde_json::Value) -> Result<BTreeSet<String>, String> {
    let why = fields["why"].as_str().unwrap_or("");
    if why.trim().is_empty() {
        return Err("no `why` saying what is wrong".into());
    }
    let mut codes = BTreeSet::from([code.to_string()]);
    let none = serde_json::Map::new();
    let also = fields.get("also").map_or(Some(&none), |a| a.as_object());
    for (other, reason) in also.ok_or("`also` is not an object")? {
        if other == code || reason.as_str().is_none_or(|r| r.trim().is_empty()) {
            return Err(format!("`also` {other} needs a reason and another code"));
        }
        codes.insert(other.clone());
    }
    Ok(codes)
}

/// Lints rule `code`'s fixture with its flags and compares the set of codes found with the
/// expected one.
fn check_rule(code: &str) -> Result<(), String> {
    let (dir, name, fields) = rule_fixture(code)?;
    let expected = expected_codes(code, &fields)?;
    let mut args: Vec<String> = fields["args"].as_array().map_or_else(Vec::new, |a| {
        a.iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    });
    args.extend(["--format".into(), "json".into()]);
    if fields.get("serve").is_some() {
        let server = repo().join("crates/cli/tests/lint/servers/fixture_server.py");
        let live = ["--timeout", "60", "--", "python3", server.to_str().unwrap()];
        args.extend(live.map(str::to_owned));
    }
    args.push(name);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_, stdout, stderr) = run(dir.to_str().unwrap(), &args);
    let report: serde_json::Value =
        serde_json::from_str(&stdout).map_err(|e| format!("{e}: {stderr}"))?;
    let found: BTreeSet<String> = keys(&report["findings"])
        .into_iter()
        .map(|(code, _, _)| code)
        .collect();
    if found == expected {
        return Ok(());
    }
    Err(format!("found {found:?}, expected {expected:?}"))
}

/// Every rule of the catalogue has a fixture that triggers exactly that rule (and its `also`
/// list), so no rule ships untested and no rule's test passes on another rule's finding.
#[test]
fn every_rule_has_a_fixture_that_triggers_exactly_it() {
    let codes: Vec<&str> = agentpi_mcp::lint::rules::RULES
        .iter()
        .map(|rule| rule.code)
        .collect();
    let failures = std::sync::Mutex::new(Vec::new());
    each_in_parallel(&codes, |code| {
        if let Err(why) = check_rule(code) {
            failures.lock().unwrap().push(format!("{code}: {why}"));
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every file of tests/lint/rules is the fixture of a rule of the catalogue, or the config
/// sidecar a fixture names.
#[test]
fn every_rule_fixture_belongs_to_a_rule() {
    let dir = repo().join(RULE_FIXTURES);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let (code, extension) = name.split_once('.').unwrap_or((&name, ""));
        assert!(
            agentpi_mcp::lint::rules::find(code).is_some(),
            "{name}: no rule {code}"
        );
        if extension == "toml" {
            let fixture = std::fs::read_to_string(dir.join(format!("{code}.json"))).unwrap();
            assert!(
                fixture.contains(&format!("\"{name}\"")),
                "{name}: no fixture names it"
            );
        } else {
            assert!(
                matches!(extension, "json" | "jsonl"),
                "{name}: not a fixture"
            );
        }
    }
}
