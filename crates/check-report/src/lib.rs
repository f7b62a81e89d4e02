//! The results of a check as report data, one source for every front end that shows them:
//! `agentpi check` (text, JSON, HTML, SVG), `agentpi run`, and the language server's chart
//! page. [`json`] gives a check's JSON, [`chart`] its trace's chart (steps laid out by
//! `agentpi_report_html::layout`, ending in the deadlock or fault, with who is stuck where),
//! [`stuck`] the waiting instances of a deadlock. It computes data and does no I/O (only the
//! binary prints, docs/architecture.md).

pub mod chart;
pub mod json;
pub mod stuck;
