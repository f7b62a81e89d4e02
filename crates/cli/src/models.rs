//! The standard library of models, shipped inside the binary so that they run without a
//! checkout: `agentpi check mcp_timeout` or `import "mcp_basic"`.

/// Every bundled model: its name (the file name without `.pi`) and its text.
pub const MODELS: &[(&str, &str)] = &[
    ("banking", include_str!("../../../models/banking.pi")),
    ("calculator", include_str!("../../../models/calculator.pi")),
    (
        "crash_no_timeout",
        include_str!("../../../models/crash_no_timeout.pi"),
    ),
    (
        "crash_with_timeout",
        include_str!("../../../models/crash_with_timeout.pi"),
    ),
    ("mcp_basic", include_str!("../../../models/mcp_basic.pi")),
    (
        "mcp_timeout",
        include_str!("../../../models/mcp_timeout.pi"),
    ),
    (
        "orchestration",
        include_str!("../../../models/orchestration.pi"),
    ),
    (
        "orchestration_broken",
        include_str!("../../../models/orchestration_broken.pi"),
    ),
    (
        "philosophers",
        include_str!("../../../models/philosophers.pi"),
    ),
    ("ring", include_str!("../../../models/ring.pi")),
    ("tool_calls", include_str!("../../../models/tool_calls.pi")),
];

/// The text of a bundled model, by name.
pub fn find(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".pi").unwrap_or(name);
    MODELS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}
