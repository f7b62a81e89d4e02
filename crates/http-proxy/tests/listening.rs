//! A proxy that is safe to leave listening, on loopback with real sockets: DNS rebinding and
//! foreign origins refused with 403 (and never relayed), loopback only unless asked, and
//! clients that send too much or too slowly, or too many at once, answered and let go.

use agentpi_http_proxy::{
    Access, Event, EventKind, Limits, Observer, Options, Proxy, Refusal, serve_with,
};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// How long a test waits for something that should happen before failing (a guard against a
/// hang, not a measurement).
const GUARD: Duration = Duration::from_secs(20);

struct Forward(Sender<Event>);

impl Observer for Forward {
    fn observe(&self, event: Event) {
        let _ = self.0.send(event);
    }
}

/// An upstream that answers every request on every connection with 200 and the request's
/// body as a JSON reply; `count` is the number of requests it has read.
fn echo() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let counted = Arc::clone(&counted);
            std::thread::spawn(move || answer_all(stream, &counted));
        }
    });
    (port, count)
}

fn answer_all(mut stream: TcpStream, count: &AtomicUsize) {
    while let Some(body) = read_request(&mut stream) {
        count.fetch_add(1, Ordering::SeqCst);
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if stream.write_all(head.as_bytes()).is_err() || stream.write_all(&body).is_err() {
            return;
        }
    }
}

/// The body of the next request on `stream` (`Content-Length` or chunked), `None` at its end.
fn read_request(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).ok()?;
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).ok()?;
    if head.contains("transfer-encoding: chunked") {
        // The tests' chunked bodies are refused before their end: read to the end.
        stream.read_to_end(&mut body).ok()?;
        return None;
    }
    Some(body)
}

fn start(upstream: u16, options: Options) -> (Proxy, Receiver<Event>) {
    let (sender, events) = channel();
    let url = url::Url::parse(&format!("http://127.0.0.1:{upstream}/mcp")).unwrap();
    let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let proxy = serve_with(listen, &url, Arc::new(Forward(sender)), options).unwrap();
    (proxy, events)
}

fn limited(limits: Limits) -> Options {
    Options {
        limits,
        ..Options::default()
    }
}

fn connect(proxy: &Proxy) -> TcpStream {
    let stream = TcpStream::connect(proxy.local_addr()).unwrap();
    stream.set_read_timeout(Some(GUARD)).unwrap();
    stream
}

/// A POST of `body` with these extra header lines, `Connection: close`.
fn post(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

/// Sends `request` on a new connection and reads the answer to its end.
fn send(proxy: &Proxy, request: &[u8]) -> (u16, String) {
    let mut stream = connect(proxy);
    stream.write_all(request).unwrap();
    read_answer(&mut stream)
}

/// The status and body of what the proxy answered, read to the end of the connection (a
/// reset after the answer is an end too: the proxy does not read a refused body).
fn read_answer(stream: &mut TcpStream) -> (u16, String) {
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("no answer: {e}"),
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

/// The refusals the observer was told of, once the proxy has stopped.
fn refusals(proxy: Proxy, events: &Receiver<Event>) -> Vec<Refusal> {
    proxy.shutdown(Duration::from_secs(1));
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Refused(refusal) => Some(refusal),
            _ => None,
        })
        .collect()
}

/// A refusal's JSON-RPC error: id null, the SDKs' code, a message saying why.
fn assert_json_rpc_error(body: &str, says: &str) {
    let error: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(error["id"], serde_json::Value::Null, "{body}");
    assert_eq!(error["error"]["code"], -32000, "{body}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains(says), "{says:?} not in {message:?}");
}

/// DNS rebinding: a request naming a host the proxy was not told of, or from a foreign
/// origin, is answered 403 with a JSON-RPC error, never reaches the upstream, and is told
/// to the observer; loopback names and addresses pass.
#[test]
fn rebinding_and_foreign_origins_are_refused() {
    let (upstream, count) = echo();
    let (proxy, events) = start(upstream, Options::default());
    let port = proxy.local_addr().port();
    let cases: &[(String, u16, &str)] = &[
        (format!("Host: 127.0.0.1:{port}\r\n"), 200, ""),
        (format!("Host: localhost:{port}\r\n"), 200, ""),
        (
            "Host: localhost\r\nOrigin: http://localhost:5173\r\n".into(),
            200,
            "",
        ),
        // The attacker's name, rebound to 127.0.0.1 after the page loaded.
        (
            format!("Host: rebind.attacker.example:{port}\r\n"),
            403,
            "Host",
        ),
        (
            "Host: localhost\r\nOrigin: https://attacker.example\r\n".into(),
            403,
            "Origin",
        ),
        ("".into(), 403, "without Host"),
    ];
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for (headers, expected, says) in cases {
        let (status, answer) = send(&proxy, &post(headers, body));
        assert_eq!(status, *expected, "{headers:?}: {answer}");
        if *expected == 403 {
            assert_json_rpc_error(&answer, says);
        }
    }
    let refused = refusals(proxy, &events);
    assert_eq!(
        count.load(Ordering::SeqCst),
        3,
        "only the allowed reached it"
    );
    let seen: Vec<_> = refused
        .iter()
        .map(|r| (r.status, r.method.as_str()))
        .collect();
    assert_eq!(seen, [(Some(403), "POST"); 3]);
    assert!(refused[0].reason.contains("rebind.attacker.example"));
}

/// Names given with `--allow-host` and origins with `--allow-origin` pass.
#[test]
fn allowed_names_and_origins_pass() {
    let (upstream, _) = echo();
    let access = Access {
        allow_remote: false,
        hosts: vec!["mcp.internal".into()],
        origins: vec!["https://app.internal".into()],
    };
    let options = Options {
        access,
        ..Options::default()
    };
    let (proxy, _events) = start(upstream, options);
    let headers = "Host: mcp.internal:8443\r\nOrigin: https://app.internal\r\n";
    assert_eq!(send(&proxy, &post(headers, b"{}")).0, 200);
    proxy.shutdown(Duration::from_secs(1));
}

/// Listening beyond loopback must be asked for.
#[test]
fn only_loopback_unless_remote_is_allowed() {
    let url = url::Url::parse("http://127.0.0.1:9/mcp").unwrap();
    let everywhere: SocketAddr = "0.0.0.0:0".parse().unwrap();
    let (sender, _events) = channel();
    let observer = Arc::new(Forward(sender));
    let error = serve_with(everywhere, &url, observer.clone(), Options::default()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidInput);
    assert!(error.to_string().contains("--allow-remote"), "{error}");
    let options = Options {
        access: Access {
            allow_remote: true,
            ..Access::default()
        },
        ..Options::default()
    };
    let proxy = serve_with(everywhere, &url, observer, options).unwrap();
    proxy.shutdown(Duration::ZERO);
}

/// Oversized clients: a head over the limit is answered 431; a body over it 413, at once when
/// its length says so and when it arrives chunked; a body at the limit passes.
#[test]
fn oversized_heads_and_bodies_are_refused() {
    let (upstream, _) = echo();
    let limits = Limits {
        max_header: 16 * 1024,
        max_body: 1000,
        ..Limits::default()
    };
    let (proxy, events) = start(upstream, limited(limits));
    let huge = format!("Host: localhost\r\nX-Filler: {}\r\n", "a".repeat(32 * 1024));
    assert_eq!(send(&proxy, &post(&huge, b"{}")).0, 431);
    let (status, answer) = send(&proxy, &post("Host: localhost\r\n", &[b' '; 1001]));
    assert_eq!(status, 413);
    assert_json_rpc_error(&answer, "over 1000 bytes");
    assert_eq!(
        send(&proxy, &post("Host: localhost\r\n", &[b' '; 1000])).0,
        200
    );
    let mut stream = connect(&proxy);
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    for _ in 0..3 {
        stream.write_all(b"200\r\n").unwrap();
        stream.write_all(&[b' '; 0x200]).unwrap();
        stream.write_all(b"\r\n").unwrap();
    }
    assert_eq!(read_answer(&mut stream).0, 413);
    // Each connection is served on its own thread, so the two refusals' records may come in
    // either order (a flake in CI: [413, 431]); what counts is that both are recorded.
    let mut statuses: Vec<_> = refusals(proxy, &events).iter().map(|r| r.status).collect();
    statuses.sort();
    assert_eq!(statuses, [Some(413), Some(431)]);
}

/// Sends `first`, then a byte of `bytes` at a time, 20 ms apart, again and again, until the
/// proxy closes the connection or answers; returns what it answered. A proxy without a
/// deadline never does (the guard fails the test).
fn dribble(proxy: &Proxy, first: &[u8], bytes: &[u8]) -> Vec<u8> {
    let mut stream = connect(proxy);
    stream.write_all(first).unwrap();
    stream.set_nonblocking(true).unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    for byte in bytes.iter().cycle() {
        assert!(
            started.elapsed() < GUARD,
            "the slow client was never let go"
        );
        let mut buffer = [0u8; 1024];
        match stream.read(&mut buffer) {
            Ok(0) => return answer,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(_) => return answer,
        }
        if stream.write_all(&[*byte]).is_err() {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    unreachable!()
}

/// Slow senders: a head sent a byte at a time, a connection that sends nothing, and a body
/// that stops coming are let go after their deadlines (the body answered 408).
#[test]
fn slow_and_idle_clients_are_let_go() {
    let (upstream, count) = echo();
    let limits = Limits {
        header_timeout: Duration::from_millis(300),
        body_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let (proxy, events) = start(upstream, limited(limits));
    // An endless head: a header line that never ends.
    let endless = b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaa";
    assert_eq!(dribble(&proxy, b"", endless), b"");
    let mut idle = connect(&proxy);
    match idle.read(&mut [0u8; 16]) {
        Ok(n) => assert_eq!(n, 0, "the idle connection got an answer"),
        Err(e) => assert_eq!(
            e.kind(),
            ErrorKind::ConnectionReset,
            "idle connection kept: {e}"
        ),
    }
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\n";
    let answer = dribble(&proxy, head.as_bytes(), b"{\"jsonrpc\":");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let statuses: Vec<_> = refusals(proxy, &events).iter().map(|r| r.status).collect();
    // The slow head and the idle connection, closed without an answer; the slow body is an
    // exchange that reached the upstream (its head did) and ended with the proxy's 408.
    assert_eq!(statuses, [None, None]);
    assert!(count.load(Ordering::SeqCst) <= 1);
}

/// Connections over the limit are answered 503 and closed; once one closes, the next is
/// served.
#[test]
fn connections_over_the_limit_are_answered_503() {
    let (upstream, _) = echo();
    let limits = Limits {
        max_connections: 2,
        ..Limits::default()
    };
    let (proxy, events) = start(upstream, limited(limits));
    let keep = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}";
    let mut held: Vec<TcpStream> = (0..2).map(|_| connect(&proxy)).collect();
    for stream in &mut held {
        stream.write_all(keep.as_bytes()).unwrap();
        let mut buffer = [0u8; 256];
        let n = stream.read(&mut buffer).unwrap();
        assert!(buffer[..n].starts_with(b"HTTP/1.1 200"));
    }
    let (status, answer) = send(&proxy, &post("Host: localhost\r\n", b"{}"));
    assert_eq!(status, 503);
    assert_json_rpc_error(&answer, "limit");
    drop(held.pop());
    let started = Instant::now();
    while send(&proxy, &post("Host: localhost\r\n", b"{}")).0 == 503 {
        assert!(
            started.elapsed() < GUARD,
            "the closed connection's place never freed"
        );
    }
    let refused = refusals(proxy, &events);
    assert!(refused.iter().all(|r| r.status == Some(503)), "{refused:?}");
    assert!(!refused.is_empty());
}

/// A flood over the limit costs a bounded number of tasks: 64 connections over it at once
/// wait to be answered 503; the next is closed unanswered.
#[test]
fn a_flood_over_the_limit_is_closed_unanswered() {
    let (upstream, _) = echo();
    let limits = Limits {
        max_connections: 1,
        ..Limits::default()
    };
    let (proxy, _events) = start(upstream, limited(limits));
    // The one place, then 64 connections that send nothing and are owed a 503.
    let held: Vec<TcpStream> = (0..65).map(|_| connect(&proxy)).collect();
    let mut flood = connect(&proxy);
    let _ = flood.write_all(&post("Host: localhost\r\n", b"{}"));
    let mut answer = Vec::new();
    if let Err(e) = flood.read_to_end(&mut answer) {
        assert_eq!(e.kind(), ErrorKind::ConnectionReset, "not closed: {e}");
    }
    assert_eq!(answer, b"", "{}", String::from_utf8_lossy(&answer));
    drop(held);
    proxy.shutdown(Duration::ZERO);
}
