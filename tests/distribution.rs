//! The ways to install toolgate without a Rust toolchain, each end to end from the binary CI
//! builds for them: the release archive with `scripts/install.sh`, the npm launcher and
//! platform package (and all seven, as the release makes them from its archives), the PyPI
//! wheel (maturin) and its sdist, the pre-commit hook template, the GitHub Action's shell
//! steps, the release workflow's coverage of the targets; and that binary's size bound.
//!
//! `.ci/run` builds the binary once (`cargo build --profile ci-release`), names it in
//! `TOOLGATE_DIST_BINARY`, installs maturin and pre-commit (tests/distribution/requirements.txt)
//! into a venv whose python `TOOLGATE_DIST_PYTHON` names, downloads the hook package's build
//! backend into `TOOLGATE_DIST_WHEELS`, and sets `TOOLGATE_REQUIRE_E2E=1`: then a missing tool
//! fails these tests instead of skipping them. Without `TOOLGATE_DIST_BINARY`, the archive and
//! npm tests use the test build of the binary, and the size, wheel and pre-commit tests skip
//! (the sdist and Action tests need only `TOOLGATE_DIST_PYTHON`).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use common::{repo_root, scratch};

/// The most a linux x86_64 binary of the `ci-release` profile may weigh. That profile is the
/// release one (no LTO) at opt-level 1: the shipped binary (`dist`, fat LTO) is 0.845 times
/// its size (docs/benchmarks.md, "Binary size"), so 35 MiB here is about 29.6 MiB shipped,
/// under the 30 MiB budget that scripts/bench-size.sh holds the dist build to.
const CI_BINARY_BUDGET: u64 = 35 * 1024 * 1024;

/// Skips (with a message) or, when `.ci/run` requires these tests, fails.
fn skip(why: &str) {
    let required = std::env::var("TOOLGATE_REQUIRE_E2E").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "{why}; TOOLGATE_REQUIRE_E2E=1 says this test must run (.ci/run installs what it needs)"
    );
    eprintln!(
        "skipped: {why} (.ci/run provides it; set TOOLGATE_REQUIRE_E2E=1 to make this a failure)"
    );
}

/// The binary `.ci/run` built for the release channels (ci-release), when it did.
fn dist_binary() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("TOOLGATE_DIST_BINARY")?);
    assert!(
        path.is_file(),
        "TOOLGATE_DIST_BINARY names {}, which is not a file",
        path.display()
    );
    Some(path)
}

/// The binary to package: the ci-release one, else this test build's own.
fn binary_to_package() -> PathBuf {
    dist_binary().unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_toolgate")))
}

/// The python of the venv holding maturin and pre-commit, when there is one.
fn dist_python() -> Option<PathBuf> {
    let python = PathBuf::from(std::env::var_os("TOOLGATE_DIST_PYTHON")?);
    let ok = Command::new(&python)
        .args(["-c", "import maturin, pre_commit"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "TOOLGATE_DIST_PYTHON ({}) cannot import maturin and pre_commit",
        python.display()
    );
    Some(python)
}

/// Whether a command runs at all (`--version` exits 0).
fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether unzip runs (it has no `--version`: `-v` prints its version and exits 0).
fn have_unzip() -> bool {
    Command::new("unzip")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("{cmd:?} does not start: {e}"))
}

/// Runs and asserts exit 0, returning standard output.
fn run_ok(cmd: &mut Command) -> String {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A command without the variables `cargo test` sets for this test (`CARGO_MANIFEST_DIR`,
/// `CARGO_PKG_*`, ...): a cargo run inside it (maturin's) would see them as a changed
/// environment and rebuild what reads them (ring's build script) instead of reusing CI's
/// build.
fn without_test_env(mut cmd: Command) -> Command {
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let set_by_cargo_test = key.starts_with("CARGO_PKG_")
            || key.starts_with("CARGO_BIN_EXE_")
            || matches!(
                key,
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_MANIFEST_LINKS"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
                    | "CARGO_TARGET_TMPDIR"
                    | "CARGO_RUSTC_CURRENT_DIR"
                    | "OUT_DIR"
            );
        if set_by_cargo_test {
            cmd.env_remove(key);
        }
    }
    cmd
}

fn script(name: &str) -> Command {
    Command::new(repo_root().join("scripts").join(name))
}

/// What `toolgate --version` must print: the version of Cargo.toml.
fn version_line() -> String {
    format!("toolgate {}\n", env!("CARGO_PKG_VERSION"))
}

/// The README's main job and the summary line it says that job prints.
fn readme_main_job() -> String {
    let readme = fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let command = "cargo run --release -- lint skills-fixtures";
    let after = &readme[readme.find(command).expect("the README's main job")..];
    let block = &after[after.find("```text\n").expect("the summary block after it") + 8..];
    block.lines().next().expect("a summary line").to_string()
}

/// Runs a `toolgate` binary on the README's main job from the repository root, and checks
/// exit 1 and the README's summary line.
fn assert_main_job(toolgate: &Path) {
    let out = run(Command::new(toolgate)
        .args(["lint", "skills-fixtures"])
        .current_dir(repo_root())
        .env_remove("TATARA_TOOL_PROFILE")
        .env_remove("MAETRA_CAPABILITIES"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = readme_main_job();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(stdout.lines().last(), Some(summary.as_str()), "{stdout}");
}

#[test]
fn version_is_cargo_tomls() {
    let out = run_ok(Command::new(env!("CARGO_BIN_EXE_toolgate")).arg("--version"));
    assert_eq!(out, version_line());
    if let Some(binary) = dist_binary() {
        assert_eq!(
            run_ok(Command::new(binary).arg("--version")),
            version_line()
        );
    }
    let printed = run_ok(&mut script("cargo-version.sh"));
    assert_eq!(printed.trim(), env!("CARGO_PKG_VERSION"));
}

/// Every copy of the version outside Cargo.toml is the same (the scripts write the npm
/// versions; the committed files say the same so they can be read).
#[test]
fn every_channel_carries_cargo_tomls_version() {
    let version = env!("CARGO_PKG_VERSION");
    let launcher: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo_root().join("npm/toolgate/package.json")).expect("package.json"),
    )
    .expect("JSON");
    assert_eq!(launcher["version"], version);
    let platforms = npm_platforms();
    let packages: Vec<&str> = platforms
        .iter()
        .map(|(_, p)| p["package"].as_str().expect("a package name"))
        .collect();
    let optional = launcher["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies");
    assert_eq!(optional.keys().map(String::as_str).collect::<Vec<_>>(), {
        let mut sorted = packages.clone();
        sorted.sort_unstable();
        sorted
    });
    assert!(optional.values().all(|v| v == version), "{optional:?}");

    let hook = fs::read_to_string(repo_root().join("pre-commit/pyproject.toml")).expect("hook");
    assert!(
        hook.contains(&format!("\nversion = \"{version}\"\n")),
        "{hook}"
    );
    assert!(
        hook.contains(&format!("\"toolgate-cli=={version}\"")),
        "{hook}"
    );
    let pyproject = fs::read_to_string(repo_root().join("pyproject.toml")).expect("pyproject");
    assert!(pyproject.contains("dynamic = [\"version\"]"), "{pyproject}");
}

#[test]
fn ci_binary_fits_the_size_budget() {
    let Some(binary) = dist_binary() else {
        skip("TOOLGATE_DIST_BINARY (the ci-release build) is not set");
        return;
    };
    let size = fs::metadata(&binary).expect("metadata").len();
    let mib = size as f64 / (1024.0 * 1024.0);
    eprintln!("{}: {size} bytes ({mib:.1} MiB)", binary.display());
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert!(
            size <= CI_BINARY_BUDGET,
            "{} weighs {mib:.1} MiB, over the {} MiB bound of ci-release builds (about 30 MiB \
             shipped): a new dependency or feature must earn its size (docs/benchmarks.md, \
             \"Binary size\"; scripts/bench-size.sh measures the release build)",
            binary.display(),
            CI_BINARY_BUDGET / (1024 * 1024)
        );
    }
}

/// The release archive of the binary, as `scripts/package-archive.sh` writes it, installed by
/// `scripts/install.sh` from a `file://` mirror; then the same archive tampered with is
/// refused with exit 1 and leaves nothing behind.
#[test]
fn install_sh_installs_a_checked_archive_and_refuses_a_tampered_one() {
    if !have("curl") && !have("wget") {
        skip("neither curl nor wget is installed");
        return;
    }
    let dir = scratch("distribution-install-sh");
    let target = run_ok(script("install.sh").arg("--print-target"));
    let target = target.trim();
    if cfg!(all(
        target_os = "linux",
        target_arch = "x86_64",
        target_env = "gnu"
    )) {
        assert_eq!(target, "x86_64-unknown-linux-gnu");
    }
    let version = env!("CARGO_PKG_VERSION");
    let release = dir.join("releases").join(format!("v{version}"));
    let archive = run_ok(
        script("package-archive.sh")
            .arg("--binary")
            .arg(binary_to_package())
            .arg("--out")
            .arg(&release)
            .env("XZ_OPT", "-0"),
    );
    let archive = PathBuf::from(archive.trim());
    assert_eq!(
        archive.file_name().and_then(|n| n.to_str()),
        Some(format!("toolgate-{target}.tar.xz").as_str())
    );
    let base = format!("file://{}", dir.join("releases").display());

    let to = dir.join("bin");
    let out = run(script("install.sh")
        .args(["--version", version, "--base", &base, "--to"])
        .arg(&to));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("installed toolgate"), "{stderr}");
    let installed = to.join("toolgate");
    assert_eq!(
        run_ok(Command::new(&installed).arg("--version")),
        version_line()
    );
    assert_main_job(&installed);

    // One byte changed in the archive: its published checksum no longer matches.
    let mut bytes = fs::read(&archive).expect("archive");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    fs::write(&archive, bytes).expect("tamper");
    let to = dir.join("bin-tampered");
    let out = run(script("install.sh")
        .args(["--version", &format!("v{version}"), "--base", &base, "--to"])
        .arg(&to));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
    assert!(stderr.contains("nothing installed"), "{stderr}");
    assert!(
        !to.exists() || fs::read_dir(&to).expect("read_dir").next().is_none(),
        "a refused archive left files in {}",
        to.display()
    );

    // A release that is not there: exit 1 and the URL it tried.
    let out = run(script("install.sh")
        .args(["--version", "0.0.0-missing", "--base", &base, "--to"])
        .arg(&to));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("v0.0.0-missing/toolgate-"), "{stderr}");

    // The Windows archive, flat as cargo-dist writes its zips: toolgate.exe at its top. (The
    // binary inside is this machine's, so the installed copy runs here.)
    if !have_unzip() {
        skip("unzip is not installed: the Windows archive was not checked");
    } else {
        let windows = "x86_64-pc-windows-msvc";
        let zip = run_ok(
            script("package-archive.sh")
                .arg("--binary")
                .arg(binary_to_package())
                .arg("--out")
                .arg(&release)
                .args(["--target", windows]),
        );
        let listing = run_ok(Command::new("unzip").arg("-Z1").arg(zip.trim()));
        let mut names: Vec<&str> = listing.lines().collect();
        names.sort_unstable();
        assert_eq!(names, ["README.md", "toolgate.exe"], "{listing}");
        let to = dir.join("bin-windows");
        let out = run(script("install.sh")
            .args([
                "--version",
                version,
                "--base",
                &base,
                "--target",
                windows,
                "--to",
            ])
            .arg(&to));
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            run_ok(Command::new(to.join("toolgate.exe")).arg("--version")),
            version_line()
        );
    }
}

/// An npm command run in `project` with no registry: every fetch goes to a closed port (and
/// the commands below pass --offline, which forbids the network).
fn npm_offline(cmd: &mut Command, project: &Path, cache: &Path) {
    cmd.current_dir(project)
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_cache", cache)
        .env("npm_config_update_notifier", "false")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false");
}

/// An empty npm project at `project` with the tarballs installed into it, offline.
fn npm_install_offline(project: &Path, cache: &Path, tarballs: &[&str]) {
    fs::create_dir_all(project).expect("project");
    fs::write(project.join("package.json"), "{ \"private\": true }\n").expect("package.json");
    let mut install = Command::new("npm");
    install.args(["install", "--offline", "--no-save"]);
    install.args(tarballs);
    npm_offline(&mut install, project, cache);
    run_ok(&mut install);
}

/// `scripts/package-npm.sh` packs the launcher and this machine's platform package; both
/// install from their tarballs into an empty project with no registry reachable, and
/// `npx toolgate` runs the binary. The launcher refuses an unsupported platform by name.
#[test]
fn npm_packages_install_offline_and_npx_runs_them() {
    if !have("npm") || !have("node") {
        skip("node and npm are not installed");
        return;
    }
    let dir = scratch("distribution-npm");
    let packed = run_ok(
        script("package-npm.sh")
            .arg("--binary")
            .arg(binary_to_package())
            .arg("--out")
            .arg(dir.join("tarballs")),
    );
    let tarballs: Vec<&str> = packed.lines().collect();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(tarballs.len(), 2, "{packed}");
    assert!(
        tarballs[0].ends_with(&format!("/toolgate-{version}.tgz")),
        "{packed}"
    );
    assert!(tarballs[1].contains("/toolgate-cli-"), "{packed}");

    let project = dir.join("project");
    let npm_env = |cmd: &mut Command| npm_offline(cmd, &project, &dir.join("npm-cache"));
    npm_install_offline(&project, &dir.join("npm-cache"), &tarballs);

    let mut npx = Command::new("npx");
    npx.args(["--no-install", "--offline", "toolgate", "--version"]);
    npm_env(&mut npx);
    assert_eq!(run_ok(&mut npx), version_line());

    // The exit code passes through: the README's main job exits 1 with its summary.
    let mut npx = Command::new("npx");
    npx.args(["--no-install", "--offline", "toolgate", "lint"])
        .arg(repo_root().join("skills-fixtures"));
    npm_env(&mut npx);
    let out = run(&mut npx);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().last(),
        Some(readme_main_job().as_str())
    );

    // The launcher on a platform with no package: process.platform and process.arch as a
    // FreeBSD on RISC-V would report them.
    let fake = dir.join("fake-platform.js");
    fs::write(
        &fake,
        "Object.defineProperty(process, 'platform', { value: 'freebsd' });\n\
         Object.defineProperty(process, 'arch', { value: 'riscv64' });\n",
    )
    .expect("fake");
    let launcher = project.join("node_modules/toolgate/bin/toolgate.js");
    let out = run(Command::new("node")
        .arg("--require")
        .arg(&fake)
        .arg(&launcher)
        .arg("--version"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("process.platform freebsd, process.arch riscv64"),
        "{stderr}"
    );
    assert!(stderr.contains("pip install toolgate-cli"), "{stderr}");
    assert!(stderr.contains("scripts/install.sh"), "{stderr}");
    assert!(out.stdout.is_empty());

    // A supported platform whose package was left out (--omit=optional): the launcher names
    // the package it needs.
    let out = run(Command::new("node")
        .arg(repo_root().join("npm/toolgate/bin/toolgate.js"))
        .arg("--version"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("@toolgate/cli-") && stderr.contains("is not installed"),
        "{stderr}"
    );
}

/// The platforms of npm/toolgate/platforms.json as (key, entry), sorted by key.
fn npm_platforms() -> Vec<(String, serde_json::Value)> {
    let platforms: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
        &fs::read_to_string(repo_root().join("npm/toolgate/platforms.json")).expect("platforms"),
    )
    .expect("JSON");
    platforms.into_iter().collect()
}

/// The release's npm job (scripts/package-npm-release.sh) on a folder of archives for every
/// platform, as cargo-dist lays them out: each platform package holds the binary of its own
/// archive (a stand-in with the target's name in it, but for this machine's, which is the
/// real binary) with that platform's os, cpu and libc, the launcher comes last, and this
/// machine's pair installs offline and runs; a missing or tampered archive stops it with no
/// launcher written.
#[test]
fn release_npm_packages_come_from_every_archive() {
    if !have("npm") || !have("node") || !have_unzip() {
        skip("node, npm and unzip are not all installed");
        return;
    }
    let dir = scratch("distribution-npm-release");
    let host = run_ok(Command::new("node").args([
        "-e",
        "const musl = process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime;\n\
         console.log(`${process.platform}-${process.arch}${musl ? '-musl' : ''}`)",
    ]));
    let host = host.trim();
    let platforms = npm_platforms();
    assert!(
        platforms.iter().any(|(key, _)| key == host),
        "no platform package for this machine ({host})"
    );
    let archives = dir.join("archives");
    let mut binaries = Vec::new();
    for (key, entry) in &platforms {
        let target = entry["target"].as_str().expect("target");
        let binary = if key == host {
            binary_to_package()
        } else {
            let stand_in = dir.join(format!("stand-in-{target}"));
            fs::write(&stand_in, format!("the toolgate binary for {target}\n")).expect("write");
            stand_in
        };
        run_ok(
            script("package-archive.sh")
                .arg("--binary")
                .arg(&binary)
                .arg("--out")
                .arg(&archives)
                .args(["--target", target])
                .env("XZ_OPT", "-0"),
        );
        binaries.push(fs::read(&binary).expect("binary"));
    }
    let out = dir.join("npm");
    let packed = run_ok(
        script("package-npm-release.sh")
            .arg("--archives")
            .arg(&archives)
            .arg("--out")
            .arg(&out),
    );
    let version = env!("CARGO_PKG_VERSION");
    let tarballs: Vec<&str> = packed.lines().collect();
    assert_eq!(tarballs.len(), platforms.len() + 1, "{packed}");
    let launcher = tarballs[platforms.len()];
    assert!(
        launcher.ends_with(&format!("/toolgate-{version}.tgz")),
        "the launcher is published last: {packed}"
    );
    let platform_tarballs = &tarballs[..platforms.len()];
    let unpacked = dir.join("unpacked");
    for ((key, entry), binary) in platforms.iter().zip(&binaries) {
        let name = format!("/toolgate-cli-{key}-{version}.tgz");
        let tarball = platform_tarballs
            .iter()
            .find(|t| t.ends_with(&name))
            .unwrap_or_else(|| panic!("{key}: no {name} before the launcher in {packed}"));
        let into = unpacked.join(key);
        fs::create_dir_all(&into).expect("unpack");
        run_ok(
            Command::new("tar")
                .arg("-xzf")
                .arg(tarball)
                .arg("-C")
                .arg(&into),
        );
        let manifest: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(into.join("package/package.json")).expect("package.json"),
        )
        .expect("JSON");
        assert_eq!(manifest["name"], entry["package"], "{key}");
        assert_eq!(manifest["version"], version, "{key}");
        assert_eq!(manifest["os"], serde_json::json!([entry["os"]]), "{key}");
        assert_eq!(manifest["cpu"], serde_json::json!([entry["cpu"]]), "{key}");
        match entry.get("libc") {
            Some(libc) => assert_eq!(manifest["libc"], serde_json::json!([libc]), "{key}"),
            None => assert!(manifest.get("libc").is_none(), "{key}: {manifest}"),
        }
        let exe = if entry["os"] == "win32" {
            "toolgate.exe"
        } else {
            "toolgate"
        };
        let packaged = fs::read(into.join("package/bin").join(exe))
            .unwrap_or_else(|e| panic!("{key}: no bin/{exe} in {tarball}: {e}"));
        assert!(
            packaged == *binary,
            "{key}: bin/{exe} is not the binary of toolgate-{}'s archive",
            entry["target"]
        );
    }

    // This machine's platform package and the launcher install and run offline.
    let host_tarball = platform_tarballs
        .iter()
        .copied()
        .find(|t| t.ends_with(&format!("/toolgate-cli-{host}-{version}.tgz")))
        .expect("this machine's package");
    let project = dir.join("project");
    npm_install_offline(&project, &dir.join("npm-cache"), &[host_tarball, launcher]);
    let mut npx = Command::new("npx");
    npx.args(["--no-install", "--offline", "toolgate", "--version"]);
    npm_offline(&mut npx, &project, &dir.join("npm-cache"));
    assert_eq!(run_ok(&mut npx), version_line());

    // One archive missing: exit 1 naming it, and no launcher (nothing to publish).
    let (gone_key, gone) = &platforms[platforms.len() - 2];
    let gone_archive = archives.join(format!(
        "toolgate-{}.tar.xz",
        gone["target"].as_str().expect("target")
    ));
    let moved = dir.join("moved.tar.xz");
    fs::rename(&gone_archive, &moved).expect("move the archive away");
    let out_missing = dir.join("npm-missing");
    let res = run(script("package-npm-release.sh")
        .arg("--archives")
        .arg(&archives)
        .arg("--out")
        .arg(&out_missing));
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("(platform {gone_key})")),
        "{stderr}"
    );
    assert!(res.stdout.is_empty(), "{res:?}");
    assert!(
        fs::read_dir(&out_missing).map_or(true, |mut d| d.next().is_none()),
        "a refused release left packages in {}",
        out_missing.display()
    );

    // The archive back, one byte changed: its checksum no longer matches.
    let mut bytes = fs::read(&moved).expect("archive");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    fs::write(&gone_archive, bytes).expect("tamper");
    let res = run(script("package-npm-release.sh")
        .arg("--archives")
        .arg(&archives)
        .arg("--out")
        .arg(dir.join("npm-tampered")));
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
}

/// The release workflow builds and publishes every platform the npm launcher and
/// scripts/install.sh know: the archives' targets (dist-workspace.toml) are platforms.json's,
/// each has a wheel in .github/workflows/build-wheels.yml, publish-pypi.yml expects that many
/// wheels, and release.yml (what `dist generate` writes) calls the three jobs.
#[test]
fn release_workflow_covers_every_platform() {
    let read = |path: &str| {
        fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let dist = read("dist-workspace.toml");
    let block = &dist[dist.find("\ntargets = [").expect("dist targets")..];
    let block = &block[..block.find(']').expect("end of targets")];
    let mut dist_targets: Vec<&str> = block
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
        .collect();
    dist_targets.sort_unstable();
    let mut npm_targets: Vec<String> = npm_platforms()
        .into_iter()
        .map(|(_, e)| e["target"].as_str().expect("target").to_string())
        .collect();
    npm_targets.sort_unstable();
    assert_eq!(dist_targets, npm_targets);

    let wheels = read(".github/workflows/build-wheels.yml");
    for target in &dist_targets {
        assert!(
            wheels.contains(&format!("target: {target},")),
            "no wheel for {target} in build-wheels.yml"
        );
    }
    assert_eq!(wheels.matches(", target: ").count(), dist_targets.len());
    let pypi = read(".github/workflows/publish-pypi.yml");
    assert!(
        pypi.contains(&format!(
            "test \"$(ls dist/*.whl | wc -l)\" -eq {}",
            dist_targets.len()
        )),
        "{pypi}"
    );
    let release = read(".github/workflows/release.yml");
    for (key, job) in [
        ("local-artifacts-jobs", "build-wheels"),
        ("publish-jobs", "publish-pypi"),
        ("publish-jobs", "publish-npm"),
    ] {
        assert!(
            dist.lines()
                .any(|l| l.starts_with(key) && l.contains(&format!("\"./{job}\""))),
            "dist-workspace.toml: {key} has no ./{job}"
        );
        assert!(
            release.contains(&format!("uses: $/.github/workflows/{job}.yml")),
            "release.yml does not call {job}.yml: run `dist generate` after changing \
             dist-workspace.toml"
        );
    }
}

/// The wheel maturin builds (ci-release, so it reuses CI's build of the binary), once for
/// the tests that need it.
fn wheel_dir(python: &Path) -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("distribution-wheel");
        run_ok(
            without_test_env(Command::new(python))
                .args([
                    "-m",
                    "maturin",
                    "build",
                    "--profile",
                    "ci-release",
                    "--locked",
                    "--out",
                ])
                .arg(&dir)
                .current_dir(repo_root()),
        );
        dir
    })
}

/// The wheel's file in a folder.
fn wheel_in(dir: &Path) -> PathBuf {
    let wheels: Vec<PathBuf> = fs::read_dir(dir)
        .expect("wheel folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    wheels.into_iter().next().expect("one wheel")
}

/// A fresh virtual environment with a python that has pip.
fn fresh_venv(python: &Path, dir: &Path) -> PathBuf {
    run_ok(Command::new(python).args(["-m", "venv"]).arg(dir));
    dir.join("bin")
}

#[test]
fn wheel_installs_with_no_index_and_runs_the_main_job() {
    let (Some(_), Some(python)) = (dist_binary(), dist_python()) else {
        skip("TOOLGATE_DIST_BINARY and TOOLGATE_DIST_PYTHON (maturin) are not set");
        return;
    };
    let wheels = wheel_dir(&python);
    let wheel = wheel_in(wheels);
    let name = wheel.file_name().and_then(|n| n.to_str()).expect("name");
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        name.starts_with(&format!("toolgate_cli-{version}-py3-none-")),
        "{name}"
    );
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert!(name.contains("manylinux"), "{name}");
    }

    let dir = scratch("distribution-wheel-venv");
    let bin = fresh_venv(&python, &dir.join("venv"));
    run_ok(
        Command::new(bin.join("python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-index",
                "--find-links",
            ])
            .arg(wheels)
            .arg("toolgate-cli"),
    );
    let toolgate = bin.join("toolgate");
    assert_eq!(
        run_ok(Command::new(&toolgate).arg("--version")),
        version_line()
    );
    assert_main_job(&toolgate);
}

/// The sdist holds the whole workspace the binary needs (every member crate the root depends
/// on, the lockfile, the bundled catalogs), so `pip install` builds it from source where no
/// wheel fits: cargo resolves the unpacked sdist offline against its own lockfile.
#[test]
fn sdist_holds_what_a_source_build_needs() {
    let Some(python) = dist_python() else {
        skip("TOOLGATE_DIST_PYTHON (maturin) is not set");
        return;
    };
    let dir = scratch("distribution-sdist");
    run_ok(
        Command::new(&python)
            .args(["-m", "maturin", "sdist", "--out"])
            .arg(dir.join("out"))
            .current_dir(repo_root()),
    );
    let version = env!("CARGO_PKG_VERSION");
    let sdist = dir
        .join("out")
        .join(format!("toolgate_cli-{version}.tar.gz"));
    assert!(sdist.is_file(), "no {}", sdist.display());
    run_ok(
        Command::new("tar")
            .arg("-xzf")
            .arg(&sdist)
            .arg("-C")
            .arg(&dir),
    );
    let root = dir.join(format!("toolgate_cli-{version}"));
    for file in [
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "src/main.rs",
        "generated/Cargo.toml",
        "schema/Cargo.toml",
        "serve/Cargo.toml",
        "lint/Cargo.toml",
        "lsp/Cargo.toml",
        "generated/catalogs/tatara/profiles.json",
        "generated/catalogs/maetra/profiles.json",
    ] {
        assert!(root.join(file).is_file(), "the sdist has no {file}");
    }
    let metadata = run_ok(
        Command::new(env!("CARGO"))
            .args([
                "metadata",
                "--offline",
                "--locked",
                "--format-version",
                "1",
                "--no-deps",
            ])
            .current_dir(&root),
    );
    let metadata: serde_json::Value = serde_json::from_str(&metadata).expect("metadata JSON");
    let names: Vec<&str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    assert!(names.contains(&"toolgate"), "{names:?}");
    // A build from the sdist is the shipped binary's: maturin builds the `dist` profile
    // (fat LTO, one codegen unit, stripped), which the sdist's Cargo.toml still defines.
    let read = |file: &str| fs::read_to_string(root.join(file)).expect(file);
    let (pyproject, cargo_toml) = (read("pyproject.toml"), read("Cargo.toml"));
    let maturin = toml_section(&pyproject, "tool.maturin");
    assert!(
        maturin.contains(&"profile = \"dist\""),
        "the sdist's [tool.maturin] does not build the dist profile: {maturin:?}"
    );
    let dist = toml_section(&cargo_toml, "profile.dist");
    for line in ["lto = \"fat\"", "codegen-units = 1"] {
        assert!(
            dist.contains(&line),
            "the sdist's [profile.dist] lacks {line}: {dist:?}"
        );
    }
    let release = toml_section(&cargo_toml, "profile.release");
    assert!(
        release.contains(&"strip = true"),
        "[profile.release], which dist inherits, no longer strips: {release:?}"
    );
}

/// The lines of one `[NAME]` table of a TOML file (comments and blank lines left out): enough
/// to read the few keys the tests hold without a TOML parser in the dev-dependencies.
fn toml_section<'t>(text: &'t str, name: &str) -> Vec<&'t str> {
    let header = format!("[{name}]");
    text.lines()
        .map(str::trim)
        .skip_while(|line| *line != header)
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
}

/// The hooks of pre-commit/ are the root's, with `language: python` for `language: rust`.
#[test]
fn pre_commit_template_has_the_root_hooks() {
    let hooks = |path: &str| {
        fs::read_to_string(repo_root().join(path))
            .expect(path)
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.replace("language: rust", "language: python"))
            .collect::<Vec<_>>()
    };
    let root = hooks(".pre-commit-hooks.yaml");
    assert!(root.iter().any(|l| l.contains("language: python")));
    assert_eq!(hooks("pre-commit/.pre-commit-hooks.yaml"), root);
}

/// `pre-commit try-repo` on a hook repository made of pre-commit/, its package installed
/// with no index from the locally built wheel: the toolgate-lint hook fails on a skill that
/// calls tools the surface does not have, and names them.
#[test]
fn pre_commit_template_runs_the_wheel() {
    let (Some(_), Some(python)) = (dist_binary(), dist_python()) else {
        skip("TOOLGATE_DIST_BINARY and TOOLGATE_DIST_PYTHON (pre-commit) are not set");
        return;
    };
    let Some(build_wheels) = std::env::var_os("TOOLGATE_DIST_WHEELS").map(PathBuf::from) else {
        skip("TOOLGATE_DIST_WHEELS (tests/distribution/hook-wheels.txt, downloaded) is not set");
        return;
    };
    let wheels = wheel_dir(&python);
    let dir = scratch("distribution-pre-commit");
    let git = |cwd: &Path, args: &[&str]| {
        run_ok(
            Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c"])
                .arg("init.defaultBranch=main")
                .args(args)
                .current_dir(cwd),
        )
    };
    // The hook repository: the template's files at its root, committed.
    let hooks = dir.join("hooks");
    common::copy_tree(&repo_root().join("pre-commit"), &hooks);
    git(&hooks, &["init", "-q"]);
    git(&hooks, &["add", "."]);
    git(&hooks, &["commit", "-q", "-m", "hooks"]);
    // The repository it runs in: the unknown-tool case of skills-fixtures (a misspelt tool
    // and one tatara does not have), against the bundled tatara catalog.
    let work = dir.join("work");
    fs::create_dir_all(work.join("skills/triage")).expect("work");
    fs::write(work.join("toolgate.toml"), "catalog = \"tatara\"\n").expect("toml");
    fs::copy(
        repo_root().join("skills-fixtures/unknown-tool/SKILL.md"),
        work.join("skills/triage/SKILL.md"),
    )
    .expect("skill");
    git(&work, &["init", "-q"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "work"]);

    let find_links = format!("{} {}", wheels.display(), build_wheels.display());
    let out = run(Command::new(&python)
        .args(["-m", "pre_commit", "try-repo"])
        .arg(&hooks)
        .args(["toolgate-lint", "--all-files", "--verbose"])
        .current_dir(&work)
        .env("PRE_COMMIT_HOME", dir.join("cache"))
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", find_links)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("toolgate lint"), "{stdout}");
    assert!(stdout.contains("Failed"), "{stdout}");
    assert!(stdout.contains("code_serch"), "{stdout}");
    assert!(stdout.contains("close_ticket"), "{stdout}");
    assert!(stdout.contains("skills/triage/SKILL.md"), "{stdout}");
}

/// The root package can be published (`cargo install toolgate`): it packages, and the
/// bundled catalogs it compiles in travel in toolgate-generated's package.
#[test]
fn root_package_is_publishable_and_the_catalogs_travel() {
    let list = |package: &str| {
        run_ok(
            Command::new(env!("CARGO"))
                .args(["package", "--list", "--allow-dirty", "--offline", "-p"])
                .arg(package)
                .current_dir(repo_root()),
        )
    };
    let root = list("toolgate");
    for file in ["Cargo.toml", "Cargo.lock", "src/main.rs", "README.md"] {
        assert!(root.lines().any(|l| l == file), "no {file} in\n{root}");
    }
    let generated = list("toolgate-generated");
    for catalog in ["tatara", "maetra"] {
        let file = format!("catalogs/{catalog}/profiles.json");
        assert!(generated.lines().any(|l| l == file), "no {file}");
        assert!(
            generated
                .lines()
                .any(|l| l.starts_with(&format!("catalogs/{catalog}/tools/"))),
            "no tools of {catalog}"
        );
    }
}

/// The shell steps of `action.yml` run as the runner runs them (`bash -eo pipefail`; its
/// `uses:` steps, the cache and the SARIF upload, left out) by
/// tests/distribution/run_action.py: the release archive installed from a `file://` mirror
/// into the tool cache, the lint run with annotations, and the job's verdict.
fn run_action(
    python: &Path,
    scratch_dir: &Path,
    inputs: &serde_json::Value,
) -> Vec<serde_json::Value> {
    let out = run_ok(
        Command::new(python)
            .arg(repo_root().join("tests/distribution/run_action.py"))
            .arg(repo_root().join("action.yml"))
            .arg(scratch_dir)
            .arg(inputs.to_string())
            .current_dir(repo_root()),
    );
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line per step"))
        .collect()
}

#[test]
fn action_installs_the_archive_and_lints() {
    let Some(python) = dist_python() else {
        skip("TOOLGATE_DIST_PYTHON (PyYAML, with pre-commit) is not set");
        return;
    };
    let dir = scratch("distribution-action");
    let version = env!("CARGO_PKG_VERSION");
    run_ok(
        script("package-archive.sh")
            .arg("--binary")
            .arg(binary_to_package())
            .arg("--out")
            .arg(dir.join("releases").join(format!("v{version}")))
            .env("XZ_OPT", "-0"),
    );
    let releases = format!("file://{}", dir.join("releases").display());
    let root = repo_root().display().to_string();
    let step = |steps: &[serde_json::Value], id: &str| -> serde_json::Value {
        steps
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no step {id}: {steps:?}"))
            .clone()
    };

    // Findings, with SARIF: the lint's exit 1 is kept for after the upload, the SARIF file
    // is written, the annotations printed, and the last step fails the job.
    let run = dir.join("findings");
    let steps = run_action(
        &python,
        &run,
        &serde_json::json!({
            "args": "skills-fixtures", "sarif": "true",
            "releases": releases, "working-directory": root,
        }),
    );
    let resolve = step(&steps, "resolve");
    assert_eq!(resolve["outputs"]["version"], version, "{resolve}");
    let installed = PathBuf::from(resolve["outputs"]["dir"].as_str().expect("dir"));
    assert!(installed.starts_with(run.join("tool-cache")), "{resolve}");
    assert!(installed.join("toolgate").is_file(), "{resolve}");
    let lint = step(&steps, "lint");
    assert_eq!(lint["code"], 0, "{lint}");
    assert_eq!(lint["outputs"]["exit-code"], "1", "{lint}");
    let stdout = lint["stdout"].as_str().expect("stdout");
    assert!(stdout.starts_with(&version_line()), "{stdout}");
    assert!(stdout.contains("::error file=skills-fixtures/"), "{stdout}");
    let sarif: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(run.join("runner-temp/toolgate.sarif")).expect("the SARIF file"),
    )
    .expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    assert!(
        !sarif["runs"][0]["results"]
            .as_array()
            .expect("results")
            .is_empty()
    );
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("upload-sarif"))
        })
        .expect("the upload step");
    assert_eq!(upload["ran"], false, "{upload}");
    let verdict = steps.last().expect("steps");
    assert_eq!(verdict["code"], 1, "{verdict}");

    // No findings, no SARIF: exit 0 throughout.
    let steps = run_action(
        &python,
        &dir.join("clean"),
        &serde_json::json!({
            "args": "skills-fixtures/clean-calls", "releases": releases,
            "working-directory": root,
        }),
    );
    assert_eq!(step(&steps, "lint")["outputs"]["exit-code"], "0");
    let verdict = steps.last().expect("steps");
    assert_eq!(verdict["code"], 0, "{verdict}");
}
