//! The global namespaces of a model (all loaded files together), duplicate detection, and
//! "did you mean" suggestions.
//!
//! Namespaces: types, processes, systems, and values (channels, events, constructors and
//! constants share one, because a bare lower-case name in a process or a label may be any).

use crate::core::{ChanId, DefId, EnumId, EventId};
use agentpi_diagnostics::{Diagnostic, Span};
use agentpi_syntax::ast::{self, Item, TypeDef};
use rustc_hash::FxHashMap;

/// What a global value name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    Chan(ChanId),
    Event(EventId),
    Ctor(EnumId, u32),
    Const(usize),
}

/// Every declaration of every loaded file, by kind, in load order.
#[derive(Default)]
pub(crate) struct Globals<'a> {
    pub(crate) types: FxHashMap<&'a str, (&'a ast::TypeDecl, Span)>,
    /// Enum declarations in [`EnumId`] order.
    pub(crate) enums: Vec<&'a ast::TypeDecl>,
    pub(crate) type_decls: Vec<&'a ast::TypeDecl>,
    pub(crate) values: FxHashMap<&'a str, (Value, Span)>,
    pub(crate) consts: Vec<&'a ast::ConstDecl>,
    pub(crate) chans: Vec<&'a ast::ChanDecl>,
    pub(crate) events: Vec<&'a ast::EventDecl>,
    pub(crate) procs: FxHashMap<&'a str, (DefId, Span)>,
    pub(crate) proc_decls: Vec<&'a ast::ProcDecl>,
    pub(crate) systems: FxHashMap<&'a str, (usize, Span)>,
    pub(crate) system_decls: Vec<&'a ast::SystemDecl>,
    pub(crate) checks: Vec<&'a ast::CheckDecl>,
    pub(crate) externs: Vec<&'a ast::ExternDecl>,
}

impl<'a> Globals<'a> {
    /// Collects the declarations of `files` (the root first); a name defined twice is
    /// reported (E0205). Only the `check`s of files whose `checks_run` is set run (the root's;
    /// `agentpi run` adds its own): an import brings declarations. `defines` (from
    /// `-D NAME=VALUE`) replace the values of constants of the same name.
    pub(crate) fn collect(
        files: &'a [ast::File],
        checks_run: &[bool],
        defines: &'a [ast::ConstDecl],
        diags: &mut Vec<Diagnostic>,
    ) -> Globals<'a> {
        let mut g = Globals::default();
        for (index, file) in files.iter().enumerate() {
            let checked = checks_run.get(index).copied().unwrap_or(index == 0);
            for item in &file.items {
                if checked || !matches!(item, Item::Check(_)) {
                    g.add(item, diags);
                }
            }
        }
        for define in defines {
            g.redefine(define, diags);
        }
        g
    }

    /// `-D NAME=VALUE`: the constant `NAME` takes this value instead of its own.
    fn redefine(&mut self, define: &'a ast::ConstDecl, diags: &mut Vec<Diagnostic>) {
        match self.values.get(define.name.name.as_str()) {
            Some((Value::Const(index), _)) => self.consts[*index] = define,
            _ => {
                let mut names: Vec<&str> =
                    self.consts.iter().map(|c| c.name.name.as_str()).collect();
                names.sort_unstable();
                let help = match names.is_empty() {
                    true => "the model declares no constants".to_string(),
                    false => format!("its constants: {}", names.join(", ")),
                };
                diags.push(
                    Diagnostic::error(
                        "E0212",
                        format!(
                            "-D {}: the model declares no constant `{}`",
                            define.name.name, define.name.name
                        ),
                    )
                    .at(define.name.span)
                    .with_label("set on the command line")
                    .with_help(help),
                );
            }
        }
    }

    fn add(&mut self, item: &'a Item, diags: &mut Vec<Diagnostic>) {
        match item {
            Item::Import(_) => {}
            Item::Type(decl) => self.add_type(decl, diags),
            Item::Const(decl) => {
                let value = Value::Const(self.consts.len());
                if define(&mut self.values, &decl.name, value, "name", diags) {
                    self.consts.push(decl);
                }
            }
            Item::Chan(decl) => {
                let value = Value::Chan(ChanId(self.chans.len() as u32));
                if define(&mut self.values, &decl.name, value, "name", diags) {
                    self.chans.push(decl);
                }
            }
            Item::Event(decl) => {
                let value = Value::Event(EventId(self.events.len() as u32));
                if define(&mut self.values, &decl.name, value, "name", diags) {
                    self.events.push(decl);
                }
            }
            Item::Proc(decl) => {
                let id = DefId(self.proc_decls.len() as u32);
                if define(&mut self.procs, &decl.name, id, "process", diags) {
                    self.proc_decls.push(decl);
                }
            }
            Item::System(decl) => {
                if define(
                    &mut self.systems,
                    &decl.name,
                    self.system_decls.len(),
                    "system",
                    diags,
                ) {
                    self.system_decls.push(decl);
                }
            }
            Item::Check(decl) => self.checks.push(decl),
            Item::Extern(decl) => self.externs.push(decl),
        }
    }

    fn add_type(&mut self, decl: &'a ast::TypeDecl, diags: &mut Vec<Diagnostic>) {
        if !define(&mut self.types, &decl.name, decl, "type", diags) {
            return;
        }
        self.type_decls.push(decl);
        let TypeDef::Enum(variants) = &decl.def else {
            return;
        };
        let id = EnumId(self.enums.len() as u32);
        self.enums.push(decl);
        for (index, variant) in variants.iter().enumerate() {
            define(
                &mut self.values,
                &variant.name,
                Value::Ctor(id, index as u32),
                "name",
                diags,
            );
        }
    }

    /// All value names, sorted (for suggestions).
    pub(crate) fn value_names(&self) -> Vec<&'a str> {
        sorted(self.values.keys().copied())
    }
}

/// Inserts `name`; reports a duplicate (pointing at both) and returns false if it exists.
fn define<'a, T>(
    map: &mut FxHashMap<&'a str, (T, Span)>,
    name: &'a ast::Ident,
    value: T,
    kind: &str,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    if let Some((_, first)) = map.get(name.name.as_str()) {
        diags.push(
            Diagnostic::error(
                "E0205",
                format!("the {kind} `{}` is defined twice", name.name),
            )
            .at(name.span)
            .with_label("second definition")
            .with_secondary(*first, "first defined here")
            .with_help("rename one of the definitions"),
        );
        return false;
    }
    map.insert(name.name.as_str(), (value, name.span));
    true
}

pub(crate) fn sorted<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut names: Vec<_> = names.collect();
    names.sort_unstable();
    names
}

/// The closest candidate to `name` by edit distance, if it is close enough to be a typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = edit_distance(name, candidate);
        if distance <= limit && best.is_none_or(|(d, c)| (distance, candidate) < (d, c)) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance over characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = prev + usize::from(ca != cb);
            prev = row[j + 1];
            row[j + 1] = substitute.min(prev + 1).min(row[j] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_close_names_only() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            suggest("reqest", ["req", "request", "resp"]),
            Some("request")
        );
        assert_eq!(suggest("x", ["y", "zz"]), Some("y"));
        assert_eq!(suggest("abc", ["xyz"]), None);
    }
}
