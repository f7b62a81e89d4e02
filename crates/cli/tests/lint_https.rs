//! `agentpi lint --url https://...`: the real server-everything behind a TLS front on
//! loopback (rustls, with a certificate made for the test by rcgen), reached with the
//! certificate trusted by `--ca-cert`, with `--insecure`, and refused without either.

use crate::support::everything;
use rcgen::{CertifiedKey, generate_simple_self_signed};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use tokio::runtime::Runtime;

/// A TLS front on a free port, for `localhost`, that relays each connection's plaintext to
/// `upstream`; returns its port and the certificate (PEM). It runs until `runtime` drops.
fn tls_front(runtime: &Runtime, upstream: u16) -> (u16, String) {
    let CertifiedKey { cert, signing_key } =
        generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(signing_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    runtime.spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A client that refuses the certificate ends the handshake: nothing to relay.
                let Ok(mut tls) = acceptor.accept(stream).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    (port, cert.pem())
}

/// Lints server-everything over https with `trust` arguments (`{ca}` stands for the
/// certificate file) and checks the exit status and a line the output must contain.
fn check(trust: &[&str], code: i32, expected: &str) {
    let (_server, upstream) = everything();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (port, pem) = tls_front(&runtime, upstream);
    let ca = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("lint-https-{port}.pem"));
    std::fs::write(&ca, pem).unwrap();
    let ca = ca.display().to_string();
    let url = format!("https://localhost:{port}/mcp");
    let mut args = vec!["lint", "--timeout", "60", "--url", &url];
    args.extend(
        trust
            .iter()
            .map(|a| if *a == "{ca}" { ca.as_str() } else { a }),
    );
    let output = Command::new(env!("CARGO_BIN_EXE_agentpi"))
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(expected) || stderr.contains(expected),
        "{expected:?} not in\n{stdout}\n{stderr}"
    );
}

#[test]
fn https_with_the_certificate_trusted() {
    check(
        &["--ca-cert", "{ca}"],
        0,
        "legacy era, 2025-11-25, 13 tools",
    );
}

#[test]
fn https_insecure_accepts_any_certificate() {
    check(&["--insecure"], 0, "legacy era, 2025-11-25, 13 tools");
}

#[test]
fn https_refuses_an_unknown_certificate() {
    check(
        &[],
        2,
        "help: trust the server's certificate or its CA with --ca-cert",
    );
}
