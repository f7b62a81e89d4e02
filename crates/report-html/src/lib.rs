//! Pictures of agentpi's reports: the message sequence chart as SVG (`svg`), self-contained
//! HTML pages for `check`, `compare`, `trace check`, `test` and `run` (`pages`), and the
//! traffic viewer of `agentpi view` (`view`). It draws what it is given: a [`Chart`] (the
//! data the text chart is drawn from too) and the commands' JSON reports; it computes
//! nothing a report does not already say, and does no I/O.

pub mod chart;
pub mod escape;
pub mod layout;
pub mod page;
pub mod pages;
pub mod svg;
pub mod view;
pub mod width;

pub use chart::{Chart, Ending, Message, Note, Row};
