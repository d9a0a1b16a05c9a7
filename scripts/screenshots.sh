#!/usr/bin/env bash
# Refreshes the README's screenshots of the demo (docs/images/demo-desktop.png and demo-phone.png): they are
# the ones the demo's phone e2e test takes (the Delete card open), written to a temporary folder and copied.
# Needs Chromium (scripts/setup.sh installs it). Run: pnpm screenshots
set -euo pipefail
cd "$(dirname "$0")/.."
shots="$(mktemp -d)"
trap 'rm -rf "$shots"' EXIT
TOOLMARK_SCREENSHOT_DIR="$shots" pnpm --filter @toolmark-apps/demo exec vitest run --config vitest.e2e.config.ts e2e/phone.test.ts
mkdir -p docs/images
cp "$shots/demo-desktop.png" "$shots/demo-phone.png" docs/images/
echo "Updated docs/images/demo-desktop.png and docs/images/demo-phone.png"
