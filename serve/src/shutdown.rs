//! The graceful shutdown: SIGTERM or Ctrl-C (SIGINT) stops taking new work, lets the calls
//! in flight finish for at most [`DRAIN`], and ends the process with exit 0.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How long calls in flight may take to finish once a shutdown signal arrived.
pub(crate) const DRAIN: Duration = Duration::from_secs(3);

/// Resolves on the first SIGTERM or Ctrl-C. A signal that cannot be installed never fires
/// (the server then stops only when its input closes).
pub(crate) async fn signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

/// The calls in flight in this process, so a shutdown can wait for them.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Held while a call runs.
pub(crate) struct Running(());

impl Drop for Running {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Marks a call as started until the guard drops.
pub(crate) fn start_call() -> Running {
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    Running(())
}

/// Waits until no call is in flight, for at most [`DRAIN`]; then a short grace for their
/// answers to be written.
pub(crate) async fn drain() {
    let deadline = tokio::time::Instant::now() + DRAIN;
    while IN_FLIGHT.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
}
