//! Which failures fail a test (exit status 1), so that `agentpi test` can gate CI: `fail_on`
//! (every failure, or only those of MUST rules: `catalogue::gate`), rules denied (their
//! failure always fails) and waivers (a failure that does not, each with the reason the
//! report echoes); and how long a call of a given tool may take. From `agentpi-test.toml`
//! and the command line (`--fail-on`, `--allow RULE`, `--deny RULE`, `--timeout
//! TOOL=SECONDS`, over the file):
//!
//! ```toml
//! fail_on = "must"              # or "should" (the default: every failure fails)
//! deny = ["G1"]                 # fails whatever fail_on says
//! [waivers]                     # RULE = "why its failure does not fail the test"
//! J9 = "the TypeScript SDK drops malformed frames; reported upstream"
//! [timeouts]                    # TOOL = seconds a call of it may take
//! poll_pdf_commands = 40
//! ```

use crate::catalogue::{self, Gate};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// What fails a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub fail_on: Gate,
    pub deny: BTreeSet<String>,
    /// Rule id to the reason its failure does not fail the test.
    pub waivers: BTreeMap<String, String>,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            fail_on: Gate::Should,
            deny: BTreeSet::new(),
            waivers: BTreeMap::new(),
        }
    }
}

impl Policy {
    /// Whether a failure of `rule` fails the test, and the waiver that spares it, if one does.
    pub fn judge(&self, rule: &str) -> (bool, Option<String>) {
        if self.deny.contains(rule) {
            return (true, None);
        }
        if let Some(reason) = self.waivers.get(rule) {
            return (false, Some(reason.clone()));
        }
        (catalogue::gate(rule) >= self.fail_on, None)
    }

    pub fn fail_on_str(&self) -> &'static str {
        match self.fail_on {
            Gate::Must => "must",
            Gate::Should => "should",
        }
    }

    /// `--deny RULE`: its failure fails the test (a waiver of it in the file goes).
    pub fn deny(&mut self, rule: &str) -> Result<(), String> {
        let rule = known(rule)?;
        self.waivers.remove(&rule);
        self.deny.insert(rule);
        Ok(())
    }

    /// `--allow RULE` (or a waiver): its failure does not fail the test, for `reason`.
    pub fn waive(&mut self, rule: &str, reason: &str) -> Result<(), String> {
        let rule = known(rule)?;
        if reason.trim().is_empty() {
            return Err(format!("the waiver of {rule} gives no reason"));
        }
        self.deny.remove(&rule);
        self.waivers.insert(rule, reason.to_string());
        Ok(())
    }
}

/// `must` or `should`.
pub fn parse_gate(text: &str) -> Result<Gate, String> {
    match text {
        "must" => Ok(Gate::Must),
        "should" => Ok(Gate::Should),
        other => Err(format!(
            "fail_on must be \"must\" or \"should\", not \"{other}\""
        )),
    }
}

/// A rule id of the catalogue, in its spelling.
fn known(rule: &str) -> Result<String, String> {
    let id = rule.trim().to_ascii_uppercase();
    catalogue::find(&id)
        .map(|e| e.id.to_string())
        .ok_or_else(|| {
            format!("unknown rule `{rule}` (the ids of reference/mcp.md 1.10: J1, ..., H10)")
        })
}

/// What `agentpi-test.toml` says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    pub policy: Policy,
    pub timeouts: BTreeMap<String, Duration>,
}

/// Reads the text of config file `name`; an error says where and why.
pub fn parse(name: &str, text: &str) -> Result<File, String> {
    let table: toml::Table =
        toml::from_str(text).map_err(|e| format!("{name}: invalid TOML: {}", e.message()))?;
    let mut file = File::default();
    for (key, value) in &table {
        let at = |why: String| format!("{name}: `{key}`: {why}");
        match (key.as_str(), value) {
            ("fail_on", toml::Value::String(s)) => {
                file.policy.fail_on = parse_gate(s).map_err(at)?
            }
            ("deny", toml::Value::Array(rules)) => {
                for rule in rules {
                    let rule = rule
                        .as_str()
                        .ok_or_else(|| at("a list of rule ids".into()))?;
                    file.policy.deny(rule).map_err(at)?;
                }
            }
            ("waivers", toml::Value::Table(waivers)) => {
                for (rule, reason) in waivers {
                    let reason = reason
                        .as_str()
                        .ok_or_else(|| at(format!("{rule}: the reason is a string")))?;
                    file.policy.waive(rule, reason).map_err(at)?;
                }
            }
            ("timeouts", toml::Value::Table(tools)) => {
                for (tool, seconds) in tools {
                    let s = seconds
                        .as_float()
                        .or(seconds.as_integer().map(|i| i as f64));
                    let d = s.and_then(duration).ok_or_else(|| {
                        at(format!(
                            "{tool}: a number of seconds above 0, at most a day"
                        ))
                    })?;
                    file.timeouts.insert(tool.clone(), d);
                }
            }
            _ => {
                return Err(at(
                    "unknown setting or wrong type (known: fail_on = \"must\"|\"should\", deny = [RULE, ...], [waivers] RULE = \"reason\", [timeouts] TOOL = SECONDS)".into(),
                ));
            }
        }
    }
    Ok(file)
}

/// The longest timeout, in seconds: a deadline is an instant, and instants do not reach
/// forever.
pub const MAX_SECONDS: f64 = 86_400.0;

/// `s` seconds, if it is a usable timeout.
pub fn duration(s: f64) -> Option<Duration> {
    (s > 0.0 && s <= MAX_SECONDS).then(|| Duration::from_secs_f64(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_sets_the_gate_waivers_and_timeouts() {
        let text = "fail_on = \"must\"\ndeny = [\"g1\"]\n[waivers]\nJ9 = \"known\"\n[timeouts]\npoll = 40\n";
        let file = parse("agentpi-test.toml", text).unwrap();
        assert_eq!(file.policy.fail_on, Gate::Must);
        assert_eq!(file.policy.judge("G1"), (true, None));
        assert_eq!(file.policy.judge("J9"), (false, Some("known".into())));
        assert_eq!(file.policy.judge("X6"), (true, None));
        assert_eq!(file.policy.judge("L8"), (false, None));
        assert_eq!(file.timeouts["poll"], Duration::from_secs(40));
        for bad in [
            "fail_on = \"may\"",
            "[waivers]\nJ9 = \"\"",
            "[waivers]\nZ1 = \"x\"",
            "[timeouts]\npoll = 0",
            "color = 1",
        ] {
            assert!(parse("f", bad).is_err(), "{bad}");
        }
    }
}
