import { describe, expect, it } from 'vitest'
import { REENTER_SENSITIVE } from '../../codes.ts'
import { REDACTED, readSensitivePaths, redactInput } from '../../tool/redact.ts'
import { redactChanges } from '../../tool/redact-changes.ts'
import { restoreRedacted } from '../../tool/redact-edit.ts'

const reenter = (...paths: string[]) => ({
  ok: false,
  issues: paths.map((path) => ({ path, message: REENTER_SENSITIVE })),
})

function payment() {
  return {
    name: 'Ann',
    cards: [
      { label: 'work', number: '4242', cvc: '111' },
      { label: 'home', number: '5555', cvc: '222' },
    ],
  }
}

describe('readSensitivePaths', () => {
  const read = (source: Parameters<typeof readSensitivePaths>[0]) => {
    const { readable, paths } = readSensitivePaths(source)
    return { readable, paths }
  }

  it('reads lists and functions, and marks unreadable lists', () => {
    expect(read(['a', 'b[].c'])).toEqual({ readable: true, paths: ['a', 'b[].c'] })
    expect(read(() => ['x'])).toEqual({ readable: true, paths: ['x'] })
    expect(read(undefined)).toEqual({ readable: true, paths: [] })
    const unreadable = { readable: false, paths: [] }
    expect(
      read(() => {
        throw new Error('boom')
      }),
    ).toEqual(unreadable)
    expect(read((() => 'cvc') as unknown as () => string[])).toEqual(unreadable)
    expect(read((() => undefined) as unknown as () => string[])).toEqual(unreadable)
    expect(read(['ok', 'a..b'])).toEqual(unreadable)
    expect(read(['__proto__.x'])).toEqual(unreadable)
    expect(read([1] as unknown as string[])).toEqual(unreadable)
  })

  it('reads the function once and can be passed on', () => {
    let calls = 0
    const patterns = readSensitivePaths(() => {
      calls++
      return ['cards[].cvc']
    })
    expect(readSensitivePaths(patterns)).toBe(patterns)
    expect(patterns.segments).toEqual([['cards', '[]', 'cvc']])
    redactInput(payment(), patterns)
    redactChanges([{ path: 'cards.0.cvc', after: '1' }], patterns)
    expect(calls).toBe(1)
  })
})

describe('redactInput', () => {
  it('redacts cards[].cvc in every row, as a deep copy', () => {
    const input = payment()
    const before = structuredClone(input)
    const out = redactInput(input, ['cards[].cvc'])
    expect(out).toEqual({
      readable: true,
      redactedPaths: ['cards.0.cvc', 'cards.1.cvc'],
      value: {
        name: 'Ann',
        cards: [
          { label: 'work', number: '4242', cvc: REDACTED },
          { label: 'home', number: '5555', cvc: REDACTED },
        ],
      },
    })
    expect(input).toEqual(before)
    ;(out.value as ReturnType<typeof payment>).cards[0]!.label = 'changed'
    expect(input.cards[0]!.label).toBe('work')
  })

  it('accepts cards.[].cvc, concrete indices and whole subtrees', () => {
    expect(redactInput(payment(), ['cards.[].cvc']).redactedPaths).toEqual(['cards.0.cvc', 'cards.1.cvc'])
    expect(redactInput(payment(), ['cards.1.cvc']).redactedPaths).toEqual(['cards.1.cvc'])
    expect(redactInput(payment(), ['cards']).value).toEqual({ name: 'Ann', cards: REDACTED })
    expect(redactInput(payment(), ['cards[]']).value).toEqual({ name: 'Ann', cards: [REDACTED, REDACTED] })
    expect(redactInput(payment(), ['']).value).toBe(REDACTED)
  })

  it('redacts nested arrays (orders[].cards[].cvc)', () => {
    const input = {
      orders: [
        { id: 1, cards: [{ cvc: 'a' }, { cvc: 'b' }] },
        { id: 2, cards: [] },
        { id: 3, cards: [{ cvc: 'c', n: 1 }] },
      ],
    }
    const out = redactInput(input, ['orders[].cards[].cvc'])
    expect(out.value).toEqual({
      orders: [
        { id: 1, cards: [{ cvc: REDACTED }, { cvc: REDACTED }] },
        { id: 2, cards: [] },
        { id: 3, cards: [{ cvc: REDACTED, n: 1 }] },
      ],
    })
    expect(out.redactedPaths).toEqual([
      'orders.0.cards.0.cvc',
      'orders.0.cards.1.cvc',
      'orders.2.cards.0.cvc',
    ])
  })

  it('adds nothing where a sensitive path holds no value, and [] never matches object keys', () => {
    const input = {
      cards: [{ number: '1' }, { number: '2', cvc: undefined }],
      token: null,
      map: { '0': 'x' },
    }
    const out = redactInput(input, ['cards[].cvc', 'missing.deep', 'map[]', 'token'])
    expect(out.value).toEqual({
      cards: [{ number: '1' }, { number: '2', cvc: undefined }],
      token: REDACTED,
      map: { '0': 'x' },
    })
    expect(out.redactedPaths).toEqual(['token'])
  })

  it('redacts the whole input when the sensitive paths cannot be read', () => {
    const throwing = () => {
      throw new Error('not ready')
    }
    expect(redactInput(payment(), throwing)).toEqual({
      value: REDACTED,
      readable: false,
      redactedPaths: [''],
    })
    expect(redactInput(payment(), ['cards[0].cvc']).value).toBe(REDACTED)
  })

  it('fails closed on objects it cannot walk and on cycles', () => {
    const when = new Date(0)
    const out = redactInput({ when, file: new Map([['name', 'secret']]) }, ['file.name'])
    expect(out.value).toEqual({ when, file: REDACTED })
    expect((out.value as { when: Date }).when).toBe(when)
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    expect(redactInput(cyclic, []).value).toEqual({ a: 1, self: REDACTED })
  })

  it('copies __proto__ keys as data and keeps null prototypes', () => {
    const input = JSON.parse('{"__proto__":{"cvc":"1","x":2}}') as Record<string, unknown>
    const out = redactInput(input, ['other']).value as Record<string, unknown>
    expect(Object.hasOwn(out, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).cvc).toBeUndefined()
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { cvc: '1' })
    const copy = redactInput(bare, ['cvc']).value as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(null)
    expect(copy.cvc).toBe(REDACTED)
  })
})

describe('redactChanges', () => {
  const paths = ['cards[].cvc']

  it('redacts a change at or below a sensitive path', () => {
    expect(redactChanges([{ path: 'cards.0.cvc', before: '111', after: '999' }], paths)).toEqual([
      { path: 'cards.0.cvc', before: REDACTED, after: REDACTED },
    ])
    expect(redactChanges([{ path: 'card.cvc.digits', after: [1, 2] }], ['card.cvc'])).toEqual([
      { path: 'card.cvc.digits', after: REDACTED },
    ])
  })

  it('keeps an ancestor change with each cvc inside redacted', () => {
    const input = payment()
    const changes = [
      { path: 'cards', before: [], after: input.cards },
      { path: 'cards.1', before: input.cards[1], after: { ...input.cards[1], label: 'x' } },
      { path: '', after: input },
    ]
    expect(redactChanges(changes, paths)).toEqual([
      {
        path: 'cards',
        before: [],
        after: [
          { label: 'work', number: '4242', cvc: REDACTED },
          { label: 'home', number: '5555', cvc: REDACTED },
        ],
      },
      {
        path: 'cards.1',
        before: { label: 'home', number: '5555', cvc: REDACTED },
        after: { label: 'x', number: '5555', cvc: REDACTED },
      },
      { path: '', after: redactInput(input, paths).value },
    ])
    expect(input).toEqual(payment())
  })

  it('leaves absent before/after absent and other changes alone (as copies)', () => {
    const value = { x: 1 }
    const out = redactChanges(
      [
        { path: 'cards.0.cvc', after: '1' },
        { path: 'name', before: 'a', after: value },
        { path: 'cards.0.cvc', before: undefined, after: '2' },
      ],
      paths,
    )
    expect(out).toEqual([
      { path: 'cards.0.cvc', after: REDACTED },
      { path: 'name', before: 'a', after: { x: 1 } },
      { path: 'cards.0.cvc', before: undefined, after: REDACTED },
    ])
    expect('before' in (out[0] as object)).toBe(false)
    expect(out[1]?.after).not.toBe(value)
  })

  it('redacts everything when paths are unreadable or a change path is malformed', () => {
    const throwing = () => {
      throw new Error('x')
    }
    expect(redactChanges([{ path: 'name', before: 'a', after: 'b' }], throwing)).toEqual([
      { path: 'name', before: REDACTED, after: REDACTED },
    ])
    expect(
      redactChanges(
        [
          { path: 'cards[].cvc', after: '1' },
          { path: '__proto__', after: '2' },
          { path: 7 as unknown as string, after: '3' },
        ],
        paths,
      ),
    ).toEqual([
      { path: 'cards[].cvc', after: REDACTED },
      { path: '__proto__', after: REDACTED },
      { path: 7, after: REDACTED },
    ])
  })

  it('drops entries that are not objects', () => {
    expect(redactChanges([null, 'x', { path: 'a', after: 1 }] as unknown as [], paths)).toEqual([
      { path: 'a', after: 1 },
    ])
    expect(redactChanges('nope' as unknown as [], paths)).toEqual([])
  })
})

describe('restoreRedacted', () => {
  const paths = ['cards[].cvc']
  const sent = () => structuredClone(redactInput(payment(), paths).value) as ReturnType<typeof payment>

  it('gives the approved run the real input when nothing was edited', () => {
    const original = payment()
    expect(restoreRedacted(sent(), original, paths)).toEqual({ ok: true, value: original })
  })

  it('restores secrets around a non-sensitive edit outside the rows', () => {
    const edited = sent()
    edited.name = 'Bob'
    expect(restoreRedacted(edited, payment(), paths)).toEqual({
      ok: true,
      value: { ...payment(), name: 'Bob' },
    })
  })

  it('keeps a sensitive value the approver changed', () => {
    const edited = sent()
    edited.cards[0]!.cvc = '999'
    const expected = payment()
    expected.cards[0]!.cvc = '999'
    expect(restoreRedacted(edited, payment(), paths)).toEqual({ ok: true, value: expected })
  })

  it('accepts a sensitive key the approver removed or added', () => {
    const edited = sent() as { cards: Record<string, unknown>[] }
    delete edited.cards[0]!.cvc
    const original = payment() as { cards: Record<string, unknown>[] }
    const expected = payment() as { cards: Record<string, unknown>[] }
    delete expected.cards[0]!.cvc
    expect(restoreRedacted(edited, original, paths)).toEqual({ ok: true, value: expected })
    const added = { cards: [{ label: 'x', cvc: 'new' }] }
    const originalNoCvc = { cards: [{ label: 'x' }] }
    expect(restoreRedacted(added, originalNoCvc, paths)).toEqual({ ok: true, value: added })
  })

  it('refuses placeholders in a deleted, inserted or reordered row set', () => {
    const deleted = sent()
    deleted.cards.splice(0, 1)
    expect(restoreRedacted(deleted, payment(), paths)).toEqual(reenter('cards.0.cvc'))

    const inserted = sent()
    inserted.cards.unshift({ label: 'new', number: '1', cvc: '333' })
    expect(restoreRedacted(inserted, payment(), paths)).toEqual(reenter('cards.1.cvc', 'cards.2.cvc'))

    const appended = sent()
    appended.cards.push({ label: 'new', number: '1', cvc: '333' })
    expect(restoreRedacted(appended, payment(), paths)).toEqual(reenter('cards.0.cvc', 'cards.1.cvc'))

    const reordered = sent()
    reordered.cards.reverse()
    expect(restoreRedacted(reordered, payment(), paths)).toEqual(reenter('cards.0.cvc', 'cards.1.cvc'))
  })

  it('refuses only the placeholder of an edited row', () => {
    const edited = sent()
    edited.cards[0]!.number = '4000'
    expect(restoreRedacted(edited, payment(), paths)).toEqual(reenter('cards.0.cvc'))
    // Re-entering the value makes the approval valid; the untouched row still gets its secret.
    edited.cards[0]!.cvc = '123'
    const expected = payment()
    expected.cards[0] = { label: 'work', number: '4000', cvc: '123' }
    expect(restoreRedacted(edited, payment(), paths)).toEqual({ ok: true, value: expected })
  })

  it('restores nested rows only when every enclosing row is unchanged', () => {
    const original = {
      orders: [
        {
          note: 'a',
          cards: [
            { n: 1, cvc: 'a0' },
            { n: 2, cvc: 'a1' },
          ],
        },
        { note: 'b', cards: [{ n: 3, cvc: 'b0' }] },
      ],
    }
    const pattern = ['orders[].cards[].cvc']
    const payload = () => structuredClone(redactInput(original, pattern).value) as typeof original
    expect(restoreRedacted(payload(), original, pattern)).toEqual({ ok: true, value: original })

    const innerEdit = payload()
    innerEdit.orders[0]!.cards[1]!.n = 9
    expect(restoreRedacted(innerEdit, original, pattern)).toEqual(
      reenter('orders.0.cards.0.cvc', 'orders.0.cards.1.cvc'),
    )

    const outerEdit = payload()
    outerEdit.orders[1]!.note = 'changed'
    expect(restoreRedacted(outerEdit, original, pattern)).toEqual(reenter('orders.1.cards.0.cvc'))

    const innerReorder = payload()
    innerReorder.orders[0]!.cards.reverse()
    expect(restoreRedacted(innerReorder, original, pattern)).toEqual(
      reenter('orders.0.cards.0.cvc', 'orders.0.cards.1.cvc'),
    )
  })

  it('refuses placeholders under a key the approver restructured', () => {
    const original = { card: { number: '4242', cvc: '111' } }
    const pattern = ['card.cvc']
    expect(
      restoreRedacted({ card: { number: '4242', extra: { cvc: REDACTED } } }, original, pattern),
    ).toEqual(reenter('card.extra.cvc'))
    expect(restoreRedacted({ card: [{ cvc: REDACTED }] }, original, pattern)).toEqual(reenter('card.0.cvc'))
    expect(restoreRedacted({ payment: { cvc: REDACTED } }, original, pattern)).toEqual(reenter('payment.cvc'))
    // An object (not a row) keeps its secret when a sibling is edited.
    expect(restoreRedacted({ card: { number: '5555', cvc: REDACTED } }, original, pattern)).toEqual({
      ok: true,
      value: { card: { number: '5555', cvc: '111' } },
    })
  })

  it('refuses placeholders the tool was not sent at that position', () => {
    const edited = sent() as Record<string, unknown>
    edited.name = REDACTED
    expect(restoreRedacted(edited, payment(), paths)).toEqual(reenter('name'))
    // A sensitive path that held no value had nothing sent.
    expect(
      restoreRedacted({ cards: [{ label: 'x', cvc: REDACTED }] }, { cards: [{ label: 'x' }] }, paths),
    ).toEqual(reenter('cards.0.cvc'))
    // A sensitive value replaced by a structure: placeholders inside were never sent.
    expect(restoreRedacted({ secret: [REDACTED] }, { secret: 'abc' }, ['secret'])).toEqual(
      reenter('secret.0'),
    )
  })

  it('refuses every placeholder when the sensitive paths cannot be read at approval', () => {
    const throwing = () => {
      throw new Error('gone')
    }
    expect(restoreRedacted(REDACTED, payment(), throwing)).toEqual(reenter(''))
    expect(restoreRedacted(sent(), payment(), throwing)).toEqual(reenter('cards.0.cvc', 'cards.1.cvc'))
    const retyped = payment()
    expect(restoreRedacted(retyped, payment(), throwing)).toEqual({ ok: true, value: retyped })
  })

  it('restores the whole input when it was redacted as a whole', () => {
    expect(restoreRedacted(REDACTED, payment(), [''])).toEqual({ ok: true, value: payment() })
    expect(restoreRedacted({ a: 1 }, payment(), [''])).toEqual({ ok: true, value: { a: 1 } })
  })

  it('passes a real value that happens to read [redacted] through, where it was', () => {
    const original = { note: REDACTED, other: 'x' }
    expect(restoreRedacted({ note: REDACTED, other: 'y' }, original, [])).toEqual({
      ok: true,
      value: { note: REDACTED, other: 'y' },
    })
    expect(restoreRedacted({ note: 'n', other: REDACTED }, original, [])).toEqual(reenter('other'))
  })

  it('only treats the exact string as a placeholder', () => {
    const edited = sent() as { cards: Record<string, unknown>[] }
    edited.cards[0]!.cvc = '[REDACTED]'
    edited.cards[1]!.cvc = ' [redacted]'
    const out = restoreRedacted(edited, payment(), paths)
    expect(out.ok && (out.value as typeof edited).cards.map((c) => c.cvc)).toEqual([
      '[REDACTED]',
      ' [redacted]',
    ])
  })

  it('never mutates its arguments and shares untouched parts', () => {
    const original = payment()
    const edited = sent()
    const editedSnapshot = structuredClone(edited)
    const out = restoreRedacted(edited, original, paths)
    expect(edited).toEqual(editedSnapshot)
    expect(original).toEqual(payment())
    const untouched = { name: 'x', cards: [] }
    const same = restoreRedacted(untouched, original, paths)
    expect(same.ok && same.value).toBe(untouched)
    expect(out.ok).toBe(true)
  })

  it('handles __proto__ keys in the edit as data', () => {
    const original = JSON.parse('{"__proto__":{"cvc":"1"},"cvc":"2"}')
    const refused = restoreRedacted(JSON.parse('{"__proto__":{"cvc":"[redacted]"}}'), original, ['cvc'])
    expect(refused).toEqual(reenter('__proto__.cvc'))
    const out = restoreRedacted(JSON.parse('{"__proto__":{"cvc":"1"},"cvc":"[redacted]"}'), original, ['cvc'])
    const value = (out.ok ? out.value : undefined) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.hasOwn(value, '__proto__')).toBe(true)
    expect(value.cvc).toBe('2')
    expect(({} as Record<string, unknown>).cvc).toBeUndefined()
  })
})
