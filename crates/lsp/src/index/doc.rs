//! A declaration's doc comment: the `//` lines right above it, or a `//` comment at the end
//! of its first line (the models' habit for channels: `chan take[N]  // picking up fork i`).
//! Expected-verdict markers (`//~`) are not documentation.

/// The comment documenting the declaration at `start..end` of `text`.
pub fn comment(text: &str, start: usize, end: usize) -> Option<String> {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let mut above = Vec::new();
    let mut before = &text[..line_start];
    while let Some(line) = last_line(before) {
        let Some(comment) = line.trim().strip_prefix("//") else {
            break;
        };
        if comment.starts_with('~') {
            break;
        }
        let comment = comment.trim_start_matches('/');
        above.push(comment.strip_prefix(' ').unwrap_or(comment).trim_end());
        before = &before[..before.len() - line.len()];
    }
    above.reverse();
    let first_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let trailing = text[end.min(first_end)..first_end]
        .split_once("//")
        .map(|(_, c)| c.trim())
        .filter(|c| !c.starts_with('~') && !c.is_empty());
    above.extend(trailing);
    let doc = above.join("\n");
    (!doc.trim().is_empty()).then_some(doc)
}

/// The last line of `text` when `text` ends with a newline (the line before the next one).
fn last_line(text: &str) -> Option<&str> {
    let body = text.strip_suffix('\n')?;
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    Some(&text[start..])
}

#[cfg(test)]
mod tests {
    use super::comment;

    #[test]
    fn lines_above_and_a_trailing_comment_document_a_declaration() {
        let text = "// unrelated\n\n// Forks.\n// Two lines.\nchan take  // pick up\ncheck S: deadlock free //~ holds\n";
        let start = text.find("chan").unwrap();
        let end = start + "chan take".len();
        assert_eq!(
            comment(text, start, end).as_deref(),
            Some("Forks.\nTwo lines.\npick up")
        );
        let check = text.find("check").unwrap();
        assert_eq!(comment(text, check, check + 22), None);
    }
}
