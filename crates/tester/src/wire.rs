//! A bare HTTP/1.1 exchange on a TCP connection of its own, for `http://` servers: the
//! request is written before the call returns, and the connection can be shut down from
//! another thread while a reader is blocked on the body. That is how a modern client cancels
//! a request over Streamable HTTP (closing its stream, C5); reqwest's pooled connections
//! cannot be closed one at a time.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The longest line of a response head (a longer one is an error, not a memory hog).
const MAX_LINE: u64 = 64 * 1024;

/// Where an `http://` URL points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `host[:port]`, as the `Host` header names it.
    pub authority: String,
    pub path: String,
}

impl Endpoint {
    /// `http://HOST[:PORT][/PATH]`, read by the URL parser the HTTP transport uses, so that
    /// both reach the same server; `None` for any other scheme, a URL without a host written
    /// out, or one with credentials (those go through reqwest).
    pub fn parse(text: &str) -> Option<Endpoint> {
        let url = url::Url::parse(text).ok()?;
        let written = text
            .strip_prefix("http://")
            .is_some_and(|rest| !rest.starts_with('/'));
        let credentials = !url.username().is_empty() || url.password().is_some();
        if url.scheme() != "http" || !written || credentials {
            return None;
        }
        let host = url.host_str()?;
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        };
        Some(Endpoint { authority, path })
    }

    /// `host:port` with the default port filled in.
    fn address(&self) -> String {
        let bracketed = self.authority.ends_with(']');
        if !bracketed && self.authority.contains(':') {
            self.authority.clone()
        } else {
            format!("{}:80", self.authority)
        }
    }
}

/// A response head, with its body to read.
pub struct Reply {
    pub status: u16,
    /// Header names in lower case, as reqwest gives them.
    pub headers: Vec<(String, String)>,
    pub body: Box<dyn BufRead + Send>,
}

/// Connects (within `deadline`) and writes the request: `method` with `body` and `headers`,
/// plus `Host`, `Content-Length` and `Connection: close`.
pub fn send(
    endpoint: &Endpoint,
    method: &str,
    body: &[u8],
    headers: &[(String, String)],
    deadline: Instant,
) -> io::Result<TcpStream> {
    let mut stream = connect(&endpoint.address(), deadline)?;
    let mut head = format!(
        "{method} {} HTTP/1.1\r\nhost: {}\r\n",
        endpoint.path, endpoint.authority
    );
    for (name, value) in headers {
        if name.contains(['\r', '\n', ':']) || value.contains(['\r', '\n']) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "bad header"));
        }
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    ));
    stream.set_write_timeout(Some(left(deadline)?))?;
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()?;
    Ok(stream)
}

fn connect(address: &str, deadline: Instant) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{address}: no address"));
    for addr in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, left(deadline)?) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The time to `deadline`, or a timeout once it passed.
fn left(deadline: Instant) -> io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    Ok(left)
}

/// Reads the response head from `stream` (skipping interim 1xx heads); every read of the
/// head and the body ends by `deadline`.
pub fn receive(stream: TcpStream, deadline: Instant) -> io::Result<Reply> {
    read_reply(Timed { stream, deadline })
}

/// Reads a response head from `source` (skipping interim 1xx heads), with its body to read:
/// the parsing half of [`receive`], on any byte source (the fuzz target feeds it bytes).
pub fn read_reply<R: Read + Send + 'static>(source: R) -> io::Result<Reply> {
    let mut reader = BufReader::new(source);
    loop {
        let status_line = line(&mut reader)?;
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse::<u16>().ok())
            .filter(|_| status_line.starts_with("HTTP/1."))
            .ok_or_else(|| bad(format!("not an HTTP/1 status line: {status_line:?}")))?;
        let headers = fields(&mut reader)?;
        if (100..200).contains(&status) {
            continue;
        }
        let body = body(reader, status, &headers)?;
        return Ok(Reply {
            status,
            headers,
            body,
        });
    }
}

fn bad(reason: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, reason)
}

/// One line without its end; the end of the stream before it is an error.
fn line(reader: &mut impl BufRead) -> io::Result<String> {
    let mut bytes = Vec::new();
    reader.take(MAX_LINE).read_until(b'\n', &mut bytes)?;
    if bytes.last() != Some(&b'\n') {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let text = String::from_utf8_lossy(&bytes);
    Ok(text.trim_end_matches(['\r', '\n']).to_string())
}

/// Header fields up to the blank line.
fn fields(reader: &mut impl BufRead) -> io::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    loop {
        let text = line(reader)?;
        if text.is_empty() {
            return Ok(out);
        }
        if let Some((name, value)) = text.split_once(':') {
            out.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
}

/// The body as its framing says: chunked, `Content-Length` bytes, or up to the close.
fn body<R: Read + Send + 'static>(
    reader: BufReader<R>,
    status: u16,
    headers: &[(String, String)],
) -> io::Result<Box<dyn BufRead + Send>> {
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    if status == 204 || status == 304 {
        return Ok(Box::new(io::empty()));
    }
    if get("transfer-encoding").is_some_and(|t| t.ends_with("chunked")) {
        let chunked = Chunked {
            inner: reader,
            left: 0,
            done: false,
        };
        return Ok(Box::new(BufReader::new(chunked)));
    }
    match get("content-length") {
        Some(n) => {
            let n = n
                .trim()
                .parse::<u64>()
                .map_err(|_| bad(format!("content-length {n:?}")))?;
            Ok(Box::new(reader.take(n)))
        }
        None => Ok(Box::new(reader)),
    }
}

/// A socket whose reads end by a deadline (a timeout error past it).
struct Timed {
    stream: TcpStream,
    deadline: Instant,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.set_read_timeout(Some(left(self.deadline)?))?;
        match self.stream.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Err(io::ErrorKind::TimedOut.into()),
            other => other,
        }
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

/// A chunked body, decoded.
struct Chunked<R> {
    inner: R,
    /// Bytes left in the current chunk.
    left: u64,
    done: bool,
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 && !self.done {
            self.next_chunk()?;
        }
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        let most = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..most])?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.left -= n as u64;
        if self.left == 0 {
            // The chunk's own line end.
            line(&mut self.inner)?;
        }
        Ok(n)
    }
}

impl<R: BufRead> Chunked<R> {
    /// Reads the next chunk's size line; the last chunk's trailer fields are skipped.
    fn next_chunk(&mut self) -> io::Result<()> {
        let text = line(&mut self.inner)?;
        let size = text.split(';').next().unwrap_or("").trim();
        let size =
            u64::from_str_radix(size, 16).map_err(|_| bad(format!("chunk size {size:?}")))?;
        if size == 0 {
            fields(&mut self.inner)?;
            self.done = true;
        }
        self.left = size;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn urls_parse_to_host_and_path() {
        let e = Endpoint::parse("http://127.0.0.1:3001/mcp").unwrap();
        assert_eq!(
            (e.authority.as_str(), e.path.as_str()),
            ("127.0.0.1:3001", "/mcp")
        );
        assert_eq!(e.address(), "127.0.0.1:3001");
        let e = Endpoint::parse("http://localhost").unwrap();
        assert_eq!((e.path.as_str(), e.address()), ("/", "localhost:80".into()));
        assert_eq!(
            Endpoint::parse("http://[::1]/x").unwrap().address(),
            "[::1]:80"
        );
        assert_eq!(Endpoint::parse("https://example.com/mcp"), None);
        assert_eq!(Endpoint::parse("http:///mcp"), None);
    }

    /// A server that answers one request with `reply`, then keeps the connection open for
    /// `hold` (a stream still going).
    fn serve(reply: &'static [u8], hold: Duration) -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(reply);
            std::thread::sleep(hold);
        });
        Endpoint::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap()
    }

    #[test]
    fn chunked_and_sized_bodies_are_decoded() {
        let soon = Instant::now() + Duration::from_secs(10);
        let chunked = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n";
        let e = serve(chunked, Duration::ZERO);
        let stream = send(&e, "POST", b"{}", &[], soon).unwrap();
        let mut reply = receive(stream, soon).unwrap();
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.headers[1],
            ("content-type".into(), "text/event-stream".into())
        );
        let mut text = String::new();
        reply.body.read_to_string(&mut text).unwrap();
        assert_eq!(text, "hello world");
        let sized = b"HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\n{}trailing";
        let e = serve(sized, Duration::ZERO);
        let mut reply = receive(send(&e, "POST", b"{}", &[], soon).unwrap(), soon).unwrap();
        text.clear();
        reply.body.read_to_string(&mut text).unwrap();
        assert_eq!((reply.status, text.as_str()), (202, "{}"));
    }

    /// A server that answers one request with `reply`, then keeps the connection open until
    /// the returned sender is dropped (a stream that would go on forever).
    fn serve_held(reply: &'static [u8]) -> (Endpoint, std::sync::mpsc::Sender<()>) {
        let (hold, held) = std::sync::mpsc::channel::<()>();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(reply);
            let _ = held.recv();
        });
        let e = Endpoint::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
        (e, hold)
    }

    /// The server holds the stream open for as long as the test runs, so the reader can end
    /// only by the shutdown (whatever it read first) or, were the shutdown lost, by its
    /// deadline: a timeout is the failure this test looks for.
    #[test]
    fn a_shutdown_unblocks_a_reader() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\r\n\r\n";
        let (e, _hold) = serve_held(head);
        let far = Instant::now() + Duration::from_secs(60);
        let stream = send(&e, "POST", b"{}", &[], far).unwrap();
        let closer = stream.try_clone().unwrap();
        let mut reply = receive(stream, far).unwrap();
        let reader = std::thread::spawn(move || {
            let mut rest = Vec::new();
            reply.body.read_to_end(&mut rest).map(|_| rest)
        });
        closer.shutdown(Shutdown::Both).unwrap();
        let read = reader.join().unwrap();
        assert!(
            read.as_ref()
                .map_or_else(|e| e.kind() != io::ErrorKind::TimedOut, |_| true),
            "{read:?}"
        );
    }

    /// Whichever step the deadline falls in (connecting, the head or the body of a stream
    /// that never ends), the exchange ends with a timeout, never a hang.
    #[test]
    fn a_deadline_ends_an_endless_stream() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\r\n\r\n";
        let (e, _hold) = serve_held(head);
        let soon = Instant::now() + Duration::from_millis(300);
        let ended = send(&e, "POST", b"{}", &[], soon)
            .and_then(|stream| receive(stream, soon))
            .and_then(|mut reply| reply.body.read_to_end(&mut Vec::new()));
        assert_eq!(ended.unwrap_err().kind(), io::ErrorKind::TimedOut);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let soon = Instant::now() + Duration::from_secs(10);
        for reply in [
            &b"SSH-2.0-OpenSSH\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
            b"HTTP/1.1 200",
        ] {
            let e = serve(reply, Duration::ZERO);
            let got = receive(send(&e, "POST", b"{}", &[], soon).unwrap(), soon)
                .and_then(|mut r| r.body.read_to_end(&mut Vec::new()));
            assert!(got.is_err(), "{:?}", String::from_utf8_lossy(reply));
        }
    }
}
