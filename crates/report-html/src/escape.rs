//! Escaping what comes from input (labels, messages, file names) for HTML and SVG text and
//! attributes, and JSON for a `<script>` element.

/// `text` safe inside an element or a quoted attribute of HTML or XML.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0: shown as a replacement.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// JSON text safe inside `<script type="application/json">`: `<` only occurs inside JSON
/// strings, where `\u003c` means the same, so no `</script>` or `<!--` can close the element.
pub fn script_json(json: &str) -> String {
    json.replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            super::html("<script>alert('x')</script> & \"y\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;"
        );
        assert_eq!(
            super::script_json(r#"["</script>"]"#),
            r#"["\u003c/script>"]"#
        );
    }
}
