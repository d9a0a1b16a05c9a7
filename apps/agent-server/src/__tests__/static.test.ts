import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { loadConfig } from '../config.ts'
import { type RunningServer, startServer } from '../server.ts'

/** The demo app on a free port with an in-memory store and the given static folder. */
async function server(staticDir = '/nonexistent'): Promise<{ server: RunningServer }> {
  const started = await startServer({
    config: loadConfig({ DATA_FILE: ':memory:', PORT: '0', PROVIDER: 'embedded', STATIC_DIR: staticDir }),
    log: () => {},
  })
  onTestFinished(() => started.close())
  return { server: started }
}

describe('static files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolmark-static-'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>demo</title>')
  writeFileSync(join(dir, 'app.js'), 'console.log(1)')
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('serves built assets with an SPA fallback, but not for /api or /toolmark paths', async () => {
    const t = await server(dir)
    const asset = await fetch(`${t.server.url}/app.js`)
    expect(asset.headers.get('content-type')).toContain('javascript')
    expect(await asset.text()).toBe('console.log(1)')
    for (const path of ['/', '/settings', '/challenges/c-1']) {
      expect(await (await fetch(t.server.url + path)).text()).toBe('<!doctype html><title>demo</title>')
    }
    expect((await fetch(`${t.server.url}/api/nope`)).status).toBe(404)
    expect((await fetch(`${t.server.url}/toolmark/nope`)).status).toBe(404)
    expect((await fetch(`${t.server.url}/..%2f..%2fetc/passwd`)).status).not.toBe(500)
  })

  it('explains how to build the demo when it is not built', async () => {
    const t = await server()
    expect(await (await fetch(`${t.server.url}/`)).text()).toContain(
      'pnpm --filter @toolmark-apps/demo build',
    )
  })
})
