#!/usr/bin/env bash
# Refreshes the READMEs' screenshots (docs/images/demo-desktop.png, demo-phone.png and next-demo-phone.png):
# they are the ones the demos' viewport e2e tests take (the Delete card open), written to a temporary folder
# and copied. Builds the Next demo first (its e2e suite serves the production build).
# Needs Chromium (scripts/setup.sh installs it). Run: pnpm screenshots
set -euo pipefail
cd "$(dirname "$0")/.."
shots="$(mktemp -d)"
trap 'rm -rf "$shots"' EXIT
TOOLMARK_SCREENSHOT_DIR="$shots" pnpm --filter @toolmark-apps/demo exec vitest run --config vitest.e2e.config.ts e2e/phone.test.ts
pnpm exec turbo run build --filter=@toolmark-apps/next-demo... --output-logs=errors-only
TOOLMARK_SCREENSHOT_DIR="$shots" pnpm --filter @toolmark-apps/next-demo exec vitest run --config vitest.e2e.config.ts e2e/first-run.test.ts -t "layout"
mkdir -p docs/images
cp "$shots/demo-desktop.png" "$shots/demo-phone.png" docs/images/
cp "$shots/next-demo-phone.png" docs/images/
echo "Updated docs/images/demo-desktop.png, demo-phone.png and next-demo-phone.png"
