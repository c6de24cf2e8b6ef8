//! The fixture server of the MCP conformance suite's `tools-call-*` scenarios
//! (scripts/conformance.sh): the tools of `tests/conformance/catalog`, expanded by
//! `catalog!`, each implemented through the generated asynchronous trait to do what its
//! scenario checks: content of every kind, a tool error, logging and progress through the
//! call's context, sampling and elicitation sent back to the client, and a schema with
//! `$schema`, `$defs` and `$ref` served as authored.
//!
//! ```sh
//! cargo run -p toolgate-serve --features http --example conformance_fixture -- 127.0.0.1:0
//! ```
//!
//! Sessions (not stateless): logging, progress and requests to the client travel on the
//! call's SSE stream.

mod conformance {
    toolgate_macros::catalog!("../tests/conformance/catalog");
}

use std::time::Duration;

use conformance::{
    json_schema_2020_12_tool, test_audio_content, test_elicitation, test_embedded_resource,
    test_error_handling, test_image_content, test_multiple_content_types, test_sampling,
    test_simple_text, test_tool_with_logging, test_tool_with_progress,
};
use serde_json::{Value, json};
use toolgate_runtime::{CallError, HandlerContext, LogLevel};
use toolgate_serve::http::{HttpOptions, serve_http};
use toolgate_serve::{AsyncBackend, CallContext, JsonObject, Reply, ToolServer};

/// A 1x1 red PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file of 16 samples: 8 kHz, mono, 8 bits.
const WAV_BASE64: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YRAAAACAoMCggGBAYICgwKCAYEBg";

type Context<'c> = HandlerContext<'c, conformance::Profile>;

fn text(text: impl Into<String>) -> Value {
    json!({"type": "text", "text": text.into()})
}

fn image() -> Value {
    json!({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"})
}

fn content(blocks: Vec<Value>) -> Reply {
    Reply::Content {
        content: blocks,
        is_error: false,
    }
}

/// The tools, for real.
struct Tools;

impl conformance::AlwaysOnAsyncHandler for Tools {
    type Output = Reply;
}

impl conformance::SuiteAsyncHandler for Tools {
    async fn test_simple_text(&self, _: Context<'_>, _: test_simple_text::Args) -> Reply {
        content(vec![text("This is a simple text response for testing.")])
    }

    async fn test_image_content(&self, _: Context<'_>, _: test_image_content::Args) -> Reply {
        content(vec![image()])
    }

    async fn test_audio_content(&self, _: Context<'_>, _: test_audio_content::Args) -> Reply {
        content(vec![
            json!({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}),
        ])
    }

    async fn test_embedded_resource(
        &self,
        _: Context<'_>,
        _: test_embedded_resource::Args,
    ) -> Reply {
        content(vec![json!({
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }
        })])
    }

    async fn test_multiple_content_types(
        &self,
        _: Context<'_>,
        _: test_multiple_content_types::Args,
    ) -> Reply {
        content(vec![
            text("Multiple content types test:"),
            image(),
            json!({
                "type": "resource",
                "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": json!({"test": "data", "value": 123}).to_string()
                }
            }),
        ])
    }

    async fn test_tool_with_logging(
        &self,
        context: Context<'_>,
        _: test_tool_with_logging::Args,
    ) -> Reply {
        context.log(LogLevel::Info, "Tool execution started").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        context.log(LogLevel::Info, "Tool processing data").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        context
            .log(LogLevel::Info, "Tool execution completed")
            .await;
        content(vec![text("Tool with logging executed successfully")])
    }

    async fn json_schema_2020_12_tool(
        &self,
        _: Context<'_>,
        arguments: json_schema_2020_12_tool::Args<'_>,
    ) -> Reply {
        // The scenario only lists the tool (its schema served as authored); a call answers
        // with the typed arguments.
        Reply::from(serde_json::to_value(&arguments))
    }

    async fn test_error_handling(&self, _: Context<'_>, _: test_error_handling::Args) -> Reply {
        Reply::Failed("This tool intentionally returns an error for testing".to_string())
    }

    async fn test_tool_with_progress(
        &self,
        context: Context<'_>,
        _: test_tool_with_progress::Args,
    ) -> Reply {
        for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            context.progress(step, Some(100.0), None).await;
        }
        content(vec![text("Tool with progress executed successfully")])
    }

    async fn test_sampling(
        &self,
        context: Context<'_>,
        arguments: test_sampling::Args<'_>,
    ) -> Reply {
        if !context.client_supports("sampling") {
            return Reply::Failed("the client does not support sampling".to_string());
        }
        let params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": arguments.prompt}}],
            "maxTokens": 100
        });
        match context.request("sampling/createMessage", params).await {
            Ok(result) => {
                let answer = result["content"]["text"].as_str().unwrap_or_default();
                content(vec![text(format!("LLM response: {answer}"))])
            }
            Err(why) => Reply::Failed(why),
        }
    }

    async fn test_elicitation(
        &self,
        context: Context<'_>,
        arguments: test_elicitation::Args<'_>,
    ) -> Reply {
        if !context.client_supports("elicitation") {
            return Reply::Failed("the client does not support elicitation".to_string());
        }
        let params = json!({
            "message": arguments.message,
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}
                },
                "required": ["username", "email"]
            }
        });
        match context.request("elicitation/create", params).await {
            Ok(result) => content(vec![text(format!(
                "User response: action: {}, content: {}",
                result["action"].as_str().unwrap_or("unknown"),
                result.get("content").unwrap_or(&Value::Null)
            ))]),
            Err(why) => Reply::Failed(why),
        }
    }
}

/// The server's backend: the generated asynchronous dispatch, with the call's context.
struct Fixture {
    session: conformance::Session,
}

impl AsyncBackend for Fixture {
    async fn call_async(
        &self,
        tool: &str,
        arguments: &JsonObject,
        context: &CallContext,
    ) -> Result<Reply, CallError> {
        let handler_context = context.handler_context(&self.session);
        conformance::dispatch_async(&Tools, handler_context, tool, arguments).await
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_string())
        .parse()?;
    let profile = conformance::Profile::Suite;
    let backend = Fixture {
        session: conformance::Session::of(&[profile]),
    };
    let server = ToolServer::new(profile.tools_list_json(), backend)?;
    let options = HttpOptions {
        on_listening: Some(Box::new(|bound| {
            eprintln!("conformance fixture: listening on http://{bound}/mcp");
        })),
        ..HttpOptions::default()
    };
    serve_http(addr, server, options)?;
    Ok(())
}
