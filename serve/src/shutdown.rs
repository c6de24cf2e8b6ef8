//! The graceful shutdown: SIGTERM or Ctrl-C (SIGINT) stops taking new work, lets the calls
//! in flight finish for at most [`DRAIN`], and ends the process with exit 0.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How long calls in flight may take to finish once a shutdown signal arrived.
pub(crate) const DRAIN: Duration = Duration::from_secs(3);

/// The shutdown signals, SIGTERM and Ctrl-C (SIGINT), listened to from the moment they are
/// installed: install them (inside the runtime) before announcing readiness, so that a
/// signal sent the moment the server says it is ready takes the graceful path rather than
/// the default one, which kills the process. A signal that cannot be installed never fires
/// (the server then stops only when its input closes).
pub(crate) struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Installs the handlers now. Must run inside a Tokio runtime with its IO driver.
    pub(crate) fn install() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                term: signal(SignalKind::terminate()).ok(),
                interrupt: signal(SignalKind::interrupt()).ok(),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// Resolves on the next SIGTERM or Ctrl-C.
    pub(crate) async fn recv(&mut self) {
        #[cfg(unix)]
        {
            async fn next(s: &mut Option<tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                () = next(&mut self.term) => {}
                () = next(&mut self.interrupt) => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
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
