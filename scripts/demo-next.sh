#!/usr/bin/env bash
# `npm run demo:next`: install, build the packages and the Next.js demo (apps/next-demo), then serve it
# with `next start` alone: the agent runs in the app's route handlers (@toolmark/server), the page talks
# to it over the bridge's HTTP transport, with the embedded offline agent, on 127.0.0.1.
# Needs only Node (>= 20.19) and npm; no network but the npm registry, no API key.
# Environment: PORT (default 3000), HOST (default 127.0.0.1); the route handlers read PROVIDER,
# ANTHROPIC_API_KEY, OPENAI_API_KEY, CALL_DEADLINE_MS, ... (apps/next-demo/src/agent.ts).
set -euo pipefail

PNPM_VERSION=10.34.9
export PORT="${PORT:-3000}" HOST="${HOST:-127.0.0.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }
fail() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || fail "Node.js >= 20.19 is required (https://nodejs.org)."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || fail "Node.js >= 20.19 is required; this is $(node --version)."

PNPM=(pnpm)
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  say "Using npx pnpm@$PNPM_VERSION (the version the workspace pins)"
  PNPM=(npx --yes "pnpm@$PNPM_VERSION")
fi

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1
say "Installing dependencies (pnpm install --frozen-lockfile)"
"${PNPM[@]}" install --frozen-lockfile || fail "pnpm install failed (see above)."

say "Building the packages and the Next.js demo (next build)"
"${PNPM[@]}" exec turbo run build --filter=@toolmark-apps/next-demo... --output-logs=errors-only

say "Starting http://$HOST:$PORT (next start: the app and its agent's route handlers, embedded offline agent)"
cat <<EOF2

  Open it and type in the chat on the right, e.g.:
    Search for chess · Delete the challenge Marathon Training · Go to settings · Where am I?
  Open a challenge, then: Show the challenge details

  Press Ctrl+C to stop.

EOF2
# Node runs Next's own command directly (no pnpm wrapper, which would report Ctrl+C as a failed command):
# Ctrl+C reaches it once, and `next start` stops with exit code 0.
cd apps/next-demo
exec node node_modules/next/dist/bin/next start -H "$HOST" -p "$PORT"
