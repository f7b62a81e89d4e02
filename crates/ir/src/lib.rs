//! Name resolution, type checking and lowering of a parsed model to the core calculus.
//!
//! The front end (resolution, types, lowering, imports) is being written; [`core`] is the
//! target every later stage consumes.

pub mod core;
