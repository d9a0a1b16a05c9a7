// Acceptance tests for the React binding (lifetimes follow components; StrictMode/SSR safety;
// unmount drops pending confirmations), each run with and without StrictMode.
import { act, screen } from '@testing-library/react'
import { bridge } from '@toolmark/bridge'
import { createInPageChannel } from '@toolmark/bridge/in-page'
import { createToolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { useState } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import {
  ConfirmationCard,
  type Scope,
  ToolmarkProvider,
  ToolScope,
  useManifest,
  usePendingConfirmations,
  useScope,
  useTool,
} from '../index.ts'
import { describeEachReactMode, flush, names, setup } from './utils.tsx'

const Query = z.object({ q: z.string() })

let setLabel: (label: string) => void = () => {}
/** A parent that hands its child a new `run` closure on every render. */
function Parent() {
  const [label, set] = useState('one')
  setLabel = set
  return <Child run={() => ({ status: 'ok' as const, data: label })} />
}
function Child({ run }: { run: () => { status: 'ok'; data: string } }) {
  useTool({ name: 'label', description: 'Read the label', input: Query, hints: { readOnly: true }, run })
  return null
}

function Movable({ scope }: { scope: Scope | null | undefined }) {
  useTool(
    { name: 'go', description: 'Go', hints: { readOnly: true }, run: () => undefined },
    scope === undefined ? {} : { scope },
  )
  return null
}

let pickScope: (name: 'a' | 'b') => void = () => {}
function TwoScopes() {
  const a = useScope('a')
  const b = useScope('b')
  const [which, set] = useState<'a' | 'b'>('a')
  pickScope = set
  return <Movable scope={which === 'a' ? a : b} />
}

function Publish() {
  useTool({
    name: 'publish',
    description: 'Publish',
    hints: { consequential: true },
    summary: 'Publish it',
    run: () => ({ status: 'ok', data: 'published' }),
  })
  return null
}

function Cards() {
  const { items } = usePendingConfirmations()
  return (
    <>
      {items.map((item) => (
        <ConfirmationCard key={item.confirmId} confirmation={item} />
      ))}
    </>
  )
}

let manifestRenders = 0
function ManifestView() {
  const manifest = useManifest()
  manifestRenders++
  return <p data-testid="count">{manifest.tools.length}</p>
}

function Many({ n }: { n: number }) {
  return (
    <>
      {Array.from({ length: n }, (_, i) => `t${i}`).map((name) => (
        <Named key={name} name={name} />
      ))}
    </>
  )
}
function Named({ name }: { name: string }) {
  useTool({ name, description: name, hints: { readOnly: true }, run: () => undefined })
  return null
}

describeEachReactMode('React binding acceptance', ({ render }) => {
  it('a new run closure on every render neither re-registers nor bumps rev, and the latest one runs', async () => {
    const { tm, errors, wrap } = setup()
    render(wrap(<Parent />))
    await flush()
    const rev = tm.rev
    act(() => setLabel('two'))
    act(() => setLabel('three'))
    await flush()
    expect(tm.rev).toBe(rev)
    expect(await tm.call('label', { q: 'x' }, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'three' })
    expect(errors).toEqual([])
  })

  it('re-registers when the scope changes: the tool moves from one scope to the other', async () => {
    const { tm, errors, wrap } = setup()
    render(wrap(<TwoScopes />))
    await flush()
    expect(names(tm)).toEqual(['a.go'])
    const rev = tm.rev
    act(() => pickScope('b'))
    await flush()
    expect(names(tm)).toEqual(['b.go'])
    expect(tm.rev).toBeGreaterThan(rev)
    expect(errors).toEqual([])
  })

  it('registers nothing while the scope is null and at the root when no scope is given', async () => {
    const { tm, wrap } = setup()
    const view = render(wrap(<Movable scope={null} />))
    await flush()
    expect(names(tm)).toEqual([])
    view.rerender(wrap(<Movable scope={undefined} />))
    await flush()
    expect(names(tm)).toEqual(['go'])
  })

  it('a scope given by <ToolScope> names descendant tools and takes them away on unmount', async () => {
    const { tm, errors, wrap } = setup()
    const view = render(
      wrap(
        <ToolScope name="settings">
          <Named name="save" />
        </ToolScope>,
      ),
    )
    await flush()
    expect(names(tm)).toEqual(['settings.save'])
    view.rerender(wrap(null))
    await flush()
    expect(names(tm)).toEqual([])
    expect(errors).toEqual([])
  })

  it('useManifest re-renders once per revision, even when many tools register in one commit', async () => {
    const { tm, wrap } = setup()
    const view = render(wrap(<ManifestView />))
    await flush()
    manifestRenders = 0
    const revs: number[] = []
    tm.subscribe((rev) => revs.push(rev))
    view.rerender(
      wrap(
        <>
          <ManifestView />
          <Many n={5} />
        </>,
      ),
    )
    await flush()
    expect(screen.getByTestId('count').textContent).toBe('5')
    expect(revs).toHaveLength(1)
    // One render for the parent's rerender (twice under StrictMode) plus one for the revision.
    const perRender = manifestRenders
    manifestRenders = 0
    view.rerender(
      wrap(
        <>
          <ManifestView />
          <Many n={5} />
        </>,
      ),
    )
    await flush()
    expect(manifestRenders).toBeLessThan(perRender)
  })

  it('unmounting the tool drops its pending confirmation: the card disappears and the agent gets confirmation_expired', async () => {
    const { tm, wrap } = setup()
    const channel = createInPageChannel()
    const messages: Array<Record<string, unknown>> = []
    channel.agent.onMessage((m) => messages.push(m as Record<string, unknown>))
    const consumers = [bridge({ transport: channel.transport, clientId: 'page-1' })]
    const view = render(
      wrap(
        <>
          <Publish />
          <Cards />
        </>,
        consumers,
      ),
    )
    await flush()
    channel.agent.send({
      protocol: 1,
      type: 'call',
      clientId: 'page-1',
      id: 'c1',
      tool: 'publish',
      input: {},
    })
    await flush()
    await flush()
    const result = messages.find((m) => m.type === 'result') as {
      result: { status: string; confirmId: string }
    }
    expect(result.result.status).toBe('needs_confirmation')
    expect(screen.getAllByTestId('confirmation-card')).toHaveLength(1)
    view.rerender(wrap(<Cards />, consumers))
    await flush()
    await flush()
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
    expect(tm.pendingConfirmations()).toEqual([])
    expect(messages.filter((m) => m.type === 'confirmed')).toEqual([
      {
        protocol: 1,
        type: 'confirmed',
        clientId: 'page-1',
        confirmId: result.result.confirmId,
        result: {
          status: 'refused',
          code: 'confirmation_expired',
          message: 'The confirmation expired or was already used',
        },
      },
    ])
  })

  it('StrictMode and re-renders never produce duplicate_name or two registrations', async () => {
    const { tm, errors, wrap } = setup()
    const view = render(wrap(<Many n={3} />))
    await flush()
    for (let i = 0; i < 3; i++) view.rerender(wrap(<Many n={3} />))
    await flush()
    expect(names(tm)).toEqual(['t0', 't1', 't2'])
    expect(errors).toEqual([])
  })
})

describe('SSR', () => {
  it('renderToString registers nothing, attaches nothing, throws nothing', () => {
    environment.setIsServer(true)
    const tm = createToolmark({ dev: true })
    const consumer = vi.fn(() => undefined)
    const notified = vi.fn()
    tm.subscribe(notified)
    const html = renderToString(
      <ToolmarkProvider toolmark={tm} consumers={[consumer]}>
        <ManifestView />
        <ToolScope name="s">
          <Named name="x" />
        </ToolScope>
        <Publish />
        <Cards />
      </ToolmarkProvider>,
    )
    expect(html).toContain('0')
    expect(tm.manifest().tools).toEqual([])
    expect(tm.rev).toBe(0)
    expect(consumer).not.toHaveBeenCalled()
    expect(notified).not.toHaveBeenCalled()
  })
})
