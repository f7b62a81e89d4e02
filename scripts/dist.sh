#!/usr/bin/env bash
# Builds the release binary to ship: `dist/agentpi` without debug info (about a sixth of the
# size), and `dist/agentpi.debug` with it, which the binary names (.gnu_debuglink) so that a
# backtrace still has file and line when the two sit side by side. Needs binutils (objcopy).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p agentpi
mkdir -p dist
cp target/release/agentpi dist/agentpi.full
objcopy --only-keep-debug dist/agentpi.full dist/agentpi.debug
objcopy --strip-debug --add-gnu-debuglink=dist/agentpi.debug dist/agentpi.full dist/agentpi
rm dist/agentpi.full
chmod 0644 dist/agentpi.debug
ls -l dist/agentpi dist/agentpi.debug
