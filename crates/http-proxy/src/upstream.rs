//! The upstream connection of one exchange, which the proxy can half-close when the client
//! closes its side: the server reads the end of the connection (in the modern era, the
//! cancellation of the request) while the proxy still reads what it sends. The half-close
//! waits until what hyper wrote of the request is flushed, so that the request always
//! arrives whole.

use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// What the exchange and its connection share: whether the client has gone, and how to wake
/// the connection's task to pass that on.
#[derive(Debug, Default)]
pub struct Upstream {
    abandoned: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Upstream {
    /// The client has gone: the connection is half-closed once the request is out.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::SeqCst);
        let waker = self.waker.lock().ok().and_then(|mut w| w.take());
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn remember(&self, cx: &Context<'_>) {
        if let Ok(mut waker) = self.waker.lock() {
            *waker = Some(cx.waker().clone());
        }
    }
}

/// A connection to the upstream that half-closes itself once its exchange is abandoned.
pub struct HalfClosing {
    inner: TcpStream,
    upstream: std::sync::Arc<Upstream>,
    /// Bytes were written since the last flush.
    dirty: bool,
    shut: bool,
}

impl HalfClosing {
    pub fn new(inner: TcpStream, upstream: std::sync::Arc<Upstream>) -> HalfClosing {
        HalfClosing {
            inner,
            upstream,
            dirty: false,
            shut: false,
        }
    }

    /// Half-closes the connection if its exchange is abandoned and the request is out.
    fn pass_on(&mut self, cx: &mut Context<'_>) {
        if self.shut || self.dirty || !self.upstream.abandoned.load(Ordering::SeqCst) {
            return;
        }
        self.shut = true;
        // A TCP stream's shutdown of its writing half completes at once.
        let _ = Pin::new(&mut self.inner).poll_shutdown(cx);
    }
}

impl AsyncRead for HalfClosing {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.upstream.remember(cx);
        self.pass_on(cx);
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for HalfClosing {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.dirty = true;
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        if matches!(flushed, Poll::Ready(Ok(()))) {
            self.dirty = false;
            self.pass_on(cx);
        }
        flushed
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.shut = true;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
