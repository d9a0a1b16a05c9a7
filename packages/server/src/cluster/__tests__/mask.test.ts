import { describe, expect, it } from 'vitest'
import { maskPost, maskResult } from '../mask.ts'

const CARD = '4242 4242 4242 4242'
const base = { protocol: 1, clientId: 'page-1' }
/** No call is known here: masked by the rules alone. */
const unknown = { call: async () => ({ secrets: [] }), confirm: () => ({ secrets: [] }) }

describe('what crosses Redis (cluster/mask.ts)', () => {
  it("masks a call's result like the database's copy: secret keys, card numbers, the call's own secrets", () => {
    const result = { status: 'ok' as const, data: { card: CARD, cvc: '123', note: 'memo k9x2z' } }
    expect(maskResult(result, ['k9x2z'])).toEqual({
      status: 'ok',
      data: { card: '**** 4242', cvc: '[redacted]', note: 'memo [redacted]' },
    })
  })

  it("masks a POSTed result or confirmed with what this instance knows of its call, and keeps a describe's answer", async () => {
    const data = { pin: '7395', echo: 'k9x2z', schema: { properties: { pin: { writeOnly: true } } } }
    const result = { status: 'ok', data }
    const calls = {
      call: async (id: string) => ({ describe: id === 'describe-1', secrets: ['k9x2z'] }),
      confirm: (confirmId: string) => ({ secrets: confirmId === 'confirm-1' ? ['k9x2z'] : [] }),
    }
    const masked = { pin: '[redacted]', echo: '[redacted]', schema: { properties: { pin: '[redacted]' } } }
    const post = (message: object) => maskPost(JSON.stringify({ ...base, ...message }), calls)
    expect(JSON.parse(await post({ type: 'result', id: 'call-1', result }))).toEqual({
      ...base,
      type: 'result',
      id: 'call-1',
      result: { status: 'ok', data: masked },
    })
    expect(JSON.parse(await post({ type: 'confirmed', confirmId: 'confirm-1', result }))).toMatchObject({
      result: { data: masked },
    })
    // A describe's answer is the tool's definition: its writeOnly fields must reach the waiting instance.
    const describe = JSON.stringify({ ...base, type: 'result', id: 'describe-1', result })
    expect(await maskPost(describe, calls)).toBe(describe)
  })

  it('lets a manifest cross as it came and masks a text that is no JSON object as free text', async () => {
    const manifest = JSON.stringify({ ...base, type: 'manifest', rev: 1, tools: [] })
    expect(await maskPost(manifest, unknown)).toBe(manifest)
    expect(await maskPost(`not json ${CARD}`, unknown)).toBe('not json **** 4242')
    expect(await maskPost(JSON.stringify(`${CARD}`), unknown)).toBe('"**** 4242"')
  })

  it("masks a progress's message and data, and a context's entries at their sensitive paths and by the rules", async () => {
    const calls = { call: async () => ({ secrets: ['k9x2z'] }), confirm: () => ({ secrets: [] }) }
    const progress = {
      ...base,
      type: 'progress',
      id: 'call-1',
      message: `paid with ${CARD}, memo k9x2z`,
      data: { cvc: '123' },
    }
    expect(JSON.parse(await maskPost(JSON.stringify(progress), calls))).toEqual({
      ...progress,
      message: 'paid with **** 4242, memo [redacted]',
      data: { cvc: '[redacted]' },
    })
    const entry = {
      name: 'customer',
      description: `card ${CARD}`,
      value: { email: 'a@b.c', password: 'hunter22' },
    }
    const context = { ...base, type: 'context', rev: 1, entries: [{ ...entry, sensitivePaths: ['email'] }] }
    expect(JSON.parse(await maskPost(JSON.stringify(context), unknown, context))).toEqual({
      ...context,
      entries: [
        {
          name: 'customer',
          description: 'card **** 4242',
          value: { email: '[redacted]', password: '[redacted]' },
          sensitivePaths: ['email'],
        },
      ],
    })
    // Any other message crosses masked whole.
    expect(
      JSON.parse(await maskPost(JSON.stringify({ ...base, type: 'future', note: CARD }), unknown)),
    ).toEqual({
      ...base,
      type: 'future',
      note: '**** 4242',
    })
  })
})
