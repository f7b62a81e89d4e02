//! Connecting the processes of a cluster, as timely does (each process connects to those
//! before it in the host file, sending its index, and accepts those after it) but silently
//! and with a deadline: timely's own connecting prints to standard output, which is the
//! report's, and waits for a missing process forever.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};

/// How long a process waits for the others to come up.
pub const PATIENCE: Duration = Duration::from_secs(600);

/// The allocators of this process's `threads` workers, connected to the other processes, and
/// what keeps the network threads running.
pub fn builders(
    hosts: &[String],
    process: usize,
    threads: usize,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), String> {
    let sockets = sockets(hosts, process)?;
    let hooks = timely::communication::Hooks::default();
    let allocators =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(allocators, sockets, process, threads, hooks)
            .map_err(|e| format!("cannot start the cluster's network threads: {e}"))?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    Ok((builders, Box::new(guard)))
}

/// A stream to every other process, by index (`None` for this one).
fn sockets(hosts: &[String], me: usize) -> Result<Vec<Option<TcpStream>>, String> {
    let listener = TcpListener::bind(&hosts[me])
        .map_err(|e| format!("process {me} cannot listen on {}: {e}", hosts[me]))?;
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + PATIENCE;
    let mut sockets: Vec<Option<TcpStream>> = (0..hosts.len()).map(|_| None).collect();
    for (i, host) in hosts.iter().enumerate().take(me) {
        sockets[i] = Some(connect(host, i, me, deadline)?);
    }
    while let Some(missing) = (me + 1..hosts.len()).find(|&i| sockets[i].is_none()) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                stream.set_nonblocking(false).map_err(|e| e.to_string())?;
                let mut index = [0u8; 8];
                stream.read_exact(&mut index).map_err(|e| e.to_string())?;
                let i = u64::from_be_bytes(index) as usize;
                if i <= me || i >= hosts.len() {
                    return Err(format!(
                        "process {me}: a connection from process {i}, which the host file does not have after it (are all processes given the same host file?)"
                    ));
                }
                sockets[i] = Some(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    return Err(waited(missing, &hosts[missing]));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(format!("process {me} on {}: {e}", hosts[me])),
        }
    }
    Ok(sockets)
}

/// Connects to process `i` at `host`, retrying until it listens, and says who this is.
fn connect(host: &str, i: usize, me: usize, deadline: Instant) -> Result<TcpStream, String> {
    loop {
        match TcpStream::connect(host) {
            Ok(mut stream) => {
                stream.set_nodelay(true).map_err(|e| e.to_string())?;
                stream
                    .write_all(&(me as u64).to_be_bytes())
                    .map_err(|e| format!("process {i} at {host}: {e}"))?;
                return Ok(stream);
            }
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            Err(_) => return Err(waited(i, host)),
        }
    }
}

fn waited(i: usize, host: &str) -> String {
    format!(
        "process {i} ({host}) did not join the cluster within {} s",
        PATIENCE.as_secs()
    )
}
