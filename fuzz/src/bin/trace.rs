//! Fuzz target: trace JSON Lines, as `agentpi trace check` reads them: `monitor::trace::parse`,
//! then every event fed to a monitor `Session`, its report as JSON, and a trace the tester
//! recorded judged as the tester judges it.

use agentpi_monitor::{Session, trace};

fn check(data: &[u8]) {
    let Ok(events) = trace::parse(data) else {
        return;
    };
    let mut session = Session::new();
    for event in &events {
        session.feed(event);
    }
    let report = session.finish();
    let _ = report.to_json().to_string();
    if events.iter().any(|e| e.kind() == Some("test")) {
        let _ = agentpi_tester::judge::judge(&events);
    }
}

fn main() {
    agentpi_fuzz::run(check);
}
