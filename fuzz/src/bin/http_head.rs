//! Fuzz target: HTTP/1.1 responses as agentpi's own code reads them: the tester's bare client
//! (`tester::wire::read_reply`: status line, header fields, interim heads, then a chunked,
//! sized or closed body), whose body the tester then reads whole or as SSE events
//! (`mcp::transport::http::next_event`). The HTTP proxy's heads are parsed by hyper, not
//! fuzzed here; what the proxy itself reads of a response, its SSE body, is the `sse` target.

use agentpi_mcp::transport::http::next_event;
use agentpi_tester::wire::read_reply;
use std::io::Read;

fn check(data: &[u8]) {
    let Ok(reply) = read_reply(std::io::Cursor::new(data.to_vec())) else {
        return;
    };
    let sse = reply.headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-type") && value.starts_with("text/event-stream")
    });
    let mut body = reply.body;
    if sse {
        while let Ok(Some(_)) = next_event(&mut body) {}
    } else {
        let _ = body.read_to_end(&mut Vec::new());
    }
}

fn main() {
    agentpi_fuzz::run(check);
}
