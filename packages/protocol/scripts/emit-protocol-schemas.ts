/**
 * Writes the protocol v1 JSON Schemas from src/schemas.ts (their single source) to
 * dist/v1/page-to-agent.json and agent-to-page.json, the files exported as
 * `@toolmark/protocol/v1/*.json`, the extension messages' schemas (extensions-*.json), and dist/v1/wire.json: the wire constants and secret rules
 * (src/wire.ts, src/secrets.ts) for servers in other languages.
 *
 * Node 20 cannot run TypeScript, so `pnpm build` (after tsdown) runs `pnpm run emit:protocol-schemas`,
 * which bundles this script with esbuild into node_modules/.cache/toolmark/ and runs it with node.
 * The output directory is the first argument, resolved against the working directory (the package
 * directory under pnpm; default `dist/v1`).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { extensionSchemas } from '../src/extensions.ts'
import { protocolSchemas } from '../src/schemas.ts'
import * as secrets from '../src/secrets.ts'
import * as wire from '../src/wire.ts'

const outDir = resolve(process.argv[2] ?? 'dist/v1')
mkdirSync(outDir, { recursive: true })
const files = {
  'page-to-agent.json': protocolSchemas.pageToAgent,
  'agent-to-page.json': protocolSchemas.agentToPage,
  // The wire constants and the secret rules for servers in other languages (regular expression sources).
  'wire.json': { ...wire, secrets },
  // The opt-in extensions' messages (a v1 party rejects them; see docs/protocol/v1.md, Extensions).
  'extensions-page-to-agent.json': extensionSchemas.pageToAgent,
  'extensions-agent-to-page.json': extensionSchemas.agentToPage,
}
for (const [name, schema] of Object.entries(files)) {
  writeFileSync(resolve(outDir, name), `${JSON.stringify(schema, null, 2)}\n`)
}
console.info(`protocol schemas written to ${outDir}`)
