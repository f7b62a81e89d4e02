//! `agentpi-lint.toml`: turn rules off or change their severity, and set the P4 token budget.
//!
//! ```toml
//! token_budget = 20000
//! [rules]
//! P002 = "off"
//! P104 = "error"
//! ```

use super::error::InputError;
use super::finding::Finding;
use super::rules;
use agentpi_diagnostics::Severity;
use std::collections::BTreeMap;

/// A rule's configured level: off, or a severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    On(Severity),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub rules: BTreeMap<String, Level>,
    /// P405 fires when the full listing costs more tokens than this.
    pub token_budget: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            rules: BTreeMap::new(),
            token_budget: 10_000,
        }
    }
}

impl Config {
    /// Parses the text of config file `name`; errors name `FILE:LINE:COL`.
    pub fn parse(name: &str, text: &str) -> Result<Config, InputError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let place = e
                .span()
                .map_or(name.to_string(), |s| position(name, text, s.start));
            InputError::new(place, format!("invalid TOML: {}", e.message()))
        })?;
        let mut config = Config::default();
        for (key, value) in &table {
            match (key.as_str(), value) {
                ("token_budget", toml::Value::Integer(n)) if *n >= 0 => {
                    config.token_budget = *n as usize
                }
                ("token_budget", _) => {
                    return Err(at_key(
                        name,
                        text,
                        key,
                        "`token_budget` must be a non-negative integer",
                    ));
                }
                ("rules", toml::Value::Table(rules)) => config.rules(name, text, rules)?,
                _ => {
                    return Err(at_key(
                        name,
                        text,
                        key,
                        &format!("unknown setting `{key}` (known: token_budget, [rules])"),
                    ));
                }
            }
        }
        Ok(config)
    }

    fn rules(&mut self, name: &str, text: &str, table: &toml::Table) -> Result<(), InputError> {
        for (code, value) in table {
            if rules::find(code).is_none() {
                let error = at_key(name, text, code, &format!("unknown rule code `{code}`"));
                return Err(error
                    .with_help("`agentpi lint --explain CODE` lists the codes; see docs/lint.md"));
            }
            let level = match value.as_str() {
                Some("off") => Level::Off,
                Some(text) if Severity::parse(text).is_some() => {
                    Level::On(Severity::parse(text).unwrap())
                }
                _ => {
                    return Err(at_key(
                        name,
                        text,
                        code,
                        &format!(
                            "rule `{code}`: expected \"off\", \"note\", \"warning\" or \"error\", found {value}"
                        ),
                    ));
                }
            };
            self.rules.insert(code.clone(), level);
        }
        Ok(())
    }

    /// Drops findings of disabled rules and applies severity changes.
    pub fn apply(&self, findings: Vec<Finding>) -> Vec<Finding> {
        findings
            .into_iter()
            .filter_map(
                |mut finding| match self.rules.get(&finding.diagnostic.code) {
                    Some(Level::Off) => None,
                    Some(Level::On(severity)) => {
                        finding.diagnostic.severity = *severity;
                        Some(finding)
                    }
                    None => Some(finding),
                },
            )
            .collect()
    }
}

/// `FILE:LINE:COL` of byte `offset` in `text`.
fn position(name: &str, text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{name}:{line}:{column}")
}

/// An error placed at the line where `key` is assigned (or the file, if not found).
fn at_key(name: &str, text: &str, key: &str, message: &str) -> InputError {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let bare = trimmed.trim_start_matches('"');
        if bare.starts_with(key)
            && bare[key.len()..]
                .trim_start_matches('"')
                .trim_start()
                .starts_with('=')
        {
            return InputError::new(
                position(name, text, offset + line.len() - trimmed.len()),
                message,
            );
        }
        offset += line.len();
    }
    InputError::new(name, message)
}
