#!/usr/bin/env node
// The `toolgate` command of the npm package: finds the binary in the platform package npm
// installed beside this one (an optional dependency whose os/cpu/libc fields match this
// machine) and runs it with this process's arguments, standard streams and exit code.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

// Each platform with a prebuilt binary: its key (process.platform-process.arch, and
// "-musl" on a musl Linux), the package that holds the binary, and that package's os, cpu and
// libc fields. scripts/package-npm.sh writes the packages from the same file.
const PLATFORMS = require("../platforms.json");

const OTHER_WAYS =
  "Other ways to install toolgate: `pip install toolgate-cli` (or `uvx --from toolgate-cli toolgate`), " +
  "the release archives and scripts/install.sh (https://github.com/OWNER/toolgate/releases), " +
  "or `cargo install --locked toolgate` from source.";

// On Linux, whether the C library is glibc: Node's report names the glibc it runs on, and
// has no such field under musl.
function linuxLibc() {
  const report = process.report && process.report.getReport();
  const header = report && report.header;
  return header && header.glibcVersionRuntime ? "gnu" : "musl";
}

function platformKey() {
  const { platform, arch } = process;
  const musl = platform === "linux" && linuxLibc() === "musl";
  return `${platform}-${arch}${musl ? "-musl" : ""}`;
}

function fail(message) {
  process.stderr.write(`toolgate: ${message}\n`);
  process.exit(2);
}

function binaryPath() {
  const key = platformKey();
  const entry = Object.prototype.hasOwnProperty.call(PLATFORMS, key) ? PLATFORMS[key] : null;
  if (!entry) {
    fail(
      `no prebuilt binary for this platform (process.platform ${process.platform}, ` +
        `process.arch ${process.arch}${process.platform === "linux" ? `, libc ${linuxLibc()}` : ""}). ` +
        `Prebuilt: ${Object.keys(PLATFORMS).join(", ")}. ${OTHER_WAYS}`,
    );
  }
  const pkg = entry.package;
  const exe = process.platform === "win32" ? "toolgate.exe" : "toolgate";
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
  } catch (error) {
    if (error && error.code !== "MODULE_NOT_FOUND") {
      throw error;
    }
    fail(
      `the package ${pkg}, which holds the binary for ${key}, is not installed. ` +
        "npm installs it as an optional dependency of toolgate: install again without " +
        `--omit=optional or --no-optional (or add ${pkg} yourself). ${OTHER_WAYS}`,
    );
  }
  return undefined;
}

const result = spawnSync(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  fail(`could not run ${result.error.path || "the binary"}: ${result.error.message}`);
}
if (result.signal) {
  // Die of the same signal, so the caller sees what the binary saw.
  process.kill(process.pid, result.signal);
}
process.exit(result.status === null ? 2 : result.status);
