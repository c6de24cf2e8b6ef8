//! MCP over standard input and output: rmcp's service loop over a line transport that
//! answers what rmcp's own stdio transport drops.
//!
//! rmcp's `AsyncRwTransport` ignores a line that is not JSON and drops an oversized one in
//! silence (by design: rust-sdk issue 938). The MCP specification asks for -32700 and a
//! bounded message, so this transport reads lines itself (bounded, cancellation-safe as
//! rmcp's reader is), classifies each with [`protocol::classify`], and writes through rmcp's
//! own `JsonRpcMessageCodec`. It implements rmcp's `Transport` trait; everything else (the
//! service loop, the handshake, the dispatch) is rmcp's.

use std::sync::Arc;
use std::time::Duration;

use futures::SinkExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::JsonRpcMessageCodec;
use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::Mutex;
use tokio_util::codec::FramedWrite;

use crate::protocol::{self, Classified};
use crate::{AsyncBackend, ServeError, ToolServer, shutdown};

/// The largest message read, on stdio and over HTTP (16 MiB, rmcp's own line limit): a
/// longer one is answered -32600 and dropped, without being buffered.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

type Writer<W> = FramedWrite<W, JsonRpcMessageCodec<ServerJsonRpcMessage>>;

/// Newline-delimited JSON-RPC over a reader and a writer, as MCP's stdio transport is.
pub(crate) struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Set while the rest of an oversized line is skipped; on the struct, because
    /// `receive` is polled in a `select!` and may be dropped mid-line.
    discarding: bool,
    max: usize,
    write: Arc<Mutex<Option<Writer<W>>>>,
    /// An error answer not yet fully written (kept across a cancelled `receive`).
    pending: Option<Pending>,
}

enum Pending {
    Queue(Box<ServerJsonRpcMessage>),
    Flush,
}

enum Read {
    Line,
    Oversized,
    Eof,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(crate) fn new(read: R, write: W, max: usize) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max,
            write: Arc::new(Mutex::new(Some(FramedWrite::new(
                write,
                JsonRpcMessageCodec::default(),
            )))),
            pending: None,
        }
    }

    /// Reads one line into `self.line` without letting it grow past `self.max`. The copy
    /// and the matching `consume` have no await between them, so a dropped read leaves a
    /// partial line for the next call to resume.
    async fn read_line(&mut self) -> Read {
        loop {
            let (consumed, done) = {
                let available = match self.read.fill_buf().await {
                    Ok(a) => a,
                    Err(_) => return Read::Eof,
                };
                if available.is_empty() {
                    return Read::Eof;
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                let done = if self.discarding {
                    if newline.is_some() {
                        self.discarding = false;
                    }
                    None
                } else if self.line.len().saturating_add(take) > self.max {
                    self.line.clear();
                    self.discarding = newline.is_none();
                    Some(Read::Oversized)
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    newline.map(|_| Read::Line)
                };
                (take, done)
            };
            self.read.consume(consumed);
            if let Some(done) = done {
                return done;
            }
        }
    }

    /// Writes the pending error answer, if any. False when the output is closed.
    async fn write_pending(&mut self) -> bool {
        let Some(state) = self.pending.as_mut() else {
            return true;
        };
        let mut write = self.write.lock().await;
        let Some(framed) = write.as_mut() else {
            return false;
        };
        if let Pending::Queue(_) = state
            && let Pending::Queue(message) = std::mem::replace(state, Pending::Flush)
            && framed.feed(*message).await.is_err()
        {
            return false;
        }
        if framed.flush().await.is_err() {
            return false;
        }
        self.pending = None;
        true
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let lock = self.write.clone();
        async move {
            let mut write = lock.lock().await;
            match write.as_mut() {
                Some(w) => w.send(item).await.map_err(std::io::Error::other),
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the transport is closed",
                )),
            }
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if !self.write_pending().await {
                return None;
            }
            match self.read_line().await {
                Read::Line => {}
                Read::Oversized => {
                    self.pending = Some(Pending::Queue(Box::new(
                        protocol::too_large(self.max).message(),
                    )));
                    continue;
                }
                Read::Eof => return None,
            }
            let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let classified = protocol::classify(line);
            self.line.clear();
            match classified {
                Classified::Message(m) => return Some(*m),
                Classified::Ignore => {}
                Classified::Refuse(r) => self.pending = Some(Pending::Queue(Box::new(r.message()))),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}

/// Runs `server` as an MCP server on standard input and output until the client closes the
/// session (end of input) or the process gets SIGTERM or Ctrl-C (the calls in flight finish
/// first, for at most 3 s; then `Ok`). Logs and warnings belong on standard error; standard
/// output carries only MCP messages.
pub fn serve_stdio<B: AsyncBackend>(server: ToolServer<B>) -> Result<(), ServeError> {
    serve_stdio_announcing(server, || {})
}

/// [`serve_stdio`], calling `announce` (say, a line on standard error that the server is
/// ready) once the shutdown signals are listened to and before the first message is read: a
/// SIGTERM sent the moment it appears ends the server gracefully.
pub fn serve_stdio_announcing<B: AsyncBackend>(
    server: ToolServer<B>,
    announce: impl FnOnce(),
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let result = runtime.block_on(async move {
        let mut signals = shutdown::Signals::install();
        announce();
        let (read, write) = rmcp::transport::stdio_pipes();
        let transport = LineTransport::new(read, write, MAX_MESSAGE_BYTES);
        let running = tokio::select! {
            served = crate::AsAuthored(server).serve(transport) => {
                served.map_err(|e| ServeError::Session(e.to_string()))?
            }
            () = signals.recv() => return Ok(()),
        };
        let stop = running.cancellation_token();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        tokio::select! {
            quit = &mut waiting => quit.map(|_| ()).map_err(|e| ServeError::Session(e.to_string())),
            () = signals.recv() => {
                shutdown::drain().await;
                stop.cancel();
                let _ = tokio::time::timeout(Duration::from_secs(1), waiting).await;
                Ok(())
            }
        }
    });
    // The blocking reader of standard input (when it is not a pipe) must not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}
