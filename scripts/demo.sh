#!/usr/bin/env bash
# The README's first command (`npm run demo`): install, build the demo app, start the reference agent
# server with the embedded offline agent on 127.0.0.1, and say what to type in the chat.
#
# Needs only Node (>= 20.19) and npm. Talks to no network but the npm registry, needs no API key.
# Environment: PORT (default 8787). Anything else is passed through to the agent server
# (see `pnpm --filter @toolmark-apps/agent-server start -- --help`).
set -euo pipefail

PNPM_VERSION=10.34.9
PORT="${PORT:-8787}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }
fail() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# 1. Node
command -v node >/dev/null 2>&1 || fail "Node.js >= 20.19 is required (https://nodejs.org)."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || fail "Node.js >= 20.19 is required; this is $(node --version)."

# Fail fast when the port is taken (before installing and building).
if [ "$PORT" != "0" ] && ! node -e '
  const s = require("node:net").createServer()
  s.once("error", () => process.exit(1))
  s.listen(Number(process.argv[1]), "127.0.0.1", () => s.close(() => process.exit(0)))
' "$PORT"; then
  fail "Port $PORT on 127.0.0.1 is already in use (another demo still running?). Stop it, or pick another port: PORT=$((PORT + 1)) npm run demo"
fi

# 2. pnpm (exactly the version the workspace pins)
PNPM=(pnpm)
if ! command -v pnpm >/dev/null 2>&1; then
  say "Installing pnpm@$PNPM_VERSION (npm install -g)"
  if ! npm install -g "pnpm@$PNPM_VERSION" >/dev/null 2>&1 || ! command -v pnpm >/dev/null 2>&1; then
    say "Global install not possible here; using npx pnpm@$PNPM_VERSION"
    PNPM=(npx --yes "pnpm@$PNPM_VERSION")
  fi
elif [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  say "Found pnpm $(pnpm --version); the workspace pins $PNPM_VERSION. Using npx pnpm@$PNPM_VERSION for this run."
  PNPM=(npx --yes "pnpm@$PNPM_VERSION")
fi

# 3. Dependencies (the lockfile decides; a plain install only when there is none)
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TURBO_TELEMETRY_DISABLED=1
if [ -f pnpm-lock.yaml ]; then
  say "Installing dependencies (pnpm install --frozen-lockfile)"
  "${PNPM[@]}" install --frozen-lockfile \
    || fail "pnpm install failed. better-sqlite3 compiles from source when no prebuilt binary can be fetched: install python3, make and a C++ compiler, then run again."
else
  say "No pnpm-lock.yaml: installing dependencies (pnpm install)"
  "${PNPM[@]}" install
fi

# 4. Build the demo app (the agent server serves apps/demo/dist)
say "Building the demo app"
"${PNPM[@]}" --filter @toolmark-apps/demo build

# 5. Start the agent server with the embedded agent, wait until it answers, then print the URL.
# Node runs the server directly (no pnpm wrapper), so Ctrl+C reaches it once and nothing reports the stop as a
# failure: the server closes its sockets and the SQLite file and prints one line.
URL="http://127.0.0.1:$PORT"
say "Starting the agent server on $URL (embedded offline agent, no API key)"
set -m # the server gets its own process group: Ctrl+C goes to this script, which stops the server once
(cd apps/agent-server && HOST=127.0.0.1 PORT="$PORT" exec node --conditions=@toolmark/source --import tsx src/main.ts) &
SERVER_PID=$!
set +m
# The signal that stops this script is the one the server gets, so its last line names it (Ctrl+C: SIGINT).
# Under `npm run demo` or `pnpm demo` a second signal may follow (the runner passes its own on); the server
# stops once and names the first.
stop() { kill -"${1:-TERM}" "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }
trap 'stop INT; exit 0' INT
trap 'stop TERM; exit 0' TERM

node -e '
  const [url, pid] = [process.argv[1], Number(process.argv[2])]
  const alive = () => { try { process.kill(pid, 0); return true } catch { return false } }
  const deadline = Date.now() + 60_000
  const poll = () => fetch(url).then((r) => process.exit(r.ok ? 0 : 1), () =>
    Date.now() > deadline || !alive() ? process.exit(1) : setTimeout(poll, 250))
  poll()
' "$URL/" "$SERVER_PID" || { stop; fail "The agent server did not start on $URL (see the line above)."; }

cat <<EOF

  Toolmark demo is running:  $URL

  Open it and type in the chat on the right:
    Search for chess                              the agent calls challenges.search; results appear in the chat
    Create a challenge called Robotics            a confirmation card appears: Approve (or Reject)
    Delete the challenge Marathon Training        a Delete card ("This action can be undone from the page."); then Undo on the page
    What do the notes of Chess Openings say?      untrusted user text: the agent does not obey the injection in it
    Go to settings                                the agent navigates; the tool list changes
    then: Update my payment card to 4242 4242 4242 4242, CVC 123, expiry 12/29
                                                  the card shows the number and CVC as •••• only

  Press Ctrl+C to stop.

EOF
wait "$SERVER_PID"
