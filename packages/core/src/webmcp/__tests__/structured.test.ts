/** A tool with an output schema answers WebMCP with its data itself: the structured result. */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { tick } from '../../__tests__/helpers.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { webmcp } from '../index.ts'
import { FakeModelContext } from './fake-model-context.ts'

const output = z.object({ items: z.array(z.string()) })

function setup() {
  const mc = new FakeModelContext()
  const tm = createTestToolmark({ dev: false })
  tm.register({
    name: 'list',
    description: 'List items.',
    input: z.object({ bad: z.boolean().optional() }),
    output,
    hints: { readOnly: true },
    run: ({ bad }) => ok(bad ? { items: 1 } : { items: ['a', 'b'] }) as never,
  })
  tm.register({
    name: 'plain',
    description: 'No output schema.',
    hints: { readOnly: true },
    run: () => ok({ items: ['a'] }),
  })
  tm.use(webmcp({ modelContext: mc }))
  return mc
}

describe('webmcp(): structured results', () => {
  it('resolves the data of an ok result of a tool with an output schema', async () => {
    const mc = setup()
    await tick()
    expect(await mc.execute('list', {})).toEqual({ items: ['a', 'b'] })
    // The browser serializes what execute resolves: the agent reads the data as JSON.
    expect(JSON.stringify(await mc.execute('list', {}))).toBe('{"items":["a","b"]}')
  })

  it('keeps the ToolResult for every other outcome and for tools without an output schema', async () => {
    const mc = setup()
    await tick()
    expect(await mc.execute('plain', {})).toEqual(ok({ items: ['a'] }))
    expect(await mc.execute('list', { bad: 'x' })).toMatchObject({ status: 'invalid' })
    // A production registry does not check output (development only): the data is handed on as it is.
    expect(await mc.execute('list', { bad: true })).toEqual({ items: 1 })
  })
})
