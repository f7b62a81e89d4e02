#!/bin/bash
# Two modern clients (asking_client.py) at once through `AGENTPI bridge --to legacy --listen`
# in front of the Python SDK 1.x server SERVER (a script of tests/bridge) on stdio: each
# client's line, the time from the clients' `go` to both answers, the report's notes and
# findings. For docs/bridge.md ("Which call asks": the turn's cost, and main's leak).
#
# tests/bridge/two_clients.sh AGENTPI SERVER [TOOL ARGUMENTS]
#   tests/bridge/two_clients.sh target/debug/agentpi asking_server.py
#   tests/bridge/two_clients.sh target/debug/agentpi crash_server.py slow '{"seconds": 1}'
set -eu
BIN=$(realpath "$1"); SERVER=$2; shift 2
cd "$(dirname "$0")/../.."
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$BIN" bridge --to legacy --listen 127.0.0.1:0 --record "$OUT/rec" --report "$OUT/report.json" \
    -- tests/peers/.venv-mcp1/bin/python "tests/bridge/$SERVER" 2> "$OUT/bridge.err" &
BRIDGE=$!
for _ in $(seq 150); do grep -q "listening on" "$OUT/bridge.err" && break; sleep 0.2; done
URL=$(grep -o "listening on .*" "$OUT/bridge.err" | sed 's/listening on //')
mkfifo "$OUT/a.in" "$OUT/b.in"
for NAME in A B; do
    timeout 120 tests/peers/.venv/bin/python tests/bridge/asking_client.py "$URL" "$NAME" "$@" \
        < "$OUT/${NAME,,}.in" > "$OUT/${NAME,,}.out" &
done
exec 3> "$OUT/a.in" 4> "$OUT/b.in"
for _ in $(seq 600); do grep -q ready "$OUT/a.out" && grep -q ready "$OUT/b.out" && break; sleep 0.1; done
START=$(date +%s.%N)
echo go >&3; echo go >&4
for _ in $(seq 1200); do
    [ "$(grep -c era "$OUT/a.out" "$OUT/b.out" | grep -c ':1$')" = 2 ] && break; sleep 0.05
done
END=$(date +%s.%N)
grep era "$OUT/a.out" "$OUT/b.out" | sed "s|$OUT/||"
echo "both answered in $(echo "$END - $START" | bc) s"
exec 3>&- 4>&-
wait %2 %3 2>/dev/null || true
kill -TERM $BRIDGE; wait $BRIDGE || true
python3 -c "import json; r = json.load(open('$OUT/report.json')); \
print('notes', r['bridge']['notes'], 'modern', r['modern']['violations'], 'legacy', r['legacy']['violations'])"
