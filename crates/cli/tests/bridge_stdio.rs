//! `agentpi bridge` with both sides on stdio never stops reading its client while its own
//! output is full: a client that writes all its requests before it reads an answer (more than
//! both pipes hold) gets every answer, in order. A loop that read and wrote on one thread with
//! blocking writes would stop reading, and the client's writes would never end (a one-thread
//! loop was tried, crates/bridge/src/stdio.rs in the history; it needs non-blocking writes).

use crate::monitor::agentpi;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

/// Pings the bridge answers itself: about 0.6 MB in, 0.4 MB out, many times a pipe's 64 kB.
const PINGS: usize = 10_000;

#[test]
fn a_client_that_writes_before_it_reads_gets_every_answer() {
    // A server that reads everything and says nothing: the pings never reach it.
    let mut bridge = Command::new(agentpi())
        .args([
            "bridge",
            "--to",
            "modern",
            "--",
            "sh",
            "-c",
            "cat >/dev/null",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = bridge.stdin.take().unwrap();
    let (done, written) = channel();
    std::thread::spawn(move || {
        for id in 1..=PINGS {
            let ping = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
            if input.write_all(ping.as_bytes()).is_err() {
                break;
            }
        }
        // The end of the client's input ends the bridge.
        drop(input);
        let _ = done.send(());
    });
    // Nothing is read until every ping is written: a blocked bridge makes this wait forever,
    // so it waits long enough for a loaded machine and then fails.
    if written.recv_timeout(Duration::from_secs(300)).is_err() {
        let _ = bridge.kill();
        let _ = bridge.wait();
        panic!("the bridge stopped reading its client while its answers were not read");
    }
    // The answers, read to their end by a thread, so that a bridge that never ends fails.
    let mut stdout = bridge.stdout.take().unwrap();
    let (read, output) = channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = read.send(text);
    });
    let Ok(output) = output.recv_timeout(Duration::from_secs(300)) else {
        let _ = bridge.kill();
        let _ = bridge.wait();
        panic!("the bridge did not end after its client's input did");
    };
    let status = bridge.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let answers: Vec<&str> = output.lines().collect();
    let expected: Vec<String> = (1..=PINGS)
        .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"))
        .collect();
    assert_eq!(answers.len(), PINGS);
    assert!(answers.iter().zip(&expected).all(|(a, e)| a == e));
}
