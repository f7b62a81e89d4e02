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
mod guard;
mod limits;
mod listen;
pub mod redact;
mod refuse;
mod relay;
mod sse;
mod tap;
mod tls;
mod upstream;

pub use event::{Dir, Event, EventKind, HttpExchange, Observer};
pub use guard::{Access, Guard};
pub use limits::Limits;
pub use refuse::Refusal;
pub use sse::{SseEvent, SseParser};
pub use tls::Tls;

use hyper::header::HeaderValue;
use listen::{Server, accept};
use relay::Relay;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::thread::JoinHandle;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::{Semaphore, watch};
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

/// How a proxy listens: who may use it, what a client may cost it, and HTTPS.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Who may listen where and send which `Host` and `Origin` ([`Guard`]).
    pub access: Access,
    pub limits: Limits,
    /// Serve HTTPS with this certificate; plain HTTP when `None`.
    pub tls: Option<Tls>,
}

/// Starts a proxy on `listen` (port 0 picks a free one: see [`Proxy::local_addr`]) in front of
/// `upstream`, an `http://` URL whose origin receives every request (its path is only where
/// clients are expected to go), with the default [`Options`]: loopback only, `Host` and
/// `Origin` checked, the default [`Limits`], plain HTTP.
pub fn serve(listen: SocketAddr, upstream: &Url, observer: Arc<dyn Observer>) -> io::Result<Proxy> {
    serve_with(listen, upstream, observer, Options::default())
}

/// [`serve`] with `options`. Fails if the address cannot be bound, is not loopback without
/// [`Access::allow_remote`] (`InvalidInput`), or the URL is not `http://HOST[:PORT]`
/// (`InvalidInput`, naming the upstream).
pub fn serve_with(
    listen: SocketAddr,
    upstream: &Url,
    observer: Arc<dyn Observer>,
    options: Options,
) -> io::Result<Proxy> {
    let (authority, host) = origin(upstream)?;
    let guard = Guard::new(listen, &options.access)
        .map_err(|why| io::Error::new(io::ErrorKind::InvalidInput, why))?;
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
        guard,
        limits: options.limits,
    });
    let server = Arc::new(Server {
        slots: Arc::new(Semaphore::new(options.limits.max_connections)),
        refusing: Arc::new(Semaphore::new(listen::REFUSING)),
        relay,
        tls: options.tls,
    });
    let (stop, stopped) = watch::channel(None);
    let server = runtime.spawn(accept(listener, server, stopped));
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
