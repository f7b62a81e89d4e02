//! Data-driven diagnostics tests. Every `.pi` file under `tests/errors` and `tests/ok` is
//! loaded; the diagnostics it must produce are written in the file itself, as comments on the
//! line they point to:
//!
//! ```text
//! proc P = c!1   //~ ERROR E0201
//! //~^ WARNING W0001          (`^` points one line up; `^^` two lines)
//! ```
//!
//! Codes and lines are compared exactly: a missing or an extra diagnostic fails the test.

use std::path::{Path, PathBuf};

/// (line, severity, code) triples, sorted.
type Expectations = Vec<(u32, String, String)>;

fn expected(text: &str) -> Expectations {
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some(at) = line.find("//~") else { continue };
        let rest = &line[at + 3..];
        let ups = rest.chars().take_while(|&c| c == '^').count();
        let mut words = rest[ups..].split_whitespace();
        let (Some(severity), Some(code)) = (words.next(), words.next()) else {
            continue;
        };
        out.push((
            index as u32 + 1 - ups as u32,
            severity.to_lowercase(),
            code.to_string(),
        ));
    }
    out.sort();
    out
}

fn actual(path: &Path, text: &str) -> Expectations {
    let loaded = agentpi_ir::load_str(&path.display().to_string(), text);
    let mut out: Expectations = loaded
        .diagnostics
        .iter()
        .map(|d| {
            let line = d
                .span()
                .map_or(0, |s| loaded.sources.get(s.file).line_col(s.start).line);
            (line, d.severity.as_str().to_string(), d.code.clone())
        })
        .collect();
    out.sort();
    out
}

/// Checks one file; returns a description of the difference, if any.
fn check(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).expect("test file is readable");
    let (want, got) = (expected(&text), actual(path, &text));
    (want != got).then(|| {
        format!(
            "{}:\n  expected {want:?}\n  found    {got:?}",
            path.display()
        )
    })
}

fn pi_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("test directory exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pi"))
        .collect();
    files.sort();
    files
}

fn run_dir(dir: &str) {
    let files = pi_files(dir);
    assert!(!files.is_empty(), "no test files in {dir}");
    let failures: Vec<String> = files.iter().filter_map(|p| check(p)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} files differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn error_files_report_exactly_the_annotated_diagnostics() {
    run_dir("errors");
}

#[test]
fn valid_models_have_no_diagnostics() {
    run_dir("ok");
}

#[test]
fn annotations_are_parsed() {
    let text = "a //~ ERROR E0201\nb\n//~^^ WARNING W0001 extra words\n";
    let want = vec![
        (1, "error".into(), "E0201".into()),
        (1, "warning".into(), "W0001".into()),
    ];
    assert_eq!(expected(text), want);
}
