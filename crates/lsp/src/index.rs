//! What every name of a loaded model means: each definition (top-level declarations, and the
//! parameters, binders and points inside processes) and each use of one, by span.
//!
//! Built from the syntax trees alone, with the language's scoping (docs/language.md), so that
//! it exists for a model with errors too: a name that does not resolve is simply no reference.

mod doc;
mod walk;

use agentpi_diagnostics::{FileId, SourceMap, Span};
use agentpi_syntax::ast;

/// What a name names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Type,
    Ctor,
    Const,
    Chan,
    Event,
    Proc,
    System,
    Param,
    Var,
    Point,
}

impl Kind {
    /// Names defined inside a process, visible only in part of it.
    pub fn is_local(self) -> bool {
        matches!(self, Kind::Param | Kind::Var | Kind::Point)
    }
}

/// One definition.
#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    pub kind: Kind,
    /// The name where it is defined.
    pub span: Span,
    /// The whole declaration (for a local, where it is visible).
    pub full: Span,
    /// How it reads in a hover: a declaration's head, `x: T` for a typed local.
    pub detail: String,
    pub doc: Option<String>,
    /// For a channel (or a local of channel type): the types it carries, as written.
    pub carries: Vec<String>,
    /// The top-level definition a local or a constructor belongs to.
    pub parent: Option<usize>,
}

/// Every definition and every use of one in a loaded model.
#[derive(Clone, Debug, Default)]
pub struct Index {
    pub defs: Vec<Def>,
    /// Each use, in the order found: the span of the name and its definition.
    pub refs: Vec<(Span, usize)>,
}

impl Index {
    /// Indexes every file of `sources`, given its tree (a file without a tree is skipped).
    pub fn build(sources: &SourceMap, files: &[(FileId, ast::File)]) -> Index {
        walk::build(sources, files)
    }

    /// The definition whose name, or a use of which, is at `offset` of `file`.
    pub fn at(&self, file: FileId, offset: u32) -> Option<usize> {
        self.use_at(file, offset).map(|(_, d)| d)
    }

    /// [`Index::at`], with the span of the name found there.
    pub fn use_at(&self, file: FileId, offset: u32) -> Option<(Span, usize)> {
        let hit = |span: &Span| span.file == file && span.start <= offset && offset <= span.end;
        let def = self.defs.iter().position(|d| hit(&d.span));
        let def = def.map(|d| (self.defs[d].span, d));
        def.or_else(|| self.refs.iter().find(|(s, _)| hit(s)).copied())
    }

    /// Where `def` is named: its definition first, then every use in source order.
    pub fn occurrences(&self, def: usize) -> Vec<Span> {
        let mut uses: Vec<Span> = self
            .refs
            .iter()
            .filter(|&&(_, d)| d == def)
            .map(|&(s, _)| s)
            .collect();
        uses.sort();
        uses.dedup();
        uses.retain(|s| *s != self.defs[def].span);
        std::iter::once(self.defs[def].span).chain(uses).collect()
    }

    /// The definitions visible at `offset` of `file`: every top-level one, and the locals
    /// whose scope holds it.
    pub fn visible(&self, file: FileId, offset: u32) -> impl Iterator<Item = &Def> {
        self.defs.iter().filter(move |d| {
            !d.kind.is_local()
                || (d.full.file == file && d.full.start <= offset && offset <= d.full.end)
        })
    }
}
