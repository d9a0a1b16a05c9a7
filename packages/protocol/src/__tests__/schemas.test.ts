import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import { protocolSchemas } from '../schemas.ts'

const dir = mkdtempSync(join(tmpdir(), 'toolmark-schemas-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('protocolSchemas', () => {
  it('are draft 2020-12 schemas with the documented $ids', () => {
    expect(protocolSchemas.pageToAgent).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:protocol:v1:page-to-agent',
    })
    expect(protocolSchemas.agentToPage).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:protocol:v1:agent-to-page',
    })
  })

  it('are deep-frozen plain JSON', () => {
    const defs = protocolSchemas.pageToAgent.$defs as Record<string, Record<string, unknown>>
    expect(Object.isFrozen(protocolSchemas)).toBe(true)
    expect(Object.isFrozen(defs.ToolResult?.oneOf)).toBe(true)
    expect(JSON.parse(JSON.stringify(protocolSchemas))).toEqual(protocolSchemas)
  })

  it('scripts/emit-protocol-schemas.ts writes them as the two published JSON files', async () => {
    const script = fileURLToPath(new URL('../../scripts/emit-protocol-schemas.ts', import.meta.url))
    const bundle = await build({
      entryPoints: [script],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
    })
    const file = join(dir, 'emit.mjs')
    writeFileSync(file, bundle.outputFiles[0]?.text ?? '')
    execFileSync(process.execPath, [file, join(dir, 'v1')], { stdio: 'pipe' })
    const read = (name: string): unknown => JSON.parse(readFileSync(join(dir, 'v1', name), 'utf8'))
    expect(read('page-to-agent.json')).toEqual(protocolSchemas.pageToAgent)
    expect(read('agent-to-page.json')).toEqual(protocolSchemas.agentToPage)
  })
})
