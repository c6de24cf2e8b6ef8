//! What the server writes on standard error: nothing per request unless asked
//! (`--log-level`). Never a token, never the arguments of a call.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::CallToolResult;

/// How much the server logs on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// Nothing but start-up and shutdown lines (the default).
    Off = 0,
    /// Also refusals at the HTTP door (401, 403, 421) and protocol errors.
    Warn = 1,
    /// Also one line per `tools/call`: the tool, the outcome, the time taken.
    Info = 2,
}

impl std::str::FromStr for LogLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<LogLevel, String> {
        match s {
            "off" => Ok(LogLevel::Off),
            "warn" => Ok(LogLevel::Warn),
            "info" => Ok(LogLevel::Info),
            other => Err(format!("unknown log level `{other}` (off, warn, info)")),
        }
    }
}

static LEVEL: AtomicU8 = AtomicU8::new(LogLevel::Off as u8);

/// Sets the process-wide log level (default [`LogLevel::Off`]).
pub fn set_log_level(level: LogLevel) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

pub(crate) fn enabled(level: LogLevel) -> bool {
    LEVEL.load(Ordering::Relaxed) >= level as u8
}

/// One line per call at `info`.
pub(crate) fn call(tool: &str, answer: &Result<CallToolResult, ErrorData>, took: Duration) {
    if !enabled(LogLevel::Info) {
        return;
    }
    let outcome = match answer {
        Ok(r) if r.is_error == Some(true) => "tool error".to_string(),
        Ok(_) => "ok".to_string(),
        Err(e) => format!("error {}", e.code.0),
    };
    eprintln!(
        "toolgate: tools/call {tool}: {outcome} ({} us)",
        took.as_micros()
    );
}

/// A refusal at the HTTP door, at `warn`.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn refused(status: u16, why: &str) {
    if enabled(LogLevel::Warn) {
        eprintln!("toolgate: refused with {status}: {why}");
    }
}
