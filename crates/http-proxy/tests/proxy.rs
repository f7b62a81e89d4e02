//! The proxy on loopback: scripted upstreams that pin byte fidelity and incremental SSE, and
//! the real server-everything driven by the Python SDK's client and by agentpi's own client.

use agentpi_http_proxy::{Dir, Event, EventKind, Observer, Proxy, serve};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a test waits for something that should happen at once before failing (a guard
/// against a hang, not a measurement).
const GUARD: Duration = Duration::from_secs(20);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An observer that forwards every event to the test.
struct Recorder(Sender<Event>);

impl Observer for Recorder {
    fn observe(&self, event: Event) {
        let _ = self.0.send(event);
    }
}

fn proxy_to(upstream_port: u16) -> (Proxy, Receiver<Event>) {
    let (sender, events) = channel();
    let url = url::Url::parse(&format!("http://127.0.0.1:{upstream_port}/mcp")).unwrap();
    let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let proxy = serve(listen, &url, Arc::new(Recorder(sender))).unwrap();
    (proxy, events)
}

/// A messages event as `(dir, raw)`, or `None` for other kinds.
fn message(event: &Event) -> Option<(Dir, Vec<u8>)> {
    match &event.kind {
        EventKind::Message { dir, raw, .. } => Some((*dir, raw.to_vec())),
        _ => None,
    }
}

/// An upstream that accepts one connection, hands the request it read to the test, and writes
/// `writes` one by one (each flushed, so the proxy sees them as separate reads), waiting on
/// `gate` before write number `gate_at`.
fn scripted(
    writes: Vec<Vec<u8>>,
    gate: Option<(usize, Receiver<()>)>,
) -> (u16, JoinHandle<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let thread = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let request = read_request(&mut stream);
        for (index, bytes) in writes.iter().enumerate() {
            if let Some((at, gate)) = &gate
                && *at == index
            {
                gate.recv_timeout(GUARD)
                    .expect("the test never opened the gate");
            }
            stream.write_all(bytes).unwrap();
            stream.flush().unwrap();
        }
        request
    });
    (port, thread)
}

/// Reads one request: its head and a `Content-Length` body.
fn read_request(stream: &mut TcpStream) -> Vec<u8> {
    let mut request = Vec::new();
    let mut byte = [0u8; 1];
    while !request.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        request.push(byte[0]);
    }
    let length = header(&request, "content-length").map_or(0, |v| v.parse().unwrap());
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).unwrap();
    request.extend(body);
    request
}

/// The value of header `name` in a message head.
fn header(message: &[u8], name: &str) -> Option<String> {
    let (head, _) = split(message);
    head.into_iter().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_string())
    })
}

/// The lines of a message head and its raw body.
fn split(message: &[u8]) -> (Vec<String>, Vec<u8>) {
    let end = message
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&message[..end]);
    let lines = head.split("\r\n").map(str::to_string).collect();
    (lines, message[end + 4..].to_vec())
}

/// A message's first line, its headers but those that only frame the body on one hop, and
/// its body decoded from chunked transfer coding when it was chunked.
fn normalised(message: &[u8]) -> (Vec<String>, Vec<u8>) {
    let (head, body) = split(message);
    let chunked = header(message, "transfer-encoding").is_some_and(|v| v.contains("chunked"));
    let head = head
        .into_iter()
        .filter(|line| {
            let name = line.split(':').next().unwrap_or("").to_ascii_lowercase();
            !["transfer-encoding", "connection", "host"].contains(&name.as_str())
        })
        .collect();
    let body = if chunked { dechunk(&body) } else { body };
    (head, body)
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = std::str::from_utf8(&body[..line_end]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[line_end + 2..line_end + 2 + size]);
        body = &body[line_end + 2 + size + 2..];
    }
}

/// Sends `request` to the proxy and reads the whole response (the request says
/// `Connection: close`).
fn send(proxy: &Proxy, request: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(proxy.local_addr()).unwrap();
    stream.set_read_timeout(Some(GUARD)).unwrap();
    stream.write_all(request).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    response
}

fn request(method: &str, body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "{method} /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: 5e55-10n\r\nMCP-Protocol-Version: 2025-11-25\r\nX-Mixed-Case: Kept As Is\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

/// Byte fidelity: the upstream gets the client's request and the client gets the upstream's
/// response, head and body, unchanged but for hop-by-hop framing and `Host`; the observer
/// sees `messages` (direction and bytes) in order, and one `http` event.
fn check_fidelity(method: &str, body: &[u8], writes: Vec<Vec<u8>>, messages: &[(Dir, &[u8])]) {
    let sent: Vec<u8> = writes.concat();
    let (port, upstream) = scripted(writes, None);
    let (proxy, events) = proxy_to(port);
    let client_request = request(method, body);
    let received = send(&proxy, &client_request);
    let upstream_got = upstream.join().unwrap();
    proxy.shutdown(Duration::from_secs(1));
    assert_eq!(normalised(&upstream_got), normalised(&client_request));
    assert_eq!(
        header(&upstream_got, "host"),
        Some(format!("127.0.0.1:{port}"))
    );
    assert_eq!(normalised(&received), normalised(&sent));
    let events: Vec<Event> = events.iter().collect();
    let observed: Vec<(Dir, Vec<u8>)> = events.iter().filter_map(message).collect();
    let expected: Vec<(Dir, Vec<u8>)> = messages.iter().map(|(d, m)| (*d, m.to_vec())).collect();
    assert_eq!(observed, expected);
    let http: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Http(http) => Some((http.method.clone(), http.path.clone(), http.status)),
            _ => None,
        })
        .collect();
    assert_eq!(http, [(method.to_string(), "/mcp?x=1".to_string(), 200)]);
}

#[test]
fn json_reply_with_length_and_header_case_kept() {
    let body = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: 5e55-10n\r\nX-Odd-CASE: v\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    check_fidelity(
        "POST",
        call,
        vec![head.into_bytes(), body.to_vec()],
        &[(Dir::C2s, call), (Dir::S2c, body)],
    );
}

#[test]
fn sse_split_across_reads_with_invalid_utf8() {
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
    // Two events, the first split mid-line and mid-chunk, the second holding invalid UTF-8.
    let events: &[u8] = b"id: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\ndata: {\"x\":\"\xff\xfe\"}\n\n";
    let (first, rest) = events.split_at(20);
    let chunk = |bytes: &[u8]| {
        let mut c = format!("{:x}\r\n", bytes.len()).into_bytes();
        c.extend_from_slice(bytes);
        c.extend_from_slice(b"\r\n");
        c
    };
    let first = chunk(first);
    let (a, b) = first.split_at(3);
    let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#;
    check_fidelity(
        "POST",
        call,
        vec![
            head.to_vec(),
            a.to_vec(),
            b.to_vec(),
            chunk(rest),
            b"0\r\n\r\n".to_vec(),
        ],
        &[
            (Dir::C2s, call),
            (
                Dir::S2c,
                br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
            ),
            (Dir::S2c, b"{\"x\":\"\xff\xfe\"}"),
        ],
    );
}

#[test]
fn ten_megabyte_message_and_a_delete() {
    let mut big = br#"{"jsonrpc":"2.0","id":3,"result":{"text":""#.to_vec();
    big.extend(std::iter::repeat_n(b'a', 10 << 20));
    big.extend_from_slice(br#""}}"#);
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
        big.len()
    );
    let writes = vec![
        head.into_bytes(),
        big[..big.len() / 2].to_vec(),
        big[big.len() / 2..].to_vec(),
    ];
    check_fidelity("POST", &big, writes, &[(Dir::C2s, &big), (Dir::S2c, &big)]);
    let empty = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec();
    check_fidelity("DELETE", b"", vec![empty], &[]);
}

/// A compressed reply is relayed as it is but reported as no message: its bytes are not one.
#[test]
fn compressed_reply_is_relayed_not_reported() {
    let body = b"\x1f\x8b\x08\x00 not really gzip \xff".to_vec();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let call = br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;
    check_fidelity(
        "POST",
        call,
        vec![head.into_bytes(), body],
        &[(Dir::C2s, call)],
    );
}

/// SSE events reach the client as they arrive: the upstream sends one event and waits until
/// the client has read it and the observer has seen it before it sends the next, so a proxy
/// that held the stream back would hang here (and fail on the guard) instead of passing.
#[test]
fn sse_events_are_relayed_and_observed_one_by_one() {
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n".to_vec();
    let first = b"data: {\"n\":1}\n\n".to_vec();
    let second = b"data: {\"n\":2}\n\n".to_vec();
    let (gate, gate_open) = channel();
    let (port, upstream) = scripted(vec![head, first, second], Some((2, gate_open)));
    let (proxy, events) = proxy_to(port);
    let mut stream = TcpStream::connect(proxy.local_addr()).unwrap();
    stream.set_read_timeout(Some(GUARD)).unwrap();
    stream
        .write_all(b"GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&received).contains("{\"n\":1}") {
        let n = stream
            .read(&mut buffer)
            .expect("the first event never reached the client");
        assert!(n > 0, "the stream ended before the first event");
        received.extend_from_slice(&buffer[..n]);
    }
    assert!(!String::from_utf8_lossy(&received).contains("{\"n\":2}"));
    let seen = first_message(&events);
    assert_eq!(seen, (Dir::S2c, b"{\"n\":1}".to_vec()));
    gate.send(()).unwrap();
    stream.read_to_end(&mut received).unwrap();
    assert!(String::from_utf8_lossy(&received).contains("{\"n\":2}"));
    upstream.join().unwrap();
    proxy.shutdown(Duration::from_secs(1));
    let rest: Vec<_> = events.iter().filter_map(|e| message(&e)).collect();
    assert_eq!(rest, [(Dir::S2c, b"{\"n\":2}".to_vec())]);
}

/// The next message event, skipping `http` events.
fn first_message(events: &Receiver<Event>) -> (Dir, Vec<u8>) {
    loop {
        let event = events
            .recv_timeout(GUARD)
            .expect("the observer saw nothing");
        if let Some(message) = message(&event) {
            return message;
        }
    }
}

/// An unreachable upstream: the client gets a 502 naming the cause, the observer an `http`
/// event with the error.
#[test]
fn unreachable_upstream_is_a_502() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (proxy, events) = proxy_to(port);
    let received = send(&proxy, &request("POST", b"{}"));
    proxy.shutdown(Duration::from_secs(1));
    let (head, body) = split(&received);
    assert_eq!(head[0], "HTTP/1.1 502 Bad Gateway");
    assert!(
        String::from_utf8_lossy(&body).contains("refused"),
        "{head:?}"
    );
    let errors: Vec<_> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Http(http) => http.error,
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("refused"), "{errors:?}");
}

/// A child process killed when the test ends, pass or fail.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts server-everything in Streamable HTTP mode on a free port and waits until it listens.
fn everything() -> (Server, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let program = repo().join("tests/peers/node_modules/.bin/mcp-server-everything");
    assert!(program.exists(), "run scripts/install-peers.sh first");
    let child = Command::new(program)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < GUARD,
            "server-everything did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

/// The Python SDK client's run against `url`: what it received, as JSON.
fn python_client(url: &str) -> serde_json::Value {
    let python = repo().join("tests/peers/.venv/bin/python");
    let output = Command::new(python)
        .arg(repo().join("crates/http-proxy/tests/client.py"))
        .arg(url)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The real thing: the Python SDK's client drives server-everything directly and through the
/// proxy, and gets the same answers (progress notifications included); the observer saw each
/// of its requests and each answer, the GET stream and the DELETE that ends the session.
#[test]
fn python_sdk_client_through_the_proxy() {
    let (_server, port) = everything();
    let direct = python_client(&format!("http://127.0.0.1:{port}/mcp"));
    let (proxy, events) = proxy_to(port);
    let proxied = python_client(&format!("http://{}/mcp", proxy.local_addr()));
    proxy.shutdown(Duration::from_secs(2));
    assert_eq!(proxied, direct);
    assert_eq!(
        proxied["progress"],
        serde_json::json!([[1.0, 3.0], [2.0, 3.0], [3.0, 3.0]])
    );
    let events: Vec<Event> = events.iter().collect();
    let methods = |dir: Dir| -> Vec<String> {
        events
            .iter()
            .filter_map(message)
            .filter(|(d, _)| *d == dir)
            .map(|(_, raw)| {
                let value: serde_json::Value = serde_json::from_slice(&raw).unwrap();
                value["method"]
                    .as_str()
                    .map_or("response".to_string(), str::to_string)
            })
            .collect()
    };
    assert_eq!(
        methods(Dir::C2s),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
    let answers = methods(Dir::S2c);
    assert_eq!(
        answers.iter().filter(|m| *m == "response").count(),
        3,
        "{answers:?}"
    );
    let progress = answers
        .iter()
        .filter(|m| *m == "notifications/progress")
        .count();
    assert_eq!(progress, 3, "{answers:?}");
    let verbs: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Http(http) => Some(http.method.clone()),
            _ => None,
        })
        .collect();
    assert!(verbs.contains(&"GET".to_string()), "{verbs:?}");
    assert!(verbs.contains(&"DELETE".to_string()), "{verbs:?}");
}

/// agentpi's own client (the one `agentpi lint --url` uses) lists the same tools through the
/// proxy as directly.
#[test]
fn agentpi_client_through_the_proxy() {
    use agentpi_mcp::{client, transport::http::Http};
    let (_server, port) = everything();
    let timeout = Duration::from_secs(30);
    let mut direct = Http::new(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
    let direct = client::list_tools(&mut direct, timeout).unwrap();
    let (proxy, events) = proxy_to(port);
    let mut proxied = Http::new(&format!("http://{}/mcp", proxy.local_addr())).unwrap();
    let proxied = client::list_tools(&mut proxied, timeout).unwrap();
    proxy.shutdown(Duration::from_secs(1));
    assert_eq!(format!("{proxied:?}"), format!("{direct:?}"));
    let c2s = events
        .iter()
        .filter_map(|e| message(&e))
        .filter(|(d, _)| *d == Dir::C2s)
        .count();
    assert!(
        c2s >= 3,
        "initialize, initialized and tools/list at least, saw {c2s}"
    );
}

/// An upstream that answers one request with `head`, waits until it reads the end of the
/// connection (the proxy passes a client's close on as a half-close), then writes `late`.
/// With `head_first` false it waits for the end before writing anything.
fn answers_after_the_close(head: &'static [u8], late: &'static [u8], head_first: bool) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        read_request(&mut stream);
        if head_first {
            stream.write_all(head).unwrap();
        }
        stream.set_read_timeout(Some(GUARD)).unwrap();
        let mut byte = [0u8; 1];
        assert_eq!(stream.read(&mut byte).unwrap(), 0, "no half-close came");
        if !head_first {
            stream.write_all(head).unwrap();
        }
        stream.write_all(late).unwrap();
    });
    port
}

/// The events until one of `kind` satisfies `done` (guarded).
fn events_until(events: &Receiver<Event>, done: impl Fn(&EventKind) -> bool) -> Vec<EventKind> {
    let mut seen = Vec::new();
    while seen.last().is_none_or(|k| !done(k)) {
        let event = events
            .recv_timeout(GUARD)
            .expect("the observer saw too little");
        seen.push(event.kind);
    }
    seen
}

/// A client that closes its request's stream: the proxy passes the close on as a
/// half-close (the server reads the end of the connection: a modern request's
/// cancellation) and goes on reading, so what the server sends after the close is reported,
/// as not relayed (an answer after a cancellation is judged: C4).
#[test]
fn a_closed_stream_is_half_closed_upstream_and_read_on() {
    let head: &[u8] =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    let port = answers_after_the_close(head, b"data: {\"late\":1}\n\n", true);
    let (proxy, events) = proxy_to(port);
    let mut stream = TcpStream::connect(proxy.local_addr()).unwrap();
    stream.set_read_timeout(Some(GUARD)).unwrap();
    stream.write_all(&request("POST", b"{}")).unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    while !received.ends_with(b"\r\n\r\n") {
        let n = stream.read(&mut buffer).expect("no head");
        assert!(n > 0, "the stream ended before its head");
        received.extend_from_slice(&buffer[..n]);
    }
    drop(stream);
    let late = |k: &EventKind| matches!(k, EventKind::Message { dir: Dir::S2c, .. });
    let seen = events_until(&events, late);
    let closed = seen.iter().any(|k| {
        matches!(
            k,
            EventKind::Aborted {
                dir: Dir::S2c,
                by_receiver: true,
                ..
            }
        )
    });
    assert!(closed, "{seen:?}");
    let Some(EventKind::Message { raw, relayed, .. }) = seen.last() else {
        unreachable!()
    };
    assert_eq!((raw.to_vec(), *relayed), (b"{\"late\":1}".to_vec(), false));
    proxy.shutdown(Duration::from_secs(1));
}

/// A client that gives up before the response's head (a server that answers a long call
/// with JSON sends its head at the end): the close is reported and passed on, and the head
/// and body the server sends after it are reported as not relayed.
#[test]
fn a_client_gone_before_the_head_is_passed_on_and_read_on() {
    let body = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let head: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 36\r\nConnection: close\r\n\r\n";
    assert_eq!(body.len(), 36);
    let port = answers_after_the_close(head, body, false);
    let (proxy, events) = proxy_to(port);
    let mut stream = TcpStream::connect(proxy.local_addr()).unwrap();
    stream.write_all(&request("POST", b"{}")).unwrap();
    // The request has crossed once the observer has it; then the client goes.
    let sent = |k: &EventKind| matches!(k, EventKind::Message { dir: Dir::C2s, .. });
    events_until(&events, sent);
    drop(stream);
    let answered = |k: &EventKind| matches!(k, EventKind::Message { dir: Dir::S2c, .. });
    let seen = events_until(&events, answered);
    assert!(
        matches!(
            seen[0],
            EventKind::Aborted {
                dir: Dir::S2c,
                by_receiver: true,
                ..
            }
        ),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|k| matches!(k, EventKind::Http(h) if !h.relayed && h.status == 200)),
        "{seen:?}"
    );
    let Some(EventKind::Message { raw, relayed, .. }) = seen.last() else {
        unreachable!()
    };
    assert_eq!((raw.to_vec(), *relayed), (body.to_vec(), false));
    proxy.shutdown(Duration::from_secs(1));
}

/// HTTPS: a proxy serving a certificate made for the test (self-signed, for `localhost`)
/// relays agentpi's own client (reqwest with rustls, the certificate as its root) to
/// server-everything, which lists the same tools as directly; the observer sees the
/// messages in clear. A plain-HTTP request to it gets no answer.
#[test]
fn https_with_a_self_signed_certificate() {
    use agentpi_http_proxy::{Options, Tls, serve_with};
    use agentpi_mcp::{client, transport::http::Http, transport::http::Trust};
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let dir = std::env::temp_dir().join(format!("agentpi-proxy-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let tls = Tls::from_pem_files(&cert, &key).unwrap();
    let (_server, port) = everything();
    let timeout = Duration::from_secs(30);
    let mut direct = Http::new(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
    let direct = client::list_tools(&mut direct, timeout).unwrap();
    let (sender, events) = channel();
    let upstream = url::Url::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
    let options = Options {
        tls: Some(tls),
        ..Options::default()
    };
    let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let proxy = serve_with(listen, &upstream, Arc::new(Recorder(sender)), options).unwrap();
    let url = format!("https://localhost:{}/mcp", proxy.local_addr().port());
    let trust = Trust::Extra(certified.cert.pem().into_bytes());
    let mut proxied = Http::with_trust(&url, &trust).unwrap();
    let proxied = client::list_tools(&mut proxied, timeout).unwrap();
    let plain = {
        let mut stream = TcpStream::connect(proxy.local_addr()).unwrap();
        stream.set_read_timeout(Some(GUARD)).unwrap();
        stream.write_all(&request("POST", b"{}")).unwrap();
        let mut answer = Vec::new();
        // A TLS alert and the close, or a reset: anything but an HTTP answer.
        let _ = stream.read_to_end(&mut answer);
        answer
    };
    proxy.shutdown(Duration::from_secs(1));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(format!("{proxied:?}"), format!("{direct:?}"));
    assert!(!plain.starts_with(b"HTTP/1.1 200"), "{plain:?}");
    let c2s = events
        .iter()
        .filter_map(|e| message(&e))
        .filter(|(d, raw)| *d == Dir::C2s && raw.starts_with(b"{"))
        .count();
    assert!(
        c2s >= 3,
        "initialize, initialized and tools/list, saw {c2s}"
    );
}
