#!/usr/bin/env bash
# The README's test command: installs everything, then lint, typecheck, unit and integration tests,
# build, package checks (publint, attw), bundle budgets, and the browser end-to-end suites.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1
rm -rf test-results
pnpm run check
node scripts/summary.mjs
