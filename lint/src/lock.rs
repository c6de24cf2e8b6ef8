//! `toolgate.lock`: the third-party servers' surfaces as `toolgate lock` captured them, which
//! the lint reads instead of starting anything.
//!
//! ```json
//! {
//!   "format_version": 1,
//!   "servers": {
//!     "time": {
//!       "declared": [{ "file": ".mcp.json", "key": "mcpServers.time" }],
//!       "reached": { "transport": "stdio", "command": "uvx", "args": ["mcp-server-time==2026.10.19"], "env": ["TZ"] },
//!       "server": { "name": "mcp-time", "version": "1.9.4" },
//!       "protocol_version": "2025-06-18",
//!       "tools_sha256": "…",
//!       "tools": [ … ]
//!     }
//!   }
//! }
//! ```
//!
//! `reached` holds the command and arguments or the URL *as the configuration writes them*
//! (variables not expanded) and the names of environment variables and headers, never their
//! values. `tools` are the tools as the server sent them (key order kept); `tools_sha256` is
//! the SHA-256 of their RFC 8785 canonical form ([`canonical`]), checked on every read so a
//! lock edited by hand is refused. The file is written in one fixed order: servers by name.

use std::path::Path;

use sha2::{Digest, Sha256};
use toolgate_schema::json::{Map, Number, Value, to_pretty};

/// The file name.
pub const FILE_NAME: &str = "toolgate.lock";
/// The format this build writes and the newest it reads.
pub const FORMAT_VERSION: u64 = 1;

/// Where a server is declared.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Declared {
    /// The file, relative to the project root, with `/` separators.
    pub file: String,
    /// The key of its definition (`mcpServers.github`, `servers.github`).
    pub key: String,
}

impl std::fmt::Display for Declared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.key)
    }
}

/// How a locked server was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reached {
    /// A command over stdio, as written: program, arguments, names of the variables set.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// The names of the variables its configuration sets.
        env: Vec<String>,
    },
    /// A URL, as written, and the names of the headers sent.
    Http {
        /// `http` or `sse`.
        transport: String,
        /// The URL.
        url: String,
        /// Header names.
        headers: Vec<String>,
    },
    /// A `tools/list` captured by hand and named by `toolgate.toml` (`tools_list`).
    Captured {
        /// The file, relative to the project root.
        tools_list: String,
    },
}

/// One locked server.
#[derive(Clone, Debug, PartialEq)]
pub struct LockedServer {
    /// Where it is declared.
    pub declared: Vec<Declared>,
    /// How it was reached.
    pub reached: Reached,
    /// The server's `serverInfo` name and version, when it sent them.
    pub server_name: Option<String>,
    /// Its version.
    pub server_version: Option<String>,
    /// The protocol version it answered `initialize` with.
    pub protocol_version: Option<String>,
    /// The tools as sent.
    pub tools: Vec<Value>,
}

impl LockedServer {
    /// The tools as a `tools/list` result, for [`crate::servers::tools_list_surface`].
    pub fn tools_list_bytes(&self) -> Vec<u8> {
        let mut m = Map::new();
        m.insert("tools", Value::Array(self.tools.clone()));
        to_pretty(&Value::Object(m)).into_bytes()
    }

    /// The names of its tools, in the order sent.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools
            .iter()
            .filter_map(|t| t.as_object()?.get("name")?.as_str())
            .collect()
    }
}

/// A lock: servers by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lock {
    /// The servers, sorted by name.
    pub servers: std::collections::BTreeMap<String, LockedServer>,
}

/// The SHA-256 of `tools` in RFC 8785 canonical form, as 64 hex digits.
pub fn tools_hash(tools: &[Value]) -> String {
    let mut text = String::new();
    canonical(&Value::Array(tools.to_vec()), &mut text);
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes `value` in the JSON Canonicalization Scheme (RFC 8785): no whitespace, object
/// members sorted by the UTF-16 code units of their names, strings with only the escapes
/// the scheme requires, numbers as ECMAScript prints them. Written by hand: a few lines over
/// toolgate's order-keeping [`Value`], where a crate would want `serde_json::Value`.
pub fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&es_number(*n)),
        Value::String(s) => canonical_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut entries: Vec<(&str, &Value)> = m.iter().collect();
            entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_string(k, out);
                out.push(':');
                canonical(v, out);
            }
            out.push('}');
        }
    }
}

fn canonical_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as ECMAScript's `Number.prototype.toString` writes it (RFC 8785, 3.2.2.3).
fn es_number(n: Number) -> String {
    let f = match n {
        Number::UInt(u) if u < (1 << 53) => return u.to_string(),
        Number::Int(i) if i.unsigned_abs() < (1 << 53) => return i.to_string(),
        other => other.as_f64(),
    };
    if f == 0.0 {
        return "0".into();
    }
    // The shortest digits that round-trip, and the decimal exponent.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let e: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let n = e + 1;
    let sign = if f < 0.0 { "-" } else { "" };
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let exp = n - 1;
        let exp = if exp >= 0 {
            format!("+{exp}")
        } else {
            exp.to_string()
        };
        if k == 1 {
            format!("{digits}e{exp}")
        } else {
            format!("{}.{}e{exp}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
}

/// Reads and checks the lock at `path`: its format version, every server's shape and hash.
pub fn read(path: &Path) -> Result<Lock, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    parse(&shown.to_string(), &text)
}

/// Parses lock text; errors name `shown` and the key.
pub fn parse(shown: &str, text: &str) -> Result<Lock, String> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| format!("{shown}:{}:{}: invalid JSON: {e}", e.line(), e.column()))?;
    let root = value
        .as_object()
        .ok_or_else(|| format!("{shown}: is not a JSON object"))?;
    match root.get("format_version") {
        Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v <= FORMAT_VERSION) => {}
        Some(Value::Number(n)) => {
            return Err(format!(
                "{shown}: format_version: {n} is newer than this toolgate reads ({FORMAT_VERSION}); update toolgate"
            ));
        }
        _ => return Err(format!("{shown}: format_version: missing or not a number")),
    }
    let servers = root
        .get("servers")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{shown}: servers: missing or not an object"))?;
    let mut lock = Lock::default();
    for (name, v) in servers.iter() {
        let s = parse_server(v).map_err(|e| format!("{shown}: servers.{name}: {e}"))?;
        lock.servers.insert(name.to_string(), s);
    }
    Ok(lock)
}

fn get_str<'v>(m: &'v Map, key: &str) -> Result<Option<&'v str>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("{key}: is not a string")),
    }
}

fn get_strings(m: &Map, key: &str) -> Result<Vec<String>, String> {
    match m.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{key}: holds a non-string"))
            })
            .collect(),
        Some(_) => Err(format!("{key}: is not an array")),
    }
}

fn parse_server(v: &Value) -> Result<LockedServer, String> {
    let m = v.as_object().ok_or("is not an object")?;
    let mut declared = Vec::new();
    for (i, d) in m
        .get("declared")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let d = d
            .as_object()
            .ok_or_else(|| format!("declared[{i}]: is not an object"))?;
        declared.push(Declared {
            file: get_str(d, "file")?.unwrap_or_default().to_string(),
            key: get_str(d, "key")?.unwrap_or_default().to_string(),
        });
    }
    let r = m
        .get("reached")
        .and_then(Value::as_object)
        .ok_or("reached: missing or not an object")?;
    let reached = match get_str(r, "transport")? {
        Some("stdio") => Reached::Stdio {
            command: get_str(r, "command")?
                .ok_or("reached.command: missing")?
                .to_string(),
            args: get_strings(r, "args").map_err(|e| format!("reached.{e}"))?,
            env: get_strings(r, "env").map_err(|e| format!("reached.{e}"))?,
        },
        Some(t @ ("http" | "sse")) => Reached::Http {
            transport: t.to_string(),
            url: get_str(r, "url")?
                .ok_or("reached.url: missing")?
                .to_string(),
            headers: get_strings(r, "headers").map_err(|e| format!("reached.{e}"))?,
        },
        Some("captured") => Reached::Captured {
            tools_list: get_str(r, "tools_list")?.unwrap_or_default().to_string(),
        },
        other => {
            return Err(format!(
                "reached.transport: unknown `{}`",
                other.unwrap_or("(none)")
            ));
        }
    };
    let tools = m
        .get("tools")
        .and_then(Value::as_array)
        .ok_or("tools: missing or not an array")?
        .to_vec();
    let stored = get_str(m, "tools_sha256")?.ok_or("tools_sha256: missing")?;
    if stored != tools_hash(&tools) {
        return Err(
            "tools_sha256: does not match the tools (was the lock edited by hand?); run `toolgate lock --update` for this server"
                .into(),
        );
    }
    let info = m.get("server").and_then(Value::as_object);
    let info_str = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Ok(LockedServer {
        declared,
        reached,
        server_name: info_str("name"),
        server_version: info_str("version"),
        protocol_version: get_str(m, "protocol_version")?.map(str::to_string),
        tools,
    })
}

/// `[{"file": ..., "key": ...}, ...]`: where a server is declared, as the lock and
/// `toolgate servers --format json` write it.
pub fn declared_json(declared: &[Declared]) -> Value {
    Value::Array(
        declared
            .iter()
            .map(|d| {
                let mut o = Map::new();
                o.insert("file", Value::str(d.file.as_str()));
                o.insert("key", Value::str(d.key.as_str()));
                Value::Object(o)
            })
            .collect(),
    )
}

/// The lock as text: deterministic (servers by name, keys in one order), two-space indents,
/// one trailing newline.
pub fn write(lock: &Lock) -> String {
    let strs = |v: &[String]| Value::Array(v.iter().map(|s| Value::str(s.as_str())).collect());
    let mut servers = Map::new();
    for (name, s) in &lock.servers {
        let mut m = Map::new();
        m.insert("declared", declared_json(&s.declared));
        let mut r = Map::new();
        match &s.reached {
            Reached::Stdio { command, args, env } => {
                r.insert("transport", Value::str("stdio"));
                r.insert("command", Value::str(command.as_str()));
                r.insert("args", strs(args));
                r.insert("env", strs(env));
            }
            Reached::Http {
                transport,
                url,
                headers,
            } => {
                r.insert("transport", Value::str(transport.as_str()));
                r.insert("url", Value::str(url.as_str()));
                r.insert("headers", strs(headers));
            }
            Reached::Captured { tools_list } => {
                r.insert("transport", Value::str("captured"));
                r.insert("tools_list", Value::str(tools_list.as_str()));
            }
        }
        m.insert("reached", Value::Object(r));
        let mut info = Map::new();
        let opt = |v: &Option<String>| v.as_deref().map_or(Value::Null, Value::str);
        info.insert("name", opt(&s.server_name));
        info.insert("version", opt(&s.server_version));
        m.insert("server", Value::Object(info));
        m.insert("protocol_version", opt(&s.protocol_version));
        m.insert("tools_sha256", Value::str(tools_hash(&s.tools)));
        m.insert("tools", Value::Array(s.tools.clone()));
        servers.insert(name.as_str(), Value::Object(m));
    }
    let mut root = Map::new();
    root.insert("format_version", Value::from(FORMAT_VERSION));
    root.insert("servers", Value::Object(servers));
    to_pretty(&Value::Object(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        let mut out = String::new();
        canonical(&v, &mut out);
        out
    }

    #[test]
    fn numbers_as_ecmascript_writes_them() {
        // RFC 8785's examples (Appendix B).
        assert_eq!(num("1e21"), "1e+21");
        assert_eq!(num("1e20"), "100000000000000000000");
        assert_eq!(num("0.000001"), "0.000001");
        assert_eq!(num("1e-7"), "1e-7");
        assert_eq!(num("-1.5"), "-1.5");
        assert_eq!(num("333333333.33333329"), "333333333.3333333");
        assert_eq!(num("4.50"), "4.5");
        assert_eq!(num("2e-3"), "0.002");
        assert_eq!(num("-0.0"), "0");
    }

    #[test]
    fn keys_sort_by_utf16_and_strings_escape_minimally() {
        let v: Value =
            serde_json::from_str(r#"{"b":1,"a":"\u000f\n\"é","\ud83d\ude00":0,"\ufb01":0}"#)
                .unwrap();
        let mut out = String::new();
        canonical(&v, &mut out);
        assert_eq!(out, "{\"a\":\"\\u000f\\n\\\"é\",\"b\":1,\"😀\":0,\"ﬁ\":0}");
    }

    #[test]
    fn a_written_lock_reads_back_and_a_hand_edit_is_refused() {
        let tools: Vec<Value> =
            serde_json::from_str(r#"[{"name":"t","inputSchema":{"type":"object"}}]"#).unwrap();
        let mut lock = Lock::default();
        lock.servers.insert(
            "s".into(),
            LockedServer {
                declared: vec![Declared {
                    file: ".mcp.json".into(),
                    key: "mcpServers.s".into(),
                }],
                reached: Reached::Stdio {
                    command: "x".into(),
                    args: vec!["${A}".into()],
                    env: vec!["K".into()],
                },
                server_name: Some("srv".into()),
                server_version: None,
                protocol_version: Some("2025-06-18".into()),
                tools,
            },
        );
        let text = write(&lock);
        assert_eq!(parse("l", &text).unwrap(), lock);
        let edited = text.replace("\"t\"", "\"u\"");
        assert!(parse("l", &edited).unwrap_err().contains("tools_sha256"));
        let newer = text.replace("\"format_version\": 1", "\"format_version\": 9");
        assert!(parse("l", &newer).unwrap_err().contains("newer"));
    }
}
