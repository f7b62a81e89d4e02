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

/// An example of this crate (`crates/cli/examples/NAME.rs`), built beside the test binary:
/// `cargo test` builds the examples, `cargo test --test cli` alone does not, and a test
/// that started a missing one failed later with ENOENT or a broken pipe. A missing one, or
/// one older than its source, is built here (`cargo build -p agentpi --example NAME`, into
/// this test binary's target folder and profile); `cargo test` has built it already, so its
/// runs pay for no cargo run.
pub(crate) fn example(name: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    let path = profile.join("examples").join(name);
    // One build at a time: tests asking for the same example wait for the first's build.
    static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.rs"));
    if !is_newer(&path, &source) {
        build_example(name, profile);
    }
    assert!(
        path.exists(),
        "{} is missing and could not be built: run `cargo build -p agentpi --examples`",
        path.display()
    );
    path.display().to_string()
}

/// Whether `path` exists and was written after `than` was.
fn is_newer(path: &Path, than: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(path), modified(than)) {
        (Some(built), Some(source)) => built >= source,
        (built, _) => built.is_some(),
    }
}

/// Builds example `name` of this crate into `profile` (`TARGET/debug`, `TARGET/release` or
/// `TARGET/NAME` of a custom profile), with the cargo that built the tests.
fn build_example(name: &str, profile: &Path) {
    let mut cargo = Command::new(env!("CARGO"));
    cargo.args(["build", "--quiet", "-p", "agentpi", "--example", name]);
    match profile.file_name().and_then(|p| p.to_str()) {
        Some("debug") | None => {}
        Some(other) => _ = cargo.args(["--profile", other]),
    }
    let status = cargo
        .env("CARGO_TARGET_DIR", profile.parent().unwrap())
        .current_dir(repo())
        .stdout(Stdio::null())
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "`cargo build -p agentpi --example {name}` failed"
    );
}

/// A child process killed when the test ends, pass or fail.
pub(crate) struct Server(pub(crate) Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port on loopback nobody listens on (now). Only for a server that `agentpi` itself starts
/// at a URL it must be given first (`test --url URL -- CMD`); a server a test starts takes
/// port 0 and the test reads the port it got ([`listening_on_any_port`]).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The socket inodes process `pid` (or a process it started) holds open.
fn socket_inodes(pid: u32, into: &mut Vec<u64>) {
    if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for fd in fds.flatten() {
            let target = std::fs::read_link(fd.path()).unwrap_or_default();
            let target = target.to_string_lossy();
            if let Some(inode) = target
                .strip_prefix("socket:[")
                .and_then(|t| t.strip_suffix(']'))
            {
                into.extend(inode.parse::<u64>().ok());
            }
        }
    }
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return;
    };
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
            socket_inodes(child, into);
        }
    }
}

/// The TCP port a socket of `inodes` listens on, from the kernel's tables (`/proc/net/tcp*`:
/// state `0A` is LISTEN; the local address is `HEXADDR:HEXPORT`).
fn listening_port(inodes: &[u64]) -> Option<u16> {
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for row in text.lines().skip(1) {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let (Some(local), Some(state), Some(inode)) = (cols.get(1), cols.get(3), cols.get(9))
            else {
                continue;
            };
            if *state == "0A" && inode.parse().is_ok_and(|i: u64| inodes.contains(&i)) {
                let port = local.rsplit(':').next()?;
                return u16::from_str_radix(port, 16).ok();
            }
        }
    }
    None
}

/// `child`, started to listen on port 0 (any free port), once it listens: the port it got
/// is read from the kernel's socket tables, so no port is chosen before the server binds it
/// (bind-and-drop races another test for it). The deadline only ends a test that fails
/// anyway, so it is generous: on a loaded machine, several Python servers starting at once
/// took over 20 s (the SDK's imports alone take seconds each).
pub(crate) fn listening_on_any_port(child: Child) -> (Server, u16) {
    let deadline = Duration::from_secs(120);
    let server = Server(child);
    let started = Instant::now();
    loop {
        let mut inodes = Vec::new();
        socket_inodes(server.0.id(), &mut inodes);
        if let Some(port) = listening_port(&inodes) {
            return (server, port);
        }
        assert!(started.elapsed() < deadline, "no listener");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The npm reference server-everything on Streamable HTTP, listening.
pub(crate) fn everything() -> (Server, u16) {
    let program = repo().join("tests/peers/node_modules/.bin/mcp-server-everything");
    assert!(
        program.exists(),
        "run `bash scripts/install-peers.sh` first"
    );
    let child = Command::new(program)
        .arg("streamableHttp")
        .env("PORT", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    listening_on_any_port(child)
}
