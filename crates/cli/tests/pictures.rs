//! The pictures: `--format svg` and `--format html` of `check`, `compare`, `trace check`,
//! `test` and `run`, and `agentpi view`. The SVG charts of bundled models' counterexamples are pinned
//! (snapshots) and byte-identical whatever the thread count; every page is loaded in headless
//! Chromium (Debian's `chromium`, which `.ci/run` installs), whose resulting DOM must hold
//! every step and every finding, the page's own end-of-script marker, and no console message.

use crate::support::repo;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `agentpi` from the repository root; returns status, standard output and error.
fn agentpi(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentpi-pictures-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The DOM of `page` after its scripts ran in headless Chromium, failing the test on any
/// console message (an uncaught error is one) or a missing end-of-script marker.
fn dom(page: &Path) -> String {
    dom_at(page, "")
}

/// [`dom`] of the page opened at `#fragment` (`#selftest`: the page hovers its steps).
fn dom_at(page: &Path, fragment: &str) -> String {
    let profile = scratch(&format!(
        "profile-{}",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--virtual-time-budget=10000", "--dump-dom"])
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .expect("headless Chromium (Debian package `chromium`) runs the page tests");
    let _ = std::fs::remove_dir_all(&profile);
    let err = String::from_utf8_lossy(&out.stderr);
    let console: Vec<&str> = err.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "{}: console said:\n{}",
        page.display(),
        console.join("\n")
    );
    let dom = String::from_utf8(out.stdout).unwrap();
    assert!(
        !dom.contains("id=\"agentpi-error\""),
        "{}: an error: {dom}",
        page.display()
    );
    assert!(
        dom.contains("id=\"agentpi-ready\""),
        "{}: the script did not finish",
        page.display()
    );
    dom
}

/// The value of `attr` on the page's ready marker.
fn ready(dom: &str, attr: &str) -> usize {
    let marker = dom.split("id=\"agentpi-ready\"").nth(1).unwrap();
    let value = marker.split(&format!("{attr}=\"")).nth(1).unwrap();
    value.split('"').next().unwrap().parse().unwrap()
}

/// Writes `text` to `dir/name` and returns the path.
fn save(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Bundled models with a deadlock, a fault, witnesses and many lifelines, and a lasso.
const MODELS: &[&str] = &[
    "philosophers",
    "crash_no_timeout",
    "orchestration_broken",
    "ring",
    "tool_calls",
    "crates/cli/tests/pictures/lasso.pi",
];

#[test]
fn svg_charts_of_bundled_counterexamples_are_pinned_and_deterministic() {
    for model in MODELS {
        let (status, svg, _) = agentpi(&["check", model, "--format", "svg", "--threads", "1"]);
        assert_eq!(status, 1, "{model}");
        let (_, again, _) = agentpi(&["check", model, "--format", "svg", "--threads", "2"]);
        assert_eq!(svg, again, "{model}: not the same bytes with 2 threads");
        let name = Path::new(model).file_stem().unwrap().to_string_lossy();
        insta::assert_snapshot!(format!("svg_{name}"), svg);
    }
}

/// Every check of every model has its row, every system explored its statistics, every step
/// of its trace is a step of the page, in Chromium; the page is the same whatever the threads.
#[test]
fn check_pages_hold_every_check_and_step_in_a_browser() {
    let dir = scratch("check");
    for model in MODELS {
        let (_, html, _) = agentpi(&["check", model, "--format", "html", "--threads", "1"]);
        let (_, again, _) = agentpi(&["check", model, "--format", "html", "--threads", "2"]);
        assert_eq!(html, again, "{model}: not the same page with 2 threads");
        let (_, json, _) = agentpi(&["check", model, "--format", "json"]);
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let checks = json["checks"].as_array().unwrap();
        let steps: usize = checks
            .iter()
            .map(|c| c["trace"].as_array().unwrap().len())
            .sum();
        let name = Path::new(model).file_stem().unwrap().to_string_lossy();
        let dom = dom_at(&save(&dir, &format!("{name}.html"), &html), "#selftest");
        assert_eq!(ready(&dom, "data-steps"), steps, "{model}");
        // Hovering each step of the list lights its arrow, and hovering the arrow the step.
        assert_eq!(ready(&dom, "data-lit"), steps, "{model}");
        assert_eq!(dom.matches("<li data-step=").count(), steps, "{model}");
        let rows = dom
            .split("class=\"t checks\"")
            .nth(1)
            .unwrap()
            .split("</table>")
            .next()
            .unwrap();
        assert_eq!(rows.matches("<tr>").count(), checks.len() + 1, "{model}");
        statistics_of_each_system(&dom, checks, model);
    }
    // Kept when the test fails, for a look at the pages.
    let _ = std::fs::remove_dir_all(&dir);
}

/// The check page's statistics: a row per system explored, in the order the checks name
/// them, with its checks and the size the JSON gives.
fn statistics_of_each_system(dom: &str, checks: &[serde_json::Value], model: &str) {
    let mut systems: Vec<(&str, usize, &serde_json::Value)> = Vec::new();
    for c in checks {
        let name = c["system"].as_str().unwrap();
        match systems.iter_mut().find(|(s, _, _)| *s == name) {
            Some(row) => row.1 += 1,
            None => systems.push((name, 1, c)),
        }
    }
    let table = dom
        .split("class=\"t statistics\"")
        .nth(1)
        .unwrap_or_else(|| panic!("{model}: no statistics"))
        .split("</table>")
        .next()
        .unwrap();
    let rows: Vec<&str> = table.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), systems.len(), "{model}: {table}");
    for (row, (name, count, check)) in rows.iter().zip(&systems) {
        let cells = format!(
            "<td>{name}</td><td>{count}</td><td>{}</td><td>{}</td>",
            check["states"], check["transitions"]
        );
        assert!(row.starts_with(&cells), "{model}: {row} is not {cells}");
    }
    // Each check drawn or explained says what it was decided on.
    let drawn = checks
        .iter()
        .filter(|c| !c["trace"].as_array().unwrap().is_empty())
        .count();
    assert!(dom.matches("decided on ").count() >= drawn, "{model}");
}

#[test]
fn compare_page_draws_the_evidence_in_a_browser() {
    let dir = scratch("compare");
    let args = [
        "compare",
        "tool_calls:Sequential",
        "tool_calls:Concurrent",
        "--equiv",
        "trace-eq",
    ];
    let (status, html, _) = agentpi(&[&args[..], &["--format", "html"]].concat());
    assert_eq!(status, 1);
    let (_, json, _) = agentpi(&[&args[..], &["--format", "json"]].concat());
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let steps = json["counterexample"]["steps"].as_array().unwrap().len();
    let dom = dom(&save(&dir, "compare.html", &html));
    assert_eq!(ready(&dom, "data-steps"), steps);
    assert!(dom.contains("not-equivalent"));
    // Kept when the test fails, for a look at the pages.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn trace_pages_and_the_viewer_hold_every_finding_in_a_browser() {
    let dir = scratch("traces");
    let traces: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/tester"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert!(traces.len() >= 5);
    for trace in traces {
        let file = trace.to_str().unwrap();
        let name = trace.file_stem().unwrap().to_string_lossy().to_string();
        let (_, json, _) = agentpi(&["trace", "check", file, "--format", "json"]);
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        let found = report["violations"].as_array().unwrap().len();
        let (_, html, _) = agentpi(&["trace", "check", file, "--format", "html"]);
        let dom_of_check = dom(&save(&dir, &format!("{name}.check.html"), &html));
        assert_eq!(
            dom_of_check.matches("<div class=\"finding\">").count(),
            found,
            "{name}"
        );
        assert_eq!(ready(&dom_of_check, "data-charts"), found, "{name}");
        let page = dir.join(format!("{name}.view.html"));
        let (status, _, _) = agentpi(&["view", file, "-o", page.to_str().unwrap()]);
        assert_eq!(status, 0, "{name}");
        let events = std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count();
        let dom_of_view = dom(&page);
        assert_eq!(ready(&dom_of_view, "data-events"), events, "{name}");
        assert_eq!(ready(&dom_of_view, "data-findings"), found, "{name}");
    }
    // Kept when the test fails, for a look at the pages.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_viewer_draws_only_what_is_on_screen_of_a_flood() {
    let dir = scratch("flood");
    let mut text = String::new();
    let mut line = |dir: &str, raw: serde_json::Value| {
        text += &serde_json::json!({"dir": dir, "raw": raw.to_string()}).to_string();
        text.push('\n');
    };
    line(
        "c2s",
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}}),
    );
    line(
        "s2c",
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "flood", "version": "1"}}}),
    );
    line(
        "c2s",
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    for id in 1..49_999 {
        line(
            "c2s",
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
        );
        line(
            "s2c",
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        );
    }
    line(
        "s2c",
        serde_json::json!({"jsonrpc": "2.0", "id": 99_999_999, "result": {}}),
    );
    let trace = save(&dir, "flood.jsonl", &text);
    let page = dir.join("flood.html");
    let (status, _, err) = agentpi(&[
        "view",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("100000 events, 1 findings"), "{err}");
    let dom = dom(&page);
    assert_eq!(ready(&dom, "data-events"), 100_000);
    assert_eq!(ready(&dom, "data-findings"), 1);
    let rendered = ready(&dom, "data-rendered");
    assert!((1..200).contains(&rendered), "{rendered} rows drawn");
    assert_eq!(dom.matches("class=\"row ").count(), rendered);
    // Kept when the test fails, for a look at the pages.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn markup_from_input_is_shown_not_run() {
    let dir = scratch("inject");
    let evil =
        "<script>document.title='owned';console.log('owned')</script><img src=x onerror=alert(1)>";
    let rows = [
        serde_json::json!({"dir": "c2s", "raw": serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": evil}).to_string()}),
        serde_json::json!({"dir": "s2c", "raw": serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": evil}}).to_string()}),
    ];
    let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
    let trace = save(&dir, "evil.jsonl", &text);
    let (status, html, _) = agentpi(&[
        "trace",
        "check",
        trace.to_str().unwrap(),
        "--format",
        "html",
    ]);
    assert_eq!(status, 1);
    let page = dir.join("evil.view.html");
    agentpi(&[
        "view",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    let (_, svg, _) = agentpi(&["trace", "check", trace.to_str().unwrap(), "--format", "svg"]);
    let view = std::fs::read_to_string(&page).unwrap();
    for (name, text) in [("check", &html), ("view", &view), ("svg", &svg)] {
        assert!(
            !text.contains("<script>document"),
            "{name}: markup from input"
        );
        assert!(!text.contains("<img"), "{name}: markup from input");
    }
    let dom_of_check = dom(&save(&dir, "evil.check.html", &html));
    assert!(!dom_of_check.contains("<title>owned"));
    assert!(dom_of_check.contains("&lt;script&gt;document"));
    let dom_of_view = dom(&page);
    assert!(!dom_of_view.contains("<title>owned"));
    // Kept when the test fails, for a look at the pages.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn test_page_holds_every_rule_and_the_failure_in_a_browser() {
    let dir = scratch("test");
    let record = dir.join("record");
    let server = repo().join("tests/tester/broken.py");
    let args = |format: &'static str| {
        let record = record.to_str().unwrap().to_string();
        let server = server.to_str().unwrap().to_string();
        [
            "test",
            "--budget",
            "1",
            "--format",
            format,
            "--record",
            &record,
            "--",
            "python3",
            &server,
            "cursor_loop",
        ]
        .map(String::from)
    };
    let run = |format| {
        let args = args(format);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        agentpi(&args)
    };
    let (status, html, err) = run("html");
    assert_eq!(status, 1, "{err}");
    let (_, json, _) = run("json");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rules = json["rules"].as_array().unwrap();
    let failed = rules.iter().filter(|r| r["status"] == "failed").count();
    assert!(failed >= 1);
    let dom = dom(&save(&dir, "test.html", &html));
    let table = dom
        .split("class=\"t rules\"")
        .nth(1)
        .unwrap()
        .split("</table>")
        .next()
        .unwrap();
    assert_eq!(table.matches("<tr>").count(), rules.len() + 1);
    assert_eq!(dom.matches("<div class=\"finding\">").count(), failed);
    assert_eq!(ready(&dom, "data-charts"), failed);
    assert!(dom.contains("G3"));
    // Kept when the test fails, for a look at the pages.
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_page_holds_every_step_in_a_browser() {
    let dir = scratch("run");
    let python = repo().join("tests/peers/.venv/bin/python");
    let server = format!(
        "py={} {}",
        python.display(),
        repo().join("tests/run/tools.py").display()
    );
    let run = |format: &str| {
        agentpi(&[
            "run",
            "tests/run/orchestration.pi",
            "--no-verify",
            "--seed",
            "3",
            "--server",
            &server,
            "--bind",
            r#"fetch_a=py.fetch {"source": "a"}"#,
            "--bind",
            r#"fetch_b=py.fetch {"source": "b"}"#,
            "--bind",
            r#"publish_x=py.publish {"channel": "x", "text": "t"}"#,
            "--bind",
            r#"publish_y=py.publish {"channel": "y", "text": "t"}"#,
            "--format",
            format,
        ])
    };
    let (status, html, err) = run("html");
    assert_eq!(status, 0, "{err}");
    let (_, json, _) = run("json");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let steps = json["path"].as_array().unwrap().len();
    assert!(steps > 0);
    let dom = dom(&save(&dir, "run.html", &html));
    assert_eq!(ready(&dom, "data-steps"), steps);
    let calls = dom
        .split("class=\"t calls\"")
        .nth(1)
        .unwrap()
        .split("</table>")
        .next()
        .unwrap();
    assert_eq!(
        calls.matches("<tr>").count(),
        json["calls"].as_array().unwrap().len() + 1
    );
    // Kept when the test fails, for a look at the pages.
    let _ = std::fs::remove_dir_all(&dir);
}

/// `test --format svg` with several failed rules: one picture, a chart per failed rule (its
/// shrunk trace), titled with the rule and its finding, those that fail the test first.
#[test]
fn test_svg_draws_each_failed_rule() {
    let server = repo().join("tests/tester/broken.py");
    let server = server.to_str().unwrap();
    let run = |format: &str| {
        agentpi(&[
            "test",
            "--budget",
            "4",
            "--timeout",
            "2",
            "--format",
            format,
            "--",
            "python3",
            server,
            "cursor_loop,ignore_ping",
        ])
    };
    let (status, svg, err) = run("svg");
    assert_eq!(status, 1, "{err}");
    let (_, json, _) = run("json");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let failed = |gating: bool| {
        json["rules"]
            .as_array()
            .unwrap()
            .iter()
            .filter(move |r| r["status"] == "failed" && r["gating"] == gating)
            .map(|r| r["rule"].as_str().unwrap().to_string())
    };
    let rules: Vec<String> = failed(true).chain(failed(false)).collect();
    assert_eq!(rules, ["L13", "G3"], "{json}");
    assert!(svg.starts_with("<?xml"), "{svg}");
    // A chart's title is a bold line of its own (the lifelines' names are bold in a group).
    let titles: Vec<&str> = svg
        .lines()
        .filter(|l| l.starts_with("<text ") && l.contains("font-weight=\"bold\">"))
        .map(|l| l.split('>').nth(1).unwrap().trim_end_matches("</text"))
        .collect();
    assert_eq!(titles.len(), rules.len(), "{svg}");
    for (title, rule) in titles.iter().zip(&rules) {
        assert!(
            title.starts_with(&format!("FAILED {rule}: {rule} ")),
            "{title}"
        );
    }
    // The finding's row is marked in each chart.
    assert!(svg.matches("G3 ").count() >= 2 && svg.matches("L13 ").count() >= 2);
}
