//! Word-level text helpers for the heuristic rules: splitting names and prose into words, and
//! finding the first sentence of a description.

/// Words of an identifier: `delete_note`, `deleteNote` and `delete-note` all give
/// `["delete", "note"]`.
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            flush(&mut words, &mut current);
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            flush(&mut words, &mut current);
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    flush(&mut words, &mut current);
    words
}

fn flush(words: &mut Vec<String>, current: &mut String) {
    if !current.is_empty() {
        words.push(std::mem::take(current));
    }
}

/// Lower-case alphanumeric words of prose, in order.
pub fn prose_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Words that carry no meaning of their own in a tool description.
const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "tool",
    "function",
    "to",
    "of",
    "for",
    "and",
    "or",
    "in",
    "on",
    "it",
    "is",
    "be",
    "by",
    "with",
    "from",
    "given",
    "specified",
    "provided",
    "method",
];

/// Whether `word` is filler for the restatement heuristic.
pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// Crude stemming so that `deletes`, `deleted` and `deleting` all match `delete`.
pub fn stem(word: &str) -> &str {
    for suffix in ["ing", "es", "ed", "s", "e"] {
        if word.len() > suffix.len() + 2
            && let Some(stripped) = word.strip_suffix(suffix)
        {
            return stripped;
        }
    }
    word
}

/// The first sentence of `text`: up to the first `.`, `!` or `?` followed by whitespace or the
/// end, or the first line break.
pub fn first_sentence(text: &str) -> &str {
    let text = text.trim();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if c == '\n' || (matches!(c, '.' | '!' | '?') && next_is_space) {
            let end = if c == '\n' { i } else { i + c.len_utf8() };
            return text[..end].trim();
        }
    }
    text
}

/// The sentences of `text`: split after `.`, `!` or `?` followed by whitespace, at line breaks
/// and at `;`. Dots inside names (`repo.issues`, `1.2`) do not split.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let abbreviation = c == '.' && abbreviated(&text[..i]);
        let ends = matches!(c, '.' | '!' | '?') && next_is_space && !abbreviation;
        if matches!(c, '\n' | ';') || ends {
            let end = i + c.len_utf8();
            out.push(text[start..end].trim());
            start = end;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// The sentences of `text` outside fenced code blocks (between lines that start with three
/// backticks): a code example is not prose, and its keys and strings are not values.
pub fn prose_sentences(text: &str) -> Vec<&str> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            out.extend(sentences(line));
        }
    }
    out
}

/// Whether `before` (the text up to a `.`) ends with an abbreviation that does not end a
/// sentence: "e.g", "i.e", "etc", "vs".
fn abbreviated(before: &str) -> bool {
    let last = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_lowercase();
    matches!(last.as_str(), "e.g" | "i.e" | "etc" | "vs" | "eg" | "ie")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_identifiers_in_every_case_style() {
        assert_eq!(name_words("delete_note"), ["delete", "note"]);
        assert_eq!(name_words("getTinyImage"), ["get", "tiny", "image"]);
        assert_eq!(name_words("get-env"), ["get", "env"]);
        assert_eq!(name_words("HTTPServer2"), ["httpserver2"]);
    }

    #[test]
    fn first_sentence_ends_at_period_space_or_newline() {
        assert_eq!(first_sentence("Read a file. Then more."), "Read a file.");
        assert_eq!(first_sentence("Version 1.2 is fine"), "Version 1.2 is fine");
        assert_eq!(first_sentence("Line one\nline two"), "Line one");
    }

    #[test]
    fn sentences_split_at_ends_not_inside_names() {
        assert_eq!(
            sentences("Use repo.issues first. Then v1.2; done\nnext"),
            ["Use repo.issues first.", "Then v1.2;", "done", "next"]
        );
    }

    #[test]
    fn abbreviations_do_not_end_sentences() {
        assert_eq!(
            sentences("A format, e.g. 'json' or 'text'."),
            ["A format, e.g. 'json' or 'text'."]
        );
    }

    #[test]
    fn prose_sentences_skip_fenced_code() {
        let text = "Send commands.\n```json\n{\"page\": 1, \"mode\": \"fast\"}\n```\nThen stop.";
        assert_eq!(prose_sentences(text), ["Send commands.", "Then stop."]);
    }

    #[test]
    fn stems_common_suffixes_only_on_long_words() {
        assert_eq!(stem("deletes"), "delet");
        assert_eq!(stem("delete"), "delet");
        assert_eq!(stem("use"), "use");
    }
}
