import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import { pairingSchemas } from '../schemas.ts'

const dir = mkdtempSync(join(tmpdir(), 'toolmark-pairing-schemas-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('pairingSchemas', () => {
  it('are draft 2020-12 schemas with the documented $ids', () => {
    expect(pairingSchemas.pageToRelay).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:mcp-pairing:v1:page-to-relay',
    })
    expect(pairingSchemas.relayToPage).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:mcp-pairing:v1:relay-to-page',
    })
  })

  it('are deep-frozen plain JSON', () => {
    const defs = pairingSchemas.pageToRelay.$defs as Record<string, Record<string, unknown>>
    expect(Object.isFrozen(pairingSchemas)).toBe(true)
    expect(Object.isFrozen(defs.ToolResult?.oneOf)).toBe(true)
    expect(JSON.parse(JSON.stringify(pairingSchemas))).toEqual(pairingSchemas)
  })

  it('scripts/emit-pairing-schemas.mjs writes them as the two published JSON files', async () => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('../index.ts', import.meta.url))],
      bundle: true,
      platform: 'neutral',
      format: 'esm',
      conditions: ['@toolmark/source'],
      write: false,
      logLevel: 'silent',
    })
    const built = join(dir, 'protocol.mjs')
    writeFileSync(built, bundle.outputFiles[0]?.text ?? '')
    const script = fileURLToPath(new URL('../../../scripts/emit-pairing-schemas.mjs', import.meta.url))
    execFileSync(process.execPath, [script, join(dir, 'v1'), built], { stdio: 'pipe' })
    const read = (name: string): unknown => JSON.parse(readFileSync(join(dir, 'v1', name), 'utf8'))
    expect(read('page-to-relay.json')).toEqual(pairingSchemas.pageToRelay)
    expect(read('relay-to-page.json')).toEqual(pairingSchemas.relayToPage)
  })
})
