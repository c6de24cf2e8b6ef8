//! A SIGTERM sent the moment `toolgate serve` says it is ready ends it gracefully (exit 0,
//! not killed by the signal), on every transport: the echo server over stdio and over
//! `--http`, and the gate (in front of toolgate's own echo server, so nothing but the binary
//! is needed) over both. The handlers are installed before the announcement; each case runs
//! a few times, since what it guards against is a race.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROUNDS: usize = 4;

/// Starts `toolgate ARGS`, waits for the stderr line `ready` accepts, sends SIGTERM at once,
/// and asserts a graceful exit.
fn term_when_ready(args: &[&str], ready: impl Fn(&str) -> bool) {
    let mut child = common::toolgate()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolgate starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    loop {
        match lines.next() {
            Some(Ok(line)) => {
                let done = ready(&line);
                seen.push(line);
                if done {
                    break;
                }
            }
            _ => panic!("{args:?} ended before it was ready: {seen:?}"),
        }
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    // The rest of stderr is drained so the server never blocks writing it.
    let drain = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "{args:?} still runs 20 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let rest = drain.join().unwrap_or_default();
    assert_eq!(
        status.signal(),
        None,
        "{args:?} was killed by the signal: {seen:?} {rest:?}"
    );
    assert_eq!(status.code(), Some(0), "{args:?}: {seen:?} {rest:?}");
}

fn summary(line: &str) -> bool {
    line.starts_with("toolgate: ") && !line.contains("tokens for")
}

fn listening(line: &str) -> bool {
    line.starts_with("toolgate: listening on http://")
}

#[test]
fn sigterm_right_after_the_stdio_server_is_ready_exits_0() {
    for _ in 0..ROUNDS {
        term_when_ready(
            &["serve", "--catalog", "tatara", "--profile", "review"],
            summary,
        );
    }
}

#[test]
fn sigterm_right_after_listening_exits_0() {
    let args = [
        "serve",
        "--catalog",
        "tatara",
        "--profile",
        "review",
        "--http",
        "127.0.0.1:0",
    ];
    for _ in 0..ROUNDS {
        term_when_ready(&args, listening);
    }
}

/// A gate catalog of tatara's `review` profile, imported from toolgate's own echo server.
fn gate_catalog(dir: &Path) -> String {
    let out = dir.join("review");
    let server = format!("{} serve --catalog tatara", env!("CARGO_BIN_EXE_toolgate"));
    let o = common::run(&[
        "import",
        "--out",
        out.to_str().expect("utf-8"),
        "--server",
        &server,
        "--profile-env",
        "TATARA_TOOL_PROFILE",
        "--profile",
        "review",
    ]);
    assert!(o.status.success(), "import: {}", common::stderr(&o));
    out.to_str().expect("utf-8").to_string()
}

#[test]
fn sigterm_right_after_the_gate_is_ready_exits_0() {
    let dir = common::scratch("serve-signals-gate");
    let catalog = gate_catalog(&dir);
    let upstream = format!(
        "{} serve --catalog tatara --profile review",
        env!("CARGO_BIN_EXE_toolgate")
    );
    let stdio = [
        "serve",
        "--catalog",
        &catalog,
        "--profile",
        "review",
        "--upstream",
        &upstream,
    ];
    let mut http = stdio.to_vec();
    http.extend(["--http", "127.0.0.1:0"]);
    // The upstream's own announcement comes first (it shares stderr): the gate's is `gating`.
    let gating = |line: &str| line.starts_with("toolgate: gating ");
    for _ in 0..ROUNDS {
        term_when_ready(&stdio, gating);
        term_when_ready(&http, listening);
    }
}
