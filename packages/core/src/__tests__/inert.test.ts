/**
 * Without a DOM a registry is inert (server rendering) unless it is `live`; a development registry
 * says so once. The README's quick start runs as written in Node.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ok } from '../call/result.ts'
import { environment } from '../env.ts'
import { createToolmark } from '../toolmark.ts'
import type { ToolmarkErrorEvent } from '../types.ts'

afterEach(() => {
  environment.setIsServer(undefined)
  vi.restoreAllMocks()
})

const tool = { name: 'ping', description: 'd', hints: { readOnly: true }, run: () => ok('pong') }

describe('a registry without a document', () => {
  it('is inert by default: nothing registers, calls answer unknown_tool', async () => {
    expect(typeof document).toBe('undefined')
    const tm = createToolmark()
    const handle = tm.register(tool)
    expect(handle.name).toBe('ping')
    expect(tm.manifest().tools).toEqual([])
    expect(await tm.call('ping', {}, { caller: 'inapp' })).toMatchObject({
      status: 'refused',
      code: 'unknown_tool',
    })
  })

  it('a development registry says so once, the first time it is called, with the inert_registry warning', async () => {
    const tm = createToolmark({ dev: true })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    tm.register(tool)
    tm.use(() => undefined)
    expect(errors).toEqual([]) // server rendering registers (inertly) and stays silent
    await tm.call('ping', {}, { caller: 'inapp' })
    await tm.call('ping', {}, { caller: 'inapp' })
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ code: 'inert_registry', level: 'warning' })
    expect(errors[0]?.message).toContain('live: true')
  })

  it('with no error listener, the development warning goes to the console, once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const tm = createToolmark({ dev: true })
    tm.register(tool)
    expect(warn).not.toHaveBeenCalled()
    await tm.call('ping', {}, { caller: 'inapp' })
    await tm.call('other', {}, { caller: 'inapp' })
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toContain('inert_registry')
  })

  it('production stays silent', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const tm = createToolmark()
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    tm.register(tool)
    await tm.call('ping', {}, { caller: 'inapp' })
    expect(errors).toEqual([])
    expect(warn).not.toHaveBeenCalled()
  })

  it('live: true runs it without a DOM: registration, calls and consumers work', async () => {
    const tm = createToolmark({ dev: true, live: true })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    tm.register(tool)
    const consumer = vi.fn(() => undefined)
    tm.use(consumer)
    expect(consumer).toHaveBeenCalledTimes(1)
    expect(await tm.call('ping', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'pong' })
    expect(errors).toEqual([])
  })
})

describe('the README quick start', () => {
  it('runs as written in Node', async () => {
    const readme = await readFile(fileURLToPath(new URL('../../../../README.md', import.meta.url)), 'utf8')
    const section = readme.slice(readme.indexOf('## Quick start'))
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
    expect(code).toBeDefined()
    const dir = await mkdtemp(join(tmpdir(), 'toolmark-readme-'))
    const file = join(dir, 'quick-start.ts')
    // The one change: resolve the package to this checkout's source.
    const source = code!.replace(
      "from '@toolmark/core'",
      `from ${JSON.stringify(fileURLToPath(new URL('../index.ts', import.meta.url)))}`,
    )
    await writeFile(file, source)
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await import(/* @vite-ignore */ file)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    expect(log).toHaveBeenCalledWith({ status: 'ok', data: ['Robotics league'] })
    expect(warn).not.toHaveBeenCalled()
  })
})
