//! Hover: what the name under the cursor is (a declaration's head, a local's type) and its
//! doc comment; over an `import`, the file it loads.

use crate::analysis::Analysis;
use crate::index::Kind;
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};

pub fn at(analysis: &Analysis, offset: u32) -> Option<Hover> {
    let root = analysis.root;
    if let Some(&(span, file)) = analysis
        .imports
        .iter()
        .find(|(s, _)| contains(s, root, offset))
    {
        let name = &analysis.loaded.sources.get(file).name;
        return Some(markdown(format!("imports `{name}`"), analysis.range(span)));
    }
    let (span, def) = analysis.index.use_at(root, offset)?;
    let def = &analysis.index.defs[def];
    let mut text = format!("```agentpi\n{}\n```\n{}", def.detail, describe(def.kind));
    if let Some(doc) = &def.doc {
        text = format!("{text}\n\n---\n{doc}");
    }
    Some(markdown(text, analysis.range(span)))
}

fn contains(span: &agentpi_diagnostics::Span, file: agentpi_diagnostics::FileId, at: u32) -> bool {
    span.file == file && span.start <= at && at <= span.end
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Type => "type",
        Kind::Ctor => "constructor",
        Kind::Const => "constant",
        Kind::Chan => "channel",
        Kind::Event => "event",
        Kind::Proc => "process",
        Kind::System => "system",
        Kind::Param => "parameter",
        Kind::Var => "variable",
        Kind::Point => "named point",
    }
}

fn markdown(value: String, range: lsp_types::Range) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    }
}
