//! The layering of docs/architecture.md holds inside crates too: no two modules of a crate
//! import each other, directly or around a circle. A module may use its ancestors (a child
//! sees its parent's types) and its parent may use it; siblings and cousins go one way.

use crate::support::repo;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules of one crate by path (`lower::property`, `""` for the root), with their source.
type Modules = BTreeMap<String, String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/lower/mod.rs` is `lower`, `src/core/ltl.rs` is `core::ltl`, `src/lib.rs` is the root.
fn module_path(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

fn modules(src: &Path) -> Modules {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = Modules::new();
    for file in files {
        out.insert(
            module_path(src, &file),
            std::fs::read_to_string(&file).unwrap(),
        );
    }
    out
}

/// The paths after each `prefix` in `code` (`crate::core::ltl::Ltl` gives `core::ltl::Ltl`).
fn paths_after<'a>(code: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    code.match_indices(prefix)
        .filter(|(i, _)| {
            !code[..*i].ends_with(|c: char| c.is_ascii_alphanumeric() || "_:".contains(c))
        })
        .map(|(i, _)| {
            let rest = &code[i + prefix.len()..];
            let end = rest.find(|c| !ident(c)).unwrap_or(rest.len());
            rest[..end].split("::").filter(|s| !s.is_empty()).collect()
        })
        .collect()
}

/// The longest prefix of `parts` that names a module.
fn resolve(modules: &Modules, parts: &[&str]) -> Option<String> {
    (1..=parts.len())
        .rev()
        .map(|k| parts[..k].join("::"))
        .find(|m| modules.contains_key(m))
}

fn related(a: &str, b: &str) -> bool {
    a.is_empty()
        || b.is_empty()
        || a.starts_with(&format!("{b}::"))
        || b.starts_with(&format!("{a}::"))
}

/// Edges between modules that are not ancestor and descendant.
fn graph(modules: &Modules) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, text) in modules {
        // Comments mention paths they do not import.
        let code: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .collect();
        let code = code.join("\n");
        let parent: Vec<&str> = name.split("::").filter(|s| !s.is_empty()).collect();
        let parent = &parent[..parent.len().saturating_sub(1)];
        let mut targets = Vec::new();
        for parts in paths_after(&code, "crate::") {
            targets.extend(resolve(modules, &parts));
        }
        for parts in paths_after(&code, "super::") {
            let ups = parts.iter().take_while(|p| **p == "super").count();
            let base = &parent[..parent.len().saturating_sub(ups)];
            let full: Vec<&str> = base
                .iter()
                .copied()
                .chain(parts[ups..].iter().copied())
                .collect();
            targets.extend(resolve(modules, &full));
        }
        let targets = targets
            .into_iter()
            .filter(|t| t != name && !related(name, t));
        edges.entry(name.clone()).or_default().extend(targets);
    }
    edges
}

/// A circle through `start`, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![start.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        for next in edges.get(last).into_iter().flatten() {
            if next == start {
                return Some(path.clone());
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn modules_of_a_crate_do_not_import_each_other_in_a_circle() {
    let mut circles = Vec::new();
    let mut crates: Vec<_> = std::fs::read_dir(repo().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    crates.sort();
    for krate in crates {
        let modules = modules(&krate.join("src"));
        let edges = graph(&modules);
        for module in modules.keys() {
            if let Some(c) = circle(&edges, module) {
                circles.push(format!("{}: {}", krate.display(), c.join(" -> ")));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules in a circle:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_check_sees_a_circle() {
    let modules: Modules = [
        ("a".to_string(), "use crate::b::X;".to_string()),
        ("b".to_string(), "use crate::a::Y; // crate::c".to_string()),
        ("c".to_string(), "use super::a;".to_string()),
        (
            "c::d".to_string(),
            "use super::super::b; use super::E;".to_string(),
        ),
    ]
    .into();
    let edges = graph(&modules);
    assert_eq!(
        circle(&edges, "a"),
        Some(vec!["a".to_string(), "b".to_string()])
    );
    assert_eq!(circle(&edges, "c"), None);
    assert!(edges["c::d"].contains("b") && !edges["c::d"].contains("c"));
}
