//! Fuzz target: SGD `schema.json` files (`sgd::schema::parse`, as `agentpi sgd` reads them).
//! Any text is a list of services or an error; every service read has its images Φ and Φ⁺,
//! and its generated SGD and MCP models load without an error diagnostic.

use agentpi_sgd::model::{self, Transactions};
use agentpi_sgd::{phi, phi_plus, schema};

fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(services) = schema::parse(text) else {
        return;
    };
    for distinct in schema::distinct(&[services]) {
        let service = &distinct.service;
        let _ = (phi(service), phi_plus(service));
        for tx in [Transactions::Flag, Transactions::Approval] {
            loads("sgd.pi", &model::sgd(service, tx));
            loads("mcp.pi", &model::mcp(service, tx));
        }
    }
}

/// A generated model is one the front end accepts.
fn loads(name: &str, text: &str) {
    let loaded = agentpi_ir::load_str(name, text);
    let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(
        errors.is_empty(),
        "{errors:?} in the generated model:\n{text}"
    );
}

fn main() {
    agentpi_fuzz::run(check);
}
