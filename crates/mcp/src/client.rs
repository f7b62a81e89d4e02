//! The era-aware MCP client the linter needs: probe `server/discover` (modern era) for a short
//! while; on an error or silence fall back to the legacy `initialize` handshake; then list every
//! tool, following `nextCursor` and stopping if a cursor repeats. One deadline bounds the whole
//! connection, so a server that never answers costs the timeout once, not once per request.
//! [`list_server`] lists the rest of what a server offers too (resources, resource templates,
//! prompts), for whoever maps a whole server (Φ⁻¹ in `agentpi sgd inverse`).

use crate::jsonrpc::{self, LEGACY_VERSION, MODERN_VERSION};
use crate::lint::Era;
use crate::transport::{ClientError, Transport};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// Pages beyond this are not fetched (a server that never ends its listing).
const MAX_PAGES: usize = 1000;
/// How long the era probe waits at most (and never more than half the budget, so that the
/// legacy handshake keeps time). Legacy servers that ignore `server/discover` would otherwise
/// cost the whole timeout on every run; a modern server slower than this is caught because it
/// then refuses `initialize` (see [`Session::connect`]).
const PROBE: Duration = Duration::from_secs(2);

/// A server's complete tool listing.
#[derive(Clone, Debug)]
pub struct Listing {
    pub era: Era,
    pub protocol_version: String,
    /// `serverInfo.name`, if the server gave one.
    pub server: Option<String>,
    /// The capabilities the server declared (`initialize` or `server/discover`), or null.
    pub capabilities: Value,
    pub tools: Vec<Value>,
    pub pages: usize,
    /// A cursor the server returned twice; listing stopped there.
    pub repeated_cursor: Option<String>,
}

/// What a handshake gave: the era, the protocol version, the server's name and capabilities.
type Connected = (Era, String, Option<String>, Value);

struct Session<'t> {
    transport: &'t mut dyn Transport,
    /// The whole connection's budget, for messages.
    timeout: Duration,
    /// How long the era probe waits at most (see [`PROBE`]).
    probe: Duration,
    deadline: Instant,
    next_id: u64,
}

/// Connects in whichever era the server speaks and lists all its tools.
pub fn list_tools(
    transport: &mut dyn Transport,
    timeout: Duration,
) -> Result<Listing, ClientError> {
    let mut session = Session::new(transport, timeout);
    session.listing()
}

/// [`list_tools`], with the era probe waiting up to `probe` (within half the budget): for a
/// client that would rather wait for a slow modern server than take it for a legacy one
/// (`agentpi run` waits for the servers it just started).
pub fn list_tools_probing(
    transport: &mut dyn Transport,
    timeout: Duration,
    probe: Duration,
) -> Result<Listing, ClientError> {
    let mut session = Session::new(transport, timeout);
    session.probe = probe;
    session.listing()
}

/// Everything a server lists: its tools, and the resources, resource templates and prompts
/// of the capabilities it declared (each list followed through its cursors).
#[derive(Clone, Debug)]
pub struct ServerListing {
    pub listing: Listing,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub prompts: Vec<Value>,
}

/// Connects as [`list_tools`] does and lists tools, resources, resource templates and prompts.
pub fn list_server(
    transport: &mut dyn Transport,
    timeout: Duration,
) -> Result<ServerListing, ClientError> {
    let mut session = Session::new(transport, timeout);
    let listing = session.listing()?;
    let mut out = ServerListing {
        resources: Vec::new(),
        resource_templates: Vec::new(),
        prompts: Vec::new(),
        listing,
    };
    let (era, caps) = (out.listing.era, &out.listing.capabilities);
    let (resources, prompts) = (
        caps.get("resources").is_some(),
        caps.get("prompts").is_some(),
    );
    if resources {
        out.resources = session.all(era, "resources/list", "resources")?.items;
        let templates = session.all(era, "resources/templates/list", "resourceTemplates")?;
        out.resource_templates = templates.items;
    }
    if prompts {
        out.prompts = session.all(era, "prompts/list", "prompts")?.items;
    }
    Ok(out)
}

/// The items of every page of one list method.
struct Pages {
    items: Vec<Value>,
    pages: usize,
    repeated_cursor: Option<String>,
}

impl<'t> Session<'t> {
    /// A session whose whole connection must fit in `timeout`.
    fn new(transport: &'t mut dyn Transport, timeout: Duration) -> Session<'t> {
        Session {
            transport,
            timeout,
            probe: PROBE,
            deadline: Instant::now() + timeout,
            next_id: 1,
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        self.call_within(method, params, left)
            .map_err(|error| match error {
                ClientError::Timeout {
                    method,
                    id,
                    stderr,
                    unanswered,
                    ..
                } => ClientError::Timeout {
                    method,
                    id,
                    timeout: self.timeout,
                    stderr,
                    unanswered,
                },
                other => other,
            })
    }

    fn call_within(
        &mut self,
        method: &str,
        params: Value,
        wait: Duration,
    ) -> Result<Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        if wait.is_zero() {
            // The budget is spent: do not send what cannot be waited for.
            return Err(ClientError::Timeout {
                method: method.into(),
                id,
                timeout: wait,
                stderr: Vec::new(),
                unanswered: Vec::new(),
            });
        }
        self.transport.request(id, method, params, wait)
    }

    /// A successful result, or the JSON-RPC error as [`ClientError::Rejected`].
    fn result(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let response = self.call(method, params)?;
        if let Some(error) = response.get("error") {
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            return Err(ClientError::Rejected {
                method: method.into(),
                code,
                message,
            });
        }
        Ok(response.get("result").cloned().unwrap_or(Value::Null))
    }

    fn connect(&mut self) -> Result<Connected, ClientError> {
        let probe_wait = self.probe.min(self.timeout / 2);
        let probe = self.call_within("server/discover", discover_params(), probe_wait);
        let silent = matches!(probe, Err(ClientError::Timeout { .. }));
        match probe {
            Ok(response) => {
                if let Some(found) = self.modern(&response) {
                    return Ok(found);
                }
            }
            // Silence or an HTTP-level refusal means a legacy server; a dead one is final.
            Err(
                ClientError::Timeout { .. }
                | ClientError::Rejected { .. }
                | ClientError::BadReply { .. },
            ) => {}
            Err(error) => return Err(error),
        }
        match self.initialize() {
            // A modern server that was slow to start answered the probe late, and a stdio
            // server keeps the era of the first message it read: ask again, with time.
            Err(rejected @ ClientError::Rejected { .. }) if silent => {
                self.rediscover().ok_or(rejected)
            }
            Err(ClientError::Timeout {
                method,
                id,
                timeout,
                stderr,
                mut unanswered,
            }) if silent => {
                unanswered.push("server/discover".into());
                Err(ClientError::Timeout {
                    method,
                    id,
                    timeout,
                    stderr,
                    unanswered,
                })
            }
            other => other,
        }
    }

    /// The modern era, version and server name a `server/discover` response offers, if any.
    fn modern(&mut self, response: &Value) -> Option<Connected> {
        let version = modern_version(response)?;
        self.transport.negotiated(&version);
        let server = response
            .pointer("/result/_meta/io.modelcontextprotocol~1serverInfo/name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let capabilities = response.pointer("/result/capabilities").cloned();
        Some((
            Era::Modern,
            version,
            server,
            capabilities.unwrap_or(Value::Null),
        ))
    }

    fn rediscover(&mut self) -> Option<Connected> {
        let response = self.call("server/discover", discover_params()).ok()?;
        self.modern(&response)
    }

    fn initialize(&mut self) -> Result<Connected, ClientError> {
        let params = json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": { "name": jsonrpc::CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") },
        });
        let result = self.result("initialize", params)?;
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| ClientError::BadReply {
                method: "initialize".into(),
                reason: "the result has no protocolVersion".into(),
            })?;
        let version = version.to_string();
        self.transport.negotiated(&version);
        self.transport
            .notify("notifications/initialized", json!({}))?;
        let server = result
            .pointer("/serverInfo/name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        Ok((Era::Legacy, version, server, capabilities))
    }

    fn listing(&mut self) -> Result<Listing, ClientError> {
        let (era, protocol_version, server, capabilities) = self.connect()?;
        let tools = self.all(era, "tools/list", "tools")?;
        Ok(Listing {
            era,
            protocol_version,
            server,
            capabilities,
            tools: tools.items,
            pages: tools.pages,
            repeated_cursor: tools.repeated_cursor,
        })
    }

    /// Every page of `method`, whose results carry their items under `key`, following
    /// `nextCursor` and stopping where a cursor repeats.
    fn all(&mut self, era: Era, method: &str, key: &str) -> Result<Pages, ClientError> {
        let mut cursor: Option<String> = None;
        let mut seen = BTreeSet::new();
        let mut out = Pages {
            items: Vec::new(),
            pages: 0,
            repeated_cursor: None,
        };
        while out.pages < MAX_PAGES {
            let result = self.result(method, self.list_params(era, cursor.as_deref()))?;
            let items = result.get(key).and_then(Value::as_array);
            let items = items.ok_or_else(|| ClientError::BadReply {
                method: method.into(),
                reason: format!("the result has no `{key}` array"),
            })?;
            out.items.extend(items.iter().cloned());
            out.pages += 1;
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(str::to_owned);
            match &cursor {
                None => break,
                Some(next) if !seen.insert(next.clone()) => {
                    out.repeated_cursor = Some(next.clone());
                    break;
                }
                Some(_) => {}
            }
        }
        Ok(out)
    }

    fn list_params(&self, era: Era, cursor: Option<&str>) -> Value {
        let mut params = json!({});
        if let Some(cursor) = cursor {
            params["cursor"] = json!(cursor);
        }
        if era == Era::Modern {
            params["_meta"] = jsonrpc::modern_meta(MODERN_VERSION);
        }
        params
    }
}

fn discover_params() -> Value {
    json!({ "_meta": jsonrpc::modern_meta(MODERN_VERSION) })
}

/// The modern version a `server/discover` response offers, if it is a successful modern one.
fn modern_version(response: &Value) -> Option<String> {
    let supported = response.pointer("/result/supportedVersions")?.as_array()?;
    let versions: Vec<&str> = supported.iter().filter_map(Value::as_str).collect();
    if versions.contains(&MODERN_VERSION) {
        return Some(MODERN_VERSION.to_string());
    }
    None
}
