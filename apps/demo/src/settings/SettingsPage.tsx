import { ToolScope, useTool, useToolmark } from '@toolmark/react'
import { type FormEvent, type ReactNode, useMemo, useState, useSyncExternalStore } from 'react'
import type { SettingsStore } from './store.ts'
import { updateCardTool } from './tools.ts'

/**
 * The settings page with a payment card form. Once saved, only the last four digits and the expiry are
 * kept and shown. Its tool lives in the scope `settings`.
 */
export function SettingsPage({ store }: { store: SettingsStore }): ReactNode {
  return (
    <ToolScope name="settings">
      <SettingsTools store={store} />
      <SettingsView store={store} />
    </ToolScope>
  )
}

/** Registers `settings.updateCard` in the enclosing scope. */
function SettingsTools({ store }: { store: SettingsStore }): null {
  useTool(useMemo(() => updateCardTool(store), [store]))
  return null
}

function SettingsView({ store }: { store: SettingsStore }): ReactNode {
  const tm = useToolmark()

  const card = useSyncExternalStore(store.subscribe, store.getCard)
  const [number, setNumber] = useState('')
  const [cvc, setCvc] = useState('')
  const [expiry, setExpiry] = useState('')
  const [error, setError] = useState<string>()

  const save = async (event: FormEvent): Promise<void> => {
    event.preventDefault()
    const result = await tm.call(
      'settings.updateCard',
      { card: { number, cvc, expiry } },
      { caller: 'human' },
    )
    if (result.status === 'ok') {
      setNumber('')
      setCvc('')
      setExpiry('')
      setError(undefined)
    } else if (result.status === 'invalid') {
      setError(result.issues.map((issue) => issue.message).join('; '))
    } else {
      setError('The card was not saved.')
    }
  }

  return (
    <section className="page" aria-labelledby="settings-heading">
      <h1 id="settings-heading">Settings</h1>
      <h2>Payment card</h2>
      {card ? (
        <p className="saved-card">
          Card ending in <span data-testid="settings-card-last4">{card.last4}</span>, expires {card.expiry}
        </p>
      ) : (
        <p className="saved-card muted">No card saved yet.</p>
      )}
      <form className="stack card-form" onSubmit={save} aria-label="Payment card">
        <label>
          Card number
          <input
            inputMode="numeric"
            autoComplete="cc-number"
            data-testid="card-number"
            value={number}
            onChange={(event) => setNumber(event.target.value)}
          />
        </label>
        <div className="row">
          <label>
            CVC
            <input
              inputMode="numeric"
              autoComplete="cc-csc"
              data-testid="card-cvc"
              value={cvc}
              onChange={(event) => setCvc(event.target.value)}
            />
          </label>
          <label>
            Expiry (MM/YY)
            <input
              autoComplete="cc-exp"
              data-testid="card-expiry"
              value={expiry}
              onChange={(event) => setExpiry(event.target.value)}
            />
          </label>
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" data-testid="card-save">
          Save card
        </button>
      </form>
    </section>
  )
}
