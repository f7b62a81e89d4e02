//! One HTTP exchange through the proxy: the request goes upstream with its method, path,
//! headers (header case kept) and body unchanged, only `Host` naming the upstream; the
//! response comes back the same way, its body relayed frame by frame as it arrives. Both bodies
//! pass through a [`Tap`] that reports their messages.
//!
//! Each exchange has an upstream connection of its own, so that a client's close of one
//! response stream can be passed on for that exchange alone, as a half-close: the server
//! reads the end of the connection (the close, which in the modern era cancels the request)
//! while the proxy goes on reading what it still sends (see `tap`).

use crate::event::{Dir, EventKind, Events, HttpExchange};
use crate::guard::Guard;
use crate::limits::{Bounded, Broken, Limits};
use crate::refuse::{Refusal, answer};
use crate::tap::{DRAIN, Drains, Framing, Tap};
use crate::upstream::{HalfClosing, Upstream};
use bytes::Bytes;
use http_body_util::{BodyExt, Either, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HOST, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// What a response body is: the upstream's, tapped, or the proxy's own error text.
pub type ReplyBody = Either<Tap<Incoming>, Full<Bytes>>;

/// What every exchange shares.
pub struct Relay {
    /// `host:port` of the upstream.
    pub authority: String,
    pub host: HeaderValue,
    pub events: Events,
    pub next: AtomicU64,
    /// The response streams the proxy reads on after their client closed them.
    pub drains: Drains,
    /// Who may send requests.
    pub guard: Guard,
    pub limits: Limits,
}

/// Where a request came from.
#[derive(Clone, Copy, Debug)]
pub struct Client {
    /// The client's address.
    pub peer: SocketAddr,
    /// Its connection, numbered from 0 in the order connections were accepted.
    pub connection: u64,
    /// The proxy had its limit of connections when this one came: it is answered 503.
    pub full: bool,
}

/// A request body as it goes upstream: held to the limits, tapped.
type Outgoing = Tap<Bounded<Incoming>>;

/// Why the upstream could not be asked.
type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The task that sends a request upstream and returns the response's head.
type Sending = JoinHandle<Result<Response<Incoming>, Failure>>;

impl Relay {
    /// Relays one request from `client`, or refuses it; never fails (an unreachable upstream
    /// is a 502 to the client).
    pub async fn exchange(
        self: Arc<Self>,
        request: Request<Incoming>,
        client: Client,
    ) -> Result<Response<ReplyBody>, std::convert::Infallible> {
        if let Err((status, why)) = self.admit(&request, client.full) {
            return Ok(self.refuse(&request, client.peer, status, why));
        }
        let exchange = self.next.fetch_add(1, Ordering::Relaxed);
        let broken = Arc::new(Mutex::new(None));
        let (request, http) = self.upstream_request(request, exchange, client.connection, &broken);
        let upstream = Arc::new(Upstream::default());
        let sending = {
            let (relay, upstream) = (Arc::clone(&self), Arc::clone(&upstream));
            tokio::spawn(async move { relay.send(request, upstream).await })
        };
        let waiting = Waiting {
            relay: Arc::clone(&self),
            exchange,
            upstream: Arc::clone(&upstream),
            pending: Some((sending, http)),
        };
        let (sent, mut http) = waiting.head().await;
        let reply = match sent {
            Ok(response) => self.tapped(response, exchange, upstream),
            Err(error) => {
                let (reply, reason) = match broken.lock().ok().and_then(|b| *b) {
                    Some(limit) => {
                        let (status, why) = over_limit(limit, &self.limits);
                        (answer(status, &why).map(Either::Right), why)
                    }
                    None => {
                        let reason = describe(error.as_ref());
                        (bad_gateway(reason.clone()), reason)
                    }
                };
                http.error = Some(reason);
                reply
            }
        };
        http.status = reply.status().as_u16();
        http.response_headers = text_headers(reply.headers());
        self.events.send(exchange, EventKind::Http(http));
        Ok(reply)
    }

    /// Whether a request may be relayed: its `Host` and `Origin` allowed, its declared length
    /// within the limit, a connection within the limit; otherwise the answer's status and why.
    fn admit(&self, request: &Request<Incoming>, full: bool) -> Result<(), (StatusCode, String)> {
        if full {
            let why = format!(
                "the proxy has {} connections open, its limit; try again",
                self.limits.max_connections
            );
            return Err((StatusCode::SERVICE_UNAVAILABLE, why));
        }
        self.guard
            .check(request.headers())
            .map_err(|why| (StatusCode::FORBIDDEN, why))?;
        let length = request
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if length.is_some_and(|n| n > self.limits.max_body) {
            return Err(over_limit(Broken::TooLarge, &self.limits));
        }
        Ok(())
    }

    /// Answers a request the proxy does not relay, and tells the observer.
    fn refuse(
        &self,
        request: &Request<Incoming>,
        peer: SocketAddr,
        status: StatusCode,
        reason: String,
    ) -> Response<ReplyBody> {
        let reply = answer(status, &reason).map(Either::Right);
        let refusal = Refusal {
            status: Some(status.as_u16()),
            reason,
            peer,
            method: request.method().to_string(),
            path: path_of(request.uri()),
            request_headers: text_headers(request.headers()),
        };
        self.tell(refusal);
        reply
    }

    /// Tells the observer of a connection the proxy refused before any request of it.
    pub fn refused(&self, status: Option<u16>, reason: String, peer: SocketAddr) {
        self.tell(Refusal {
            status,
            reason,
            peer,
            method: String::new(),
            path: String::new(),
            request_headers: Vec::new(),
        });
    }

    fn tell(&self, refusal: Refusal) {
        let next = self.next.load(Ordering::Relaxed);
        self.events.send(next, EventKind::Refused(refusal));
    }

    /// The request as it goes upstream (origin-form path, `Host` the upstream's, its body
    /// held to the limits, which leaves the one it broke in `broken`, and tapped), and the
    /// `http` event of its exchange so far.
    fn upstream_request(
        &self,
        request: Request<Incoming>,
        exchange: u64,
        connection: u64,
        broken: &Arc<Mutex<Option<Broken>>>,
    ) -> (Request<Outgoing>, HttpExchange) {
        let (mut parts, body) = request.into_parts();
        let path = path_of(&parts.uri);
        let http = HttpExchange {
            method: parts.method.to_string(),
            path: path.clone(),
            request_headers: text_headers(&parts.headers),
            relayed: true,
            ..HttpExchange::default()
        };
        let session = parts
            .headers
            .get("mcp-session-id")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        // Origin form: the connection is the upstream's own.
        parts.uri = path.parse().unwrap_or_else(|_| Uri::from_static("/"));
        parts.headers.insert(HOST, self.host.clone());
        let framing = if encoded(&parts.headers) {
            Framing::Opaque
        } else {
            Framing::Whole(Vec::new())
        };
        let events = self.events.clone();
        let body = Bounded::new(body, &self.limits, Arc::clone(broken));
        let body =
            Tap::new(body, framing, Dir::C2s, exchange, events).of_request(session, connection);
        (Request::from_parts(parts, body), http)
    }

    /// Sends `request` on a new connection to the upstream, which half-closes itself once
    /// `upstream` is abandoned (the client closed the response).
    async fn send(
        &self,
        request: Request<Outgoing>,
        upstream: Arc<Upstream>,
    ) -> Result<Response<Incoming>, Failure> {
        let stream = TcpStream::connect(&self.authority).await?;
        // Messages are small and interactive: send each frame at once.
        stream.set_nodelay(true)?;
        let stream = HalfClosing::new(stream, upstream);
        let (mut sender, connection) = hyper::client::conn::http1::Builder::new()
            .preserve_header_case(true)
            .handshake(TokioIo::new(stream))
            .await?;
        // It runs until the response's body is done (or given up); its error ends that body.
        tokio::spawn(connection);
        Ok(sender.send_request(request).await?)
    }

    fn framing(response: &Response<Incoming>) -> Framing {
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if encoded(response.headers()) {
            Framing::Opaque
        } else {
            Framing::for_content_type(content_type)
        }
    }

    fn tapped(
        &self,
        response: Response<Incoming>,
        exchange: u64,
        upstream: Arc<Upstream>,
    ) -> Response<ReplyBody> {
        let framing = Relay::framing(&response);
        let events = self.events.clone();
        let drains = self.drains.clone();
        response.map(|body| {
            let tap = Tap::new(body, framing, Dir::S2c, exchange, events);
            Either::Left(tap.drained_after_close(upstream, drains))
        })
    }

    /// The client closed its connection before the response's head came: what the upstream
    /// still answers (the head, then the body) is read for [`DRAIN`] and reported, not
    /// relayed.
    async fn read_on_headless(
        self: Arc<Self>,
        sending: Sending,
        mut http: HttpExchange,
        exchange: u64,
    ) {
        let reading = async {
            let Ok(Ok(response)) = sending.await else {
                return;
            };
            http.status = response.status().as_u16();
            http.response_headers = text_headers(response.headers());
            http.relayed = false;
            self.events.send(exchange, EventKind::Http(http));
            let framing = Relay::framing(&response);
            let body = response.into_body();
            let mut rest = Tap::new(body, framing, Dir::S2c, exchange, self.events.clone());
            rest = rest.unrelayed();
            while let Some(Ok(_)) = rest.frame().await {}
        };
        let _ = tokio::time::timeout(DRAIN, reading).await;
        self.drains.end();
    }
}

/// An exchange waiting for the upstream's response head. Dropped while it waits (hyper
/// drops the exchange of a client that closed its connection), it reports the close, passes
/// it on to the upstream, and reads on what the upstream still answers.
struct Waiting {
    relay: Arc<Relay>,
    exchange: u64,
    upstream: Arc<Upstream>,
    pending: Option<(Sending, HttpExchange)>,
}

impl Waiting {
    /// The response, or why there is none; and the `http` event to fill in.
    async fn head(mut self) -> (Result<Response<Incoming>, Failure>, HttpExchange) {
        let sent = match self.pending.as_mut() {
            Some((sending, _)) => sending.await.unwrap_or_else(|e| Err(Box::new(e))),
            None => Err("nothing was sent".into()),
        };
        let http = self
            .pending
            .take()
            .map(|(_, http)| http)
            .unwrap_or_default();
        (sent, http)
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let Some((sending, http)) = self.pending.take() else {
            return;
        };
        let closed = EventKind::Aborted {
            dir: Dir::S2c,
            reason: "the client closed the connection before the response's head".into(),
            pending: 0,
            by_receiver: true,
        };
        self.relay.events.send(self.exchange, closed);
        self.upstream.abandon();
        // Dropped outside the runtime (it is stopping): nothing more to read.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            self.relay.drains.begin();
            let relay = Arc::clone(&self.relay);
            runtime.spawn(relay.read_on_headless(sending, http, self.exchange));
        }
    }
}

/// The error and every cause, the last of which says what failed (refused, reset).
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = format!("the upstream could not be reached: {error}");
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        text.push_str(&format!(": {inner}"));
        cause = inner.source();
    }
    text
}

/// The path and query of a request as the client sent them.
fn path_of(uri: &Uri) -> String {
    uri.path_and_query()
        .map_or_else(|| "/".to_string(), ToString::to_string)
}

/// The status that answers a request body over a limit, and why.
fn over_limit(limit: Broken, limits: &Limits) -> (StatusCode, String) {
    match limit {
        Broken::TooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is over {} bytes", limits.max_body),
        ),
        Broken::TooSlow => (
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s",
                limits.body_timeout.as_secs_f64()
            ),
        ),
    }
}

fn bad_gateway(reason: String) -> Response<ReplyBody> {
    let text = format!("agentpi http proxy: {reason}\n");
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(text))));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Whether a body is compressed (`Content-Encoding` other than `identity`): it is relayed as
/// it is, but its bytes are no message the observer could read, so it is not reported as one
/// (the `http` event still shows the encoding).
fn encoded(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_ENCODING)
        .is_some_and(|v| !v.as_bytes().eq_ignore_ascii_case(b"identity"))
}

fn text_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_string(), value)
        })
        .collect()
}
