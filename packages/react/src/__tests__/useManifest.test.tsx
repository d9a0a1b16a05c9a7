import { act } from '@testing-library/react'
import { useState } from 'react'
import { expect, it } from 'vitest'
import { type Manifest, useManifest, useTool } from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

function Tool({ name, readOnly }: { name: string; readOnly: boolean }) {
  useTool({
    name,
    description: name,
    hints: readOnly ? { readOnly: true } : { consequential: true },
    run: () => undefined,
  })
  return null
}

const seen: Manifest[] = []
function Names({ caller }: { caller?: 'webmcp' }) {
  const manifest = useManifest(caller ? { caller } : {})
  seen.push(manifest)
  return (
    <ul>
      {manifest.tools.map((t) => (
        <li key={t.name}>{t.name}</li>
      ))}
    </ul>
  )
}

let setCount: (n: number) => void = () => {}
function Many() {
  const [count, set] = useState(0)
  setCount = set
  return (
    <>
      {Array.from({ length: count }, (_, i) => `t${i}`).map((name) => (
        <Tool key={name} name={name} readOnly />
      ))}
    </>
  )
}

describeEachReactMode('useManifest', ({ render }) => {
  it('re-renders with the new manifest once per revision', async () => {
    const { tm, wrap } = setup()
    seen.length = 0
    const view = render(
      wrap(
        <>
          <Many />
          <Names />
        </>,
      ),
    )
    await flush()
    act(() => setCount(3))
    await flush()
    expect(view.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['t0', 't1', 't2'])
    // Three registrations in one commit: one new manifest snapshot, not three.
    expect(new Set(seen.map((m) => m.rev))).toEqual(new Set([0, tm.rev]))
    expect(new Set(seen).size).toBe(2)
  })

  it('filters for a caller', async () => {
    const { wrap } = setup({ policy: { webmcp: ['readOnly'] } })
    const view = render(
      wrap(
        <>
          <Tool name="read" readOnly />
          <Tool name="write" readOnly={false} />
          <Names caller="webmcp" />
        </>,
      ),
    )
    await flush()
    expect(view.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['read'])
  })
})
