//! Every rule of the catalogue (reference/mcp.md section 1.10) as `agentpi test` sees it:
//! its level and clause, whose duty it is, in which era and over which transport it applies,
//! and how the tester covers it: by the monitor's checks on every message, by a judgment of
//! its own probes (`judge`), or not at all (and why).

use agentpi_monitor::rules;

/// Which era a rule applies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Legacy,
    Modern,
    Both,
}

/// Which transport a rule applies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Over {
    Any,
    Stdio,
    Http,
}

/// How `agentpi test` covers a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cover {
    /// The monitor's checks, on the server's messages.
    Monitor,
    /// The tester's judgment of its probes.
    Probe,
    /// A duty of the client: the tester keeps it (its own messages are checked too).
    Client,
    /// Not covered yet, or not testable from the client side; why.
    Not(&'static str),
}

/// One rule.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub id: &'static str,
    pub level: &'static str,
    pub era: Era,
    pub over: Over,
    pub cover: Cover,
}

const fn e(id: &'static str, level: &'static str, era: Era, over: Over, cover: Cover) -> Entry {
    Entry {
        id,
        level,
        era,
        over,
        cover,
    }
}

use Cover::{Client, Monitor, Not, Probe};
use Era::{Both as B, Legacy as L, Modern as M};
use Over::{Any as A, Http as H, Stdio as S};

const LINT: &str = "a static property of the tool listing: `agentpi lint` checks it";

/// The catalogue, in its order.
pub const RULES: &[Entry] = &[
    e("J1", "MUST", B, A, Monitor),
    e("J2", "MUST", B, A, Monitor),
    e("J3", "MUST", L, A, Monitor),
    e("J4", "MUST", M, A, Monitor),
    e("J5", "MUST", B, A, Monitor),
    e("J6", "derived", B, A, Monitor),
    e("J7", "MUST", B, A, Monitor),
    e("J8", "derived", B, A, Monitor),
    e("J9", "derived", B, A, Probe),
    e("J10", "MUST", M, A, Monitor),
    e("J11", "MUST", M, A, Monitor),
    e("J12", "MUST", B, A, Monitor),
    e("J13", "MUST", B, A, Monitor),
    e("L1", "MUST", L, A, Client),
    e("L2", "MUST", L, A, Client),
    e("L3", "MUST", L, A, Probe),
    e("L4", "MUST", L, A, Probe),
    e("L5", "SHOULD", L, A, Client),
    e("L6", "MUST", L, A, Client),
    e("L7", "SHOULD NOT", L, A, Client),
    e("L8", "SHOULD NOT", L, A, Monitor),
    e("L9", "MUST", L, A, Client),
    e("L10", "MUST", L, A, Monitor),
    e("L11", "SHOULD", L, S, Client),
    e("L12", "SHOULD", L, A, Client),
    e("L13", "MUST", L, A, Probe),
    e("M1", "MUST", M, A, Client),
    e("M2", "SHOULD", M, A, Monitor),
    e("M3", "MUST", M, A, Probe),
    e("M4", "MUST", M, A, Probe),
    e("M5", "MUST", M, A, Monitor),
    e("M6", "MUST", M, A, Monitor),
    e(
        "M7",
        "MUST",
        M,
        A,
        Not("needs a request replayed on a fresh process and the answers compared: not done yet"),
    ),
    e("M8", "MUST / SHOULD", M, A, Probe),
    e("M9", "MUST", M, A, Monitor),
    e("M10", "MUST", M, A, Monitor),
    e("M11", "MUST", M, A, Monitor),
    e("M12", "MUST", M, A, Client),
    e("M13", "MUST", M, A, Monitor),
    e("M14", "MUST", M, A, Monitor),
    e("M15", "SHOULD/MUST", M, A, Monitor),
    e("M16", "MUST", M, A, Client),
    e("C1", "MUST", B, A, Monitor),
    e("C2", "MUST", L, A, Client),
    e("C3", "SHOULD", L, A, Monitor),
    // The catalogue says stdio, but the monitor holds a modern HTTP session to it as well:
    // there the client's close of the request's stream is the cancellation (C5).
    e("C4", "MUST", M, A, Monitor),
    e("C5", "MUST", M, H, Monitor),
    e("C6", "SHOULD", L, H, Probe),
    e("C7", "SHOULD", B, A, Monitor),
    e("C8", "SHOULD", B, A, Client),
    e("P1", "MUST", B, A, Client),
    e("P2", "MUST", B, A, Monitor),
    e("P3", "MUST", B, A, Monitor),
    e("P4", "MUST", B, A, Monitor),
    e(
        "P5",
        "SHOULD",
        B,
        A,
        Not("rate and wording of progress messages: a heuristic, not a check"),
    ),
    e("T1", "MUST", B, A, Monitor),
    e("T2", "MUST", B, A, Monitor),
    e("T3", "SHOULD", B, A, Not(LINT)),
    e("T4", "MUST", B, A, Monitor),
    e("T5", "MUST/SHOULD", B, A, Probe),
    e("T6", "SHOULD", B, A, Monitor),
    e("T7", "hints", B, A, Not(LINT)),
    e("T8", "MUST", L, A, Monitor),
    e("T9", "MUST", M, A, Not(LINT)),
    e("T10", "MUST", B, A, Probe),
    e("G1", "SHOULD", B, A, Probe),
    e("G2", "MUST", B, A, Client),
    e("G3", "SHOULD", B, A, Monitor),
    e("X1", "MUST", L, A, Monitor),
    e("X2", "MUST", L, A, Monitor),
    e("X3", "MUST", L, A, Client),
    e("X4", "MUST", L, A, Monitor),
    e("X5", "MUST", L, A, Monitor),
    e("X6", "MUST", L, A, Monitor),
    e("X7", "MUST", L, A, Monitor),
    e("S1", "MUST", B, S, Monitor),
    e("S2", "MUST", B, S, Monitor),
    e("S3", "MUST", B, S, Client),
    e("S4", "SHOULD NOT", B, S, Client),
    e("S5", "SHOULD", M, S, Probe),
    e("S6", "SHOULD", M, S, Client),
    e("H1", "MUST", B, H, Client),
    e("H2", "MUST", B, H, Monitor),
    e("H3", "MUST", B, H, Monitor),
    e("H4", "MUST", L, H, Monitor),
    e("H5", "MUST", L, H, Monitor),
    e("H6", "MUST / SHOULD", L, H, Monitor),
    e("H7", "MUST", B, H, Probe),
    e("H8", "MUST", M, H, Monitor),
    e("H9", "MUST", M, H, Monitor),
    e("H10", "MUST / SHOULD", M, H, Monitor),
];

/// The rule's entry.
pub fn find(id: &str) -> Option<&'static Entry> {
    RULES.iter().find(|r| r.id == id)
}

/// The level and the clause of the specification a finding of `id` names.
pub fn level_and_spec(id: &str) -> (&'static str, &'static str) {
    if let Some(r) = rules::find(id) {
        return (r.level, r.spec);
    }
    let level = find(id).map_or("MUST", |r| r.level);
    let spec = match id {
        "J9" => "basic/index (JSON-RPC 2.0 section 5)",
        "L3" | "L4" => "basic/lifecycle",
        "L13" => "basic/utilities/ping",
        "M3" => "server/discover",
        "M4" => "basic/versioning",
        "T5" | "T10" => "server/tools",
        "G1" => "server/utilities/pagination",
        "S5" => "basic/transports/stdio",
        "H7" => "basic/transports (Streamable HTTP, Security Warning)",
        "C6" => "basic/transports (Streamable HTTP, Resumability and Redelivery)",
        _ => "",
    };
    (level, spec)
}

/// What rule `id` asks, in a few words.
pub fn says(id: &str) -> &'static str {
    if let Some(r) = rules::find(id) {
        return r.says;
    }
    match id {
        "J9" => {
            "a malformed frame gets -32700/-32600, an unknown method -32601, every request an answer"
        }
        "L4" => "the server answers the version asked if it supports it, else one it supports",
        "L13" => "ping is answered promptly with an empty result",
        "M3" => "the server implements server/discover",
        "M4" => "an unsupported version gets -32022 with data.supported and data.requested",
        "T10" => "invalid tool arguments give isError or -32602, never a crash or silence",
        "G1" => "an invalid cursor gets -32602",
        "S5" => "the server exits soon after its input closes",
        "H7" => "a request with an invalid Origin gets HTTP 403",
        "C6" => "a dropped SSE stream is no cancellation: resumed, it still brings the answer",
        "J7" => "a notification carries no id, and nothing is sent in reply to one",
        "L5" => "a client that does not support the answered version disconnects",
        "L10" => "both sides use only the negotiated capabilities and version",
        "L12" => "every request has a timeout, after which the sender cancels it",
        "M7" => "the server derives no context from earlier requests on the connection",
        "M8" => "a listing is the same on every connection, in a deterministic order",
        "M15" => "the server ends a subscription with a complete result or notifications/cancelled",
        "M16" => "a dual-era client's fallback is not keyed to one error code",
        "C7" => "an invalid cancellation (unknown, finished, malformed) is ignored, never answered",
        "C8" => "the canceller ignores late responses",
        "P5" => "progress is rate-limited with a human-readable message",
        "T3" => "a tool name is 1-128 characters of [A-Za-z0-9_.-], unique in the server",
        "T7" => {
            "tool annotations are consistent (read-only is neither destructive nor non-idempotent)"
        }
        "T9" => "x-mcp-header annotations are valid; an HTTP client drops a tool whose are not",
        "S1" => "one message per line, no raw newline inside a message",
        "S4" => "the client does not take stderr output for a failure",
        "S6" => "the client restarts a crashed server and re-issues what was lost",
        _ => "",
    }
}

/// How a failure of a rule counts for `--fail-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gate {
    Should,
    Must,
}

/// How a failure of `id` counts for `--fail-on`: a MUST when the catalogue's level has a MUST
/// in it (a mixed level, "MUST / SHOULD", cannot tell from the rule id which half a finding
/// broke, so the stricter counts); "derived" rules by what they derive from: J6 and J8 from
/// JSON-RPC's and the schema's MUSTs, J9 as the catalogue words it ("should get -32700/-32600
/// rather than silence"); SHOULD, SHOULD NOT and hints as SHOULD.
pub fn gate(id: &str) -> Gate {
    let (level, _) = level_and_spec(id);
    match id {
        "J6" | "J8" => Gate::Must,
        "J9" => Gate::Should,
        _ if level.contains("MUST") => Gate::Must,
        _ => Gate::Should,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule of the catalogue says what it asks (the JUnit test case's name and the
    /// text report show it).
    #[test]
    fn every_rule_says_what_it_asks() {
        let silent: Vec<&str> = RULES
            .iter()
            .filter(|r| says(r.id).is_empty())
            .map(|r| r.id)
            .collect();
        assert_eq!(silent, Vec::<&str>::new());
    }

    #[test]
    fn gates_follow_the_levels() {
        assert_eq!(gate("G1"), Gate::Should);
        assert_eq!(gate("X6"), Gate::Must);
        // The monitor gives T5 (an unknown tool) as a SHOULD.
        assert_eq!(gate("T5"), Gate::Should);
        assert_eq!(gate("J9"), Gate::Should);
        assert_eq!(gate("J6"), Gate::Must);
        assert_eq!(gate("L8"), Gate::Should);
    }
}
