import { act } from '@testing-library/react'
import { useState } from 'react'
import { expect, it } from 'vitest'
import { type Scope, ToolScope, useScope, useTool } from '../index.ts'
import { describeEachReactMode, flush, names, setup } from './utils.tsx'

function Tool({ name, scope }: { name: string; scope?: Scope | null }) {
  useTool(
    { name, description: name, hints: { readOnly: true }, run: () => undefined },
    scope === undefined ? {} : { scope },
  )
  return null
}

function Settings({ open, when }: { open: boolean; when?: boolean | (() => boolean) }) {
  return open ? (
    <ToolScope name="settings" {...(when === undefined ? {} : { when })}>
      <Tool name="save" />
      <ToolScope name="profile">
        <Tool name="rename" />
      </ToolScope>
    </ToolScope>
  ) : (
    <Tool name="home" />
  )
}

let toggle: () => void = () => {}
function OwnScope() {
  const [visible, setVisible] = useState(true)
  toggle = () => setVisible((v) => !v)
  const scope = useScope('editor', { when: visible })
  return <Tool name="format" scope={scope} />
}

describeEachReactMode('useScope / ToolScope', ({ render }) => {
  it("names descendants' tools after the scope and removes them all on navigation away", async () => {
    const { tm, errors, wrap } = setup()
    const view = render(wrap(<Settings open />))
    await flush()
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
    view.rerender(wrap(<Settings open={false} />))
    await flush()
    expect(names(tm)).toEqual(['home'])
    view.rerender(wrap(<Settings open />))
    await flush()
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
    expect(errors).toEqual([])
  })

  it('never registers a scoped tool at the root while the scope is being created', async () => {
    const { tm, wrap } = setup()
    const seen = new Set<string>()
    tm.subscribe(() => {
      for (const n of names(tm)) seen.add(n)
    })
    render(wrap(<Settings open />))
    await flush()
    expect([...seen].sort()).toEqual(['settings.profile.rename', 'settings.save'])
  })

  it('hides the tools while `when` is false and shows them again when it turns true', async () => {
    const { tm, wrap } = setup()
    const view = render(wrap(<Settings open when={false} />))
    await flush()
    expect(names(tm)).toEqual([])
    view.rerender(wrap(<Settings open when />))
    await flush()
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
  })

  it('evaluates a function `when` with the latest closure', async () => {
    const { tm, wrap } = setup()
    let allowed = false
    render(wrap(<Settings open when={() => allowed} />))
    await flush()
    expect(names(tm)).toEqual([])
    allowed = true
    expect((await tm.call('settings.save', {}, { caller: 'inapp' })).status).toBe('ok')
  })

  it('gives useScope results to useTool explicitly and follows a reactive boolean `when`', async () => {
    const { tm, wrap } = setup()
    render(wrap(<OwnScope />))
    await flush()
    expect(names(tm)).toEqual(['editor.format'])
    act(() => toggle())
    await flush()
    expect(names(tm)).toEqual([])
    act(() => toggle())
    await flush()
    expect(names(tm)).toEqual(['editor.format'])
  })
})
