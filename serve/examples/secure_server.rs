//! A Maetra `secure` MCP server with a real handler, as a team adopting toolgate writes it in
//! its own crate: `catalog!` types the tools, `toolgate-serve` puts them on MCP over stdio.
//! The README shows this file, and a test keeps the two equal.

// The crate depends on toolgate-macros, toolgate-runtime, toolgate-serve, serde and
// serde_json; the path is relative to its Cargo.toml.
mod maetra {
    toolgate_macros::catalog!("../schema/maetra");
}

use maetra::{check_action, create_rule, get_mcp_access, list_active_rules, update_rule};
use serde_json::{Value, json};
use toolgate_serve::{JsonObject, ToolServer, run_stdio};

/// The rules engine behind the tools (a stand-in here).
struct Secure {
    token: String,
    blocked: Vec<String>,
}

impl Secure {
    fn authorize(&self, token: &str) -> Result<(), String> {
        if token == self.token {
            Ok(())
        } else {
            Err("the access token is not valid: call get_mcp_access".to_string())
        }
    }
}

impl maetra::AlwaysOnHandler for Secure {
    // An `Err` reaches the client as a tool result with `isError: true`.
    type Output = Result<Value, String>;

    fn get_mcp_access(&self, _: get_mcp_access::Args) -> Self::Output {
        Ok(json!({ "mcp_access_token": self.token }))
    }
}

// Implementing `SecureHandler` means implementing every tool the profile is granted: a
// schema file added to the `secure` group is a compile error here until it is handled.
impl maetra::SecureHandler for Secure {
    fn check_action(&self, arguments: check_action::Args) -> Self::Output {
        // Typed and checked before this is called: the token is a non-empty string, and
        // `tool_name` is present whenever `scan_type` is `tool_call`.
        self.authorize(&arguments.mcp_access_token)?;
        let blocked = self
            .blocked
            .iter()
            .any(|b| arguments.content.contains(b.as_str()));
        let verdict = if blocked { "block" } else { "allow" };
        Ok(
            json!({ "verdict": verdict, "scan_type": arguments.scan_type, "tool": arguments.tool_name }),
        )
    }

    fn create_rule(&self, arguments: create_rule::Args) -> Self::Output {
        self.authorize(&arguments.mcp_access_token)?;
        Err(format!(
            "rule `{}` not created: this server's rules are read-only",
            arguments.name
        ))
    }

    fn list_active_rules(&self, arguments: list_active_rules::Args) -> Self::Output {
        self.authorize(&arguments.mcp_access_token)?;
        Ok(json!({ "blocked": self.blocked }))
    }

    fn update_rule(&self, arguments: update_rule::Args) -> Self::Output {
        self.authorize(&arguments.mcp_access_token)?;
        Err(format!(
            "rule `{}` not updated: this server's rules are read-only",
            arguments.id
        ))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let handler = Secure {
        token: "t0k3n".to_string(),
        blocked: vec!["rm -rf".to_string()],
    };
    // The profile's compiled-in tools/list and its typed dispatch: a tool `secure` is not
    // granted is answered as an unknown one, and arguments that fail the schema never reach
    // the handler (the client gets a tool error naming the field).
    let server = ToolServer::new(
        maetra::Profile::Secure.tools_list_json(),
        move |tool: &str, arguments: &JsonObject| {
            maetra::dispatch_secure(&handler, tool, arguments)
        },
    )?;
    run_stdio(server)?;
    Ok(())
}
