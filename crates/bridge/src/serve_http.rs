//! The listening side's HTTP server (`--listen HOST:PORT`), on a tokio runtime of its own:
//! hyper's HTTP/1.1 with the listening monitor's safety rules, reused from
//! `agentpi-http-proxy`: its `Guard` (loopback unless `--allow-remote`; `Host` and `Origin`
//! checked against DNS rebinding, 403 otherwise) and its `Limits` (head size and time, body
//! size, connections). A POST's body goes to the loop (`Input::Listen`) with a channel for
//! what the loop answers on it (`Out`: the head, messages as SSE events or one JSON body, the
//! end); a DELETE and a GET go to the loop the same way (a legacy client ending its session,
//! opening its stream); any other method is answered 405 here. SIGINT and SIGTERM end the client side.

use crate::input::{Input, NotAllowed, Out, Posted, Refused};
use agentpi_http_proxy::{Access, Guard, Limits};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Body, Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::task::{Context, Poll};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};

/// The running server: dropping it stops it.
pub struct Listening {
    pub address: SocketAddr,
    _runtime: tokio::runtime::Runtime,
}

/// Binds `listen` and serves until dropped.
pub fn start(
    listen: SocketAddr,
    access: &Access,
    limits: Limits,
    tx: Sender<Input>,
) -> Result<Listening, String> {
    let guard = Arc::new(Guard::new(listen, access)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("bridge-listen")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the HTTP server: {e}"))?;
    let listener = runtime
        .block_on(TcpListener::bind(listen))
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let signals = tx.clone();
    runtime.spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut interrupt), Ok(mut terminate)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        let _ = signals.send(Input::ClientEnd);
    });
    runtime.spawn(accept(listener, guard, limits, tx));
    Ok(Listening {
        address,
        _runtime: runtime,
    })
}

async fn accept(listener: TcpListener, guard: Arc<Guard>, limits: Limits, tx: Sender<Input>) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    for connection in 0.. {
        let Ok((stream, peer)) = listener.accept().await else {
            continue;
        };
        // Over the limit of open connections: closed at once.
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            continue;
        };
        let (guard, tx) = (guard.clone(), tx.clone());
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                handle(request, guard.clone(), limits, tx.clone(), connection, peer)
            });
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(limits.max_header.max(8192))
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(permit);
        });
    }
}

type Reply = Response<Pin<Box<dyn Body<Data = Bytes, Error = std::convert::Infallible> + Send>>>;

fn plain(status: StatusCode, text: &str) -> Reply {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32600, "message": text}});
    let mut reply = Response::new(Full::new(Bytes::from(body.to_string())).boxed_unsync());
    *reply.status_mut() = status;
    reply.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    reply.map(|b| Box::pin(b) as _)
}

async fn handle(
    request: Request<Incoming>,
    guard: Arc<Guard>,
    limits: Limits,
    tx: Sender<Input>,
    connection: u64,
    peer: SocketAddr,
) -> Result<Reply, std::convert::Infallible> {
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
        .collect();
    if let Err(reason) = guard.check(request.headers()) {
        let refused = Refused {
            reason: reason.clone(),
            peer,
            method: request.method().to_string(),
            path: request.uri().path().to_string(),
            headers,
        };
        let _ = tx.send(Input::Refused(refused));
        return Ok(plain(StatusCode::FORBIDDEN, &reason));
    }
    let path = request.uri().path().to_string();
    let method = request.method().clone();
    let known = [
        hyper::Method::POST,
        hyper::Method::DELETE,
        hyper::Method::GET,
    ];
    if !known.contains(&method) {
        let not_allowed = NotAllowed {
            method: request.method().to_string(),
            path,
            headers,
        };
        let _ = tx.send(Input::NotAllowed(not_allowed));
        return Ok(plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "agentpi bridge: POST, GET or DELETE only",
        ));
    }
    let body = Limited::new(request.into_body(), limits.max_body as usize);
    let read = tokio::time::timeout(limits.body_timeout, body.collect()).await;
    let raw = match read {
        Ok(Ok(collected)) => collected.to_bytes().to_vec(),
        Ok(Err(_)) => return Ok(plain(StatusCode::PAYLOAD_TOO_LARGE, "body too large")),
        Err(_) => return Ok(plain(StatusCode::REQUEST_TIMEOUT, "body too slow")),
    };
    let (answer, mut answers) = mpsc::unbounded_channel();
    let posted_key = next_stream();
    let posted = Posted {
        method: method.to_string(),
        path,
        stream: posted_key,
        raw,
        headers,
        connection,
        peer,
        answer,
    };
    if tx.send(Input::Listen(posted)).is_err() {
        return Ok(plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the bridge is ending",
        ));
    }
    let Some(Out::Head(status, head)) = answers.recv().await else {
        return Ok(plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the bridge is ending",
        ));
    };
    let stream = Stream {
        answers,
        ended: false,
        closed: Some((tx, posted_key)),
    };
    let mut reply = Response::new(Box::pin(stream) as _);
    *reply.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    for (name, value) in head {
        if let (Ok(n), Ok(v)) = (
            hyper::header::HeaderName::from_bytes(name.as_bytes()),
            hyper::header::HeaderValue::from_str(&value),
        ) {
            reply.headers_mut().insert(n, v);
        }
    }
    Ok(reply)
}

/// A number for each response stream, unique in the process.
fn next_stream() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A response body fed by the loop; it ends when the loop drops its sender. Dropped before
/// its end, the client closed it: the loop is told (a modern client's cancellation).
struct Stream {
    answers: mpsc::UnboundedReceiver<Out>,
    ended: bool,
    closed: Option<(Sender<Input>, u64)>,
}

impl Body for Stream {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.answers.poll_recv(cx) {
            Poll::Ready(Some(Out::Data(bytes))) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
            Poll::Ready(Some(Out::Head(..))) => Poll::Ready(Some(Ok(Frame::data(Bytes::new())))),
            Poll::Ready(None) => {
                self.ended = true;
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let (false, Some((tx, stream))) = (self.ended, self.closed.take()) {
            let _ = tx.send(Input::StreamClosed(stream));
        }
    }
}
