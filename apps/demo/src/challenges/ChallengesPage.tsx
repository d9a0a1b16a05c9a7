import { error, type Issue, type RunResult, type ToolResult } from '@toolmark/core'
import { agentSubmit } from '@toolmark/forms/dom'
import { ToolScope, useTool, useToolmark, useToolmarkContext } from '@toolmark/react'
import { type FormEvent, type ReactNode, useMemo, useState, useSyncExternalStore } from 'react'
import type { Challenge, ChallengeStore } from './store.ts'
import { createTool, deleteTool, exportTool, notesTool, searchTool } from './tools.ts'

const issuesText = (issues: readonly Issue[]): string => issues.map((issue) => issue.message).join('; ')

/** A short line for a failed human call (`undefined` when it succeeded). */
export function failure(result: ToolResult): string | undefined {
  if (result.status === 'ok') return undefined
  if (result.status === 'invalid') return issuesText(result.issues)
  if (result.status === 'refused' || result.status === 'error') return result.message
  return `Not done (${result.status})`
}

/**
 * The challenges page: list, search, create, edit, delete with Undo. Its tools live in the scope
 * `challenges`, which exists only while this page is shown. The page's own buttons call the same tools
 * as caller `human`, so the agent and the user share one definition (and one undo store).
 */
export function ChallengesPage({ store }: { store: ChallengeStore }): ReactNode {
  return (
    <ToolScope name="challenges">
      <ChallengeTools store={store} />
      <ChallengesView store={store} />
    </ToolScope>
  )
}

/** Registers `challenges.search`, `.create`, `.delete`, `.notes` and `.export` in the enclosing scope. */
function ChallengeTools({ store }: { store: ChallengeStore }): null {
  useTool(useMemo(() => searchTool(store), [store]))
  useTool(useMemo(() => createTool(store), [store]))
  useTool(useMemo(() => deleteTool(store), [store]))
  useTool(useMemo(() => notesTool(store), [store]))
  useTool(useMemo(() => exportTool(store), [store]))
  return null
}

function ChallengesView({ store }: { store: ChallengeStore }): ReactNode {
  const tm = useToolmark()

  const state = useSyncExternalStore(store.subscribe, store.getState)
  const [query, setQuery] = useState('')
  const [error, setError] = useState<string>()
  const visible = useMemo(
    () => (query.trim() ? store.search(query) : state.challenges),
    [store, query, state.challenges],
  )
  // Readable context `challenges.filter`: what the list shows now, which the agent sees with each turn.
  useToolmarkContext({
    name: 'filter',
    title: 'Challenges list',
    description: 'The search typed above the challenges list and the names of the challenges it shows.',
    value: { query, shown: visible.map((challenge) => challenge.name) },
  })

  const remove = async (name: string): Promise<void> => {
    setError(failure(await tm.call('challenges.delete', { name }, { caller: 'human' })))
  }

  return (
    <section className="page" aria-labelledby="challenges-heading">
      <h1 id="challenges-heading">Challenges</h1>
      <input
        className="search"
        type="search"
        placeholder="Search challenges"
        aria-label="Search challenges"
        data-testid="challenge-search"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
      />
      <ul className="challenge-list" data-testid="challenge-list">
        {visible.map((challenge) => (
          <ChallengeItem key={challenge.id} challenge={challenge} store={store} onDelete={remove} />
        ))}
        {visible.length === 0 && <li className="empty">No challenges match “{query}”.</li>}
      </ul>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <CreateForm onError={setError} />
    </section>
  )
}

function ChallengeItem(props: {
  challenge: Challenge
  store: ChallengeStore
  onDelete: (name: string) => void
}): ReactNode {
  const { challenge, store, onDelete } = props
  const [editing, setEditing] = useState(false)
  const [name, setName] = useState(challenge.name)
  const [description, setDescription] = useState(challenge.description)
  const [error, setError] = useState<string>()

  const save = (event: FormEvent): void => {
    event.preventDefault()
    if (!name.trim()) setError('Enter a name')
    else if (!store.update(challenge.id, { name, description })) setError(`"${name}" is already taken`)
    else {
      setError(undefined)
      setEditing(false)
    }
  }

  if (editing) {
    return (
      <li className="challenge editing" data-testid="challenge-item" data-name={challenge.name}>
        <form onSubmit={save} className="stack">
          <input aria-label="Name" value={name} onChange={(event) => setName(event.target.value)} />
          <textarea
            aria-label="Description"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
          {error && <p className="form-error">{error}</p>}
          <div className="row">
            <button type="submit">Save</button>
            <button type="button" className="secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      </li>
    )
  }
  return (
    <li className="challenge" data-testid="challenge-item" data-name={challenge.name}>
      <div className="challenge-text">
        <strong>{challenge.name}</strong>
        {challenge.description && <p>{challenge.description}</p>}
        {challenge.notes && <p className="notes">Notes: {challenge.notes}</p>}
      </div>
      <div className="row">
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setName(challenge.name)
            setDescription(challenge.description)
            setEditing(true)
          }}
        >
          Edit
        </button>
        <button type="button" className="danger" onClick={() => onDelete(challenge.name)}>
          Delete
        </button>
      </div>
    </li>
  )
}

/** A human call's result as a form submit's answer: a call that still waits for approval is not done. */
function asRunResult(result: ToolResult): RunResult {
  return result.status === 'needs_confirmation' ? error('Not done: it waits for approval') : result
}

function CreateForm({ onError }: { onError: (message: string | undefined) => void }): ReactNode {
  const tm = useToolmark()
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')

  const submit = (event: FormEvent): void => {
    event.preventDefault()
    const input = description.trim() ? { name, description } : { name }
    const saving = tm.call('challenges.create', input, { caller: 'human' }).then((result) => {
      onError(failure(result))
      if (result.status === 'ok') {
        setName('')
        setDescription('')
      }
      return asRunResult(result)
    })
    // An agent's approved submit is answered with what the app did (a taken name is `invalid`, not ok).
    agentSubmit(event.nativeEvent)?.respondWith(saving)
  }

  return (
    <form className="create stack" onSubmit={submit} aria-label="New challenge">
      <h2>New challenge</h2>
      <input
        name="name"
        placeholder="Name"
        aria-label="Name"
        data-testid="create-name"
        value={name}
        onChange={(event) => setName(event.target.value)}
      />
      <input
        name="description"
        placeholder="Description (optional)"
        aria-label="Description"
        value={description}
        onChange={(event) => setDescription(event.target.value)}
      />
      <button type="submit" data-testid="create-submit">
        Add challenge
      </button>
    </form>
  )
}
