//! The tests of the command line, one module per feature, in one binary (see Cargo.toml).

mod bridge;
mod bridge_legacy;
mod bridge_run;
mod cases;
mod commands;
mod compare;
mod docs;
mod inputs;
mod layering;
mod limits;
mod lint;
mod lint_https;
mod modeller;
mod models;
mod monitor;
mod monitor_http;
mod monitor_listen;
mod monitor_rmcp;
mod paper;
mod pictures;
mod run;
mod streams;
mod support;
mod tester;
mod tester_ci;
mod verdicts;
