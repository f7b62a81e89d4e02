//! One document analysed: the model loaded from it (every diagnostic), each file's syntax
//! tree indexed, and where its imports lead.

use crate::index::Index;
use crate::position::LineIndex;
use agentpi_diagnostics::{FileId, Span};
use agentpi_ir::{Loaded, Loader};
use agentpi_syntax::ast::Item;

pub struct Analysis {
    pub loaded: Loaded,
    /// The document's own file (the root of the load).
    pub root: FileId,
    pub index: Index,
    /// Each `import` and the file it loaded.
    pub imports: Vec<(Span, FileId)>,
    /// Each file's line starts, by file id.
    pub lines: Vec<LineIndex>,
}

impl Analysis {
    /// Loads `name` (the loader's name of the document) with everything it imports.
    pub fn new(name: &str, loader: &dyn Loader) -> Analysis {
        let loaded = agentpi_ir::load(name, loader);
        let mut files = Vec::new();
        let mut imports = Vec::new();
        let mut lines = Vec::new();
        for (id, file) in loaded.sources.files() {
            let (tree, _) = agentpi_syntax::parse(id, &file.text);
            for item in &tree.items {
                let Item::Import(import) = item else { continue };
                let read = loader.read(&import.path, Some(&file.name));
                let target = read.ok().and_then(|(n, _)| loaded.sources.find(&n));
                imports.extend(target.map(|t| (import.span, t)));
            }
            files.push((id, tree));
            lines.push(LineIndex::new(&file.text));
        }
        let index = Index::build(&loaded.sources, &files);
        Analysis {
            loaded,
            root: FileId(0),
            index,
            imports,
            lines,
        }
    }

    pub fn text(&self, file: FileId) -> &str {
        &self.loaded.sources.get(file).text
    }

    pub fn has_file(&self, file: FileId) -> bool {
        (file.0 as usize) < self.lines.len()
    }

    pub fn range(&self, span: Span) -> lsp_types::Range {
        self.lines[span.file.0 as usize].range(self.text(span.file), span.start, span.end)
    }

    pub fn offset(&self, position: lsp_types::Position) -> u32 {
        self.lines[self.root.0 as usize].offset(self.text(self.root), position)
    }

    /// The URI and range of `span`, when its file has a URI.
    pub fn location(&self, span: Span) -> Option<lsp_types::Location> {
        let name = &self.loaded.sources.get(span.file).name;
        let uri = crate::uri::from_name(name)?;
        Some(lsp_types::Location::new(uri, self.range(span)))
    }
}
