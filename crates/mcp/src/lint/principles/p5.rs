//! P5, inter-tool relationships: declared edges (Requires, ProducesInputFor, ExclusiveWith)
//! point at listed tools other than the declaring one, Requires is acyclic, ExclusiveWith is
//! symmetric; a description that names another tool without any declared edge is noted.

use super::Facts;
use crate::lint::context::{Context, label};
use crate::lint::mcp_plus::{Dependency, DependencyKind};
use crate::lint::words::sentences;
use std::collections::{BTreeMap, BTreeSet};

pub fn check(cx: &mut Context, facts: &[Facts]) {
    for fact in facts {
        for edge in fact.plus.iter().flat_map(|p| &p.dependencies) {
            target(cx, fact, edge);
        }
    }
    exclusive(cx, facts);
    cycles(cx, facts);
    // Stock MCP cannot declare a relation, so a mention is only a finding under MCP+.
    if cx.mcp_plus {
        mentions(cx, facts);
    }
}

fn target(cx: &mut Context, fact: &Facts, edge: &Dependency) {
    let pointer = format!("{}/tool", edge.pointer);
    if edge.tool == fact.name() {
        let message = format!(
            "tool {} declares {:?} on itself",
            label(fact.tool),
            edge.kind
        );
        cx.tool("P504", fact.tool, &pointer, message);
    } else if !cx.has_tool(&edge.tool) {
        let message = format!(
            "tool {} declares {:?} `{}`, which is not a listed tool",
            label(fact.tool),
            edge.kind,
            edge.tool
        );
        cx.tool("P501", fact.tool, &pointer, message);
    }
}

/// The set of (from, to) names with an edge of `kind`.
fn edges<'a>(facts: &'a [Facts], kind: DependencyKind) -> BTreeSet<(&'a str, &'a str)> {
    let mut set = BTreeSet::new();
    for fact in facts {
        for edge in fact
            .plus
            .iter()
            .flat_map(|p| &p.dependencies)
            .filter(|e| e.kind == kind)
        {
            set.insert((fact.name(), edge.tool.as_str()));
        }
    }
    set
}

fn exclusive(cx: &mut Context, facts: &[Facts]) {
    let pairs = edges(facts, DependencyKind::ExclusiveWith);
    for fact in facts {
        for edge in fact.plus.iter().flat_map(|p| &p.dependencies) {
            let other = edge.tool.as_str();
            let one_sided = edge.kind == DependencyKind::ExclusiveWith
                && other != fact.name()
                && cx.has_tool(other)
                && !pairs.contains(&(other, fact.name()));
            if one_sided {
                let message = format!(
                    "tool {} declares ExclusiveWith `{other}`, but `{other}` does not declare ExclusiveWith `{}`",
                    label(fact.tool),
                    fact.name()
                );
                cx.tool(
                    "P503",
                    fact.tool,
                    &format!("{}/tool", edge.pointer),
                    message,
                );
            }
        }
    }
}

/// P502: each Requires cycle once, reported at the edge leaving its smallest tool name.
fn cycles(cx: &mut Context, facts: &[Facts]) {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges(facts, DependencyKind::Requires) {
        if from != to {
            graph.entry(from).or_default().push(to);
        }
    }
    let mut reported = BTreeSet::new();
    for start in graph.keys().copied() {
        if let Some(cycle) = find_cycle(&graph, start) {
            let mut key = cycle.clone();
            key.sort_unstable();
            if reported.insert(key) {
                report_cycle(cx, facts, &cycle);
            }
        }
    }
}

/// A cycle through `start` (as a path starting and ending there, minimal node first), if any.
fn find_cycle<'a>(graph: &BTreeMap<&'a str, Vec<&'a str>>, start: &'a str) -> Option<Vec<&'a str>> {
    let mut path = vec![start];
    let mut seen = BTreeSet::new();
    if dfs(graph, start, &mut path, &mut seen) && path.iter().min() == Some(&start) {
        return Some(path);
    }
    None
}

fn dfs<'a>(
    graph: &BTreeMap<&'a str, Vec<&'a str>>,
    start: &'a str,
    path: &mut Vec<&'a str>,
    seen: &mut BTreeSet<&'a str>,
) -> bool {
    let node = *path.last().unwrap();
    for &next in graph.get(node).map_or(&[][..], Vec::as_slice) {
        if next == start {
            return true;
        }
        if seen.insert(next) {
            path.push(next);
            if dfs(graph, start, path, seen) {
                return true;
            }
            path.pop();
        }
    }
    false
}

fn report_cycle(cx: &mut Context, facts: &[Facts], cycle: &[&str]) {
    let Some(fact) = facts.iter().find(|f| f.name() == cycle[0]) else {
        return;
    };
    let next = cycle.get(1).copied().unwrap_or(cycle[0]);
    let edge = fact
        .plus
        .iter()
        .flat_map(|p| &p.dependencies)
        .find(|e| e.kind == DependencyKind::Requires && e.tool == next);
    let pointer = edge.map_or(String::new(), |e| format!("{}/tool", e.pointer));
    let path = cycle
        .iter()
        .chain(std::iter::once(&cycle[0]))
        .copied()
        .collect::<Vec<_>>()
        .join(" -> ");
    cx.tool(
        "P502",
        fact.tool,
        &pointer,
        format!("Requires cycle: {path}; no order of calls can satisfy it"),
    );
}

/// P505: the description names another tool that no declared edge relates to this one.
fn mentions(cx: &mut Context, facts: &[Facts]) {
    let related: BTreeSet<(&str, &str)> = [
        DependencyKind::Requires,
        DependencyKind::ProducesInputFor,
        DependencyKind::ExclusiveWith,
    ]
    .into_iter()
    .flat_map(|kind| edges(facts, kind))
    .collect();
    for fact in facts {
        let Some(description) = fact.description else {
            continue;
        };
        for other in facts
            .iter()
            .map(Facts::name)
            .filter(|o| *o != fact.name() && identifier_like(o))
        {
            let declared =
                related.contains(&(fact.name(), other)) || related.contains(&(other, fact.name()));
            if !declared && mentions_as_relation(description, other) {
                let message = format!(
                    "tool {}: the description mentions `{other}` but no dependency relates the two",
                    label(fact.tool)
                );
                cx.tool("P505", fact.tool, "/description", message);
            }
        }
    }
}

/// Names that cannot be ordinary words: they contain `_`, `-` or `.`, or an inner capital.
fn identifier_like(name: &str) -> bool {
    name.contains(['_', '-', '.']) || name.chars().skip(1).any(char::is_uppercase)
}

/// Words that make a mention a pointer to a replacement or predecessor, not a relation the
/// agent must respect ("Deprecated: use read_text_file instead").
const SUCCESSION: &[&str] = &[
    "deprecated",
    "instead",
    "replaced",
    "replaces",
    "superseded",
    "supersedes",
    "predecessor",
    "successor",
    "formerly",
    "renamed",
    "legacy",
];

/// Whether `text` names tool `other` in a sentence that is not about succession.
fn mentions_as_relation(text: &str, other: &str) -> bool {
    sentences(text)
        .into_iter()
        .filter(|sentence| mentions_word(sentence, other))
        .any(|sentence| {
            let lower = sentence.to_lowercase();
            !SUCCESSION.iter().any(|word| lower.contains(word))
        })
}

fn mentions_word(text: &str, word: &str) -> bool {
    let is_part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-');
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !is_part(c));
        let after = text[i + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !is_part(c));
        before && after
    })
}
