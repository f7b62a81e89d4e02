//! Finds where a JSON pointer's value starts in the text of a JSON document, so that findings
//! on files can be shown as `FILE:LINE:COL` with a snippet and located in SARIF. A small
//! scanner instead of a parser with spans: it only needs to walk one path and skip the rest.

/// Byte offset of the value at `pointer` (RFC 6901) in `text`, if the path exists.
pub fn offset(text: &str, pointer: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    if pointer.is_empty() {
        return Some(at);
    }
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = token.replace("~1", "/").replace("~0", "~");
        at = match bytes.get(at)? {
            b'{' => member(bytes, at, &token)?,
            b'[' => element(bytes, at, token.parse().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Byte offset of the value at `pointer`, or, when the pointer names a member its object lacks
/// (P201 at `/tools/3/annotations`, T101 at `/tools/1/name`), of that object: the finding is
/// about what the object leaves out.
pub fn offset_or_parent(text: &str, pointer: &str) -> Option<usize> {
    offset(text, pointer).or_else(|| {
        let (parent, _) = pointer.rsplit_once('/')?;
        let at = offset(text, parent)?;
        (text.as_bytes().get(at) == Some(&b'{')).then_some(at)
    })
}

/// Byte offset in file `text` (named `name`) of the value a finding points at (or of the object
/// that lacks it, see [`offset_or_parent`]); `document` is `name` for whole-file documents, or
/// `name:LINE` for one line of a recorded session.
pub fn in_file(name: &str, text: &str, document: &str, pointer: &str) -> Option<usize> {
    if document == name {
        return offset_or_parent(text, pointer);
    }
    let line: usize = document
        .strip_prefix(name)?
        .strip_prefix(':')?
        .parse()
        .ok()?;
    let start: usize = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum();
    let line_text = text.get(start..)?.lines().next()?;
    offset_or_parent(line_text, pointer).map(|at| start + at)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The value of member `key` of the object starting at `at`.
fn member(bytes: &[u8], at: usize, key: &str) -> Option<usize> {
    let mut at = skip_space(bytes, at + 1);
    while bytes.get(at)? == &b'"' {
        let end = skip_string(bytes, at)?;
        let name: String = serde_json::from_slice(&bytes[at..end]).ok()?;
        at = skip_space(bytes, end);
        at = skip_space(bytes, at + usize::from(bytes.get(at)? == &b':'));
        if name == key {
            return Some(at);
        }
        at = next_item(bytes, skip_value(bytes, at)?)?;
    }
    None
}

/// Element `index` of the array starting at `at`.
fn element(bytes: &[u8], at: usize, index: usize) -> Option<usize> {
    let mut at = skip_space(bytes, at + 1);
    for _ in 0..index {
        if bytes.get(at)? == &b']' {
            return None;
        }
        at = next_item(bytes, skip_value(bytes, at)?)?;
    }
    (bytes.get(at)? != &b']').then_some(at)
}

/// After a value: past the `,` to the next item, or at the closing bracket.
fn next_item(bytes: &[u8], at: usize) -> Option<usize> {
    let at = skip_space(bytes, at);
    match bytes.get(at)? {
        b',' => Some(skip_space(bytes, at + 1)),
        _ => Some(at),
    }
}

/// The offset just past the string starting at `at` (which holds `"`).
fn skip_string(bytes: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    loop {
        match bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
}

/// The offset just past the value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => skip_nested(bytes, at),
        _ => {
            let rest = &bytes[at..];
            let len = rest
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace());
            Some(at + len.unwrap_or(rest.len()))
        }
    }
}

fn skip_nested(bytes: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match bytes.get(at)? {
            b'"' => {
                at = skip_string(bytes, at)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{offset, offset_or_parent};

    const TEXT: &str = r#"{"a": [1, {"b~c": "x\"y", "d/e": [true, null]}], "f": {}}"#;

    fn value_at(pointer: &str) -> Option<&'static str> {
        offset(TEXT, pointer).map(|at| &TEXT[at..at + 4])
    }

    #[test]
    fn walks_objects_arrays_and_escaped_tokens() {
        assert_eq!(value_at(""), Some("{\"a\""));
        assert_eq!(value_at("/a/0"), Some("1, {"));
        assert_eq!(value_at("/a/1/b~0c"), Some("\"x\\\""));
        assert_eq!(value_at("/a/1/d~1e/1"), Some("null"));
        assert_eq!(offset(TEXT, "/f"), Some(TEXT.len() - 3));
    }

    #[test]
    fn session_documents_name_a_line() {
        let text = "{\"a\": 1}\n{\"b\": 2}\n";
        assert_eq!(super::in_file("s.jsonl", text, "s.jsonl:2", "/b"), Some(15));
        assert_eq!(super::in_file("s.jsonl", text, "s.jsonl:0", "/b"), None);
        assert_eq!(super::in_file("s.jsonl", text, "other", "/b"), None);
    }

    #[test]
    fn missing_paths_give_none() {
        assert_eq!(offset(TEXT, "/a/2"), None);
        assert_eq!(offset(TEXT, "/zz"), None);
        assert_eq!(offset(TEXT, "/f/x"), None);
        assert_eq!(offset("[1", "/3"), None);
        assert_eq!(offset("not json", "/a"), None);
    }

    #[test]
    fn a_missing_member_points_at_its_object() {
        let f = TEXT.len() - 3;
        assert_eq!(offset_or_parent(TEXT, "/f/annotations"), Some(f));
        assert_eq!(offset_or_parent(TEXT, "/a/1/zz"), Some(10));
        // Only objects lack members: a missing element or a path through a scalar is not found.
        assert_eq!(offset_or_parent(TEXT, "/a/2"), None);
        assert_eq!(offset_or_parent(TEXT, "/a/0/x"), None);
        assert_eq!(offset_or_parent(TEXT, "/zz/x"), None);
    }
}
