//! Helpers shared by the integration tests.

/// The `pi` fenced blocks of the reference, with the line each starts on.
pub fn doc_examples() -> Vec<(usize, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/language.md");
    let text = std::fs::read_to_string(path).expect("docs/language.md is readable");
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```pi") => current = Some((index + 2, String::new())),
            (Some(_), "```") => out.extend(current.take()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, _) => {}
        }
    }
    out
}
