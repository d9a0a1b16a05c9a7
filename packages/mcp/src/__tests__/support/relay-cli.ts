import { fileURLToPath } from 'node:url'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { build } from 'esbuild'
import { type StaticServer, startStaticServer } from '../../../../../tests/support/static-server.ts'

/*
 * What the stdio tests share: the relay CLI started as a desktop client would start it, and a page
 * bundle served from a static origin.
 */

const CLI = fileURLToPath(new URL('../../cli.ts', import.meta.url))

/** A relay CLI started over stdio: the transport to connect a client to, and what it logged. */
export interface RelayCli {
  transport: StdioClientTransport
  /** The loopback WebSocket URL pages pair through, once the CLI has logged it. */
  wsUrl: Promise<string>
  /** Everything the CLI wrote to stderr so far. */
  stderr(): string
}

/** Starts the relay CLI under tsx, allowing pages from `allowOrigin`, on a free port. */
export function relayCli(allowOrigin: string): RelayCli {
  let stderr = ''
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--conditions=@toolmark/source',
      '--import',
      'tsx',
      CLI,
      '--allow-origin',
      allowOrigin,
      '--port',
      '0',
    ],
    stderr: 'pipe',
    // `--import tsx` resolves from the working directory: this package's, wherever vitest runs from.
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
  })
  const wsUrl = new Promise<string>((resolve) => {
    transport.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const m = /pages connect to (ws:\/\/127\.0\.0\.1:\d+)/.exec(stderr)
      if (m) resolve(m[1]!)
    })
  })
  return { transport, wsUrl, stderr: () => stderr }
}

/** Bundles a page script from this folder and serves it as `/app.html` on a static origin. */
export async function servePage(script: string, title: string): Promise<StaticServer> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL(script, import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    conditions: ['@toolmark/source'],
    logLevel: 'silent',
  })
  return startStaticServer({
    '/app.html': `<!doctype html><title>${title}</title><script type="module" src="/page.js"></script>`,
    '/page.js': bundle.outputFiles[0]!.text,
  })
}

/** Reads until `pred` holds, or throws after `ms` with the last value read. */
export async function until<T>(
  read: () => Promise<T> | T,
  pred: (v: T) => boolean,
  what: string,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await read()
    if (pred(v)) return v
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
