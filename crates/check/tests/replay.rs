//! The trace-acceptance engine, data-driven: each tests/replay/*.pi names a system, its visible
//! and flag labels in a `// replay:` line and observations in `//>` lines; the transcript of
//! verdicts, expected sets and bound keys is pinned as a snapshot.

use agentpi_check::replay::{Alphabet, Options, Replay, Verdict, parse_observation};
use agentpi_semantics::Semantics;
use std::path::Path;

/// The `// replay:` header: system name, visible names, flag names, options.
struct Header {
    system: String,
    visible: Vec<String>,
    flags: Vec<String>,
    options: Options,
}

fn header(text: &str) -> Header {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("// replay: "))
        .expect("a `// replay:` line");
    let mut words = line.split_whitespace();
    let mut h = Header {
        system: words.next().unwrap().to_string(),
        visible: Vec::new(),
        flags: Vec::new(),
        options: Options::default(),
    };
    let list = |v: &str| {
        v.split(',')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    for word in words {
        match word.split_once('=').expect("key=value") {
            ("visible", v) => h.visible = list(v),
            ("flags", v) => h.flags = list(v),
            ("settle", "all") => h.options.maximal = false,
            other => panic!("unknown header field {other:?}"),
        }
    }
    h
}

fn names(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Replays the `//>` observations of `file` and returns the transcript.
fn check(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let loaded = agentpi_ir::load_str(&file.display().to_string(), &text);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let program = &loaded.program;
    let h = header(&text);
    let sem = Semantics::new(program);
    let system = program.system(&h.system).expect("the system exists");
    let alphabet = Alphabet::new(program, &names(&h.visible), &names(&h.flags)).unwrap();
    let (mut replay, initial) = Replay::new(&sem, system, alphabet, h.options).unwrap();
    let mut out = format!(
        "start: {} state(s), flags {initial:?}\n",
        replay.hypotheses()
    );
    for line in text.lines().filter_map(|l| l.strip_prefix("//> ")) {
        let obs = parse_observation(program, line).unwrap();
        let expected = replay.expected().unwrap();
        let verdict = match replay.step(&obs).unwrap() {
            Verdict::Accepted => "accepted".to_string(),
            Verdict::Flagged(flags) => {
                let texts: Vec<_> = flags.iter().map(|f| f.text.as_str()).collect();
                format!("flagged {texts:?}; expected {expected:?}")
            }
            Verdict::Refused => format!("refused; expected {expected:?}"),
        };
        let keys: Vec<String> = replay.bound_keys().iter().map(|k| k.to_string()).collect();
        out.push_str(&format!(
            "{line}: {verdict}; {} state(s), bound {keys:?}\n",
            replay.hypotheses()
        ));
    }
    out
}

#[test]
fn replays() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pi"))
        .collect();
    files.sort();
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(name, check(&file));
    }
}
