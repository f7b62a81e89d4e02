//! Loading a model: the root file and its imports (transitively, each file once), parsed and
//! lowered together. File access is the caller's, through [`Loader`]: this crate does no I/O.

use crate::core::Program;
use agentpi_diagnostics::{Diagnostic, FileId, SourceMap, Span};
use agentpi_syntax::ast::{self, Item};
use rustc_hash::FxHashMap;

/// Reads model files for [`load`].
pub trait Loader {
    /// Reads `name`: a path relative to the importing file, or a bundled model name.
    /// `importer` is the display name of the importing file (`None` for the root). Returns the
    /// file's display name (the same file must always get the same one) and its text.
    fn read(&self, name: &str, importer: Option<&str>) -> Result<(String, String), String>;
}

/// A loaded model. `program` is only meaningful when `diagnostics` has no error.
#[derive(Debug)]
pub struct Loaded {
    pub program: Program,
    pub sources: SourceMap,
    /// Sorted with [`agentpi_diagnostics::sort`].
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Loads `root` and everything it imports, and lowers the whole model.
pub fn load(root: &str, loader: &dyn Loader) -> Loaded {
    load_with(root, loader, &[])
}

/// [`load`], with constants set from outside (`-D NAME=VALUE`): each value is an expression,
/// checked like the constant's own; a name the model does not declare is an error.
pub fn load_with(root: &str, loader: &dyn Loader, defines: &[(String, String)]) -> Loaded {
    load_with_checks(root, loader, defines, None)
}

/// [`load_with`], with more `check` declarations from outside: `checks` is a display name and
/// a text of checks (and anything else a model may declare), loaded beside the root and run
/// with its checks (`agentpi run` adds what a run needs this way).
pub fn load_with_checks(
    root: &str,
    loader: &dyn Loader,
    defines: &[(String, String)],
    checks: Option<(&str, &str)>,
) -> Loaded {
    let mut sources = SourceMap::new();
    let mut diagnostics = Vec::new();
    let (display, text) = match loader.read(root, None) {
        Ok(file) => file,
        Err(reason) => {
            diagnostics.push(
                Diagnostic::error("E0207", format!("cannot read `{root}`: {reason}"))
                    .with_help("check the file name"),
            );
            return Loaded {
                program: Program::default(),
                sources,
                diagnostics,
            };
        }
    };
    let mut files = parse_all(display, text, loader, &mut sources, &mut diagnostics);
    let mut checks_run = vec![false; files.len()];
    checks_run[0] = true;
    if let Some((name, text)) = checks {
        let id = sources.add(name.to_string(), text.to_string());
        let (file, parse_diags) = agentpi_syntax::parse(id, text);
        diagnostics.extend(parse_diags);
        files.push(file);
        checks_run.push(true);
    }
    let defines = parse_defines(defines, &mut sources, &mut diagnostics);
    let syntax_errors = diagnostics.iter().any(Diagnostic::is_error);
    let has_externs = files
        .iter()
        .any(|f| f.items.iter().any(|i| matches!(i, Item::Extern(_))));
    let (program, lowered) = match has_externs && !syntax_errors {
        true => with_tool_models(files, checks_run, &defines, &mut sources),
        false => crate::lower::lower(&files, &checks_run, &defines, syntax_errors, None),
    };
    diagnostics.extend(lowered);
    agentpi_diagnostics::sort(&mut diagnostics);
    Loaded {
        program,
        sources,
        diagnostics,
    }
}

/// Lowers a model with `extern` declarations: first without the checks (which may name the
/// tool models' events), to learn the externs; then, when that has no error, with the tool
/// model of every extern beside each system, and the checks. Errors of the first lowering are
/// its own (the checks are looked at once they are fixed).
fn with_tool_models(
    mut files: Vec<ast::File>,
    mut checks_run: Vec<bool>,
    defines: &[ast::ConstDecl],
    sources: &mut SourceMap,
) -> (Program, Vec<Diagnostic>) {
    let unchecked = vec![false; files.len()];
    let (first, diags) = crate::lower::lower(&files, &unchecked, defines, false, None);
    if diags.iter().any(Diagnostic::is_error) {
        return (first, diags);
    }
    let text = crate::externs::tool_models(&first, &|span| sources.snippet(span).to_string());
    let id = sources.add(crate::externs::SOURCE_NAME.to_string(), text.clone());
    let (generated, mut diags) = agentpi_syntax::parse(id, &text);
    crate::externs::compose(&mut files, &generated);
    files.push(generated);
    checks_run.push(false);
    let (program, lowered) = crate::lower::lower(&files, &checks_run, defines, false, Some(id));
    diags.extend(lowered);
    (program, diags)
}

/// Parses the root and, breadth-first, every file it imports; each file once, so import
/// cycles are harmless.
fn parse_all(
    display: String,
    text: String,
    loader: &dyn Loader,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ast::File> {
    let mut seen: FxHashMap<String, FileId> = FxHashMap::default();
    let mut files = Vec::new();
    let mut queue = std::collections::VecDeque::from([(display, text)]);
    while let Some((display, text)) = queue.pop_front() {
        let id = sources.add(display.clone(), text.clone());
        seen.insert(display.clone(), id);
        let (file, parse_diags) = agentpi_syntax::parse(id, &text);
        diags.extend(parse_diags);
        for import in imports(&file) {
            match loader.read(&import.path, Some(&display)) {
                Ok((name, _))
                    if seen.contains_key(&name) || queue.iter().any(|(n, _)| *n == name) => {}
                Ok(file) => queue.push_back(file),
                Err(reason) => diags.push(import_error(import.span, &import.path, &reason)),
            }
        }
        files.push(file);
    }
    files
}

/// `-D NAME=VALUE` settings as constant declarations, parsed from a source of their own (so
/// that a mistake in a value is shown in it).
fn parse_defines(
    defines: &[(String, String)],
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ast::ConstDecl> {
    if defines.is_empty() {
        return Vec::new();
    }
    let text: String = defines
        .iter()
        .map(|(name, value)| format!("const {name} = {value}\n"))
        .collect();
    let id = sources.add("(-D on the command line)".to_string(), text.clone());
    let (file, parse_diags) = agentpi_syntax::parse(id, &text);
    diags.extend(parse_diags);
    file.items
        .into_iter()
        .filter_map(|item| match item {
            Item::Const(decl) => Some(decl),
            _ => None,
        })
        .collect()
}

fn imports(file: &ast::File) -> Vec<ast::Import> {
    file.items
        .iter()
        .filter_map(|item| match item {
            Item::Import(import) => Some(import.clone()),
            _ => None,
        })
        .collect()
}

fn import_error(span: Span, path: &str, reason: &str) -> Diagnostic {
    Diagnostic::error("E0207", format!("cannot import `{path}`: {reason}"))
        .at(span)
        .with_label("this import")
        .with_help(
            "import a `.pi` file by a path relative to this file, or a bundled model by name",
        )
}

/// A loader over in-memory files (name to text), for tests and embedded models.
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    pub files: Vec<(String, String)>,
}

impl Loader for MemoryLoader {
    fn read(&self, name: &str, _importer: Option<&str>) -> Result<(String, String), String> {
        let found = self.files.iter().find(|(n, _)| n == name);
        found.cloned().ok_or_else(|| "no such file".to_string())
    }
}

/// Loads a single in-memory model; imports fail (use [`load`] with a [`MemoryLoader`]).
pub fn load_str(name: &str, text: &str) -> Loaded {
    let loader = MemoryLoader {
        files: vec![(name.to_string(), text.to_string())],
    };
    load(name, &loader)
}
