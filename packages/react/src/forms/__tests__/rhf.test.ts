// @vitest-environment node
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type BundlePage, openBundle } from '../../../../forms/src/__tests__/support/browser.ts'

let b: BundlePage
type W = {
  call(n: string, i: unknown, c?: string): Promise<unknown>
  submitted: unknown[]
  tm: { rev: number }
}

beforeAll(async () => {
  b = await openBundle(
    fileURLToPath(new URL('./rhf-page.tsx', import.meta.url)),
    '<!doctype html><div id="root"></div><script type="module" src="/page.js"></script>',
  )
}, 60_000)
afterAll(() => b?.close())
beforeEach(() => b.reload())

const text = (id: string) => b.page.evaluate((i) => document.getElementById(i)!.textContent, id)

describe('react-hook-form binding in Chromium', () => {
  it('fill uses setValue (validated, dirty) and returns the diff; trigger errors are invalid issues', async () => {
    await b.page.waitForFunction(() => (window as unknown as W).tm.rev > 0)
    const fill = await b.page.evaluate(() =>
      (window as unknown as W).call('signup.fill', { title: 'Robots', password: 'hunter2' }),
    )
    expect(fill).toEqual({
      status: 'ok',
      data: [
        { path: 'title', after: 'Robots' },
        { path: 'password', after: '[redacted]' },
      ],
    })
    expect(await text('dirty')).toBe('true')
    expect(await b.page.inputValue('input[name=title]')).toBe('Robots')
    const bad = await b.page.evaluate(() =>
      (window as unknown as W).call('signup.fill', { email: 'a@b.com', title: 'ab' }),
    )
    expect(bad).toEqual({
      status: 'invalid',
      issues: [
        { path: 'email', message: 'Use an example.org address' },
        { path: 'title', message: 'At least 3 characters' },
      ],
    })
    expect(await text('errors')).toBe('email,title')
  })

  it('submit runs handleSubmit after approval; a required field fails with its message', async () => {
    await b.page.waitForFunction(() => (window as unknown as W).tm.rev > 0)
    const empty = await b.page.evaluate(() => (window as unknown as W).call('signup.submit', {}))
    expect(empty).toEqual({ status: 'invalid', issues: [{ path: 'title', message: 'Title is required' }] })
    const out = await b.page.evaluate(async () => {
      const w = window as unknown as W
      await w.call('signup.fill', { title: 'Robots', email: 'ada@example.org', password: 'pw' })
      const pending = await w.call('signup.submit', {}, 'inapp')
      const done = await w.call('signup.submit', {})
      return { pending, done, submitted: w.submitted }
    })
    expect(out.pending).toMatchObject({
      status: 'needs_confirmation',
      changes: [
        { path: 'title', after: 'Robots' },
        { path: 'email', after: 'ada@example.org' },
        { path: 'password', after: '[redacted]' },
      ],
    })
    expect(out.done).toEqual({ status: 'ok', data: { saved: 'Robots' } })
    expect(out.submitted).toEqual([{ title: 'Robots', email: 'ada@example.org', password: 'pw' }])
  })
})
