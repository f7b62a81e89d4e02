//! Fuzz target: JSON-RPC frames on stdio. The input is a chunking seed (1 byte), the direction
//! of each line (8 bytes: bit `i % 64` set, line `i` is the server's), then the byte stream.
//! The stream is framed as `agentpi monitor` frames the bytes it relays (`monitor::lines`), in
//! chunks and whole (the same lines either way); each line is an event whose record reads back
//! (`trace::parse` of `Event::to_line`), read as `mcp`'s stdio client reads a line (JSON, then
//! `jsonrpc::classify`), and fed to a monitor `Session`.

use agentpi_mcp::jsonrpc;
use agentpi_monitor::lines::Lines;
use agentpi_monitor::{Dir, Event, Session, trace};

fn check(data: &[u8]) {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let (mask, stream) = rest.split_at(rest.len().min(8));
    let mut bits = [0u8; 8];
    bits[..mask.len()].copy_from_slice(mask);
    let mask = u64::from_le_bytes(bits);
    let whole = frame(&[stream]);
    let chunked = frame(&agentpi_fuzz::chunks(seed, stream));
    assert_eq!(whole, chunked, "the lines do not depend on the reads");
    let mut session = Session::new();
    for (i, line) in whole.iter().enumerate() {
        let dir = if mask >> (i % 64) & 1 == 1 {
            Dir::S2c
        } else {
            Dir::C2s
        };
        let event = Event::message(i as f64, dir, line);
        recorded(&event);
        if let Ok(message) = serde_json::from_slice::<serde_json::Value>(line) {
            let _ = jsonrpc::classify(&message);
        }
        session.feed(&event);
    }
    let _ = session.finish().to_json().to_string();
}

/// The lines of a stream that arrives in `reads`, the last one cut off by the stream's end.
fn frame(reads: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut lines = Lines::default();
    let mut out = Vec::new();
    for read in reads {
        lines.feed(read, |line| out.push(line.to_vec()));
    }
    lines.end(|line| out.push(line.to_vec()));
    out
}

/// The event as `--record` writes it reads back as the same message.
fn recorded(event: &Event) {
    let line = event.to_line();
    let back = trace::parse(line.as_bytes()).expect("a recorded event reads back");
    assert_eq!(back.len(), 1, "one event per line: {line}");
    assert_eq!(
        (back[0].dir, &back[0].raw),
        (event.dir, &event.raw),
        "{line}"
    );
}

fn main() {
    agentpi_fuzz::run(check);
}
