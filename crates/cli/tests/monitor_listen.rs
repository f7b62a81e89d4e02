//! `agentpi monitor --listen` is safe to leave running: a DNS-rebinding request is refused
//! with 403, said on standard error and recorded, while real clients go on; credentials are
//! redacted in the record (kept with --record-secrets) and the record and report are the
//! owner's only; HTTPS serves a real client; the limits' flags take effect; and listening
//! beyond loopback must be asked for.

use crate::monitor_http::{check_refused, ended, finish, monitor_with, peer, rules, scratch};
use crate::support::{everything, repo};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// `host:port` of a monitor's URL.
fn address(url: &str) -> &str {
    url.split("://").nth(1).unwrap().split('/').next().unwrap()
}

/// Sends a POST of `body` to `target` (`host:port` then the path) with these extra header
/// lines, and returns the whole answer (it says `Connection: close`).
fn post(address: &str, path: &str, headers: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\n{headers}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

fn record(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("record.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A rebinding request (the attacker's name in `Host`) and a foreign `Origin` are answered 403
/// with a JSON-RPC error and never relayed; the monitor says so and records them, and a real
/// client after them is relayed and judged as ever.
#[test]
fn a_rebinding_request_is_refused_said_and_recorded() {
    let (_server, port) = peer("good");
    let dir = scratch("rebinding");
    let monitor = monitor_with(port, &dir, &[]);
    let at = address(&monitor.url).to_string();
    let rebound = format!(
        "Host: rebind.attacker.example:{}\r\n",
        at.split(':').nth(1).unwrap()
    );
    let foreign = "Host: localhost\r\nOrigin: https://attacker.example\r\n";
    for headers in [rebound.as_str(), foreign] {
        let answer = post(&at, "/mcp", headers, PING);
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["id"], Value::Null, "{answer}");
    }
    let run = Command::new("python3")
        .arg(repo().join("tests/monitor/http_client.py"))
        .args([&monitor.url, "good"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (status, stderr) = monitor.stop();
    let said = stderr.matches("refused POST /mcp from 127.0.0.1:").count();
    assert_eq!(said, 2, "{stderr}");
    assert!(stderr.contains("rebind.attacker.example"), "{stderr}");
    let report = ended((status, stderr), 0, &dir);
    assert_eq!(rules(&report), Vec::<String>::new(), "{report:#}");
    let refused: Vec<Value> = record(&dir)
        .into_iter()
        .filter(|e| e["event"] == "refused")
        .map(|e| e["status"].clone())
        .collect();
    assert_eq!(refused, [403, 403]);
}

/// Credentials in the record: redacted by default (scheme kept, a fingerprint for the
/// credential), as they are with --record-secrets; the live report equals `trace check` of
/// the record either way (the checks saw the real values), and the record and the report are
/// readable by their owner only, a record that was there before included.
#[test]
fn credentials_are_redacted_in_the_record_unless_kept() {
    use std::os::unix::fs::PermissionsExt;
    for keep in [false, true] {
        let (_server, port) = peer("good");
        let dir = scratch(&format!("secrets-{keep}"));
        let before = dir.join("record.jsonl");
        std::fs::write(&before, "").unwrap();
        std::fs::set_permissions(&before, std::fs::Permissions::from_mode(0o644)).unwrap();
        let more: &[&str] = if keep { &["--record-secrets"] } else { &[] };
        let monitor = monitor_with(port, &dir, more);
        let headers = "Host: localhost\r\nAuthorization: Bearer s3cr3t-token\r\nCookie: sid=c00kie\r\nMCP-Protocol-Version: 2025-06-18\r\n";
        let answer = post(
            address(&monitor.url),
            "/mcp?access_token=qu3ry",
            headers,
            PING,
        );
        assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
        finish(monitor, &dir);
        let text = std::fs::read_to_string(dir.join("record.jsonl")).unwrap();
        for secret in ["s3cr3t-token", "c00kie", "qu3ry"] {
            assert_eq!(text.contains(secret), keep, "{secret} in {text}");
        }
        assert_eq!(text.contains("Bearer <redacted sha256:"), !keep, "{text}");
        for file in ["record.jsonl", "report.json"] {
            let mode = std::fs::metadata(dir.join(file))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{file}");
        }
    }
}

/// --max-body and --max-connections: a body over the limit is answered 413, a connection
/// over it 503, both said.
#[test]
fn the_limits_flags_take_effect() {
    let (_server, port) = peer("good");
    let dir = scratch("limits");
    let more = ["--max-body", "10", "--max-connections", "1"];
    let monitor = monitor_with(port, &dir, &more);
    let at = address(&monitor.url).to_string();
    // The first connection has the one place; the next is answered 503.
    let held = TcpStream::connect(&at).unwrap();
    let answer = post(&at, "/mcp", "Host: localhost\r\n", PING);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    drop(held);
    let started = std::time::Instant::now();
    let mut answer = post(&at, "/mcp", "Host: localhost\r\n", PING);
    while answer.starts_with("HTTP/1.1 503") {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the place never freed"
        );
        answer = post(&at, "/mcp", "Host: localhost\r\n", PING);
    }
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let (status, stderr) = monitor.stop();
    assert!(stderr.contains("(answered 413)"), "{stderr}");
    assert!(stderr.contains("(answered 503)"), "{stderr}");
    ended((status, stderr), 0, &dir);
}

/// HTTPS with --tls-cert and --tls-key (a certificate made for the test): `agentpi lint`
/// trusting it lints server-everything through the monitor, which records and judges the
/// session.
#[test]
fn https_serves_a_real_client() {
    let dir = scratch("https");
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let (_server, port) = everything();
    let (cert, key) = (cert.display().to_string(), key.display().to_string());
    let monitor = monitor_with(port, &dir, &["--tls-cert", &cert, "--tls-key", &key]);
    assert!(monitor.url.starts_with("https://"), "{}", monitor.url);
    let url = format!(
        "https://localhost:{}/mcp",
        address(&monitor.url).split(':').nth(1).unwrap()
    );
    let lint = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(["lint", "--timeout", "60", "--url", &url, "--ca-cert", &cert])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&lint.stdout);
    assert!(
        stdout.contains("13 tools"),
        "{stdout}{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let report = finish(monitor, &dir);
    assert!(report["messages"].as_u64().unwrap() >= 3, "{report:#}");
}

#[test]
fn unsafe_or_broken_listening_is_refused() {
    let up = ["--upstream", "http://127.0.0.1:9/mcp"];
    let remote = ["--listen", "0.0.0.0:0", up[0], up[1]];
    check_refused(&remote, "--allow-remote");
    let tls = [
        "--listen",
        "127.0.0.1:0",
        up[0],
        up[1],
        "--tls-cert",
        "/nonexistent/cert.pem",
        "--tls-key",
        "/nonexistent/key.pem",
    ];
    check_refused(&tls, "/nonexistent/cert.pem");
}
