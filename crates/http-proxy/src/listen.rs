//! The listening side of the proxy: accepting connections within the limit of open ones (one
//! more is answered 503), the TLS handshake for HTTPS, and HTTP/1.1 served with hyper's own
//! limits on the request head; what a limit ends is told to the observer.

use crate::relay::{Client, Relay};
use crate::tls::Tls;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

/// What every connection shares.
pub struct Server {
    pub relay: Arc<Relay>,
    pub tls: Option<Tls>,
    /// One permit per client connection open.
    pub slots: Arc<Semaphore>,
    /// One permit per connection over the limit being answered 503.
    pub refusing: Arc<Semaphore>,
}

/// Connections over the limit answered 503 at once; more are closed unanswered, so that a
/// flood of connections costs a bounded number of tasks.
pub const REFUSING: usize = 64;

/// How long the accept loop waits after a failed accept.
const ACCEPT_PAUSE: Duration = Duration::from_millis(10);

/// Accepts connections until told to stop, then lets open ones finish for the grace period.
pub async fn accept(
    listener: TcpListener,
    server: Arc<Server>,
    mut stop: watch::Receiver<Option<Duration>>,
) {
    let graceful = GracefulShutdown::new();
    let mut connections = 0..;
    let grace = loop {
        tokio::select! {
            accepted = listener.accept() => {
                // A failed accept (a reset before it was taken, no descriptors left) concerns
                // one connection, not the proxy.
                match accepted {
                    Ok((stream, peer)) => {
                        let connection = connections.next().unwrap_or_default();
                        server.take(stream, peer, connection, &graceful);
                    }
                    // Out of descriptors, say: retrying at once would spin until one frees.
                    Err(_) => tokio::time::sleep(ACCEPT_PAUSE).await,
                }
            }
            changed = stop.changed() => {
                let grace = *stop.borrow();
                if changed.is_err() || grace.is_some() {
                    break grace.unwrap_or_default();
                }
            }
        }
    };
    drop(listener);
    let drains = server.relay.drains.clone();
    let _ = tokio::time::timeout(grace, async {
        graceful.shutdown().await;
        // What servers still send on streams their clients closed is in the record too.
        drains.done().await;
    })
    .await;
}

impl Server {
    /// Takes an accepted connection: served within the limit; over it, answered 503 (the
    /// client is told, rather than left waiting in the accept queue), or closed when even the
    /// refusals are at their limit.
    fn take(
        self: &Arc<Self>,
        stream: TcpStream,
        peer: SocketAddr,
        connection: u64,
        graceful: &GracefulShutdown,
    ) {
        let permit = Arc::clone(&self.slots).try_acquire_owned().ok();
        let full = permit.is_none();
        let refusing = if full {
            match Arc::clone(&self.refusing).try_acquire_owned() {
                Ok(refusing) => Some(refusing),
                // Even the refusals are at their limit: closed unanswered.
                Err(_) => return,
            }
        } else {
            None
        };
        let client = Client {
            peer,
            connection,
            full,
        };
        let watcher = graceful.watcher();
        let server = Arc::clone(self);
        tokio::spawn(async move {
            server.connection(stream, client, permit, watcher).await;
            drop(refusing);
        });
    }

    /// Serves one client connection (after its TLS handshake, for HTTPS); `permit` is `None`
    /// when the proxy has its limit of connections already: each request is answered 503.
    async fn connection(
        self: Arc<Self>,
        stream: TcpStream,
        client: Client,
        permit: Option<OwnedSemaphorePermit>,
        watcher: Watcher,
    ) {
        // Messages are small and interactive: send each frame at once.
        let _ = stream.set_nodelay(true);
        let Some(tls) = &self.tls else {
            return self.http(stream, client, permit, watcher).await;
        };
        let limits = &self.relay.limits;
        let handshake = tokio::time::timeout(limits.header_timeout, tls.0.accept(stream)).await;
        match handshake {
            Ok(Ok(stream)) => self.http(stream, client, permit, watcher).await,
            Ok(Err(error)) => {
                let why = format!("the TLS handshake failed: {error}");
                self.closed(client.peer, why);
            }
            Err(_) => self.closed(client.peer, "the TLS handshake did not end in time".into()),
        }
    }

    /// Serves HTTP/1.1 on a connection, held to the head's limits.
    async fn http<I>(
        &self,
        io: I,
        client: Client,
        permit: Option<OwnedSemaphorePermit>,
        watcher: Watcher,
    ) where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let served = Arc::new(AtomicBool::new(false));
        let service = {
            let (relay, served) = (Arc::clone(&self.relay), Arc::clone(&served));
            service_fn(move |request| {
                served.store(true, Ordering::Relaxed);
                Arc::clone(&relay).exchange(request, client)
            })
        };
        let limits = &self.relay.limits;
        let connection = http1::Builder::new()
            .preserve_header_case(true)
            // A date the upstream did not send is a header the client would not otherwise get.
            .auto_date_header(false)
            .timer(TokioTimer::new())
            .max_header_size(limits.max_header)
            .header_read_timeout(limits.header_timeout)
            // A connection over the limit is closed after its answer.
            .keep_alive(!client.full)
            .serve_connection(TokioIo::new(io), service);
        let ended = watcher.watch(connection).await;
        drop(permit);
        // A connection's error (the client went away) ends that connection only; those the
        // proxy caused by a limit are told.
        if let Err(error) = ended {
            self.ended(&error, client.peer, served.load(Ordering::Relaxed));
        }
    }

    /// Tells the observer of a connection a limit ended: a head over the size (answered 431
    /// by hyper) or none in time on a connection that had sent no request (an idle
    /// kept-alive connection is closed without a word).
    fn ended(&self, error: &hyper::Error, peer: SocketAddr, served: bool) {
        if error.is_parse_too_large() {
            let why = format!(
                "the request head is over {} bytes",
                self.relay.limits.max_header
            );
            self.relay.refused(Some(431), why, peer);
        } else if error.is_timeout() && !served {
            let why = "no request head arrived in time".to_string();
            self.closed(peer, why);
        }
    }

    fn closed(&self, peer: SocketAddr, why: String) {
        self.relay.refused(None, why, peer);
    }
}
