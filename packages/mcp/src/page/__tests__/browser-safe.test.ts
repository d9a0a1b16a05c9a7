import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

/** The files and bare imports a browser bundle of `entry` pulls in (esbuild, platform browser). */
async function browserInputs(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    conditions: ['@toolmark/source'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  return Object.keys(result.metafile.inputs)
}

describe('@toolmark/mcp/page and /protocol are browser-safe', () => {
  it.each([
    ['@toolmark/mcp/page', '../index.ts'],
    ['@toolmark/mcp/protocol', '../../protocol/index.ts'],
  ])('%s bundles for the browser without Node, ws, the MCP SDK or the relay', async (_name, entry) => {
    const inputs = await browserInputs(entry)
    expect(
      inputs.filter((i) => /(^node:|\/ws\/|modelcontextprotocol|\/src\/relay|\/src\/cli)/.test(i)),
    ).toEqual([])
    // The page stands on @toolmark/core (its adapter kit serializes results); the pairing protocol
    // on @toolmark/protocol alone, never on the core.
    expect(inputs.some((i) => i.includes('core/src/'))).toBe(entry === '../index.ts')
  })
})
