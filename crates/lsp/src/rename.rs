//! Rename: every occurrence of a name in the files of the model that are on disk; refused for
//! a name defined in a bundled model, for a new name that is not an identifier or is a
//! keyword, and for a change of the first letter's case (the language tells types, processes
//! and systems from values by it).

use crate::analysis::Analysis;
use crate::keywords::KEYWORDS;
use lsp_types::{TextEdit, Url, WorkspaceEdit};
use std::collections::HashMap;

/// What the cursor can rename: the range of the name under it.
pub fn prepare(analysis: &Analysis, offset: u32) -> Option<lsp_types::Range> {
    let (span, def) = analysis.index.use_at(analysis.root, offset)?;
    editable(analysis, def).ok()?;
    Some(analysis.range(span))
}

pub fn rename(analysis: &Analysis, offset: u32, new: &str) -> Result<WorkspaceEdit, String> {
    let def = analysis
        .index
        .at(analysis.root, offset)
        .ok_or("there is no name here to rename")?;
    editable(analysis, def)?;
    let old = &analysis.index.defs[def].name;
    valid(old, new)?;
    let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
    for span in analysis.index.occurrences(def) {
        let location = analysis
            .location(span)
            .ok_or("a use of this name is in generated text")?;
        let edit = TextEdit::new(location.range, new.to_string());
        changes.entry(location.uri).or_default().push(edit);
    }
    Ok(WorkspaceEdit::new(changes))
}

fn editable(analysis: &Analysis, def: usize) -> Result<(), String> {
    let file = analysis.index.defs[def].span.file;
    let name = &analysis.loaded.sources.get(file).name;
    match name.starts_with(crate::uri::BUNDLED) {
        true => Err(format!("`{name}` is a bundled model: it cannot be edited")),
        false => Ok(()),
    }
}

fn valid(old: &str, new: &str) -> Result<(), String> {
    let mut chars = new.chars();
    let first = chars.next().ok_or("the new name is empty")?;
    let word = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !word || KEYWORDS.contains(&new) {
        return Err(format!("`{new}` is not a name"));
    }
    let upper = |s: &str| s.starts_with(|c: char| c.is_ascii_uppercase());
    if upper(old) != upper(new) {
        return Err(format!(
            "`{new}` would change the case of `{old}`'s first letter, which says what it names"
        ));
    }
    Ok(())
}
