//! What a client may cost a listening proxy, and the request body that holds it to that: a
//! body longer than [`Limits::max_body`] or slower than [`Limits::body_timeout`] ends with an
//! error, which the exchange answers 413 or 408 (see `relay`). The head's limits are hyper's
//! own (`max_header_size`, `header_read_timeout`, which also closes an idle kept-alive
//! connection), set where connections are served.

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::time::Sleep;

/// The limits of a listening proxy.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of a request head (request line and headers); more is answered 431.
    pub max_header: usize,
    /// Bytes of a request body; more is answered 413 (at once when `Content-Length` says so).
    pub max_body: u64,
    /// Time for a request head to arrive, and for the next one on a kept-alive connection:
    /// then the connection is closed (a slow sender, or an idle client).
    pub header_timeout: Duration,
    /// Time for a request body to arrive once its head has; then it is answered 408.
    pub body_timeout: Duration,
    /// Client connections open at once; one more is answered 503 and closed.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_header: 64 * 1024,
            max_body: 32 << 20,
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(60),
            max_connections: 4096,
        }
    }
}

/// Which limit a request body broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Broken {
    TooLarge,
    TooSlow,
}

/// Why a bounded body ended early.
#[derive(Debug)]
pub enum BodyError {
    Broke(String),
    Inner(hyper::Error),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::Broke(why) => f.write_str(why),
            BodyError::Inner(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for BodyError {}

/// A request body held to [`Limits::max_body`] and [`Limits::body_timeout`]; the limit it
/// broke, if any, is left in `broken` for the exchange to answer with.
pub struct Bounded<B> {
    inner: B,
    read: u64,
    max: u64,
    deadline: Pin<Box<Sleep>>,
    broken: Arc<Mutex<Option<Broken>>>,
}

impl<B> Bounded<B> {
    pub fn new(inner: B, limits: &Limits, broken: Arc<Mutex<Option<Broken>>>) -> Self {
        Bounded {
            inner,
            read: 0,
            max: limits.max_body,
            deadline: Box::pin(tokio::time::sleep(limits.body_timeout)),
            broken,
        }
    }

    fn broke(&self, limit: Broken, why: String) -> BodyError {
        if let Ok(mut broken) = self.broken.lock() {
            *broken = Some(limit);
        }
        BodyError::Broke(why)
    }
}

impl<B> Body for Bounded<B>
where
    B: Body<Data = Bytes, Error = hyper::Error> + Unpin,
{
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if polled.is_pending() {
            ready!(self.deadline.as_mut().poll(cx));
            let why = "the request body did not arrive in time".to_string();
            return Poll::Ready(Some(Err(self.broke(Broken::TooSlow, why))));
        }
        let frame = match ready!(polled) {
            Some(Ok(frame)) => frame,
            Some(Err(error)) => return Poll::Ready(Some(Err(BodyError::Inner(error)))),
            None => return Poll::Ready(None),
        };
        let size = frame.data_ref().map_or(0, Bytes::len);
        self.read += size as u64;
        if self.read > self.max {
            let why = format!("the request body is over {} bytes", self.max);
            return Poll::Ready(Some(Err(self.broke(Broken::TooLarge, why))));
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
