/**
 * The opt-in `confirm` extension: a page that announces it applies the server's `confirm` message through
 * `tm.confirmPending` and answers its id; a plain v1 page neither announces nor accepts it.
 */

import { describe, expect, it } from 'vitest'
import { confirmExtension } from '../confirm.ts'
import { CLIENT, createTool, page, tick } from './helpers.ts'

/** A consequential call answered `needs_confirmation`: its confirmId. */
async function pendingConfirmation(p: ReturnType<typeof page>, name = 'Kite'): Promise<string> {
  p.send({ type: 'call', id: `call-${name}`, tool: 'create', input: { name } })
  await tick()
  const result = p.resultOf(`call-${name}`) as { status: string; confirmId: string }
  expect(result.status).toBe('needs_confirmation')
  return result.confirmId
}

describe('the confirm extension', () => {
  it('is announced in every manifest of a page that opts in, and absent from a plain v1 page', async () => {
    const extended = page({}, { extensions: [confirmExtension] })
    const plain = page()
    createTool(extended.tm)
    await tick()
    const manifests = extended.received.filter((m) => m.type === 'manifest')
    expect(manifests.length).toBeGreaterThanOrEqual(2)
    for (const m of manifests) expect(m.extensions).toEqual(['confirm'])
    for (const m of plain.received.filter((m) => m.type === 'manifest')) expect('extensions' in m).toBe(false)
  })

  it('approves: the tool runs once as caller human, the id is answered, then confirmed follows', async () => {
    const p = page({}, { extensions: [confirmExtension] })
    const run = createTool(p.tm)
    const confirmId = await pendingConfirmation(p)
    p.send({ type: 'confirm', id: 'k1', confirmId, approved: true })
    await tick()
    await tick()
    expect(run).toHaveBeenCalledTimes(1)
    expect(p.resultOf('k1')).toEqual({ status: 'ok', data: { created: 'Kite' } })
    expect(p.received.filter((m) => m.type === 'confirmed')).toEqual([
      {
        protocol: 1,
        type: 'confirmed',
        clientId: CLIENT,
        confirmId,
        result: { status: 'ok', data: { created: 'Kite' } },
      },
    ])
    // Single use: a second confirm for the same confirmId is refused and runs nothing.
    p.send({ type: 'confirm', id: 'k2', confirmId, approved: true })
    await tick()
    expect(run).toHaveBeenCalledTimes(1)
    expect(p.resultOf('k2')).toMatchObject({ status: 'refused', code: 'confirmation_expired' })
  })

  it('approves with an edit, validated again: an invalid edit answers invalid and leaves it open', async () => {
    const p = page({}, { extensions: [confirmExtension] })
    const run = createTool(p.tm)
    const confirmId = await pendingConfirmation(p)
    p.send({ type: 'confirm', id: 'bad', confirmId, approved: true, input: { name: 42 } })
    await tick()
    expect(p.resultOf('bad')).toMatchObject({ status: 'invalid', issues: [{ path: 'name' }] })
    expect(run).not.toHaveBeenCalled()
    p.send({ type: 'confirm', id: 'good', confirmId, approved: true, input: { name: 'Glider' } })
    await tick()
    await tick()
    expect(run).toHaveBeenCalledTimes(1)
    expect(p.resultOf('good')).toEqual({ status: 'ok', data: { created: 'Glider' } })
  })

  it('rejects: nothing runs, the answer is cancelled operator', async () => {
    const p = page({}, { extensions: [confirmExtension] })
    const run = createTool(p.tm)
    const confirmId = await pendingConfirmation(p)
    p.send({ type: 'confirm', id: 'no', confirmId, approved: false, reason: 'Not now' })
    await tick()
    expect(run).not.toHaveBeenCalled()
    expect(p.resultOf('no')).toEqual({ status: 'cancelled', by: 'operator' })
    expect(p.received.find((m) => m.type === 'confirmed')?.result).toEqual({
      status: 'cancelled',
      by: 'operator',
    })
  })

  it('a plain v1 page drops a confirm message unanswered (invalid_message)', async () => {
    const p = page()
    const run = createTool(p.tm)
    const confirmId = await pendingConfirmation(p)
    p.send({ type: 'confirm', id: 'k1', confirmId, approved: true })
    await tick()
    expect(run).not.toHaveBeenCalled()
    expect(p.resultOf('k1')).toBeUndefined()
    expect(p.errors).toContain('invalid_message')
  })
})
