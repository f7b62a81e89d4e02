//! The upstream's HTTP exchanges, on a tokio runtime of their own: each message the bridge
//! sends is one POST (`Job`), its response read as it arrives (a JSON body, or SSE events
//! one by one) and told to the loop (`Up`). A poster task starts them in the order the
//! bridge sent them, and waits for the head of a notification or response (and for the
//! whole answer of `initialize`) before the next, so that `notifications/initialized` is in
//! before the first request and the session's id and version are known. A request's stream
//! can be closed (`cancel`): the modern era's cancellation. A request's SSE stream that ends
//! or breaks before its answer, when the server gave its events ids, is resumed (2025-11-25
//! resumability, `resume.rs`): a GET with `Last-Event-ID`, read as the same exchange (its
//! head told, `Up::Resume`, so that the record has it); only when that fails is the end or
//! break told (a held call's break is then the loss of the session).

use crate::input::{Input, Up};
use crate::resume::{self, Again, Resume, fired};
use agentpi_http_proxy::SseParser;
use std::sync::mpsc::Sender;
use tokio::sync::{mpsc, oneshot};

/// What the poster waits for before it starts the next exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    Nothing,
    Head,
    End,
}

pub struct Job {
    pub exchange: u64,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
    pub wait: Wait,
    /// Sent again while it gets no answer, for up to `RECONNECT` (the `initialize` that
    /// re-opens a lost session: the server may be restarting).
    pub patient: bool,
    /// Fired to close the response's stream.
    pub cancel: oneshot::Receiver<()>,
}

/// Starts the poster on `runtime`; the jobs sent to the returned queue are posted to `url`.
pub fn start(
    runtime: &tokio::runtime::Runtime,
    client: reqwest::Client,
    url: reqwest::Url,
    tx: Sender<Input>,
) -> mpsc::UnboundedSender<Job> {
    let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
    runtime.spawn(async move {
        while let Some(job) = queue.recv().await {
            let (done, started) = oneshot::channel();
            let wait = job.wait;
            let task = exchange(client.clone(), url.clone(), job, tx.clone(), done);
            tokio::spawn(task);
            if wait != Wait::Nothing {
                let _ = started.await;
            }
        }
    });
    jobs
}

async fn exchange(
    client: reqwest::Client,
    url: reqwest::Url,
    job: Job,
    tx: Sender<Input>,
    done: oneshot::Sender<()>,
) {
    let Job {
        exchange,
        body,
        headers,
        wait,
        patient,
        mut cancel,
    } = job;
    let tell = |up: Up| {
        let _ = tx.send(Input::Upstream(up));
    };
    let mut resume = Resume::new(&body, &headers);
    let sent = tokio::select! {
        r = send(&client, &url, (body, &headers), patient) => r,
        () = fired(&mut cancel) => return tell(Up::Closed { exchange }),
    };
    let mut response = match sent {
        Ok(r) => r,
        Err(e) => {
            return tell(Up::Failed {
                exchange,
                why: describe(&e),
            });
        }
    };
    let head = head_of(&response);
    let sse = head.iter().any(|(k, v)| {
        k == "content-type" && v.to_ascii_lowercase().starts_with("text/event-stream")
    });
    let status = response.status().as_u16();
    tell(Up::Head {
        exchange,
        status,
        headers: head,
    });
    let mut done = Some(done);
    if wait == Wait::Head {
        let _ = done.take().map(|d| d.send(()));
    }
    let mut parser = SseParser::default();
    let mut json = Vec::new();
    loop {
        let chunk = tokio::select! {
            c = response.chunk() => c,
            () = fired(&mut cancel) => {
                drop(response);
                return tell(Up::Closed { exchange });
            }
        };
        match chunk {
            Ok(Some(bytes)) if sse => {
                for event in parser.feed(&bytes) {
                    resume.saw(&event);
                    let (raw, sse_id) = (event.data, event.id);
                    if !raw.iter().all(u8::is_ascii_whitespace) {
                        tell(Up::Message {
                            exchange,
                            raw,
                            sse_id,
                        });
                    }
                }
            }
            Ok(Some(bytes)) => json.extend_from_slice(&bytes),
            Ok(None) if !(sse && resume.wanted()) => break,
            Err(e) if !(sse && resume.wanted()) => {
                return tell(Up::Failed {
                    exchange,
                    why: describe(&e),
                });
            }
            // Ended or broken before its answer, the server's events with ids: resumed.
            ended => {
                let again = resume.again(&client, &url, &mut cancel).await;
                if let Again::Answered(more, asked) = &again {
                    tell(Up::Resume {
                        exchange,
                        status: more.status().as_u16(),
                        headers: head_of(more),
                        request_headers: asked.clone(),
                    });
                }
                match again {
                    Again::Answered(more, _) if resume::resumed(&more) => {
                        response = more;
                        parser = SseParser::default();
                    }
                    Again::Cancelled => return tell(Up::Closed { exchange }),
                    // Refused, or no answer: the end or break as it was.
                    _ => match ended {
                        Err(e) => {
                            return tell(Up::Failed {
                                exchange,
                                why: describe(&e),
                            });
                        }
                        _ => break,
                    },
                }
            }
        }
    }
    if !json.iter().all(u8::is_ascii_whitespace) {
        tell(Up::Message {
            exchange,
            raw: json,
            sse_id: None,
        });
    }
    tell(Up::End { exchange });
    drop(done);
}

/// A response's headers (names lower case).
fn head_of(response: &reqwest::Response) -> Vec<(String, String)> {
    let headers = response.headers().iter();
    headers
        .map(|(k, v)| (k.to_string(), String::from_utf8_lossy(v.as_bytes()).into()))
        .collect()
}

/// How long a `patient` POST is sent again while it gets no answer.
pub const RECONNECT: std::time::Duration = std::time::Duration::from_secs(60);

/// The POST; a `patient` one is sent again (every 100 ms, for up to `RECONNECT`) while it
/// gets no answer at all: the connection refused, or a kept-alive one to the server that went
/// away reset (an `initialize` the dead server never answered opens nothing).
async fn send(
    client: &reqwest::Client,
    url: &reqwest::Url,
    (body, headers): (Vec<u8>, &[(String, String)]),
    patient: bool,
) -> reqwest::Result<reqwest::Response> {
    let deadline = tokio::time::Instant::now() + RECONNECT;
    loop {
        let mut request = client.post(url.clone()).body(body.clone());
        for (name, value) in headers {
            request = request.header(name, value);
        }
        match request.send().await {
            Err(e) if patient && !e.is_timeout() && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            sent => return sent,
        }
    }
}

/// An error with every cause (the last says what failed: refused, reset, certificate).
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(&format!(": {inner}"));
        cause = inner.source();
    }
    text
}
