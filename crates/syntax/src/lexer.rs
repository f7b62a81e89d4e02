//! The lexer: source text to tokens, with comments skipped and lexical errors reported.
//!
//! Lexing never fails: an unexpected character is reported (E0101) and skipped, so the parser
//! always sees a token stream ending in [`Tok::Eof`].

use crate::token::{Tok, Token};
use agentpi_diagnostics::{Diagnostic, FileId, Span};

/// Splits `text` into tokens; lexical errors go to `diags`.
pub fn lex(file: FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut lexer = Lexer {
        file,
        bytes: text.as_bytes(),
        text,
        pos: 0,
        diags,
        tokens: Vec::new(),
    };
    lexer.run();
    lexer.tokens
}

struct Lexer<'a> {
    file: FileId,
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    diags: &'a mut Vec<Diagnostic>,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn run(&mut self) {
        loop {
            self.skip_trivia();
            let start = self.pos;
            let Some(&byte) = self.bytes.get(self.pos) else {
                break;
            };
            let tok = match byte {
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => Some(self.word()),
                b'0'..=b'9' => Some(self.number()),
                b'"' => self.string(),
                _ => self.punct(),
            };
            if let Some(tok) = tok {
                self.tokens.push(Token {
                    tok,
                    span: self.span(start, self.pos),
                });
            }
        }
        let end = self.bytes.len();
        self.tokens.push(Token {
            tok: Tok::Eof,
            span: self.span(end, end),
        });
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start as u32, end as u32)
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn skip_trivia(&mut self) {
        loop {
            match (self.peek(0), self.peek(1)) {
                (b' ' | b'\t' | b'\r' | b'\n', _) => self.pos += 1,
                (b'/', b'/') => {
                    while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                (b'/', b'*') => self.block_comment(),
                _ => return,
            }
        }
    }

    /// Skips a `/* ... */` comment; they nest, so `/* a /* b */ c */` is one comment.
    fn block_comment(&mut self) {
        let start = self.pos;
        let mut depth = 0usize;
        while self.pos < self.bytes.len() {
            match (self.peek(0), self.peek(1)) {
                (b'/', b'*') => {
                    depth += 1;
                    self.pos += 2;
                }
                (b'*', b'/') => {
                    depth -= 1;
                    self.pos += 2;
                    if depth == 0 {
                        return;
                    }
                }
                _ => self.pos += 1,
            }
        }
        self.diags.push(
            Diagnostic::error("E0102", "unterminated block comment")
                .at(self.span(start, start + 2))
                .with_label("this comment is never closed")
                .with_help(
                    "close it with `*/` (block comments nest: each `/*` needs its own `*/`)",
                ),
        );
    }

    fn word(&mut self) -> Tok {
        let start = self.pos;
        while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') {
            self.pos += 1;
        }
        let word = &self.text[start..self.pos];
        Tok::keyword(word).unwrap_or_else(|| Tok::Ident(word.to_string()))
    }

    fn number(&mut self) -> Tok {
        let start = self.pos;
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        match self.text[start..self.pos].parse::<i64>() {
            Ok(value) => Tok::Int(value),
            Err(_) => {
                self.diags.push(
                    Diagnostic::error("E0103", "integer literal is too large")
                        .at(self.span(start, self.pos))
                        .with_label("does not fit in 64 bits")
                        .with_help("models use small bounded integers; use a smaller value"),
                );
                Tok::Int(0)
            }
        }
    }

    fn string(&mut self) -> Option<Tok> {
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.bytes.len() && !matches!(self.bytes[self.pos], b'"' | b'\n') {
            self.pos += 1;
        }
        if self.peek(0) != b'"' {
            self.diags.push(
                Diagnostic::error("E0104", "unterminated string")
                    .at(self.span(start, self.pos))
                    .with_label("this string has no closing `\"`")
                    .with_help("strings end on the same line with `\"`"),
            );
            return Some(Tok::Str(self.text[start + 1..self.pos].to_string()));
        }
        self.pos += 1;
        Some(Tok::Str(self.text[start + 1..self.pos - 1].to_string()))
    }

    fn punct(&mut self) -> Option<Tok> {
        let two = match (self.peek(0), self.peek(1)) {
            (b'.', b'.') => Some(Tok::DotDot),
            (b'=', b'=') => Some(Tok::EqEq),
            (b'!', b'=') => Some(Tok::NotEq),
            (b'<', b'=') => Some(Tok::Le),
            (b'>', b'=') => Some(Tok::Ge),
            (b'=', b'>') => Some(Tok::FatArrow),
            (b'&', b'&') => Some(Tok::AmpAmp),
            (b'|', b'|') => Some(Tok::BarBar),
            _ => None,
        };
        if let Some(tok) = two {
            self.pos += 2;
            return Some(tok);
        }
        let one = match self.peek(0) {
            b'.' => Tok::Dot,
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'*' => Tok::Star,
            b'/' => Tok::Slash,
            b'%' => Tok::Percent,
            b';' => Tok::Semi,
            b'|' => Tok::Bar,
            b'!' => Tok::Bang,
            b'?' => Tok::Question,
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b',' => Tok::Comma,
            b':' => Tok::Colon,
            b'=' => Tok::Assign,
            b'<' => Tok::Lt,
            b'>' => Tok::Gt,
            _ => return self.bad_char(),
        };
        self.pos += 1;
        Some(one)
    }

    fn bad_char(&mut self) -> Option<Tok> {
        let start = self.pos;
        let ch = self.text[start..].chars().next().unwrap_or('?');
        self.pos += ch.len_utf8();
        self.diags.push(
            Diagnostic::error(
                "E0101",
                format!("unexpected character `{}`", ch.escape_debug()),
            )
            .at(self.span(start, self.pos))
            .with_label("not part of the language"),
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> (Vec<Tok>, Vec<String>) {
        let mut diags = Vec::new();
        let tokens = lex(FileId(0), text, &mut diags);
        (
            tokens.into_iter().map(|t| t.tok).collect(),
            diags.into_iter().map(|d| d.code).collect(),
        )
    }

    #[test]
    fn nested_block_comments_are_skipped() {
        let (toks, errs) = kinds("a /* x /* y */ z */ b // c\n 0..7");
        let expected = vec![
            Tok::Ident("a".into()),
            Tok::Ident("b".into()),
            Tok::Int(0),
            Tok::DotDot,
            Tok::Int(7),
            Tok::Eof,
        ];
        assert_eq!((toks, errs), (expected, vec![]));
    }

    #[test]
    fn lexical_errors_are_reported_and_skipped() {
        let (toks, errs) = kinds("a # 99999999999999999999 /* open");
        assert_eq!(toks, vec![Tok::Ident("a".into()), Tok::Int(0), Tok::Eof]);
        assert_eq!(errs, vec!["E0101", "E0103", "E0102"]);
    }
}
