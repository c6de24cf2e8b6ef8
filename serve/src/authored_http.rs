//! Tools sent as authored over Streamable HTTP: the keys rmcp's `Tool` drops, put back into
//! the answer to a `tools/list` POST (see `crate::authored`).
//!
//! rmcp's `StreamableHttpService` takes a `ServerHandler` and serializes its answers itself,
//! so the stdio wrapper (`AsAuthored`, an rmcp `Service`) cannot stand in front of it. The
//! door, which read the request's body, knows the request is `tools/list` and its id; it
//! rewrites the one JSON-RPC response with that id in what rmcp answered, whether rmcp
//! answered with a JSON body (stateless, JSON response) or an event stream (every event passes
//! as soon as it is whole; only the response's `data` line is rewritten).

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use http::{Response, header};
use http_body_util::{BodyDataStream, BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::Frame;
use serde_json::Value;

use crate::Unmodelled;

type Body = BoxBody<Bytes, Infallible>;

/// `response`, the answer to the `tools/list` request `id`, with `lost` put back into its
/// tools.
pub(crate) async fn put_back(
    response: Response<Body>,
    id: Value,
    lost: Arc<Unmodelled>,
) -> Response<Body> {
    let kind = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let (mut parts, body) = response.into_parts();
    if kind.starts_with("application/json") {
        let Ok(bytes) = body.collect().await.map(|b| b.to_bytes());
        parts.headers.remove(header::CONTENT_LENGTH);
        let body = rewrite_message(&bytes, &id, &lost).unwrap_or(bytes);
        Response::from_parts(parts, Full::new(body).boxed())
    } else if kind.starts_with("text/event-stream") {
        let events = Events {
            inner: body.into_data_stream(),
            buffer: Vec::new(),
            ended: false,
            id,
            lost,
        };
        let stream = futures::stream::unfold(events, Events::next_frame);
        Response::from_parts(parts, BodyExt::boxed(StreamBody::new(stream)))
    } else {
        Response::from_parts(parts, body)
    }
}

/// The JSON-RPC message `bytes` rewritten, if it is the response `id` to `tools/list`.
fn rewrite_message(bytes: &[u8], id: &Value, lost: &Unmodelled) -> Option<Bytes> {
    let mut message: Value = serde_json::from_slice(bytes).ok()?;
    if message.get("id") != Some(id) {
        return None;
    }
    lost.put_back_into(message.get_mut("result")?);
    serde_json::to_vec(&message).ok().map(Bytes::from)
}

/// An event stream read event by event (events end with a blank line).
struct Events {
    inner: BodyDataStream<Body>,
    buffer: Vec<u8>,
    ended: bool,
    id: Value,
    lost: Arc<Unmodelled>,
}

impl Events {
    async fn next_frame(mut self) -> Option<(Result<Frame<Bytes>, Infallible>, Events)> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let event = self.rewrite_event(event);
                return Some((Ok(Frame::data(event)), self));
            }
            if self.ended {
                if self.buffer.is_empty() {
                    return None;
                }
                let rest = Bytes::from(std::mem::take(&mut self.buffer));
                return Some((Ok(Frame::data(rest)), self));
            }
            match self.inner.next().await {
                Some(Ok(bytes)) => self.buffer.extend_from_slice(&bytes),
                None => self.ended = true,
            }
        }
    }

    /// One whole event, its `data` line rewritten when it is the awaited response.
    fn rewrite_event(&self, event: Vec<u8>) -> Bytes {
        let Ok(text) = std::str::from_utf8(&event) else {
            return Bytes::from(event);
        };
        let mut data = text.lines().filter(|l| l.starts_with("data:"));
        let (Some(line), None) = (data.next(), data.next()) else {
            return Bytes::from(event);
        };
        let payload = line["data:".len()..].trim_start();
        match rewrite_message(payload.as_bytes(), &self.id, &self.lost) {
            Some(json) => {
                let json = String::from_utf8_lossy(&json);
                Bytes::from(text.replacen(line, &format!("data: {json}"), 1))
            }
            None => Bytes::from(event),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::Tool;
    use serde_json::json;

    fn lost() -> Arc<Unmodelled> {
        let authored = vec![
            json!({"name": "slow_job", "inputSchema": {"type": "object"},
                                   "execution": {"taskSupport": "optional"}}),
        ];
        let tools: Vec<Tool> = vec![serde_json::from_value(authored[0].clone()).expect("tool")];
        Arc::new(Unmodelled::of(&authored, &tools))
    }

    fn answer(id: u64) -> String {
        json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
            {"name": "slow_job", "inputSchema": {"type": "object"}}]}})
        .to_string()
    }

    async fn body_of(response: Response<Body>) -> String {
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        String::from_utf8(bytes.to_vec()).expect("utf-8")
    }

    fn response(kind: &str, chunks: Vec<String>) -> Response<Body> {
        let frames = futures::stream::iter(
            chunks
                .into_iter()
                .map(|c| Ok::<_, Infallible>(Frame::data(Bytes::from(c)))),
        );
        let mut r = Response::new(BodyExt::boxed(StreamBody::new(frames)));
        r.headers_mut()
            .insert(header::CONTENT_TYPE, kind.parse().expect("a header value"));
        r
    }

    #[tokio::test]
    async fn a_json_answer_gets_execution_back() {
        let r = response("application/json", vec![answer(7)]);
        let sent: Value = serde_json::from_str(&body_of(put_back(r, json!(7), lost()).await).await)
            .expect("json");
        assert_eq!(
            sent["result"]["tools"][0]["execution"]["taskSupport"],
            "optional"
        );
    }

    #[tokio::test]
    async fn an_event_split_across_frames_is_rewritten_and_the_others_pass() {
        let whole = format!("id: 0\ndata: {}\n\n", answer(3));
        let (a, b) = whole.split_at(20);
        let chunks = vec![
            "id: p\ndata: \n\n".to_string(),
            a.to_string(),
            b.to_string(),
            "data: {\"x\":1}\n\n".to_string(),
        ];
        let r = response("text/event-stream", chunks);
        let text = body_of(put_back(r, json!(3), lost()).await).await;
        let events: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(events[0], "id: p\ndata: ");
        assert!(events[1].starts_with("id: 0\ndata: {"));
        assert!(events[1].contains(r#""execution":{"taskSupport":"optional"}"#));
        assert_eq!(events[2], "data: {\"x\":1}");
    }

    #[tokio::test]
    async fn the_answer_to_another_request_is_left_alone() {
        let r = response("application/json", vec![answer(8)]);
        let text = body_of(put_back(r, json!(7), lost()).await).await;
        assert_eq!(text, answer(8));
    }
}
