//! Go to definition and find references: through the index, and from an `import` to the file
//! it loads (a bundled model too).

use crate::analysis::Analysis;
use lsp_types::{Location, Position, Range};

pub fn definition(analysis: &Analysis, offset: u32) -> Option<Location> {
    let root = analysis.root;
    let import = analysis
        .imports
        .iter()
        .find(|(s, _)| s.file == root && s.start <= offset && offset <= s.end);
    if let Some(&(_, file)) = import {
        let mut location = analysis.location(agentpi_diagnostics::Span::new(file, 0, 0))?;
        location.range = Range::new(Position::new(0, 0), Position::new(0, 0));
        return Some(location);
    }
    let def = analysis.index.at(root, offset)?;
    analysis.location(analysis.index.defs[def].span)
}

/// Every place the name at `offset` is named, its definition first when `declaration`.
pub fn references(analysis: &Analysis, offset: u32, declaration: bool) -> Vec<Location> {
    let Some(def) = analysis.index.at(analysis.root, offset) else {
        return Vec::new();
    };
    let spans = analysis.index.occurrences(def);
    let skip = usize::from(!declaration);
    spans
        .into_iter()
        .skip(skip)
        .filter_map(|s| analysis.location(s))
        .collect()
}
