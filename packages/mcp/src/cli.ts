#!/usr/bin/env node
// `npx @toolmark/mcp --allow-origin http://localhost:5173`: a stdio MCP server for desktop clients.
// stdout carries only JSON-RPC; every log line goes to stderr.
import { parseArgs } from 'node:util'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import { DEFAULT_PORT, startRelay } from './relay.ts'

const USAGE = `Usage: toolmark-mcp --allow-origin <origin> [--allow-origin <origin>…] [--port <n>] [--call-timeout <ms>]

  --allow-origin  exact page origin allowed to pair, e.g. http://localhost:5173 (required, repeatable; never *)
  --port          loopback WebSocket port for pages (default ${DEFAULT_PORT}; 0 picks a free one)
  --call-timeout  how long a call may take, the user's confirmation included (default 300000 ms)`

function fail(message: string): never {
  process.stderr.write(`[toolmark-mcp] ${message}\n${USAGE}\n`)
  process.exit(2)
}

let values: { 'allow-origin'?: string[]; port?: string; 'call-timeout'?: string; help?: boolean }
try {
  ;({ values } = parseArgs({
    options: {
      'allow-origin': { type: 'string', multiple: true },
      port: { type: 'string' },
      'call-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }))
} catch (err) {
  fail((err as Error).message)
}
if (values.help) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(0)
}
const origins = values['allow-origin'] ?? []
if (origins.length === 0) fail('Pass at least one --allow-origin (there is no default: never *).')
const port = values.port === undefined ? DEFAULT_PORT : Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`Invalid --port ${values.port}`)
const callTimeoutMs = values['call-timeout'] === undefined ? undefined : Number(values['call-timeout'])
if (callTimeoutMs !== undefined && !(callTimeoutMs > 0))
  fail(`Invalid --call-timeout ${values['call-timeout']}`)

try {
  const relay = await startRelay({
    allowedOrigins: origins,
    port,
    ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }),
  })
  process.stderr.write(`[toolmark-mcp] pages connect to ws://127.0.0.1:${relay.port}\n`)
  // The client's opening picks the protocol: 2025 revisions after initialize, 2026-07-28 otherwise.
  await relay.connect(new StdioServerTransport())
  process.stdin.on('end', () => {
    void relay.close().then(() => process.exit(0))
  })
} catch (err) {
  fail((err as Error).message)
}
