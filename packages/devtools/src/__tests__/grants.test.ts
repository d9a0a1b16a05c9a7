import { type ConsumerHost, createToolmark, ok } from '@toolmark/core'
import { createGrantStore } from '@toolmark/core/grants'
import { afterEach, describe, expect, it } from 'vitest'
import { openPanel, type ToolmarkDevtoolsElement } from '../panel.ts'

const tick = () => new Promise((r) => setTimeout(r, 0))
const root = () => document.querySelector<ToolmarkDevtoolsElement>('toolmark-devtools')!.shadowRoot!
const text = (selector: string) => root().querySelector(selector)!.textContent ?? ''

afterEach(() => {
  document.body.innerHTML = ''
})

function setup() {
  const grants = createGrantStore()
  const tm = createToolmark({ dev: true, grants })
  let host!: ConsumerHost
  tm.use((h) => {
    host = h
    return undefined
  })
  tm.register({
    name: 'notes.add',
    title: 'Add note',
    description: 'Add a note',
    hints: { consequential: true },
    grantable: true,
    run: () => ok(),
  })
  return { tm, host, grants }
}

describe('devtools and grants', () => {
  it('says which grant let a call run without a card, lists the grants and revokes one', async () => {
    const { tm, host, grants } = setup()
    openPanel(host, () => {}, grants)
    const asked = await tm.call('notes.add', {}, { caller: 'inapp' })
    if (asked.status !== 'needs_confirmation') throw new Error('expected a card')
    await tm.confirmPending(asked.confirmId, { approved: true, remember: { days: 7 } })
    const grant = grants.list()[0]!
    expect(await tm.call('notes.add', {}, { caller: 'inapp' })).toEqual(ok())
    await tick()
    root().querySelector<HTMLElement>('#tab-calls')!.click()
    expect(text('#panel-calls')).toContain(`It ran without a card: grant ${grant.id}`)

    root().querySelector<HTMLElement>('#tab-grants')!.click()
    expect(text('#panel-grants')).toContain('Add note')
    expect(text('#panel-grants')).toContain('Allowed for the in-app agent, until')
    root().querySelector<HTMLElement>(`[data-act=revoke][data-id="${grant.id}"]`)!.click()
    await tick()
    expect(grants.list()).toEqual([])
    expect(text('#panel-grants')).toContain('None.')
    expect((await tm.call('notes.add', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('without a grant store the Grants tab says how to give it one', async () => {
    const { host } = setup()
    openPanel(host, () => {})
    root().querySelector<HTMLElement>('#tab-grants')!.click()
    expect(text('#panel-grants')).toContain('Pass devtools({ grants })')
  })
})
