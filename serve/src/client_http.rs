//! The MCP client over Streamable HTTP, for `toolgate lock` and the gate's `--upstream-url`:
//! rmcp's client transport over reqwest, https through rustls (the `ring` provider) with the
//! system's roots ([`rustls-platform-verifier`], what reqwest uses) and any extra PEM roots.
//!
//! Over HTTP the tools are what rmcp's `Tool` model reads and writes back: every field it
//! models, keys in one fixed order (stdio keeps the server's own bytes, see [`crate::client`]).

use std::collections::HashMap;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, PaginatedRequestParams};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use toolgate_runtime::json::Value;

use crate::client::{Capture, ClientError, MAX_PAGES};

/// Makes rustls's `ring` provider the process default, once (reqwest is built without one).
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client trusting the system's roots and the PEM certificates of `extra_roots`.
pub fn http_client(extra_roots: Option<&[u8]>) -> Result<reqwest::Client, String> {
    install_crypto_provider();
    let mut builder = reqwest::Client::builder();
    if let Some(pem) = extra_roots {
        let certs = reqwest::Certificate::from_pem_bundle(pem)
            .map_err(|e| format!("the CA certificate is not PEM: {e}"))?;
        builder = builder.tls_certs_merge(certs);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// rmcp's Streamable HTTP client transport to `url`, with `headers` on every request.
pub fn transport(
    client: reqwest::Client,
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    let mut map = HashMap::new();
    for (name, value) in headers {
        let n = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| format!("header {name:?}: {e}"))?;
        let v = http::HeaderValue::from_str(value)
            .map_err(|_| format!("header {name:?}: not a valid header value"))?;
        map.insert(n, v);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(map);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// Connects to `url`, initializes, lists every page of its tools, all within `timeout`.
pub fn capture_http(
    url: &str,
    headers: &[(String, String)],
    extra_roots: Option<&[u8]>,
    timeout: Duration,
) -> Result<Capture, ClientError> {
    let fail = |message: String| ClientError {
        message,
        stderr: String::new(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(format!("cannot start an async runtime: {e}")))?;
    let client = http_client(extra_roots).map_err(fail)?;
    let transport = transport(client, url, headers).map_err(fail)?;
    runtime.block_on(async {
        match tokio::time::timeout(timeout, session(transport)).await {
            Ok(r) => r.map_err(fail),
            Err(_) => Err(fail(format!(
                "the server did not answer initialize and every tools/list page within {}s",
                timeout.as_secs_f64()
            ))),
        }
    })
}

async fn session(
    transport: StreamableHttpClientTransport<reqwest::Client>,
) -> Result<Capture, String> {
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("toolgate-lock", env!("CARGO_PKG_VERSION")),
    );
    let client = info
        .serve(transport)
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    let peer_info = client.peer().peer_info();
    let mut capture = Capture {
        tools: Vec::new(),
        server_name: peer_info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| s.name.clone()),
        server_version: peer_info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| s.version.clone()),
        protocol_version: peer_info.as_ref().map(|i| i.protocol_version.to_string()),
    };
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    for page in 1..=MAX_PAGES {
        let params = cursor
            .clone()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let result = client
            .peer()
            .list_tools(params)
            .await
            .map_err(|e| format!("tools/list (page {page}) failed: {e}"))?;
        for tool in &result.tools {
            let v = serde_json::to_value(tool).map_err(|e| format!("tools/list: {e}"))?;
            capture.tools.push(Value::from_serde(&v));
        }
        match result.next_cursor {
            Some(next) if !next.is_empty() => {
                if !seen.insert(next.clone()) {
                    return Err(format!(
                        "tools/list gave the cursor {next:?} twice: the pages loop"
                    ));
                }
                cursor = Some(next);
            }
            _ => {
                let _ = client.cancel().await;
                return Ok(capture);
            }
        }
    }
    Err(format!("tools/list has more than {MAX_PAGES} pages"))
}
