//! Fuzz target: Server-Sent Events streams. The input is a chunking seed (1 byte), then the
//! stream. The HTTP proxy's incremental reader (`http_proxy::SseParser`) gives the same events
//! whether the stream arrives whole, in chunks or byte by byte; the tester's reader
//! (`mcp::transport::http::next_event`) reads the stream to its end or an error.

use agentpi_http_proxy::{SseEvent, SseParser};
use agentpi_mcp::transport::http::next_event;

fn check(data: &[u8]) {
    let Some((&seed, stream)) = data.split_first() else {
        return;
    };
    let whole = events(&[stream]);
    let chunked = events(&agentpi_fuzz::chunks(seed, stream));
    assert_eq!(whole, chunked, "the events do not depend on the reads");
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(
        whole,
        events(&bytes),
        "the events do not depend on the reads"
    );
    let mut body = stream;
    while let Ok(Some(_)) = next_event(&mut body) {}
}

fn events(reads: &[&[u8]]) -> Vec<SseEvent> {
    let mut parser = SseParser::default();
    reads.iter().flat_map(|read| parser.feed(read)).collect()
}

fn main() {
    agentpi_fuzz::run(check);
}
