#!/usr/bin/env bash
# Refreshes the READMEs' screenshots (docs/images/demo-desktop.png, demo-phone.png, next-demo-phone.png and
# inertia-demo-phone.png):
# they are the ones the demos' viewport e2e tests take (the Delete card open), written to a temporary folder
# and copied. Builds the Next and Inertia demos first (their e2e suites serve the production builds).
# Needs Chromium and PHP (scripts/setup.sh installs them). Run: pnpm screenshots
set -euo pipefail
cd "$(dirname "$0")/.."
shots="$(mktemp -d)"
trap 'rm -rf "$shots"' EXIT
TOOLMARK_SCREENSHOT_DIR="$shots" pnpm --filter @toolmark-apps/demo exec vitest run --config vitest.e2e.config.ts e2e/phone.test.ts
pnpm exec turbo run build --filter=@toolmark-apps/next-demo... --output-logs=errors-only
TOOLMARK_SCREENSHOT_DIR="$shots" pnpm --filter @toolmark-apps/next-demo exec vitest run --config vitest.e2e.config.ts e2e/first-run.test.ts -t "layout"
pnpm --filter @toolmark-apps/inertia-demo build
TOOLMARK_SCREENSHOT_DIR="$shots" pnpm --filter @toolmark-apps/inertia-demo exec vitest run --config vitest.e2e.config.ts e2e/first-run.spec.ts -t "layout"
mkdir -p docs/images
cp "$shots/demo-desktop.png" "$shots/demo-phone.png" docs/images/
cp "$shots/next-demo-phone.png" "$shots/inertia-demo-phone.png" docs/images/
echo "Updated docs/images/demo-desktop.png, demo-phone.png, next-demo-phone.png and inertia-demo-phone.png"
