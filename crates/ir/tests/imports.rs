//! Imports: transitive, each file loaded once (cycles are harmless), errors located in the
//! importing file.

use agentpi_diagnostics::render;
use agentpi_ir::{MemoryLoader, load};

fn files(list: &[(&str, &str)]) -> MemoryLoader {
    MemoryLoader {
        files: list
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
    }
}

/// Loads `main.pi`; returns the loaded file names in load order and the rendered diagnostics.
fn run(loader: &MemoryLoader) -> (Vec<String>, String) {
    let loaded = load("main.pi", loader);
    let names = (0..count(&loaded, loader) as u32)
        .map(|id| {
            loaded
                .sources
                .get(agentpi_diagnostics::FileId(id))
                .name
                .clone()
        })
        .collect();
    (
        names,
        render::terminal_all(&loaded.diagnostics, &loaded.sources),
    )
}

/// How many of the loader's files were loaded.
fn count(loaded: &agentpi_ir::Loaded, loader: &MemoryLoader) -> usize {
    loader
        .files
        .iter()
        .filter(|(n, _)| loaded.sources.find(n).is_some())
        .count()
}

#[test]
fn transitive_imports_and_cycles_load_each_file_once() {
    let loader = files(&[
        (
            "main.pi",
            "import \"lib.pi\"\nimport \"types.pi\"\nsystem S = Server(req) | req!ok\ncheck S: deadlock free\n",
        ),
        (
            "lib.pi",
            "import \"types.pi\"\nimport \"main.pi\"\nchan req : Answer\ndaemon proc Server(c: chan Answer) = c?_ . Server(c)\n",
        ),
        ("types.pi", "import \"lib.pi\"\ntype Answer = ok | no\n"),
    ]);
    let loaded = load("main.pi", &loader);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert_eq!(count(&loaded, &loader), 3);
    assert_eq!(loaded.program.defs.len(), 1);
    assert_eq!(loaded.program.checks.len(), 1);
    let (names, _) = run(&loader);
    assert_eq!(names, ["main.pi", "lib.pi", "types.pi"]);
}

#[test]
fn missing_import_is_reported_where_it_is_written() {
    let loader = files(&[
        ("main.pi", "import \"lib.pi\"\nsystem S = 0\n"),
        ("lib.pi", "// a library\nimport \"gone.pi\"\n"),
    ]);
    let (_, text) = run(&loader);
    insta::assert_snapshot!(text, @r#"
    lib.pi:2:1: error[E0207]: cannot import `gone.pi`: no such file
      |
    2 | import "gone.pi"
      | ^^^^^^^^^^^^^^^^ this import
      = help: import a `.pi` file by a path relative to this file, or a bundled model by name
    "#);
}

#[test]
fn duplicate_across_files_points_at_both() {
    let loader = files(&[
        ("main.pi", "import \"lib.pi\"\nchan c\nsystem S = c!\n"),
        ("lib.pi", "event c\n"),
    ]);
    let (_, text) = run(&loader);
    assert!(
        text.starts_with("lib.pi:1:7: error[E0205]: the name `c` is defined twice"),
        "{text}"
    );
    assert!(text.contains("main.pi:2:6: first defined here"), "{text}");
}

#[test]
fn unreadable_root_is_an_error_without_location() {
    let loaded = load("nope.pi", &files(&[]));
    let text = render::terminal_all(&loaded.diagnostics, &loaded.sources);
    assert_eq!(
        text,
        "error[E0207]: cannot read `nope.pi`: no such file\n  = help: check the file name\n"
    );
}

/// An import brings declarations: the imported file's own systems may be checked by the
/// importer, but its `check` lines do not run.
#[test]
fn an_import_brings_declarations_not_checks() {
    let loader = files(&[
        (
            "main.pi",
            "import \"lib.pi\"\nsystem Mine = Lib\ncheck Mine: deadlock free\ncheck Theirs: never c\n",
        ),
        (
            "lib.pi",
            "chan c\nproc Lib = c! . 0 | c?\nsystem Theirs = Lib\ncheck Theirs: deadlock free\ncheck Theirs: reachable c\n",
        ),
    ]);
    let loaded = load("main.pi", &loader);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let checks: Vec<String> = loaded
        .program
        .checks
        .iter()
        .map(|c| format!("{}: {}", loaded.program.systems[c.system].name, c.text))
        .collect();
    assert_eq!(checks, ["Mine: deadlock free", "Theirs: never c"]);
}

/// `-D NAME=VALUE` sets a constant; an unknown name or a bad value is an error shown in the
/// command line's own source.
#[test]
fn defines_set_constants_from_outside() {
    let loader = files(&[(
        "main.pi",
        "const N = 3\ntype Id = 0..N-1\nchan c[N]\nsystem S = par i in Id . c[i]!\ncheck S: deadlock free\n",
    )]);
    let set = |defs: &[(&str, &str)]| {
        let defs: Vec<(String, String)> = defs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        agentpi_ir::load_with("main.pi", &loader, &defs)
    };
    let six = set(&[("N", "6")]);
    assert!(!six.has_errors(), "{:?}", six.diagnostics);
    assert_eq!(six.program.chans.len(), 6);
    assert_eq!(six.program.chans[5].name, "c[5]");
    let unknown = set(&[("M", "6")]);
    let shown = render::terminal_all(&unknown.diagnostics, &unknown.sources);
    assert!(
        shown.contains("error[E0212]: -D M: the model declares no constant `M`"),
        "{shown}"
    );
    assert!(shown.contains("help: its constants: N"), "{shown}");
    let bad = set(&[("N", "+")]);
    assert!(bad.has_errors());
}
