//! agentpi-ir: placeholder, filled in by its owner.
