import { tmpdir } from 'node:os'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, expect, it } from 'vitest'
import { root, userDocs } from './markdown.ts'

interface ServerConfig {
  command: string
  args: string[]
}

// The MCP client config that the desktop MCP guide gives for a clone (the relay is not on npm yet).
function cloneConfig(): ServerConfig {
  const guide = userDocs().find((d) => d.file === 'docs/guides/mcp.md')?.text ?? ''
  for (const [, block] of guide.matchAll(/```json\n([\s\S]*?)```/g)) {
    const server = (JSON.parse(block as string) as { mcpServers: Record<string, ServerConfig> }).mcpServers
      .toolmark
    if (server?.command === 'npm') return server
  }
  throw new Error('docs/guides/mcp.md shows no `"command": "npm"` config for a clone')
}

let client: Client | undefined
afterEach(async () => {
  await client?.close()
  client = undefined
})

// Runs what the guide says, as a desktop client does (from another folder, stdio only). In a fresh clone
// (CI runs the unit tests before `pnpm build`) this also proves the script builds @toolmark/core and
// @toolmark/mcp itself.
it('the relay starts from a clone with the documented config and lists its pairing and tabs tools over stdio', async () => {
  const { command, args } = cloneConfig()
  expect(args).toContain('--silent') // npm's own lines would otherwise reach stdout, which is JSON-RPC only
  const transport = new StdioClientTransport({
    command,
    // Port 0: a free port, so the test never collides with a relay already running on 17333.
    args: [...args.map((a) => (a === '/path/to/toolmark' ? root : a)), '--port', '0'],
    cwd: tmpdir(),
    stderr: 'pipe',
  })
  const errors: Error[] = []
  transport.onerror = (err) => errors.push(err)
  client = new Client({ name: 'docs-test', version: '1.0.0' })
  await client.connect(transport)
  const { tools } = await client.listTools()
  expect(tools.map((t) => t.name)).toEqual(['toolmark_pair', 'toolmark_tabs'])
  expect(errors).toEqual([]) // every stdout line was JSON-RPC
})
