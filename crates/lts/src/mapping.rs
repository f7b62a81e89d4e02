//! Action mapping before a comparison: hiding (actions become `tau`) and renaming.
//!
//! A pattern matches a label if it matches the whole label text or the label's name (the
//! text before `(`), so `call` matches `call(1, ok)`. `*` matches any run of characters.
//! Rules apply in order and the first match wins. A mapping file has one rule a line:
//!
//! ```text
//! # comments and blank lines are ignored
//! hide    tools/list*
//! rename  call = invoke        # call(1, ok) becomes invoke(1, ok)
//! ```

use crate::builder::LtsBuilder;
use crate::lts::Lts;
use std::fmt;

/// An ordered list of hide and rename rules.
#[derive(Clone, Debug, Default)]
pub struct Mapping {
    rules: Vec<Rule>,
}

#[derive(Clone, Debug)]
struct Rule {
    pattern: String,
    /// `None` hides, `Some(to)` renames.
    rename: Option<String>,
}

/// A malformed mapping file line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub text: String,
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for MapError {}

impl Mapping {
    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Adds a rule hiding the actions matching `pattern`.
    pub fn hide(&mut self, pattern: &str) -> Result<(), String> {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err("expected a pattern to hide".to_string());
        }
        self.rules.push(Rule { pattern: pattern.to_string(), rename: None });
        Ok(())
    }

    /// Adds a rule from `FROM=TO`.
    pub fn rename(&mut self, rule: &str) -> Result<(), String> {
        let (from, to) = rule.split_once('=').ok_or("expected `FROM=TO`")?;
        let (from, to) = (from.trim(), to.trim());
        if from.is_empty() || to.is_empty() {
            return Err("expected `FROM=TO` with both sides non-empty".to_string());
        }
        self.rules.push(Rule { pattern: from.to_string(), rename: Some(to.to_string()) });
        Ok(())
    }

    /// Parses a mapping file, reporting the first malformed line.
    pub fn parse(text: &str) -> Result<Mapping, MapError> {
        let mut mapping = Mapping::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("");
            let body = line.trim_start();
            if body.trim().is_empty() {
                continue;
            }
            let indent = line.len() - body.len();
            let (word, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
            let error = |column: usize, message: String| MapError { line: i + 1, column, message, text: raw.to_string() };
            let result = match word {
                "hide" => mapping.hide(rest),
                "rename" => mapping.rename(rest),
                _ => return Err(error(indent + 1, format!("expected `hide` or `rename`, found `{word}`"))),
            };
            result.map_err(|m| error(indent + word.len() + 2, m))?;
        }
        Ok(mapping)
    }

    /// The mapped text of a label (`tau` when hidden).
    pub fn map_label(&self, label: &str) -> String {
        if label == "tau" {
            return label.to_string();
        }
        let name_end = label.find('(').unwrap_or(label.len());
        let name = label[..name_end].trim_end();
        for rule in &self.rules {
            let whole = glob(&rule.pattern, label);
            if !whole && !glob(&rule.pattern, name) {
                continue;
            }
            return match &rule.rename {
                None => "tau".to_string(),
                Some(to) if whole => to.clone(),
                Some(to) => format!("{to}{}", &label[name_end..]),
            };
        }
        label.to_string()
    }

    /// Relabels `lts` (transitions that become equal merge).
    pub fn apply(&self, lts: &Lts) -> Lts {
        let mut builder = LtsBuilder::new();
        let ids: Vec<u32> = lts.labels().iter().map(|l| builder.intern(&self.map_label(l))).collect();
        builder.require_states(lts.num_states());
        for (s, l, t) in lts.transitions() {
            builder.add_transition_id(s, ids[l as usize], t);
        }
        builder.finish(lts.initial())
    }
}

/// Glob matching where `*` matches any run of characters (greedy with backtracking).
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == t[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Maps each label and pins the result: `label => mapped`.
    fn check(mapping: &Mapping, cases: &[(&str, &str)]) {
        for (label, expected) in cases {
            assert_eq!(mapping.map_label(label), *expected, "{label}");
        }
    }

    #[test]
    fn patterns_match_names_and_wildcards() {
        let mut m = Mapping::default();
        m.hide("log*").unwrap();
        m.rename("call=invoke").unwrap();
        m.rename("reply(*, err)=failure").unwrap();
        check(&m, &[
            ("call(1, ok)", "invoke(1, ok)"),
            ("call", "invoke"),
            ("logging(x)", "tau"),
            ("reply(3, err)", "failure"),
            ("reply(3, ok)", "reply(3, ok)"),
            ("recall", "recall"),
        ]);
    }

    #[test]
    fn file_errors_have_line_and_column() {
        let cases = [
            ("hide a\nshow b\n", "2:1: expected `hide` or `rename`, found `show`"),
            ("# c\n  rename a b\n", "2:10: expected `FROM=TO`"),
            ("hide\n", "1:6: expected a pattern to hide"),
            ("rename a=\n", "1:8: expected `FROM=TO` with both sides non-empty"),
        ];
        for (text, expected) in cases {
            assert_eq!(Mapping::parse(text).unwrap_err().to_string(), expected);
        }
        assert_eq!(Mapping::parse("hide a # why\n\nrename b=c\n").unwrap().rules.len(), 2);
    }
}
