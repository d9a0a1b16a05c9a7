// Writes the pairing JSON Schemas from src/protocol/schemas.ts (their single source, built by tsdown
// into dist/protocol.mjs) to dist/protocol/v1/page-to-relay.json and relay-to-page.json, the files
// exported as `@toolmark/mcp/protocol/v1/*.json`. `pnpm build` runs it after tsdown. The output
// directory is the first argument, resolved against the working directory (default dist/protocol/v1).
import { mkdirSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const built = process.argv[3] ?? 'dist/protocol.mjs'
const { pairingSchemas } = await import(pathToFileURL(resolve(built)).href)
const outDir = resolve(process.argv[2] ?? 'dist/protocol/v1')
mkdirSync(outDir, { recursive: true })
for (const [name, schema] of [
  ['page-to-relay.json', pairingSchemas.pageToRelay],
  ['relay-to-page.json', pairingSchemas.relayToPage],
]) {
  writeFileSync(resolve(outDir, name), `${JSON.stringify(schema, null, 2)}\n`)
}
console.info(`pairing schemas written to ${outDir}`)
