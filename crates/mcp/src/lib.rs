//! agentpi-mcp: the MCP message layer (JSON-RPC transports, era-aware client) and the tool linter.
//!
//! [`client`] connects to a live server over [`transport`] (stdio or Streamable HTTP) and lists its
//! tools; [`lint`] holds the rule catalogue and checks a tool listing against the specification,
//! MCP+ and provider profiles.

pub mod client;
pub mod headers;
pub mod jsonrpc;
pub mod lint;
pub mod transport;
