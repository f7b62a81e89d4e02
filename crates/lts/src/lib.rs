//! agentpi-lts: placeholder, filled in by its owner.
