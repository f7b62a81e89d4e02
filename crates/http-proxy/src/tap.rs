//! A body that relays another body frame by frame, unchanged, and reports the messages in it
//! as they pass: a whole body as one message, or an SSE stream event by event. The report is a
//! non-blocking send, so the relay never waits for the observer.

use crate::event::{Dir, EventKind, Events};
use crate::sse::SseParser;
use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

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
    inner: B,
    framing: Framing,
    dir: Dir,
    exchange: u64,
    events: Events,
    /// The body has ended and its last message, if any, is reported.
    done: bool,
}

impl<B: Body> Tap<B> {
    pub fn new(inner: B, framing: Framing, dir: Dir, exchange: u64, events: Events) -> Self {
        // An empty body (a GET's) may never be polled: it is complete from the start.
        let done = inner.is_end_stream();
        Tap {
            inner,
            framing,
            dir,
            exchange,
            events,
            done,
        }
    }
}

impl<B> Tap<B> {
    fn message(&self, raw: Vec<u8>, sse_id: Option<String>) {
        let kind = EventKind::Message {
            dir: self.dir,
            raw: Bytes::from(raw),
            sse_id,
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
        let frame = ready!(Pin::new(&mut self.inner).poll_frame(cx));
        match &frame {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    self.feed(data);
                }
                // hyper stops polling a body whose length says it is complete.
                if self.inner.is_end_stream() {
                    self.finish();
                }
            }
            Some(Err(error)) => {
                let reason = error.to_string();
                self.abort(reason, false);
            }
            None => self.finish(),
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B> Drop for Tap<B> {
    fn drop(&mut self) {
        // Dropped unfinished: the side it was relayed to went away (hyper drops a response
        // body whose client closed the connection).
        self.abort(
            "the connection closed before the end of the body".into(),
            true,
        );
    }
}
