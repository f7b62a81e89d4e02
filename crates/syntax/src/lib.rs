//! agentpi-syntax: placeholder, filled in by its owner.
