//! Tokens: what the lexer produces and the parser consumes.

use agentpi_diagnostics::Span;

/// The kind of a token; identifiers and literals carry their value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    Str(String),
    // Keywords.
    Type,
    Const,
    Chan,
    Event,
    Proc,
    Daemon,
    System,
    Check,
    Import,
    New,
    If,
    Then,
    Else,
    Match,
    True,
    False,
    Tau,
    Assert,
    Not,
    And,
    Or,
    // Punctuation.
    Dot,
    DotDot,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Semi,
    Bar,
    Bang,
    Question,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    /// `&&` and `||`: not agentpi's spelling (`and`, `or`, `|`); lexed to explain that.
    AmpAmp,
    BarBar,
    Comma,
    Colon,
    Assign,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    FatArrow,
    Underscore,
    Eof,
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

impl Tok {
    /// The keyword for an identifier-shaped word, if it is one.
    pub fn keyword(word: &str) -> Option<Tok> {
        Some(match word {
            "type" => Tok::Type,
            "const" => Tok::Const,
            "chan" => Tok::Chan,
            "event" => Tok::Event,
            "proc" => Tok::Proc,
            "daemon" => Tok::Daemon,
            "system" => Tok::System,
            "check" => Tok::Check,
            "import" => Tok::Import,
            "new" => Tok::New,
            "if" => Tok::If,
            "then" => Tok::Then,
            "else" => Tok::Else,
            "match" => Tok::Match,
            "true" => Tok::True,
            "false" => Tok::False,
            "tau" => Tok::Tau,
            "assert" => Tok::Assert,
            "not" => Tok::Not,
            "and" => Tok::And,
            "or" => Tok::Or,
            "_" => Tok::Underscore,
            _ => return None,
        })
    }

    /// Keywords that start a top-level declaration: where error recovery resumes.
    pub fn starts_item(&self) -> bool {
        matches!(
            self,
            Tok::Type
                | Tok::Const
                | Tok::Chan
                | Tok::Event
                | Tok::Proc
                | Tok::Daemon
                | Tok::System
                | Tok::Check
                | Tok::Import
        )
    }

    /// How the token is shown in "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(name) => format!("identifier `{name}`"),
            Tok::Int(value) => format!("integer `{value}`"),
            Tok::Str(_) => "a string".to_string(),
            Tok::Eof => "end of file".to_string(),
            other => format!("`{}`", other.text()),
        }
    }

    fn text(&self) -> &'static str {
        match self {
            Tok::Type => "type",
            Tok::Const => "const",
            Tok::Chan => "chan",
            Tok::Event => "event",
            Tok::Proc => "proc",
            Tok::Daemon => "daemon",
            Tok::System => "system",
            Tok::Check => "check",
            Tok::Import => "import",
            Tok::New => "new",
            Tok::If => "if",
            Tok::Then => "then",
            Tok::Else => "else",
            Tok::Match => "match",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Tau => "tau",
            Tok::Assert => "assert",
            Tok::Not => "not",
            Tok::And => "and",
            Tok::Or => "or",
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Semi => ";",
            Tok::Bar => "|",
            Tok::Bang => "!",
            Tok::Question => "?",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBrace => "{",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::AmpAmp => "&&",
            Tok::BarBar => "||",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Assign => "=",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::FatArrow => "=>",
            Tok::Underscore => "_",
            Tok::Ident(_) | Tok::Int(_) | Tok::Str(_) | Tok::Eof => "",
        }
    }
}
