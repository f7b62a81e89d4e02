//! Semantic tokens of a whole document: keywords, names by what they name (from the index),
//! numbers, strings and comments (found between the lexer's tokens, which skip them).

use crate::analysis::Analysis;
use crate::index::Kind;
use crate::keywords::CONTEXTUAL;
use agentpi_syntax::token::Tok;
use lsp_types::{SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokensLegend};
use rustc_hash::FxHashMap;

const TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::EVENT,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::NUMBER,
    SemanticTokenType::STRING,
    SemanticTokenType::COMMENT,
    SemanticTokenType::CLASS,
];

const MODIFIERS: &[SemanticTokenModifier] = &[
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::READONLY,
];

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: MODIFIERS.to_vec(),
    }
}

fn type_index(ty: SemanticTokenType) -> u32 {
    TYPES.iter().position(|t| *t == ty).unwrap_or(0) as u32
}

/// A token before encoding: byte range, type and modifier bits.
struct Raw {
    start: u32,
    end: u32,
    ty: SemanticTokenType,
    modifiers: u32,
}

pub fn tokens(analysis: &Analysis) -> Vec<SemanticToken> {
    let root = analysis.root;
    let text = analysis.text(root);
    let names = names(analysis);
    let mut raw = Vec::new();
    let mut last = 0;
    for token in agentpi_syntax::lexer::lex(root, text, &mut Vec::new()) {
        comments(text, last, token.span.start, &mut raw);
        last = token.span.end;
        let (ty, modifiers) = match &token.tok {
            Tok::Int(_) => (SemanticTokenType::NUMBER, 0),
            Tok::Str(_) => (SemanticTokenType::STRING, 0),
            Tok::Ident(word) => match names.get(&token.span.start) {
                Some(&(kind, declaration)) => name(kind, declaration),
                None if CONTEXTUAL.contains(&word.as_str()) => (SemanticTokenType::KEYWORD, 0),
                None => continue,
            },
            Tok::Eof => continue,
            tok if is_keyword(tok) => (SemanticTokenType::KEYWORD, 0),
            _ => continue,
        };
        let (start, end) = (token.span.start, token.span.end);
        raw.push(Raw {
            start,
            end,
            ty,
            modifiers,
        });
    }
    encode(analysis, &raw)
}

/// Each name of the document by its start: what it names, and whether it is its definition.
fn names(analysis: &Analysis) -> FxHashMap<u32, (Kind, bool)> {
    let index = &analysis.index;
    let mut names = FxHashMap::default();
    for &(span, def) in &index.refs {
        if span.file == analysis.root {
            names.insert(span.start, (index.defs[def].kind, false));
        }
    }
    for def in index.defs.iter().filter(|d| d.span.file == analysis.root) {
        names.insert(def.span.start, (def.kind, true));
    }
    names
}

fn name(kind: Kind, declaration: bool) -> (SemanticTokenType, u32) {
    let (ty, readonly) = match kind {
        Kind::Type => (SemanticTokenType::TYPE, false),
        Kind::Ctor => (SemanticTokenType::ENUM_MEMBER, false),
        Kind::Const => (SemanticTokenType::VARIABLE, true),
        Kind::Chan | Kind::Var => (SemanticTokenType::VARIABLE, false),
        Kind::Param => (SemanticTokenType::PARAMETER, false),
        Kind::Event => (SemanticTokenType::EVENT, false),
        Kind::Proc => (SemanticTokenType::FUNCTION, false),
        Kind::System => (SemanticTokenType::CLASS, false),
        Kind::Point => (SemanticTokenType::PROPERTY, false),
    };
    (ty, u32::from(declaration) | (u32::from(readonly) << 1))
}

fn is_keyword(tok: &Tok) -> bool {
    use Tok::*;
    matches!(
        tok,
        Type | Const
            | Chan
            | Event
            | Proc
            | Daemon
            | System
            | Check
            | Import
            | New
            | If
            | Then
            | Else
            | Match
            | True
            | False
            | Tau
            | Assert
            | Not
            | And
            | Or
    )
}

/// The comments in `text[from..to]`, the gap between two tokens.
fn comments(text: &str, from: u32, to: u32, raw: &mut Vec<Raw>) {
    let bytes = text.as_bytes();
    let (mut at, to) = (from as usize, (to as usize).min(bytes.len()));
    while at + 1 < to {
        let end = match (bytes[at], bytes[at + 1]) {
            (b'/', b'/') => text[at..to].find('\n').map_or(to, |i| at + i),
            (b'/', b'*') => block_end(bytes, at, to),
            _ => {
                at += 1;
                continue;
            }
        };
        let (start, end) = (at as u32, end as u32);
        raw.push(Raw {
            start,
            end,
            ty: SemanticTokenType::COMMENT,
            modifiers: 0,
        });
        at = end as usize;
    }
}

/// The end of the (nesting) block comment at `at`, or `to` when it is not closed.
fn block_end(bytes: &[u8], mut at: usize, to: usize) -> usize {
    let mut depth = 0;
    while at + 1 < to {
        match (bytes[at], bytes[at + 1]) {
            (b'/', b'*') => (depth, at) = (depth + 1, at + 2),
            (b'*', b'/') if depth == 1 => return at + 2,
            (b'*', b'/') => (depth, at) = (depth - 1, at + 2),
            _ => at += 1,
        }
    }
    to
}

/// LSP's relative encoding; a token over several lines becomes one per line.
fn encode(analysis: &Analysis, raw: &[Raw]) -> Vec<SemanticToken> {
    let text = analysis.text(analysis.root);
    let lines = &analysis.lines[analysis.root.0 as usize];
    let mut out = Vec::new();
    let (mut line, mut col) = (0, 0);
    for token in raw {
        let mut start = token.start as usize;
        while start < token.end as usize {
            let piece_end = text[start..token.end as usize]
                .find('\n')
                .map_or(token.end as usize, |i| start + i);
            let from = lines.position(text, start as u32);
            let length = text[start..piece_end].encode_utf16().count() as u32;
            if length > 0 {
                let delta_line = from.line - line;
                let delta_start = if delta_line == 0 {
                    from.character - col
                } else {
                    from.character
                };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length,
                    token_type: type_index(token.ty.clone()),
                    token_modifiers_bitset: token.modifiers,
                });
                (line, col) = (from.line, from.character);
            }
            start = piece_end + 1;
        }
    }
    out
}
