//! Tools sent as authored: what rmcp's `Tool` cannot hold, put back into `tools/list`.
//!
//! rmcp 3.11's `Tool` has no `execution` (MCP 2025-11-25's `{"taskSupport": ...}`), and its
//! `ToolAnnotations` keeps only the hints MCP lists, so parsing a tool drops both, and any
//! other key a server writes (`annotations.category`, say, which hosts ignore). A catalog keeps
//! them, the manifest and `toolgate tools-list` print them, and a client must get them too.
//!
//! [`Unmodelled`] is, per tool, each key of the authored JSON that the parsed `Tool` lost, with
//! where it sits (found once, by comparing the authored object with the parsed one written
//! back). [`AsAuthored`] wraps a handler as rmcp's `Service`: every request goes to the
//! handler as before; a `tools/list` answer is written to JSON and those keys are put back
//! (as a `CustomResult`, which rmcp sends as it is). What rmcp itself changes for a peer after
//! the handler answered (the legacy strip of a non-object `outputSchema`) stays changed: a key
//! is put back only where its parent object is still there and the key is not.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{
    ClientNotification, ClientRequest, CustomResult, ListToolsResult, ProtocolVersion,
    ServerResult, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, Service, ServiceRole};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

/// One step from a tool object down to a key: an object key or an array index.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The keys of each served tool that rmcp's `Tool` does not carry, by tool name.
#[derive(Clone, Debug, Default)]
pub struct Unmodelled {
    by_tool: HashMap<String, Vec<(Vec<Step>, Value)>>,
}

impl Unmodelled {
    /// What parsing lost of each tool: `authored` are the tools as written, `parsed` the same
    /// tools as rmcp read them, in the same order.
    pub(crate) fn of(authored: &[Value], parsed: &[Tool]) -> Unmodelled {
        let mut by_tool = HashMap::new();
        for (raw, tool) in authored.iter().zip(parsed) {
            let Ok(kept) = serde_json::to_value(tool) else {
                continue;
            };
            let mut lost = Vec::new();
            dropped(raw, &kept, &mut Vec::new(), &mut lost);
            if !lost.is_empty() {
                by_tool.insert(tool.name.to_string(), lost);
            }
        }
        Unmodelled { by_tool }
    }

    /// Whether every tool survives rmcp's `Tool` whole (nothing to put back).
    pub fn is_empty(&self) -> bool {
        self.by_tool.is_empty()
    }

    /// The keys of tool `name` that are put back, as JSON pointers (`/execution`,
    /// `/annotations/category`), in key order.
    pub fn pointers(&self, name: &str) -> Vec<String> {
        let steps = self
            .by_tool
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or_default();
        steps
            .iter()
            .map(|(path, _)| {
                path.iter()
                    .map(|s| match s {
                        Step::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
                        Step::Index(i) => format!("/{i}"),
                    })
                    .collect()
            })
            .collect()
    }

    /// The `tools/list` answer with the lost keys back in each tool.
    fn restore(&self, list: ListToolsResult) -> ServerResult {
        let Ok(mut value) = serde_json::to_value(&list) else {
            return ServerResult::ListToolsResult(list);
        };
        self.put_back_into(&mut value);
        ServerResult::CustomResult(CustomResult(value))
    }

    /// Puts the lost keys back into each tool of a `tools/list` result written as JSON.
    pub(crate) fn put_back_into(&self, result: &mut Value) {
        let tools = result.get_mut("tools").and_then(Value::as_array_mut);
        for tool in tools.into_iter().flatten() {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let Some(lost) = self.by_tool.get(name) else {
                continue;
            };
            for (path, v) in lost {
                put_back(tool, path, v.clone());
            }
        }
    }
}

/// Collects into `lost` each key of `raw` that `kept` lacks, with its path; objects are
/// compared key by key and arrays of one length item by item. A value rmcp kept in another
/// form (never the case for JSON it parsed whole) is left as rmcp writes it.
fn dropped(raw: &Value, kept: &Value, path: &mut Vec<Step>, lost: &mut Vec<(Vec<Step>, Value)>) {
    match (raw, kept) {
        (Value::Object(raw), Value::Object(kept)) => {
            for (key, value) in raw {
                path.push(Step::Key(key.clone()));
                match kept.get(key) {
                    None => lost.push((path.clone(), value.clone())),
                    Some(k) => dropped(value, k, path, lost),
                }
                path.pop();
            }
        }
        (Value::Array(raw), Value::Array(kept)) if raw.len() == kept.len() => {
            for (i, (r, k)) in raw.iter().zip(kept).enumerate() {
                path.push(Step::Index(i));
                dropped(r, k, path, lost);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Puts `value` at `path` in `tool` when the parent is there and the key is not.
fn put_back(tool: &mut Value, path: &[Step], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = tool;
    for step in parents {
        let next = match step {
            Step::Key(k) => at.get_mut(k.as_str()),
            Step::Index(i) => at.get_mut(*i),
        };
        let Some(next) = next else {
            return;
        };
        at = next;
    }
    if let (Step::Key(k), Value::Object(o)) = (last, at) {
        o.entry(k.clone()).or_insert(value);
    }
}

/// A handler that knows the [`Unmodelled`] keys of the tools it lists to a request.
pub trait AuthoredTools {
    /// The lost keys of the tools listed to the request of `context` (`None`: nothing to put
    /// back).
    fn unmodelled(&self, context: &RequestContext<RoleServer>) -> Option<Arc<Unmodelled>>;
}

/// An rmcp handler served so that `tools/list` sends each tool as authored (see the module
/// documentation): what `serve_stdio` runs. Serve a `ToolServer` over a transport of your own
/// as `AsAuthored(server).serve(transport)`. (rmcp's Streamable HTTP service takes a
/// `ServerHandler`, not a `Service`, so `serve_http` puts the keys back into the HTTP answer
/// instead.)
pub struct AsAuthored<H>(pub H);

type Info = <RoleServer as ServiceRole>::Info;

impl<H: ServerHandler + AuthoredTools> Service<RoleServer> for AsAuthored<H> {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let lost = match request {
            ClientRequest::ListToolsRequest(_) => self.0.unmodelled(&context),
            _ => None,
        };
        let result = Service::handle_request(&self.0, request, context).await?;
        Ok(match (result, lost) {
            (ServerResult::ListToolsResult(list), Some(lost)) if !lost.is_empty() => {
                lost.restore(list)
            }
            (result, _) => result,
        })
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Service::handle_notification(&self.0, notification, context).await
    }

    fn get_info(&self) -> Info {
        Service::get_info(&self.0)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Service::supported_protocol_versions(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(tools: &[Value]) -> Vec<Tool> {
        tools
            .iter()
            .map(|t| serde_json::from_value(t.clone()).expect("a tool"))
            .collect()
    }

    #[test]
    fn execution_and_open_annotation_keys_are_what_rmcp_loses_and_what_comes_back() {
        let authored = vec![
            json!({"name": "fetch_page", "inputSchema": {"type": "object"},
                   "execution": {"taskSupport": "optional"},
                   "annotations": {"readOnlyHint": true, "category": "web", "tags": ["net"]}}),
            json!({"name": "plain", "inputSchema": {"type": "object"}}),
        ];
        let tools = parsed(&authored);
        let lost = Unmodelled::of(&authored, &tools);
        assert_eq!(
            lost.pointers("fetch_page"),
            ["/annotations/category", "/annotations/tags", "/execution"]
        );
        assert!(lost.pointers("plain").is_empty());
        let ServerResult::CustomResult(CustomResult(sent)) =
            lost.restore(ListToolsResult::with_all_items(tools))
        else {
            panic!("a list with lost keys is sent as JSON");
        };
        assert_eq!(sent["tools"][0], authored[0]);
        assert_eq!(sent["tools"][1], authored[1]);
    }

    #[test]
    fn a_key_goes_back_only_under_a_parent_rmcp_kept() {
        let mut tool = json!({"name": "t", "inputSchema": {"type": "object"}});
        let path = [
            Step::Key("annotations".into()),
            Step::Key("category".into()),
        ];
        put_back(&mut tool, &path, json!("web"));
        assert_eq!(
            tool,
            json!({"name": "t", "inputSchema": {"type": "object"}})
        );
        let mut tool = json!({"name": "t", "execution": {"taskSupport": "forbidden"}});
        put_back(&mut tool, &[Step::Key("execution".into())], json!({"x": 1}));
        assert_eq!(tool["execution"], json!({"taskSupport": "forbidden"}));
    }

    #[test]
    fn a_list_rmcp_holds_whole_is_left_to_rmcp() {
        let authored = vec![
            json!({"name": "t", "title": "T", "inputSchema": {"type": "object"},
                                   "annotations": {"readOnlyHint": false}}),
        ];
        let lost = Unmodelled::of(&authored, &parsed(&authored));
        assert!(lost.is_empty());
    }
}
