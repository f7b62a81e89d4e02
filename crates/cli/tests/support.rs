//! What the command line's tests share: the repository, free ports, and servers that are
//! killed when a test ends, pass or fail.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The repository's root.
pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A child process killed when the test ends, pass or fail.
pub(crate) struct Server(pub(crate) Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port on loopback nobody listens on (now).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `child`, once `port` on loopback accepts connections (within 20 s).
pub(crate) fn listening(child: Child, port: u16) -> (Server, u16) {
    let server = Server(child);
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "no listener");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

/// The npm reference server-everything on Streamable HTTP, listening.
pub(crate) fn everything() -> (Server, u16) {
    let port = free_port();
    let program = repo().join("tests/peers/node_modules/.bin/mcp-server-everything");
    assert!(
        program.exists(),
        "run `bash scripts/install-peers.sh` first"
    );
    let child = Command::new(program)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    listening(child, port)
}
