//! Where a workflow's tools run: the servers (a command spoken to on stdio, or a Streamable
//! HTTP URL) and, for each extern channel, the tool it calls, the JSON arguments of the call
//! and the resource it writes. Read from a TOML file (`--config`) and from the command line
//! (`--server NAME=CMD...`, `--bind CHAN=SERVER.TOOL [ARGS]`), which wins over the file.
//!
//! ```toml
//! [servers]
//! fs = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp/demo"]
//! web = "http://127.0.0.1:3000/mcp"
//!
//! [bind]
//! fetch_a = "fs.read_text_file"
//! publish_x = { tool = "fs.write_file", args = { path = "/tmp/demo/x.txt", content = "${fetch_a}" } }
//! ```

use agentpi_tester::Target;
use serde_json::Value;

/// A server a workflow calls tools of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    pub name: String,
    pub target: Target,
}

/// The tool behind one extern channel.
#[derive(Clone, Debug, PartialEq)]
pub struct Bind {
    pub chan: String,
    pub server: String,
    pub tool: String,
    /// The arguments of each call, with templates (see `args.rs`); `None`: the model's request
    /// values, in the order of the tool's input schema.
    pub args: Option<Value>,
    /// What the tool writes, when not the tool itself: writing calls to one resource must not
    /// overlap.
    pub resource: Option<String>,
}

/// Servers and bindings, in the order given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    pub servers: Vec<Server>,
    pub binds: Vec<Bind>,
}

impl Config {
    /// A configuration file's contents; errors name `file`.
    pub fn from_toml(text: &str, file: &str) -> Result<Config, String> {
        let table: toml::Table = toml::from_str(text).map_err(|e| format!("{file}: {e}"))?;
        let mut config = Config::default();
        for (key, value) in &table {
            match (key.as_str(), value) {
                ("servers", toml::Value::Table(servers)) => {
                    for (name, spec) in servers {
                        let target = server_spec(spec)
                            .map_err(|e| format!("{file}: [servers] {name}: {e}"))?;
                        config
                            .set_server(name, target)
                            .map_err(|e| format!("{file}: {e}"))?;
                    }
                }
                ("bind", toml::Value::Table(binds)) => {
                    for (chan, spec) in binds {
                        let bind = bind_spec(chan, spec)
                            .map_err(|e| format!("{file}: [bind] {chan}: {e}"))?;
                        config.set_bind(bind);
                    }
                }
                _ => {
                    return Err(format!(
                        "{file}: unknown entry `{key}` (a configuration has `[servers]` and `[bind]`)"
                    ));
                }
            }
        }
        Ok(config)
    }

    /// `--server NAME=CMD ARGS...` (split at spaces) or `--server NAME=URL`.
    pub fn server_flag(&mut self, flag: &str) -> Result<(), String> {
        let (name, spec) = flag
            .split_once('=')
            .ok_or_else(|| format!("--server {flag}: write NAME=COMMAND or NAME=URL"))?;
        let target = target_of(spec.trim()).map_err(|e| format!("--server {flag}: {e}"))?;
        self.set_server(name.trim(), target)
            .map_err(|e| format!("--server {flag}: {e}"))
    }

    /// `--bind CHAN=SERVER.TOOL`, optionally followed by a space and the arguments as JSON.
    pub fn bind_flag(&mut self, flag: &str) -> Result<(), String> {
        let wrong = || {
            format!(
                "--bind {flag}: write CHAN=SERVER.TOOL, optionally followed by a space and the arguments as JSON"
            )
        };
        let (chan, rest) = flag.split_once('=').ok_or_else(wrong)?;
        let rest = rest.trim();
        let (tool, args) = match rest.split_once(char::is_whitespace) {
            Some((tool, json)) => {
                let args: Value = serde_json::from_str(json)
                    .map_err(|e| format!("--bind {flag}: the arguments are not JSON: {e}"))?;
                (tool, Some(args))
            }
            None => (rest, None),
        };
        let (server, tool) = server_tool(tool).ok_or_else(wrong)?;
        self.set_bind(Bind {
            chan: chan.trim().to_string(),
            server,
            tool,
            args,
            resource: None,
        });
        Ok(())
    }

    fn set_server(&mut self, name: &str, target: Target) -> Result<(), String> {
        let plain = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if name.is_empty() || !plain {
            return Err(format!(
                "`{name}` is not a server name (letters, digits, `_` and `-`)"
            ));
        }
        self.servers.retain(|s| s.name != name);
        self.servers.push(Server {
            name: name.to_string(),
            target,
        });
        Ok(())
    }

    fn set_bind(&mut self, bind: Bind) {
        self.binds.retain(|b| b.chan != bind.chan);
        self.binds.push(bind);
    }

    pub fn bind(&self, chan: &str) -> Option<&Bind> {
        self.binds.iter().find(|b| b.chan == chan)
    }

    pub fn server(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// `SERVER.TOOL`, split at the first dot (tool names may hold dots, server names not).
fn server_tool(text: &str) -> Option<(String, String)> {
    let (server, tool) = text.split_once('.')?;
    (!server.is_empty() && !tool.is_empty()).then(|| (server.to_string(), tool.to_string()))
}

/// A URL, or a command split at spaces.
fn target_of(spec: &str) -> Result<Target, String> {
    if spec.starts_with("http://") || spec.starts_with("https://") {
        return Ok(Target::Url(spec.to_string()));
    }
    let argv: Vec<String> = spec.split_whitespace().map(str::to_string).collect();
    if argv.is_empty() {
        return Err("no command given".to_string());
    }
    Ok(Target::Command(argv))
}

/// A server in the file: a command or URL string, an array (the command's words), or a table
/// with `command` or `url`.
fn server_spec(spec: &toml::Value) -> Result<Target, String> {
    match spec {
        toml::Value::String(s) => target_of(s),
        toml::Value::Array(words) => {
            let argv: Option<Vec<String>> = words
                .iter()
                .map(|w| w.as_str().map(str::to_string))
                .collect();
            match argv {
                Some(argv) if !argv.is_empty() => Ok(Target::Command(argv)),
                _ => Err("a command is a non-empty array of strings".to_string()),
            }
        }
        toml::Value::Table(t) => match (t.get("command"), t.get("url")) {
            (Some(command), None) => server_spec(command),
            (None, Some(toml::Value::String(url))) => target_of(url),
            _ => Err("give `command` or `url`".to_string()),
        },
        _ => Err("a server is a command (a string or an array) or a URL".to_string()),
    }
}

/// A binding in the file: `"SERVER.TOOL"`, or a table with `tool`, `args` and `resource`.
fn bind_spec(chan: &str, spec: &toml::Value) -> Result<Bind, String> {
    let wrong = "`tool` must be \"SERVER.TOOL\"".to_string();
    let (tool, args, resource) = match spec {
        toml::Value::String(tool) => (tool.as_str(), None, None),
        toml::Value::Table(t) => {
            for key in t.keys() {
                if !["tool", "args", "resource"].contains(&key.as_str()) {
                    return Err(format!(
                        "unknown key `{key}` (a binding has `tool`, `args` and `resource`)"
                    ));
                }
            }
            let tool = t
                .get("tool")
                .and_then(toml::Value::as_str)
                .ok_or(wrong.clone())?;
            let resource = match t.get("resource") {
                None => None,
                Some(toml::Value::String(r)) => Some(r.clone()),
                Some(_) => return Err("`resource` must be a string".to_string()),
            };
            (tool, t.get("args").map(json_of), resource)
        }
        _ => return Err(wrong),
    };
    let (server, tool) = server_tool(tool).ok_or(wrong)?;
    Ok(Bind {
        chan: chan.to_string(),
        server,
        tool,
        args,
        resource,
    })
}

/// A TOML value as JSON (dates become strings).
fn json_of(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::from(s.as_str()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => {
            serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
        }
        toml::Value::Boolean(b) => Value::from(*b),
        toml::Value::Datetime(d) => Value::from(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.iter().map(json_of).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.clone(), json_of(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_and_flags_make_one_configuration_the_flags_winning() {
        let text = r#"
[servers]
fs = ["node", "fs.js", "/tmp/a dir"]
web = "http://127.0.0.1:9/mcp"
mem = { command = "env X=1 node mem.js" }
[bind]
fetch = "fs.read_text_file"
put = { tool = "fs.write_file", args = { path = "/tmp/x", n = 2 }, resource = "x" }
"#;
        let mut config = Config::from_toml(text, "c.toml").unwrap();
        assert_eq!(config.servers.len(), 3);
        assert_eq!(
            config.server("fs").unwrap().target,
            Target::Command(vec!["node".into(), "fs.js".into(), "/tmp/a dir".into()])
        );
        assert_eq!(
            config.server("web").unwrap().target,
            Target::Url("http://127.0.0.1:9/mcp".into())
        );
        let put = config.bind("put").unwrap();
        assert_eq!(
            (put.server.as_str(), put.tool.as_str()),
            ("fs", "write_file")
        );
        assert_eq!(
            put.args,
            Some(serde_json::json!({"path": "/tmp/x", "n": 2}))
        );
        assert_eq!(put.resource.as_deref(), Some("x"));
        config.bind_flag(r#"put=web.a.b {"k": [1]}"#).unwrap();
        let put = config.bind("put").unwrap();
        assert_eq!((put.server.as_str(), put.tool.as_str()), ("web", "a.b"));
        assert_eq!(put.args, Some(serde_json::json!({"k": [1]})));
        config.server_flag("fs=python3 s.py").unwrap();
        assert_eq!(
            config.server("fs").unwrap().target,
            Target::Command(vec!["python3".into(), "s.py".into()])
        );
    }

    #[test]
    fn mistakes_are_explained() {
        let bad = |text: &str| Config::from_toml(text, "c.toml").unwrap_err();
        assert!(
            bad("[bind]\nx = \"nodot\"").contains("SERVER.TOOL"),
            "{}",
            bad("[bind]\nx = \"nodot\"")
        );
        assert!(bad("[servers]\nx = 3").contains("[servers] x"));
        assert!(bad("[other]\n").contains("unknown entry `other`"));
        assert!(bad("[bind]\nx = { tool = \"a.b\", argz = 1 }").contains("unknown key `argz`"));
        assert!(bad("not toml =").starts_with("c.toml:"));
        let mut config = Config::default();
        assert!(
            config
                .server_flag("nameless")
                .unwrap_err()
                .contains("NAME=COMMAND")
        );
        assert!(
            config
                .server_flag("a b=cmd")
                .unwrap_err()
                .contains("not a server name")
        );
        assert!(
            config
                .bind_flag("x=s.t {oops")
                .unwrap_err()
                .contains("not JSON")
        );
    }
}
