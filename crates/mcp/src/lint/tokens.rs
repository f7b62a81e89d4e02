//! P4's measurement: the token cost of the whole `tools/list` result against a summary-first
//! listing (name and summary only), with a deterministic estimator instead of a real tokenizer.
//!
//! The estimator approximates BPE tokenizers of the cl100k/o200k family on English and JSON:
//! letters count one token per started 6 characters of a word, digits one per started 3,
//! every other non-space character one token, and runs of spaces are free (they attach to the
//! next word). Absolute numbers are estimates; the ratio between the two listings is what P4
//! is about, and it is stable under the choice of tokenizer.

use super::toolset::ToolSet;
use super::words::first_sentence;
use serde_json::{Value, json};

/// Token figures for one listing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    /// The whole tools/list result, serialised compactly.
    pub full: usize,
    /// A listing of name and summary (MCP+ summary, else the first sentence) per tool.
    pub summary_first: usize,
    pub tools: usize,
}

impl Tokens {
    /// Cost of discovery plus fetching the full definitions of `invoked` tools on demand:
    /// `summary_first + invoked * full / tools` (the paper's N·|summary| + k·|full|).
    pub fn progressive(&self, invoked: usize) -> usize {
        self.summary_first + (invoked * self.full).checked_div(self.tools).unwrap_or(0)
    }
}

pub fn measure(set: &ToolSet) -> Tokens {
    let tools: Vec<&Value> = set.tools.iter().map(|t| &t.value).collect();
    let full = estimate(&json!({ "tools": tools }).to_string());
    let summaries: Vec<Value> = set
        .tools
        .iter()
        .map(|t| json!({ "name": t.value.get("name"), "summary": summary(&t.value) }))
        .collect();
    let summary_first = estimate(&json!({ "tools": summaries }).to_string());
    Tokens {
        full,
        summary_first,
        tools: set.tools.len(),
    }
}

/// The text a summary-first listing would show for a tool.
pub fn summary(tool: &Value) -> String {
    let declared = tool
        .get("_meta")
        .and_then(|m| m.get(super::mcp_plus::KEY))
        .and_then(|b| b.get("summary"))
        .and_then(Value::as_str);
    match declared {
        Some(summary) => summary.to_string(),
        None => first_sentence(
            tool.get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
        )
        .to_string(),
    }
}

/// Estimated token count of `text`.
pub fn estimate(text: &str) -> usize {
    let mut count = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let (run, per) = if c.is_alphabetic() {
            (1 + take_while(&mut chars, char::is_alphabetic), 6)
        } else if c.is_ascii_digit() {
            (1 + take_while(&mut chars, |c| c.is_ascii_digit()), 3)
        } else if c.is_whitespace() {
            continue;
        } else {
            (1, 1)
        };
        count += run.div_ceil(per);
    }
    count
}

fn take_while(chars: &mut std::iter::Peekable<std::str::Chars>, keep: fn(char) -> bool) -> usize {
    let mut n = 0;
    while chars.next_if(|c| keep(*c)).is_some() {
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_words_digits_and_punctuation() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("hello world"), 2);
        assert_eq!(estimate("internationalization"), 4);
        assert_eq!(estimate("{\"a\":12345}"), 8);
    }
}
