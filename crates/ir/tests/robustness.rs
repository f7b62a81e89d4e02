//! Robustness of the whole front end: corrupted versions of valid models (tests/ok and the
//! examples of docs/language.md; every token
//! deleted, duplicated, or replaced by another token of the file) go through `load` and must
//! give diagnostics, never a panic.

mod common;

use agentpi_diagnostics::FileId;
use agentpi_syntax::lexer;

fn models() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ok");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/ok exists")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    let files = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("readable"));
    let examples = common::doc_examples().into_iter().map(|(_, text)| text);
    files.chain(examples).collect()
}

fn tokens(text: &str) -> Vec<(usize, usize)> {
    let toks = lexer::lex(FileId(0), text, &mut Vec::new());
    toks.iter()
        .map(|t| (t.span.start as usize, t.span.end as usize))
        .filter(|(s, e)| s < e)
        .collect()
}

fn load(text: &str) -> usize {
    agentpi_ir::load_str("m.pi", text).diagnostics.len()
}

#[test]
fn deleting_or_duplicating_tokens_never_panics() {
    for text in models() {
        for (start, end) in tokens(&text) {
            load(&format!("{}{}", &text[..start], &text[end..]));
            load(&format!("{}{}", &text[..end], &text[start..]));
        }
    }
}

#[test]
fn replacing_tokens_never_panics() {
    for text in models() {
        let toks = tokens(&text);
        // Every token is replaced by a few others (a deterministic stride through the file).
        for (i, &(start, end)) in toks.iter().enumerate() {
            for k in [1, 7, 31] {
                let (s2, e2) = toks[(i * k + k) % toks.len()];
                load(&format!(
                    "{}{}{}",
                    &text[..start],
                    &text[s2..e2],
                    &text[end..]
                ));
            }
        }
    }
}

#[test]
fn truncating_never_panics() {
    for text in models() {
        for end in (0..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .step_by(3)
        {
            load(&text[..end]);
        }
    }
}

#[test]
fn long_chains_do_not_overflow_the_stack() {
    let prefixes = format!("chan a : 0..1\nsystem S = {}0\n", "a!1 . ".repeat(20_000));
    assert_eq!(load(&prefixes), 0);
    let seq = format!(
        "chan a : 0..1\nproc P = 0\nsystem S = {}a!1\n",
        "P ; ".repeat(20_000)
    );
    assert_eq!(load(&seq), 0);
    let par = format!("chan a : 0..1\nsystem S = {}a?_\n", "a!1 | ".repeat(20_000));
    assert_eq!(load(&par), 0);
}

#[test]
fn nesting_up_to_the_parser_limit_loads() {
    let depth = 60;
    let news = format!(
        "chan a : 0..1\nsystem S = {}a!1{}\n",
        "new x: chan . (".repeat(depth),
        ")".repeat(depth)
    );
    assert_eq!(load(&news), 0, "{news}");
    let ifs = format!(
        "chan a : 0..1\nsystem S = {}a!1{}\n",
        "if true then (".repeat(depth),
        ") else 0".repeat(depth)
    );
    assert_eq!(load(&ifs), 0);
    let exprs = format!(
        "chan a : 0..1\nsystem S = a!({}1{})\n",
        "(".repeat(90),
        ")".repeat(90)
    );
    assert_eq!(load(&exprs), 0);
    let too_deep = format!(
        "chan a : 0..1\nsystem S = {}a!1{}\n",
        "new x . (".repeat(500),
        ")".repeat(500)
    );
    let loaded = agentpi_ir::load_str("m.pi", &too_deep);
    assert_eq!(
        loaded
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect::<Vec<_>>(),
        ["E0111"]
    );
}
