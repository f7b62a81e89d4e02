//! The rule catalogue: every lint rule's stable code, name, family, default severity, one-line
//! summary and explanation page (embedded from `explain/<CODE>.md`).

use agentpi_diagnostics::Severity;

/// Which part of the standard a rule enforces; P1–P5 are the paper's principles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Spec,
    McpPlus,
    P1,
    P2,
    P3,
    P4,
    P5,
    OpenAi,
    Gemini,
    Anthropic,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Spec => "spec",
            Family::McpPlus => "mcp-plus",
            Family::P1 => "P1",
            Family::P2 => "P2",
            Family::P3 => "P3",
            Family::P4 => "P4",
            Family::P5 => "P5",
            Family::OpenAi => "openai",
            Family::Gemini => "gemini",
            Family::Anthropic => "anthropic",
        }
    }

    /// The five principles, in order, with their names from the paper.
    pub const PRINCIPLES: [(Family, &'static str); 5] = [
        (Family::P1, "semantic completeness"),
        (Family::P2, "explicit action boundaries"),
        (Family::P3, "failure-mode documentation"),
        (Family::P4, "progressive disclosure"),
        (Family::P5, "inter-tool relationships"),
    ];
}

/// One rule of the catalogue.
#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub family: Family,
    pub severity: Severity,
    pub summary: &'static str,
    pub explain: &'static str,
}

macro_rules! rules {
    ($(($code:literal, $name:literal, $family:ident, $severity:ident, $summary:literal)),* $(,)?) => {
        /// Every rule, in code order.
        pub static RULES: &[Rule] = &[$(Rule {
            code: $code,
            name: $name,
            family: Family::$family,
            severity: Severity::$severity,
            summary: $summary,
            explain: include_str!(concat!("explain/", $code, ".md")),
        }),*];
    };
}

rules![
    (
        "AN01",
        "anthropic-name",
        Anthropic,
        Error,
        "Tool name outside Anthropic's ^[a-zA-Z0-9_-]{1,128}$"
    ),
    (
        "AN02",
        "anthropic-root-combinator",
        Anthropic,
        Error,
        "oneOf/anyOf/allOf at the root of inputSchema, which Anthropic rejects"
    ),
    (
        "AN03",
        "anthropic-schema-2020-12",
        Anthropic,
        Error,
        "inputSchema is not valid JSON Schema 2020-12, which Anthropic requires"
    ),
    (
        "G301",
        "cursor-loop",
        Spec,
        Error,
        "tools/list pagination returned a cursor it had returned before"
    ),
    (
        "GE01",
        "gemini-keyword",
        Gemini,
        Error,
        "Schema keyword outside Gemini's Schema subset ($schema, $ref, additionalProperties, const, exclusiveMinimum...)"
    ),
    (
        "GE02",
        "gemini-properties-on-non-object",
        Gemini,
        Error,
        "`properties` on a schema whose type is not object"
    ),
    (
        "GE03",
        "gemini-anyof-in-items",
        Gemini,
        Error,
        "`anyOf` directly inside `items`"
    ),
    (
        "GE04",
        "gemini-name",
        Gemini,
        Error,
        "Tool name outside Gemini's function-name rules"
    ),
    (
        "GE05",
        "gemini-string-format",
        Gemini,
        Error,
        "A string `format` other than enum and date-time"
    ),
    (
        "GE06",
        "gemini-type-array",
        Gemini,
        Error,
        "`type` given as a list of types"
    ),
    (
        "OA01",
        "openai-name",
        OpenAi,
        Error,
        "Tool name outside OpenAI's ^[a-zA-Z0-9_-]{1,64}$"
    ),
    (
        "OA02",
        "openai-tool-count",
        OpenAi,
        Error,
        "More than 128 tools, OpenAI's limit per request"
    ),
    (
        "OA03",
        "openai-hints-implicit",
        OpenAi,
        Warning,
        "readOnlyHint, openWorldHint or (unless read-only) destructiveHint left implicit"
    ),
    (
        "OA04",
        "openai-array-items",
        OpenAi,
        Error,
        "An array schema without `items`"
    ),
    (
        "OA05",
        "openai-root-combinator",
        OpenAi,
        Error,
        "oneOf/anyOf/allOf/enum/not at the root of inputSchema"
    ),
    (
        "OA06",
        "openai-description-long",
        OpenAi,
        Error,
        "A tool description longer than 1,024 characters"
    ),
    (
        "P001",
        "mcp-plus-malformed",
        McpPlus,
        Error,
        "The MCP+ block does not follow docs/mcp-plus.schema.json"
    ),
    (
        "P002",
        "mcp-plus-missing",
        McpPlus,
        Note,
        "No MCP+ block: once per server that does not use MCP+, per tool under MCP+"
    ),
    (
        "P101",
        "description-missing",
        P1,
        Warning,
        "The tool has no description"
    ),
    (
        "P102",
        "description-restates-name",
        P1,
        Warning,
        "The description only restates the tool name"
    ),
    (
        "P103",
        "description-short",
        P1,
        Note,
        "The description has fewer than five words"
    ),
    (
        "P104",
        "parameter-undescribed",
        P1,
        Warning,
        "A parameter has no description"
    ),
    (
        "P105",
        "enum-in-prose",
        P1,
        Note,
        "The prose lists allowed values but the schema has no enum"
    ),
    (
        "P106",
        "format-or-unit-missing",
        P1,
        Note,
        "A date, time or quantity parameter states no format or unit"
    ),
    (
        "P107",
        "count-typed-number",
        P1,
        Note,
        "A parameter that counts things is typed `number` instead of `integer`"
    ),
    (
        "P108",
        "deprecated-tool-listed",
        P1,
        Note,
        "A tool says it is deprecated but is still listed"
    ),
    (
        "P201",
        "side-effects-unknown",
        P2,
        Warning,
        "Neither annotations nor MCP+ say whether the tool changes state"
    ),
    (
        "P202",
        "approval-missing",
        P2,
        Error,
        "MCP+ side_effects write/delete without requires_approval: true"
    ),
    (
        "P203",
        "approval-undeclared",
        P2,
        Warning,
        "Under MCP+: annotations say the tool writes or deletes, but no approval requirement is declared"
    ),
    (
        "P204",
        "side-effects-conflict",
        P2,
        Error,
        "MCP+ side_effects contradicts the tool annotations"
    ),
    (
        "P205",
        "verb-contradicts-hints",
        P2,
        Warning,
        "The name or description says the tool changes state but the hints say otherwise (or the reverse)"
    ),
    (
        "P301",
        "failure-modes-missing",
        P3,
        Warning,
        "The MCP+ block declares no failure modes"
    ),
    (
        "P302",
        "recovery-unknown",
        P3,
        Error,
        "A failure mode's recovery is not retry, fallback, user_prompt or abort"
    ),
    (
        "P303",
        "retry-not-idempotent",
        P3,
        Warning,
        "Recovery `retry` on a tool with side effects that is not idempotent"
    ),
    (
        "P304",
        "fallback-target",
        P3,
        Error,
        "Recovery `fallback` without an existing fallback tool"
    ),
    (
        "P401",
        "summary-missing",
        P4,
        Warning,
        "The MCP+ block has no summary"
    ),
    (
        "P402",
        "summary-long",
        P4,
        Warning,
        "The summary is longer than 120 characters"
    ),
    (
        "P403",
        "summary-not-shorter",
        P4,
        Warning,
        "The summary is not shorter than the description"
    ),
    (
        "P404",
        "first-sentence-long",
        P4,
        Warning,
        "Without a summary, the description's first sentence is longer than 160 characters"
    ),
    (
        "P405",
        "listing-over-budget",
        P4,
        Warning,
        "The whole tools/list costs more tokens than the budget"
    ),
    (
        "P501",
        "dependency-unknown-tool",
        P5,
        Error,
        "A dependency names a tool that the server does not list"
    ),
    (
        "P502",
        "requires-cycle",
        P5,
        Error,
        "Requires edges form a cycle"
    ),
    (
        "P503",
        "exclusive-asymmetric",
        P5,
        Error,
        "ExclusiveWith is declared on one side only"
    ),
    (
        "P504",
        "dependency-self",
        P5,
        Error,
        "A tool declares a dependency on itself"
    ),
    (
        "P505",
        "relation-undeclared",
        P5,
        Note,
        "Under MCP+: the description names another tool but no dependency is declared"
    ),
    (
        "S201",
        "stdout-noise",
        Spec,
        Warning,
        "The server wrote something other than JSON-RPC on stdout"
    ),
    (
        "T101",
        "tool-shape",
        Spec,
        Error,
        "A tool is not an object with a string `name`"
    ),
    (
        "T201",
        "input-schema-missing",
        Spec,
        Error,
        "inputSchema is missing or not an object"
    ),
    (
        "T202",
        "input-schema-root-type",
        Spec,
        Error,
        "inputSchema's root `type` is not \"object\""
    ),
    (
        "T203",
        "schema-invalid",
        Spec,
        Error,
        "A schema is not valid JSON Schema for its dialect"
    ),
    (
        "T204",
        "schema-dialect-unknown",
        Spec,
        Warning,
        "`$schema` names a dialect the linter does not know"
    ),
    (
        "T205",
        "schema-remote-ref",
        Spec,
        Warning,
        "A schema `$ref` points at the network"
    ),
    (
        "T206",
        "required-undescribed",
        Spec,
        Warning,
        "`required` names a property that `properties` does not describe"
    ),
    (
        "T207",
        "keyword-misspelled",
        Spec,
        Warning,
        "A schema key is a near miss of a JSON Schema keyword (minimun, requried)"
    ),
    (
        "T208",
        "schema-too-costly",
        Spec,
        Warning,
        "A schema too costly to compile (deeply nested `not`); checked against its meta-schema only"
    ),
    (
        "T301",
        "tool-name-format",
        Spec,
        Warning,
        "Tool name is not 1–128 characters of [A-Za-z0-9_.-]"
    ),
    (
        "T302",
        "tool-name-duplicate",
        Spec,
        Error,
        "Two tools share a name"
    ),
    (
        "T401",
        "output-schema-invalid",
        Spec,
        Error,
        "outputSchema is not an object schema"
    ),
    (
        "T402",
        "output-schema-root-type",
        Spec,
        Warning,
        "outputSchema's root `type` is not \"object\" (required up to 2025-11-25)"
    ),
    (
        "T403",
        "structured-without-output-schema",
        Spec,
        Warning,
        "A recorded result has structuredContent but the tool declares no outputSchema"
    ),
    (
        "T404",
        "structured-content-mismatch",
        Spec,
        Error,
        "A recorded result's structuredContent does not validate against outputSchema"
    ),
    (
        "T501",
        "meta-key-syntax",
        Spec,
        Error,
        "A `_meta` key breaks the specification's key-name syntax"
    ),
    (
        "T502",
        "meta-key-reserved",
        Spec,
        Warning,
        "A `_meta` key uses a prefix reserved for MCP"
    ),
    (
        "T701",
        "annotations-contradictory",
        Spec,
        Error,
        "readOnlyHint: true together with destructiveHint: true"
    ),
    (
        "T702",
        "annotations-read-only-not-idempotent",
        Spec,
        Warning,
        "readOnlyHint: true together with idempotentHint: false"
    ),
    (
        "T703",
        "annotation-type",
        Spec,
        Error,
        "annotations is not an object or a hint is not a boolean"
    ),
    (
        "T801",
        "task-support-value",
        Spec,
        Error,
        "execution.taskSupport is not forbidden, optional or required"
    ),
    (
        "T901",
        "mcp-header-annotation",
        Spec,
        Error,
        "An x-mcp-header annotation an HTTP client must reject (not a token, not on a string, integer or boolean property reached by properties alone, or repeated)"
    ),
];

/// The rule with this code, if any (codes are case-sensitive).
pub fn find(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_sorted() {
        let codes: Vec<_> = RULES.iter().map(|r| r.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
    }

    #[test]
    fn every_page_starts_with_its_code_and_has_the_four_sections() {
        for rule in RULES {
            assert!(
                rule.explain.starts_with(&format!("# {} ", rule.code)),
                "{}",
                rule.code
            );
            for section in ["## What it checks", "## Why", "## Example", "## How to fix"] {
                assert!(
                    rule.explain.contains(section),
                    "{} lacks {section}",
                    rule.code
                );
            }
        }
    }
}
