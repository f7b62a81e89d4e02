//! The outlet a stdio peer's input is written through: a writer never waits for a reader
//! that does not read (what does not fit waits on the outlet's thread), the reader gets every
//! message whole and in order, and a reader that goes away is told once (`gone`) and makes
//! every later write say so. Real pipes; no timing beyond deadlines that fail the test.

use agentpi_bridge::outlet::Outlet;
use std::io::Read;
use std::sync::mpsc::channel;
use std::time::Duration;

/// Deadlines that only end a test that fails anyway (a writer that waits for ever).
const PATIENCE: Duration = Duration::from_secs(60);

/// Messages of 1000 bytes, 300 of them: several times what a pipe holds.
fn messages() -> Vec<Vec<u8>> {
    (0..300)
        .map(|k| {
            let mut m = format!("{k:>5}:").into_bytes();
            m.resize(999, b'x');
            m.push(b'\n');
            m
        })
        .collect()
}

#[test]
fn a_writer_never_waits_for_a_reader_that_does_not_read() {
    let (read, write) = rustix::pipe::pipe().unwrap();
    let outlet = Outlet::new(write, || {}).unwrap();
    let (done, written) = channel();
    let writer = std::thread::spawn(move || {
        for m in messages() {
            assert!(outlet.write(m));
        }
        let _ = done.send(());
        outlet
    });
    // Nothing is read until every write returned.
    written
        .recv_timeout(PATIENCE)
        .expect("a write waited for the reader");
    let outlet = writer.join().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        std::fs::File::from(read).read_to_end(&mut all).unwrap();
        all
    });
    outlet.close(Some(PATIENCE));
    drop(outlet);
    let all = reader.join().unwrap();
    assert_eq!(all, messages().concat());
}

#[test]
fn a_reader_that_goes_away_is_told_once_and_later_writes_fail() {
    let (read, write) = rustix::pipe::pipe().unwrap();
    let (gone, told) = channel();
    let outlet = Outlet::new(write, move || gone.send(()).unwrap()).unwrap();
    // More than the pipe holds: the rest waits on the outlet's thread, which finds the
    // reader gone once it is.
    for m in messages() {
        assert!(outlet.write(m));
    }
    drop(read);
    told.recv_timeout(PATIENCE).expect("the outlet never told");
    assert!(!outlet.write(b"late\n".to_vec()));
    assert!(told.try_recv().is_err(), "told twice");
}
