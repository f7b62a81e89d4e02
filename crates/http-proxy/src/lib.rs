//! A Streamable HTTP reverse proxy that shows an observer every MCP message crossing it.
//!
//! [`serve`] listens on an address and relays every request (POST, GET, DELETE, any method)
//! to the upstream's origin, with path, query, headers (header case included) and body
//! unchanged except `Host`; the response comes back with its status and headers unchanged and
//! its body relayed frame by frame as it arrives, so an SSE stream reaches the client event by
//! event. Off the relay path, an [`Observer`] gets each request body (one JSON-RPC message or
//! batch, `c2s`), each JSON response body or SSE `data` field (`s2c`), and one
//! [`EventKind::Http`] per response head: the vocabulary of the monitor's trace format.
//! Reporting never blocks relaying: events go through an unbounded channel to a thread of
//! their own. [`Proxy::shutdown`] stops accepting, lets open exchanges finish within a grace
//! period, and returns once the observer has had every event.

mod event;
mod relay;
mod sse;
mod tap;
mod upstream;

pub use event::{Dir, Event, EventKind, HttpExchange, Observer};
pub use sse::{SseEvent, SseParser};

use hyper::header::HeaderValue;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use relay::Relay;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::thread::JoinHandle;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::watch;
use url::Url;

/// A running proxy. Dropping it without [`Proxy::shutdown`] stops it abruptly.
pub struct Proxy {
    address: SocketAddr,
    runtime: Option<Runtime>,
    stop: watch::Sender<Option<Duration>>,
    server: Option<tokio::task::JoinHandle<()>>,
    observer: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

/// Starts a proxy on `listen` (port 0 picks a free one: see [`Proxy::local_addr`]) in front of
/// `upstream`, an `http://` URL whose origin receives every request (its path is only where
/// clients are expected to go). Fails if the address cannot be bound or the URL is not
/// `http://HOST[:PORT]`.
pub fn serve(listen: SocketAddr, upstream: &Url, observer: Arc<dyn Observer>) -> io::Result<Proxy> {
    let (authority, host) = origin(upstream)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("http-proxy")
        .enable_all()
        .build()?;
    let listener = runtime.block_on(TcpListener::bind(listen))?;
    let address = listener.local_addr()?;
    let (events, observer) = event::start(observer)?;
    let relay = Arc::new(Relay {
        authority,
        host,
        events,
        next: AtomicU64::new(0),
        drains: tap::Drains::default(),
    });
    let (stop, stopped) = watch::channel(None);
    let server = runtime.spawn(accept(listener, relay, stopped));
    Ok(Proxy {
        address,
        runtime: Some(runtime),
        stop,
        server: Some(server),
        observer: Some(observer),
    })
}

/// The upstream's `host:port` and its `Host` header value.
fn origin(upstream: &Url) -> io::Result<(String, HeaderValue)> {
    let bad = |why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("upstream {upstream}: {why}"),
        )
    };
    if upstream.scheme() != "http" {
        return Err(bad("only http:// upstreams are supported"));
    }
    let host = upstream.host_str().ok_or_else(|| bad("no host"))?;
    let authority = match upstream.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    };
    let header = HeaderValue::from_str(&authority).map_err(|_| bad("bad host"))?;
    let address = format!("{host}:{}", upstream.port_or_known_default().unwrap_or(80));
    Ok((address, header))
}

/// Accepts connections until told to stop, then lets open ones finish for the grace period.
async fn accept(
    listener: TcpListener,
    relay: Arc<Relay>,
    mut stop: watch::Receiver<Option<Duration>>,
) {
    let graceful = GracefulShutdown::new();
    let mut connections = 0..;
    let grace = loop {
        tokio::select! {
            accepted = listener.accept() => {
                // A failed accept (a reset before it was taken, no descriptors left) concerns
                // one connection, not the proxy.
                if let (Ok((stream, _)), Some(connection)) = (accepted, connections.next()) {
                    serve_connection(stream, connection, &relay, &graceful);
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
    let drains = relay.drains.clone();
    let _ = tokio::time::timeout(grace, async {
        graceful.shutdown().await;
        // What servers still send on streams their clients closed is in the record too.
        drains.done().await;
    })
    .await;
}

fn serve_connection(
    stream: tokio::net::TcpStream,
    connection: u64,
    relay: &Arc<Relay>,
    graceful: &GracefulShutdown,
) {
    // Messages are small and interactive: send each frame at once.
    let _ = stream.set_nodelay(true);
    let relay = Arc::clone(relay);
    let service = service_fn(move |request| Arc::clone(&relay).exchange(request, connection));
    let connection = http1::Builder::new()
        .preserve_header_case(true)
        // A date the upstream did not send is a header the client would not otherwise get.
        .auto_date_header(false)
        .timer(TokioTimer::new())
        .serve_connection(TokioIo::new(stream), service);
    let connection = graceful.watch(connection);
    tokio::spawn(async move {
        // A connection's error (the client went away) ends that connection only.
        let _ = connection.await;
    });
}

impl Proxy {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// Blocks until SIGINT or SIGTERM reaches the process, and returns its number (for a
    /// command line that runs the proxy until it is interrupted).
    pub fn wait_for_signal(&self) -> io::Result<i32> {
        use tokio::signal::unix::{SignalKind, signal};
        let runtime = self
            .runtime
            .as_ref()
            .ok_or_else(|| io::Error::other("stopped"))?;
        runtime.block_on(async {
            let mut interrupt = signal(SignalKind::interrupt())?;
            let mut terminate = signal(SignalKind::terminate())?;
            tokio::select! {
                _ = interrupt.recv() => Ok(2),
                _ = terminate.recv() => Ok(15),
            }
        })
    }

    /// Stops accepting, gives open exchanges (an SSE stream, say) up to `grace` to finish,
    /// closes the rest, and returns once the observer has had every event.
    pub fn shutdown(mut self, grace: Duration) {
        self.stop_now(grace);
    }

    fn stop_now(&mut self, grace: Duration) {
        let _ = self.stop.send(Some(grace));
        if let (Some(runtime), Some(server)) = (self.runtime.take(), self.server.take()) {
            let _ = runtime.block_on(server);
            // Tasks still running (connections past the grace period) are dropped here, and
            // with them the last senders of events.
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
        if let Some(observer) = self.observer.take() {
            let _ = observer.join();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop_now(Duration::ZERO);
    }
}
