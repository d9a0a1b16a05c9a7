#!/usr/bin/env bash
# Installs everything the tests and the demo need on a fresh machine with only Node.js and npm:
# pnpm (pinned), Debian's Chromium, php-cli, php-laravel-framework, php-sqlite3, phpunit, php-redis,
# redis-server and postgresql-15 (browser tests, the PHP doc lint, the Laravel package's tests, the Inertia
# demo's backend and @toolmark/server's shared-mode tests; needs root or sudo), then the workspace's packages from the lockfile. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1

PNPM_VERSION=10.34.9
if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  echo "› installing pnpm@$PNPM_VERSION"
  npm install -g "pnpm@$PNPM_VERSION" >/dev/null
fi

if [ "${1:-}" != "--no-system" ]; then
  missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  command -v php >/dev/null 2>&1 || missing+=(php-cli)
  # Laravel 8 from Debian, with SQLite: the Inertia demo's backend and the server-declared tools' test.
  [ -f /usr/share/php/Illuminate/autoload.php ] || missing+=(php-laravel-framework)
  php -m 2>/dev/null | grep -qx pdo_sqlite || missing+=(php-sqlite3)
  # PHPUnit 9 from Debian: the tests of the Laravel package (packages/laravel), and Redis for its Redis test.
  command -v phpunit >/dev/null 2>&1 || missing+=(phpunit)
  php -m 2>/dev/null | grep -qx redis || missing+=(php-redis)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  # PostgreSQL 15: @toolmark/server's PostgreSQL store and multi-instance tests start their own server.
  [ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "› installing ${missing[*]} from Debian"
    SUDO=""
    if [ "$(id -u)" != "0" ]; then
      if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "✗ ${missing[*]} missing and not root: install them with apt-get (Debian) and run again" >&2
        exit 1
      fi
    fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

echo "› pnpm install"
pnpm install --frozen-lockfile
