//! One module per subcommand.

pub mod check;
pub mod compare;
pub mod lint;
pub mod lts;
pub mod minimize;
pub mod sim;
