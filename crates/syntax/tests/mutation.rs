//! Robustness: the parser must never panic, whatever it is fed. Valid files are corrupted
//! deterministically (truncated at every byte, every token deleted, every token duplicated)
//! and each variant is parsed.

use agentpi_diagnostics::FileId;
use agentpi_syntax::{lexer, parse};

const CORPUS: &[&str] = &[
    include_str!("data/calc.pi"),
    include_str!("data/syntax_tour.pi"),
];

fn token_ranges(text: &str) -> Vec<(usize, usize)> {
    let tokens = lexer::lex(FileId(0), text, &mut Vec::new());
    tokens
        .iter()
        .map(|t| (t.span.start as usize, t.span.end as usize))
        .filter(|(s, e)| s < e)
        .collect()
}

/// Parses and checks that every diagnostic points inside the text.
fn parse_ok(text: &str) -> usize {
    let (_, diags) = parse(FileId(0), text);
    for d in &diags {
        let span = d.span().expect("syntax errors point into the source");
        assert!(
            span.start <= span.end && span.end as usize <= text.len(),
            "{d:?} in {text:?}"
        );
    }
    diags.len()
}

#[test]
fn corpus_is_valid() {
    for text in CORPUS {
        assert_eq!(parse_ok(text), 0, "{text}");
    }
}

#[test]
fn truncation_at_every_offset() {
    for text in CORPUS {
        for end in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            parse_ok(&text[..end]);
        }
    }
}

#[test]
fn deleting_or_duplicating_each_token() {
    let mut with_errors = 0;
    for text in CORPUS {
        for (start, end) in token_ranges(text) {
            let deleted = format!("{}{}", &text[..start], &text[end..]);
            let duplicated = format!("{}{}", &text[..end], &text[start..]);
            with_errors += usize::from(parse_ok(&deleted) > 0);
            parse_ok(&duplicated);
        }
    }
    // Most single-token deletions break the file; the parser must say so.
    assert!(with_errors > 100, "{with_errors}");
}

#[test]
fn swapping_adjacent_tokens() {
    for text in CORPUS {
        let ranges = token_ranges(text);
        for pair in ranges.windows(2) {
            let ((a, b), (c, d)) = (pair[0], pair[1]);
            let swapped = format!(
                "{}{}{}{}{}",
                &text[..a],
                &text[c..d],
                &text[b..c],
                &text[a..b],
                &text[d..]
            );
            parse_ok(&swapped);
        }
    }
}
