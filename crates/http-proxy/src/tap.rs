//! A body that relays another body frame by frame, unchanged, and reports the messages in it
//! as they pass: a whole body as one message, or an SSE stream event by event. The report is a
//! non-blocking send, so the relay never waits for the observer.
//!
//! A response body the client stops reading (it closed the stream) is read on: the upstream
//! connection is half-closed, so the server reads the close (in the modern era, the
//! cancellation of the request), and what it still sends within [`DRAIN`] is reported, as
//! not relayed, so that an answer after the cancellation is judged (C4).

use crate::event::{Dir, EventKind, Events};
use crate::sse::SseParser;
use crate::upstream::Upstream;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::sync::Notify;

/// How long the proxy reads on a response stream after its client closed it.
pub const DRAIN: Duration = Duration::from_secs(10);

/// The response streams read on after their client closed them, so that the proxy's
/// shutdown can wait for them (within its grace period).
#[derive(Clone, Debug, Default)]
pub struct Drains(Arc<(AtomicUsize, Notify)>);

impl Drains {
    pub fn begin(&self) {
        self.0.0.fetch_add(1, Ordering::SeqCst);
    }

    pub fn end(&self) {
        self.0.0.fetch_sub(1, Ordering::SeqCst);
        self.0.1.notify_waiters();
    }

    /// Returns once no stream is being read on.
    pub async fn done(&self) {
        loop {
            let notified = self.0.1.notified();
            if self.0.0.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// How the bytes of a body divide into messages.
#[derive(Debug)]
pub enum Framing {
    /// The whole body is one message (a request, a JSON response).
    Whole(Vec<u8>),
    /// Each SSE event's `data` is one message.
    Sse(SseParser),
    /// Not a message (an error page, an empty reply): relayed, not reported.
    Opaque,
}

impl Framing {
    /// The framing of a response with this `Content-Type`.
    pub fn for_content_type(content_type: &str) -> Framing {
        let media = content_type.split(';').next().unwrap_or("").trim();
        let media = media.to_ascii_lowercase();
        if media == "text/event-stream" {
            Framing::Sse(SseParser::default())
        } else if media == "application/json" || media.ends_with("+json") {
            Framing::Whole(Vec::new())
        } else {
            Framing::Opaque
        }
    }
}

pub struct Tap<B> {
    /// `None` once handed to a drain.
    inner: Option<B>,
    framing: Framing,
    dir: Dir,
    exchange: u64,
    events: Events,
    /// The body has ended and its last message, if any, is reported.
    done: bool,
    /// Whether what it reports reaches the receiver (not once the receiver closed it).
    relayed: bool,
    /// What reads on a response the client closed (see [`drained_after_close`]).
    drain: Option<HandOn<B>>,
    /// A request body's `Mcp-Session-Id`.
    session: Option<String>,
    /// A request body's client connection (numbered from 0 in the order they were accepted).
    connection: Option<u64>,
}

/// Takes the rest of a body whose receiver closed it.
type HandOn<B> = Box<dyn FnOnce(Tap<B>) + Send>;

impl<B: Body> Tap<B> {
    pub fn new(inner: B, framing: Framing, dir: Dir, exchange: u64, events: Events) -> Self {
        // An empty body (a GET's) may never be polled: it is complete from the start.
        let done = inner.is_end_stream();
        Tap {
            inner: Some(inner),
            framing,
            dir,
            exchange,
            events,
            done,
            relayed: true,
            drain: None,
            session: None,
            connection: None,
        }
    }
}

impl Tap<hyper::body::Incoming> {
    /// When the client closes it before its end, the response is read on for [`DRAIN`] after
    /// its upstream connection is half-closed (see the module).
    pub fn drained_after_close(mut self, upstream: Arc<Upstream>, drains: Drains) -> Self {
        self.drain = Some(Box::new(move |rest| {
            upstream.abandon();
            // Dropped outside the runtime (it is stopping): nothing more to read.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                drains.begin();
                runtime.spawn(read_on(rest, drains));
            }
        }));
        self
    }
}

/// Reads on the rest of a response whose client closed it (the server has the end of the
/// connection): what it still sends is reported, not relayed.
async fn read_on(mut rest: Tap<hyper::body::Incoming>, drains: Drains) {
    let reading = async { while let Some(Ok(_)) = rest.frame().await {} };
    let _ = tokio::time::timeout(DRAIN, reading).await;
    drop(rest);
    drains.end();
}

impl<B> Tap<B> {
    /// A request body whose request carried `Mcp-Session-Id` `session` (or none) and came
    /// on client connection `connection`.
    pub fn of_request(mut self, session: Option<String>, connection: u64) -> Self {
        self.session = session;
        self.connection = Some(connection);
        self
    }

    /// What it reports is not relayed (the client closed the connection before).
    pub fn unrelayed(mut self) -> Self {
        self.relayed = false;
        self
    }

    fn message(&self, raw: Vec<u8>, sse_id: Option<String>) {
        let kind = EventKind::Message {
            dir: self.dir,
            raw: Bytes::from(raw),
            sse_id,
            relayed: self.relayed,
            session: self.session.clone(),
            connection: self.connection,
        };
        self.events.send(self.exchange, kind);
    }

    fn feed(&mut self, bytes: &[u8]) {
        match &mut self.framing {
            Framing::Whole(body) => body.extend_from_slice(bytes),
            Framing::Sse(parser) => {
                // An event with empty data is no message: the SDKs send one first to give the
                // client an event id to resume from ("priming" events).
                for event in parser.feed(bytes) {
                    if !event.data.is_empty() {
                        self.message(event.data, event.id);
                    }
                }
            }
            Framing::Opaque => {}
        }
    }

    /// The body ended normally: a whole body is one message, unless it is empty.
    fn finish(&mut self) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        if let Framing::Whole(body) = &mut self.framing
            && !body.is_empty()
        {
            let body = std::mem::take(body);
            self.message(body, None);
        }
    }

    /// The body ended early (an error, or dropped before its end).
    fn abort(&mut self, reason: String, by_receiver: bool) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let pending = match &self.framing {
            Framing::Whole(body) => body.len(),
            Framing::Sse(_) | Framing::Opaque => 0,
        };
        let kind = EventKind::Aborted {
            dir: self.dir,
            reason,
            pending,
            by_receiver,
        };
        self.events.send(self.exchange, kind);
    }
}

impl<B> Body for Tap<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let Some(inner) = self.inner.as_mut() else {
            return Poll::Ready(None);
        };
        let frame = ready!(Pin::new(inner).poll_frame(cx));
        self.saw(frame.as_ref());
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.as_ref().map(Body::size_hint).unwrap_or_default()
    }
}

impl<B> Tap<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    /// Reports what a frame read from the inner body holds, or its end.
    fn saw(&mut self, frame: Option<&Result<Frame<Bytes>, B::Error>>) {
        match frame {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    self.feed(data);
                }
                // hyper stops polling a body whose length says it is complete.
                if self.inner.as_ref().is_none_or(Body::is_end_stream) {
                    self.finish();
                }
            }
            Some(Err(error)) => {
                let reason = error.to_string();
                self.abort(reason, false);
            }
            None => self.finish(),
        }
    }
}

impl<B> Drop for Tap<B> {
    fn drop(&mut self) {
        // Dropped unfinished: the side it was relayed to went away (hyper drops a response
        // body whose client closed the connection). A body read on after that ends with the
        // reading: no news.
        if !self.relayed {
            return;
        }
        let closed = !self.done;
        self.abort(
            "the connection closed before the end of the body".into(),
            true,
        );
        if let (true, Some(hand_on), Some(inner)) = (closed, self.drain.take(), self.inner.take()) {
            let rest = Tap {
                inner: Some(inner),
                framing: std::mem::replace(&mut self.framing, Framing::Opaque),
                dir: self.dir,
                exchange: self.exchange,
                events: self.events.clone(),
                done: false,
                relayed: false,
                drain: None,
                session: None,
                connection: None,
            };
            hand_on(rest);
        }
    }
}
