//! agentpi-mcp: placeholder, filled in by its owner.
