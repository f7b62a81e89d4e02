//! The language's words: the lexer's keywords, and the words the parser recognises by
//! position (`par`, `buffer`, the property forms), which lex as identifiers.

/// Keywords proper: the lexer never makes a name of them.
pub const KEYWORDS: &[&str] = &[
    "type", "const", "chan", "event", "proc", "daemon", "system", "check", "import", "new", "if",
    "then", "else", "match", "true", "false", "tau", "assert", "not", "and", "or",
];

/// Words with a meaning where the parser expects them, names elsewhere.
pub const CONTEXTUAL: &[&str] = &[
    "extern",
    "within",
    "parallel",
    "par",
    "in",
    "end",
    "buffer",
    "lossy",
    "deadlock",
    "free",
    "never",
    "reachable",
    "always",
    "eventually",
    "leads",
    "to",
    "ltl",
    "forall",
    "next",
    "until",
    "release",
    "unless",
    "fair",
    "strong",
    "at",
    "len",
    "contains",
    "refines",
    "equivalent",
    "deterministic",
    "traces",
    "failures",
    "fd",
    "branching",
    "dpbranching",
    "weak",
];
