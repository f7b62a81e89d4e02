//! Robustness of the whole front end: corrupted versions of valid models (every token
//! deleted, duplicated, or replaced by another token of the file) go through `load` and must
//! give diagnostics, never a panic.

use agentpi_diagnostics::FileId;
use agentpi_syntax::lexer;

fn models() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ok");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/ok exists")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("readable"))
        .collect()
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
