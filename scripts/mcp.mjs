#!/usr/bin/env node
// `npm run --silent mcp -- --allow-origin <origin> …`: the desktop MCP relay (@toolmark/mcp) from a clone.
// The @toolmark/* packages are not on the npm registry yet, so `npx @toolmark/mcp` cannot work; this builds
// the relay and what it depends on (@toolmark/core) when they are missing or stale, then starts it with the
// arguments given. Stdout carries only the relay's JSON-RPC: the build's output goes to stderr.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const turbo = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'turbo.cmd' : 'turbo')
if (!existsSync(turbo)) {
  process.stderr.write(
    '[toolmark-mcp] The workspace is not installed: run `npm run setup` in the clone first.\n',
  )
  process.exit(1)
}

// Turbo rebuilds only what changed (its cache restores the rest); `...` includes @toolmark/core.
const build = spawnSync(turbo, ['run', 'build', '--filter=@toolmark/mcp...', '--output-logs=errors-only'], {
  cwd: root,
  stdio: ['ignore', 2, 2],
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
})
if (build.status !== 0) {
  process.stderr.write('[toolmark-mcp] Building @toolmark/mcp failed (see above).\n')
  process.exit(build.status ?? 1)
}

const relay = spawn(
  process.execPath,
  [join(root, 'packages', 'mcp', 'dist', 'cli.mjs'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => relay.kill(signal))
relay.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
