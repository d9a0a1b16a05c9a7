/**
 * Redaction: sensitive values stay out of confirmation cards, pending confirmations and events.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { needs } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ConfirmRequest, FieldChange, ToolContext, ToolDefinition } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('redaction (sensitive values stay out of confirmation payloads)', () => {
  const payInput = {
    name: 'Order 1',
    password: 'hunter2',
    cards: [
      { last4: '1111', cvc: '123' },
      { last4: '2222', cvc: '456' },
    ],
  }
  const payDef = (
    run = vi.fn((input: unknown) => ok(input)),
    sensitivePaths: ToolDefinition['sensitivePaths'] = ['password', 'cards[].cvc'],
  ): ToolDefinition => ({
    name: 'pay',
    description: 'Pay',
    hints: { consequential: true },
    sensitivePaths,
    run,
  })
  const publicInput = {
    name: 'Order 1',
    password: '[redacted]',
    cards: [
      { last4: '1111', cvc: '[redacted]' },
      { last4: '2222', cvc: '[redacted]' },
    ],
  }

  it('PendingConfirmation.input and ConfirmRequest.input are redacted; the approved run gets the real input', async () => {
    const run = vi.fn((input: unknown) => ok(input))
    const seen: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (r) => {
        seen.push(r)
        return { approved: true }
      },
    })
    tm.register(payDef(run))
    const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    expect(tm.pendingConfirmations()[0]?.input).toEqual(publicInput)
    expect(JSON.stringify(tm.pendingConfirmations().map((c) => [c.input, c.changes]))).not.toMatch(
      /hunter2|123|456/,
    ) // ids and timestamps may contain digits
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok(payInput))
    expect(await tm.call('pay', payInput, { caller: 'webmcp' })).toEqual(ok(payInput))
    expect(seen[0]?.input).toEqual(publicInput)
    expect(JSON.stringify([seen[0]?.input, seen[0]?.changes])).not.toMatch(/hunter2|123|456/)
  })

  it('an edit of the public input restores every untouched placeholder; a changed secret keeps its new value', async () => {
    const run = vi.fn((input: unknown) => ok(input))
    const tm = createTestToolmark()
    tm.register(payDef(run))
    const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    const b = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    const edited = structuredClone(publicInput)
    edited.name = 'Order 2'
    expect(await tm.confirmPending(a.confirmId, { approved: true, input: edited })).toEqual(
      ok({ ...payInput, name: 'Order 2' }),
    )
    const changed = structuredClone(publicInput)
    changed.password = 'new-pass'
    changed.cards[1]!.cvc = '999'
    expect(await tm.confirmPending(b.confirmId, { approved: true, input: changed })).toEqual(
      ok({
        ...payInput,
        password: 'new-pass',
        cards: [
          { last4: '1111', cvc: '123' },
          { last4: '2222', cvc: '999' },
        ],
      }),
    )
  })

  it.each([
    ['outside the sensitive paths', (e: typeof publicInput) => (e.name = '[redacted]'), ['name']],
    ['in a deleted row (array length changed)', (e: typeof publicInput) => e.cards.shift(), ['cards.0.cvc']],
    ['in reordered rows', (e: typeof publicInput) => e.cards.reverse(), ['cards.0.cvc', 'cards.1.cvc']],
    [
      'in a row whose non-sensitive values changed',
      (e: typeof publicInput) => (e.cards[0]!.last4 = '9999'),
      ['cards.0.cvc'],
    ],
    [
      'in an inserted row',
      (e: typeof publicInput) => e.cards.unshift({ last4: '0000', cvc: '[redacted]' }),
      ['cards.0.cvc', 'cards.1.cvc', 'cards.2.cvc'],
    ],
  ])(
    'a placeholder %s is invalid "Re-enter sensitive field" at its path and does not consume the id',
    async (_what, edit, paths) => {
      const run = vi.fn((input: unknown) => ok(input))
      const tm = createTestToolmark()
      tm.register(payDef(run))
      const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
      const edited = structuredClone(publicInput)
      edit(edited)
      expect(await tm.confirmPending(a.confirmId, { approved: true, input: edited })).toEqual({
        status: 'invalid',
        issues: paths.map((path) => ({ path, message: 'Re-enter sensitive field' })),
      })
      expect(run).not.toHaveBeenCalled()
      expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok(payInput))
    },
  )

  it('unreadable sensitive paths: the whole input is [redacted]; a placeholder anywhere at approval is refused', async () => {
    let readable = false
    const run = vi.fn((input: unknown) => ok(input))
    const tm = createTestToolmark()
    tm.register(
      payDef(run, () => {
        if (!readable) throw new Error('cannot read')
        return ['password', 'cards[].cvc']
      }),
    )
    const a = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    expect(tm.pendingConfirmations()[0]?.input).toBe('[redacted]')
    expect(await tm.confirmPending(a.confirmId, { approved: true, input: '[redacted]' })).toEqual({
      status: 'invalid',
      issues: [{ path: '', message: 'Re-enter sensitive field' }],
    })
    // Readable at request time, unreadable at approval: no placeholder can be restored.
    readable = true
    const b = needs(await tm.call('pay', payInput, { caller: 'inapp' }))
    expect(tm.pendingConfirmations()[1]?.input).toEqual(publicInput)
    readable = false
    const edited = structuredClone(publicInput)
    const r = await tm.confirmPending(b.confirmId, { approved: true, input: edited })
    expect(r).toEqual({
      status: 'invalid',
      issues: [
        { path: 'password', message: 'Re-enter sensitive field' },
        { path: 'cards.0.cvc', message: 'Re-enter sensitive field' },
        { path: 'cards.1.cvc', message: 'Re-enter sensitive field' },
      ],
    })
    expect(await tm.confirmPending(a.confirmId, { approved: true })).toEqual(ok(payInput))
    expect(run).toHaveBeenCalledTimes(1)
  })

  it('nested arrays: orders[].cards[].cvc is redacted at every index and restored on the same rows', async () => {
    const input = {
      orders: [
        { id: 1, cards: [{ cvc: '111' }, { cvc: '222' }] },
        { id: 2, cards: [{ cvc: '333' }] },
      ],
    }
    const run = vi.fn((i: unknown) => ok(i))
    const tm = createTestToolmark()
    tm.register({
      name: 'n',
      description: 'd',
      hints: { consequential: true },
      sensitivePaths: ['orders[].cards[].cvc'],
      run,
    })
    const a = needs(await tm.call('n', input, { caller: 'inapp' }))
    const shown = tm.pendingConfirmations()[0]?.input
    expect(shown).toEqual({
      orders: [
        { id: 1, cards: [{ cvc: '[redacted]' }, { cvc: '[redacted]' }] },
        { id: 2, cards: [{ cvc: '[redacted]' }] },
      ],
    })
    expect(await tm.confirmPending(a.confirmId, { approved: true, input: shown })).toEqual(ok(input))
  })

  it('ctx.confirm changes: at cards.0.cvc redacted; of cards or cards.0 kept with each cvc redacted', async () => {
    const seen: ConfirmRequest[] = []
    const tm = createTestToolmark({
      confirm: (r) => {
        seen.push(r)
        return { approved: true }
      },
    })
    const changes: FieldChange[] = [
      { path: 'cards.0.cvc', before: '123', after: '999' },
      { path: 'cards', before: [{ last4: '1111', cvc: '123' }], after: [] },
      { path: 'cards.1', after: { last4: '2222', cvc: '456' } },
      { path: 'password', before: 'old' },
      { path: 'name', before: 'a', after: 'b' },
    ]
    tm.register({
      name: 'edit',
      description: 'd',
      hints: { readOnly: true },
      sensitivePaths: ['password', 'cards[].cvc'],
      run: async (_: unknown, ctx: ToolContext) => ok(await ctx.confirm({ summary: 'Save?', changes })),
    })
    expect(await tm.call('edit', payInput, { caller: 'mcp' })).toEqual(ok({ approved: true }))
    expect(seen[0]?.kind).toBe('ctx')
    expect(seen[0]?.input).toEqual(publicInput)
    expect(seen[0]?.changes).toEqual([
      { path: 'cards.0.cvc', before: '[redacted]', after: '[redacted]' },
      { path: 'cards', before: [{ last4: '1111', cvc: '[redacted]' }], after: [] },
      { path: 'cards.1', after: { last4: '2222', cvc: '[redacted]' } },
      { path: 'password', before: '[redacted]' },
      { path: 'name', before: 'a', after: 'b' },
    ])
    expect(changes[0]?.before).toBe('123') // the tool's own objects are never mutated
  })
})
