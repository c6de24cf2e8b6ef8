//! `toolgate servers`: what the repository's host configurations name, as `toolgate lock`
//! and `toolgate lint` see it. Reads files only; nothing is started.

use clap::{Args, ValueEnum};
use toolgate_lint::hosts::{self, HostServer, Transport};
use toolgate_schema::json::{Map, Value, to_pretty};

use super::{EXIT_ERROR, print_stdout};

/// `--format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ServersFormat {
    /// One block per server.
    Human,
    /// A JSON array.
    Json,
}

/// Arguments of `toolgate servers`.
#[derive(Args, Debug)]
#[command(
    after_help = "The project root is the git work tree's (or the current folder outside one). Files read: .mcp.json (Claude Code, VS Code), .vscode/mcp.json, .cursor/mcp.json, .gemini/settings.json, opencode.json(c), .opencode/opencode.json(c), .codex/config.toml, and every Claude Code plugin's .claude-plugin/plugin.json (or its .mcp.json).\n\nValues are printed as written: variables are not expanded.\nExit codes: 0 done, 2 a configuration could not be read."
)]
pub struct ServersArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: ServersFormat,
}

/// `toolgate servers`
pub fn run(args: &ServersArgs) -> u8 {
    let root = hosts::project_root(std::path::Path::new("."));
    let discovery = match hosts::discover(&root) {
        Ok(d) => d,
        Err(errors) => {
            for e in errors {
                eprintln!("error: {e}");
            }
            return EXIT_ERROR;
        }
    };
    let text = match args.format {
        ServersFormat::Human => {
            if discovery.servers.is_empty() {
                eprintln!(
                    "no server: the host configurations of {} name none",
                    root.display()
                );
            }
            discovery.servers.iter().map(human).collect::<String>()
        }
        ServersFormat::Json => {
            to_pretty(&Value::Array(discovery.servers.iter().map(json).collect()))
        }
    };
    print_stdout(&text)
}

/// How a server is reached, as written.
pub fn reached(s: &HostServer) -> String {
    match s.launch.transport {
        Transport::Stdio => {
            let mut words = vec![s.launch.command.clone().unwrap_or_default()];
            words.extend(s.launch.args.iter().cloned());
            format!(
                "stdio: {}",
                shlex::try_join(words.iter().map(String::as_str))
                    .unwrap_or_else(|_| words.join(" "))
            )
        }
        t => format!(
            "{}: {}",
            t.as_str(),
            s.launch.url.clone().unwrap_or_default()
        ),
    }
}

fn human(s: &HostServer) -> String {
    let declared: Vec<String> = s
        .declared
        .iter()
        .map(|d| format!("{} ({})", d.file, d.key))
        .collect();
    let hosts: Vec<String> = s.hosts.iter().map(hosts::Host::name).collect();
    format!(
        "{}\n  declared:  {}\n  transport: {}\n  hosts:     {}\n  prefixes:  {}\n",
        s.id,
        declared.join(", "),
        reached(s),
        hosts.join(", "),
        s.prefixes().join(" ")
    )
}

fn json(s: &HostServer) -> Value {
    let strs = |v: Vec<String>| Value::Array(v.into_iter().map(Value::from).collect());
    let mut m = Map::new();
    m.insert("name", Value::str(s.id.as_str()));
    m.insert("declared", toolgate_lint::lock::declared_json(&s.declared));
    m.insert("transport", Value::str(s.launch.transport.as_str()));
    if let Some(c) = &s.launch.command {
        m.insert("command", Value::str(c.as_str()));
        m.insert("args", strs(s.launch.args.clone()));
    }
    if let Some(u) = &s.launch.url {
        m.insert("url", Value::str(u.as_str()));
    }
    m.insert(
        "env",
        strs(s.launch.env.iter().map(|(k, _)| k.clone()).collect()),
    );
    m.insert(
        "headers",
        strs(s.launch.headers.iter().map(|(k, _)| k.clone()).collect()),
    );
    m.insert(
        "hosts",
        strs(s.hosts.iter().map(hosts::Host::name).collect()),
    );
    m.insert("prefixes", strs(s.prefixes()));
    Value::Object(m)
}
