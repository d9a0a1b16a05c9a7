#!/usr/bin/env bash
# `pnpm check`: every check in order (lint, typecheck, unit and integration tests, the Laravel package's
# PHPUnit tests, the bridge protocol's conformance suite against both servers, build, package checks, bundle
# budgets, browser end-to-end suites), stopping at the first
# failure, with how long each step took (the CI log then tells where its time goes).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=(lint typecheck test test:php conformance build test:build size test:e2e)
took=()
for step in "${steps[@]}"; do
  start=$SECONDS
  echo "› pnpm $step"
  pnpm run "$step"
  # The typecheck ran tsc over every package's sources, type tests (*.test-d.ts) included, so vitest need
  # not check them again (run alone, `pnpm test` still does).
  if [ "$step" = typecheck ]; then export TOOLMARK_TYPES_CHECKED=1; fi
  took+=("$step $((SECONDS - start)) s")
done
echo "› check took $SECONDS s: ${took[*]/%/,}"
