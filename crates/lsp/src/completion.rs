//! Completion: the names visible at the cursor (the innermost local of a name wins) and the
//! language's keywords.

use crate::analysis::Analysis;
use crate::index::Kind;
use crate::keywords::{CONTEXTUAL, KEYWORDS};
use lsp_types::{CompletionItem, CompletionItemKind};

pub fn at(analysis: &Analysis, offset: u32) -> Vec<CompletionItem> {
    let mut items: Vec<CompletionItem> = Vec::new();
    let visible: Vec<_> = analysis.index.visible(analysis.root, offset).collect();
    for def in visible.iter().rev() {
        if def.kind == Kind::Point || items.iter().any(|i| i.label == def.name) {
            continue;
        }
        items.push(CompletionItem {
            label: def.name.clone(),
            kind: Some(kind(def.kind)),
            detail: Some(def.detail.clone()),
            ..Default::default()
        });
    }
    items.sort_by(|a, b| a.label.cmp(&b.label));
    let words = KEYWORDS.iter().chain(CONTEXTUAL);
    items.extend(words.map(|w| CompletionItem {
        label: w.to_string(),
        kind: Some(CompletionItemKind::KEYWORD),
        ..Default::default()
    }));
    items
}

fn kind(kind: Kind) -> CompletionItemKind {
    match kind {
        Kind::Type => CompletionItemKind::ENUM,
        Kind::Ctor => CompletionItemKind::ENUM_MEMBER,
        Kind::Const => CompletionItemKind::CONSTANT,
        Kind::Chan | Kind::Param | Kind::Var => CompletionItemKind::VARIABLE,
        Kind::Event => CompletionItemKind::EVENT,
        Kind::Proc | Kind::System => CompletionItemKind::FUNCTION,
        Kind::Point => CompletionItemKind::REFERENCE,
    }
}
