#!/usr/bin/env bash
# `npm run demo:inertia`: install (pnpm, and Debian's php-cli, php-laravel-framework and php-sqlite3 when
# missing: that part needs root or sudo), build the packages and the Inertia demo's page, then start the
# whole demo on loopback: Laravel 8 under `php -S` with its queue worker, the Pusher protocol server and
# the embedded offline agent. It prints the URL to open; Ctrl+C stops everything with one line.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1m==>\033[0m %s\n' "$*"; }

bash scripts/setup.sh
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TURBO_TELEMETRY_DISABLED=1
say "Building the packages and the Inertia demo's page"
pnpm exec turbo run build --filter=@toolmark-apps/inertia-demo... --output-logs=errors-only
# Node runs the server directly (no pnpm wrapper, which would report Ctrl+C as a failed command).
cd apps/inertia-demo
exec node --conditions=@toolmark/source --import tsx scripts/serve.ts
