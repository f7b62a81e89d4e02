//! agentpi-check: placeholder, filled in by its owner.
