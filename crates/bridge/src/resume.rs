//! Resuming a request's SSE stream (2025-11-25 resumability): when the server gave its
//! events ids and the stream ends or breaks before the request's answer, a GET to the same
//! URL with `Last-Event-ID` (and the session's `Mcp-Session-Id` and version) asks the server
//! to send again what came after that event and to go on; its stream is read as the rest of
//! the same exchange. Transport only: the messages are those of the request's stream, as if
//! it had not broken (the model sees the same messages). At most `ATTEMPTS` GETs in a row
//! that get no answer, each after a doubling wait; a server that answers the GET with
//! anything but an event stream (404: the session is gone; 400; 405: no resuming) is not
//! asked again. Every GET the server answered is told with its head (`Again::Answered`), so
//! that the side's record says the stream was resumed, or that its resumption was refused.

use agentpi_http_proxy::SseEvent;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::oneshot;

/// GETs in a row without a stream before the end or break is told as it was.
const ATTEMPTS: u32 = 3;
/// Resumes of one exchange in all (a server that keeps ending its stream early).
const RESUMES: u32 = 16;
/// The wait before the first GET; each one more in a row waits twice as long.
const WAIT: Duration = Duration::from_millis(100);

/// One request's stream: its id, the last event id the server gave, whether its answer came.
pub struct Resume {
    id: Option<Value>,
    headers: Vec<(String, String)>,
    last: Option<String>,
    answered: bool,
    resumes: u32,
}

/// What a resume came to.
pub enum Again {
    /// The server answered a GET, with the headers it was sent: the stream resumed when
    /// `resumed` says so, else refused (the end or break is then told as it was).
    Answered(reqwest::Response, Vec<(String, String)>),
    /// The bridge closed the stream meanwhile.
    Cancelled,
    /// No GET got an answer: the end or break is told as it was.
    No,
}

impl Resume {
    /// For the POST of `body` with `headers`: resumable only when it is a request.
    pub fn new(body: &[u8], headers: &[(String, String)]) -> Resume {
        let message: Value = serde_json::from_slice(body).unwrap_or_default();
        let request = message.get("method").is_some();
        let id = message.get("id").filter(|id| request && !id.is_null());
        let keep = ["mcp-session-id", "mcp-protocol-version"];
        Resume {
            id: id.cloned(),
            headers: (headers.iter())
                .filter(|(k, _)| keep.contains(&k.to_ascii_lowercase().as_str()))
                .cloned()
                .collect(),
            last: None,
            answered: false,
            resumes: 0,
        }
    }

    /// An event of the stream: its id kept, and whether it is the request's answer.
    pub fn saw(&mut self, event: &SseEvent) {
        if let Some(id) = &event.id {
            self.last = Some(id.clone());
        }
        let message: Value = serde_json::from_slice(&event.data).unwrap_or_default();
        let answer = message.get("result").is_some() || message.get("error").is_some();
        if answer && message.get("method").is_none() && message.get("id") == self.id.as_ref() {
            self.answered = true;
        }
    }

    /// Whether an end or break now is resumed: a request not yet answered, whose server gave
    /// its events ids.
    pub fn wanted(&self) -> bool {
        self.id.is_some() && self.last.is_some() && !self.answered && self.resumes < RESUMES
    }

    /// The GETs with `Last-Event-ID`, until the server answers one (with an event stream or
    /// a refusal), or `ATTEMPTS` get nothing.
    pub async fn again(
        &mut self,
        client: &reqwest::Client,
        url: &reqwest::Url,
        cancel: &mut oneshot::Receiver<()>,
    ) -> Again {
        self.resumes += 1;
        let Some(last) = self.last.clone() else {
            return Again::No;
        };
        let mut asked = vec![
            ("accept".to_string(), "text/event-stream".to_string()),
            ("last-event-id".to_string(), last),
        ];
        asked.extend(self.headers.iter().cloned());
        for attempt in 0..ATTEMPTS {
            let mut get = client.get(url.clone());
            for (name, value) in &asked {
                get = get.header(name, value);
            }
            let wait = WAIT * 2u32.pow(attempt);
            let got = tokio::select! {
                got = async { tokio::time::sleep(wait).await; get.send().await } => got,
                () = fired(cancel) => return Again::Cancelled,
            };
            if let Ok(response) = got {
                return Again::Answered(response, asked);
            }
        }
        Again::No
    }
}

/// Whether a GET's answer is the stream resumed: 200 with an event stream.
pub fn resumed(response: &reqwest::Response) -> bool {
    let sse = (response.headers().get("content-type"))
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
    response.status().as_u16() == 200 && sse
}

/// Resolves when `cancel` is fired; never when its sender is only dropped.
pub async fn fired(cancel: &mut oneshot::Receiver<()>) {
    if cancel.await.is_err() {
        std::future::pending::<()>().await;
    }
}
