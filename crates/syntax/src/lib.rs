//! agentpi-syntax: the lexer, parser and syntax tree of the agentpi modelling language.
//!
//! [`parse`] never fails: it returns a tree (with `Error` nodes where the input was wrong) and
//! every diagnostic found (codes E01xx).

pub mod ast;
pub mod lexer;
mod parser;
pub mod token;

use agentpi_diagnostics::{Diagnostic, FileId};

/// Parses one file. Spans carry `file`; the text is not kept.
pub fn parse(file: FileId, text: &str) -> (ast::File, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let tokens = lexer::lex(file, text, &mut diags);
    let tree = parser::Parser::new(tokens, text, &mut diags).file();
    (tree, diags)
}

/// The deepest nesting of parentheses, processes or expressions the parser accepts.
pub const MAX_DEPTH: usize = 100;
