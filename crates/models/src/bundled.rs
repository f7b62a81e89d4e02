//! The standard library of models, shipped inside the binary so that they run without a
//! checkout: `agentpi check mcp_timeout` or `import "mcp_basic"`; `agentpi models` lists them.

/// A bundled model: its name (the file name without `.pi`), what it shows, and its text.
pub struct Bundled {
    pub name: &'static str,
    pub about: &'static str,
    pub text: &'static str,
}

macro_rules! bundled {
    ($name:literal, $about:literal) => {
        Bundled {
            name: $name,
            about: $about,
            text: include_str!(concat!("../../../models/", $name, ".pi")),
        }
    };
}

/// Every bundled model, by name.
pub const MODELS: &[Bundled] = &[
    bundled!(
        "banking",
        "the paper's banking agent: a correct, a rogue, and two agents overdrawing together"
    ),
    bundled!(
        "calculator",
        "an agent asks a calculator server to add or subtract two numbers"
    ),
    bundled!(
        "crash_no_timeout",
        "a server that may crash mid-call and a client without a timeout: the client hangs"
    ),
    bundled!(
        "crash_with_timeout",
        "the crashing server and a client that times out and drains the late answer"
    ),
    bundled!(
        "mcp_basic",
        "the MCP vocabulary (tools, outcomes, the call channel): a library to import"
    ),
    bundled!(
        "mcp/bridge",
        "a bridge between MCP's two eras, each direction checked against the era it must look like"
    ),
    bundled!(
        "mcp/legacy",
        "MCP on the wire, 2025-06-18 and 2025-11-25: the model `agentpi monitor` steps"
    ),
    bundled!(
        "mcp/modern",
        "MCP on the wire, 2026-07-28 (stateless): the model `agentpi monitor` steps"
    ),
    bundled!(
        "mcp_timeout",
        "an MCP client and server with a timeout: every call gets a response"
    ),
    bundled!(
        "orchestration",
        "fetch from two sources in parallel, fuse, publish to two sinks, clean up on failure"
    ),
    bundled!(
        "orchestration_broken",
        "the orchestration with two bugs: publishes after a failed fetch, forgets the cleanup"
    ),
    bundled!(
        "paper/mcp",
        "Φ of the SGD service Banks_1 as an MCP server: discovery, tools/call, validation, no approval"
    ),
    bundled!(
        "paper/mcp_plus",
        "Φ⁺ of Banks_1 (approval before the call) and the paper's safety claims, each kept and broken"
    ),
    bundled!(
        "paper/sgd",
        "the paper's SGD encoding of the real service Banks_1: slots, invoke, execute, approval"
    ),
    bundled!(
        "philosophers",
        "dining philosophers written once for any N (-D N=5): the deadlock, and the fix"
    ),
    bundled!(
        "ring",
        "leader election on a ring of asynchronous links (Chang and Roberts), for any N"
    ),
    bundled!(
        "tool_calls",
        "two tool calls on shared state: in sequence, concurrently (a lost update), with a lock"
    ),
];

/// The text of a bundled model, by name.
pub fn find(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".pi").unwrap_or(name);
    MODELS.iter().find(|m| m.name == name).map(|m| m.text)
}

/// The names of the bundled models.
pub fn names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}
