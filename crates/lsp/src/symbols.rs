//! The document's outline: its top-level definitions, with an enum's constructors under its
//! type and a process's parameters under it.

use crate::analysis::Analysis;
use crate::index::{Def, Kind};
use lsp_types::{DocumentSymbol, SymbolKind};

pub fn outline(analysis: &Analysis) -> Vec<DocumentSymbol> {
    let index = &analysis.index;
    let ours = |d: &&Def| d.span.file == analysis.root;
    let children = |parent: usize| -> Vec<DocumentSymbol> {
        let under = index
            .defs
            .iter()
            .filter(ours)
            .filter(|d| d.parent == Some(parent) && matches!(d.kind, Kind::Ctor | Kind::Param));
        under.map(|d| symbol(analysis, d, Vec::new())).collect()
    };
    index
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| ours(d) && !d.kind.is_local() && d.kind != Kind::Ctor)
        .map(|(i, d)| symbol(analysis, d, children(i)))
        .collect()
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written to build one.
fn symbol(analysis: &Analysis, def: &Def, children: Vec<DocumentSymbol>) -> DocumentSymbol {
    let selection = analysis.range(def.span);
    let range = match def.kind.is_local() {
        true => selection,
        false => analysis.range(def.full),
    };
    DocumentSymbol {
        name: def.name.clone(),
        detail: Some(def.detail.clone()),
        kind: kind(def.kind),
        tags: None,
        deprecated: None,
        range,
        selection_range: selection,
        children: (!children.is_empty()).then_some(children),
    }
}

pub fn kind(kind: Kind) -> SymbolKind {
    match kind {
        Kind::Type => SymbolKind::ENUM,
        Kind::Ctor => SymbolKind::ENUM_MEMBER,
        Kind::Const => SymbolKind::CONSTANT,
        Kind::Chan => SymbolKind::VARIABLE,
        Kind::Event => SymbolKind::EVENT,
        Kind::Proc => SymbolKind::FUNCTION,
        Kind::System => SymbolKind::CLASS,
        Kind::Param | Kind::Var => SymbolKind::VARIABLE,
        Kind::Point => SymbolKind::KEY,
    }
}
