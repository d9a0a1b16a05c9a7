/**
 * Without a DOM a registry is inert (server rendering) unless it is `live`; a development registry
 * says so once. The README's quick start runs as written in Node.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { environment } from '../env.ts'
import { createTestToolmark } from '../testing/index.ts'
import { ok } from '../tool/result.ts'
import { createToolmark } from '../toolmark.ts'
import type { ToolmarkErrorEvent } from '../types.ts'
import { tick, tool } from './helpers.ts'

afterEach(() => {
  environment.setIsServer(undefined)
  vi.restoreAllMocks()
})

const pingTool = { name: 'ping', description: 'd', hints: { readOnly: true }, run: () => ok('pong') }

describe('a registry without a document', () => {
  it('is inert by default: nothing registers, calls answer unknown_tool', async () => {
    expect(typeof document).toBe('undefined')
    const tm = createToolmark()
    const handle = tm.register(pingTool)
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
    tm.register(pingTool)
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
    tm.register(pingTool)
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
    tm.register(pingTool)
    await tm.call('ping', {}, { caller: 'inapp' })
    expect(errors).toEqual([])
    expect(warn).not.toHaveBeenCalled()
  })

  it('live: true runs it without a DOM: registration, calls and consumers work', async () => {
    const tm = createToolmark({ dev: true, live: true })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    tm.register(pingTool)
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

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('SSR: without document, registration and consumers are inert', () => {
  it('createToolmark on the server: register, use and subscribe do nothing; calls are unknown_tool', async () => {
    environment.setIsServer(true)
    const tm = createToolmark({ dev: true })
    const consumer = vi.fn(() => () => {})
    const listener = vi.fn()
    tm.subscribe(listener)
    const run = vi.fn(() => ok())
    const h = tm.register(tool('x', { run }))
    expect(h.name).toBe('x')
    expect(() => h.dispose()).not.toThrow()
    // Misconfiguration is inert too: the same component code renders on the server.
    expect(() => tm.register(tool('x'))).not.toThrow()
    const dispose = tm.use(consumer)
    expect(consumer).not.toHaveBeenCalled()
    expect(() => dispose()).not.toThrow()
    expect(tm.rev).toBe(0)
    expect(tm.manifest().tools).toEqual([])
    expect(await tm.call('x', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool', rev: 0 })
    await tick()
    expect(listener).not.toHaveBeenCalled()
    expect(run).not.toHaveBeenCalled()
  })

  it('the switch decides at registration; createTestToolmark stays active on the server', async () => {
    environment.setIsServer(false)
    const browser = createToolmark()
    browser.register(tool('x'))
    expect(browser.manifest().tools).toHaveLength(1)
    environment.setIsServer(true)
    const test = createTestToolmark()
    test.register(tool('y', { run: () => ok('y') }))
    expect(await test.call('y', {}, { caller: 'test' })).toEqual(ok('y'))
    const consumer = vi.fn(() => undefined)
    test.use(consumer)
    expect(consumer).toHaveBeenCalledTimes(1)
    environment.setIsServer(undefined)
    expect(environment.isServer()).toBe(typeof document === 'undefined')
  })
})
