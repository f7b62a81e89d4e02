//! agentpi-semantics: placeholder, filled in by its owner.
