import { type ConfirmQueue, ok } from '@toolmark/core'
import type { TestAgent as Agent } from '@toolmark/core/testing'
import {
  ConfirmationCard,
  ToolScope,
  useConfirmQueue,
  useManifest,
  usePendingConfirmations,
  useTool,
} from '@toolmark/react'
import { type ReactNode, useState, useSyncExternalStore } from 'react'
import * as z from 'zod'

const PAGES = ['tools', 'challenges', 'settings'] as const
type Page = (typeof PAGES)[number]

const subscribeHash = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange)
  return () => window.removeEventListener('hashchange', onChange)
}
const readPage = (): Page => PAGES.find((page) => window.location.hash === `#/${page}`) ?? 'tools'

export function App({ agent, queue }: { agent: Agent; queue: ConfirmQueue }): ReactNode {
  const page = useSyncExternalStore(subscribeHash, readPage)
  return (
    <>
      <nav>
        {PAGES.map((name) => (
          <a key={name} href={`#/${name}`} data-testid={`nav-${name}`}>
            {name}
          </a>
        ))}
      </nav>
      <main data-testid={`page-${page}`}>
        {page === 'tools' && <ToolsPage />}
        {page === 'challenges' && <ChallengesPage agent={agent} />}
        {page === 'settings' && <SettingsPage />}
      </main>
      <aside>
        <ManifestPanel />
        <PendingPanel queue={queue} />
        <AgentPanel agent={agent} />
      </aside>
    </>
  )
}

/** Tools appear while the panel is mounted and disappear when it unmounts. */
function ToolsPage(): ReactNode {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" data-testid="toggle-search" onClick={() => setOpen((o) => !o)}>
        {open ? 'Hide search' : 'Show search'}
      </button>
      {open && <SearchPanel />}
    </>
  )
}

const Query = z.object({ query: z.string() })

function SearchPanel(): ReactNode {
  const [query, setQuery] = useState('')
  useTool({
    name: 'search',
    description: 'Search challenges by keyword.',
    input: Query,
    hints: { readOnly: true },
    run: (input) => {
      setQuery(input.query)
      return ok({ query: input.query })
    },
  })
  return <section data-testid="search-panel">Searching for: {query}</section>
}

const Target = z.object({ name: z.string() })

/** A scope whose tools (and pending confirmations) vanish when the page is left. */
function ChallengesPage({ agent }: { agent: Agent }): ReactNode {
  return (
    <ToolScope name="challenges">
      <Challenges agent={agent} />
    </ToolScope>
  )
}

function Challenges({ agent }: { agent: Agent }): ReactNode {
  const [items, setItems] = useState(['Robotics', 'Chess', 'Poetry'])
  useTool({
    name: 'list',
    description: 'List the challenges.',
    hints: { readOnly: true },
    run: () => ok(items),
  })
  useTool({
    name: 'delete',
    title: 'Delete challenge',
    description: 'Delete a challenge by name.',
    input: Target,
    hints: { destructive: true },
    summary: ({ name }) => `Delete "${name}"`,
    run: ({ name }) => {
      setItems((current) => current.filter((item) => item !== name))
      return ok({ deleted: name })
    },
  })
  return (
    <>
      <ul data-testid="challenges">
        {items.map((item) => (
          <li key={item} data-testid="challenge">
            {item}
          </li>
        ))}
      </ul>
      <button
        type="button"
        data-testid="agent-delete"
        onClick={() => agent.call('challenges.delete', { name: 'Robotics' })}
      >
        Ask the agent to delete Robotics
      </button>
    </>
  )
}

function SettingsPage(): ReactNode {
  return (
    <ToolScope name="settings">
      <Settings />
    </ToolScope>
  )
}

function Settings(): ReactNode {
  const [theme, setTheme] = useState('light')
  useTool({
    name: 'theme',
    description: 'Switch the colour theme.',
    input: z.object({ theme: z.enum(['light', 'dark']) }),
    hints: { readOnly: true },
    run: (input) => {
      setTheme(input.theme)
      return ok()
    },
  })
  useTool({
    name: 'save',
    description: 'Save the settings.',
    hints: { consequential: true },
    run: () => ok(),
  })
  return <p data-testid="theme">Theme: {theme}</p>
}

function ManifestPanel(): ReactNode {
  const manifest = useManifest()
  return (
    <ul data-testid="manifest" data-rev={manifest.rev}>
      {manifest.tools.map((tool) => (
        <li key={tool.name} data-testid="manifest-tool">
          {tool.name}
        </li>
      ))}
    </ul>
  )
}

/** Deferred confirmations (inapp agent calls) and inline requests (WebMCP, MCP, tours). */
function PendingPanel({ queue }: { queue: ConfirmQueue }): ReactNode {
  const pending = usePendingConfirmations()
  const inline = useConfirmQueue(queue)
  return (
    <>
      <section data-testid="pending">
        {pending.items.map((item) => (
          <ConfirmationCard key={item.confirmId} confirmation={item} autoFocus />
        ))}
      </section>
      <section data-testid="inline">
        {inline.items.map((item) => (
          <ConfirmationCard key={item.confirmId} confirmation={item} />
        ))}
      </section>
    </>
  )
}

function AgentPanel({ agent }: { agent: Agent }): ReactNode {
  const state = useSyncExternalStore(agent.subscribe, agent.getState)
  return (
    <dl>
      <dt>Agent sees</dt>
      <dd data-testid="agent-tools">{state.tools.join(',')}</dd>
      <dt>Last result</dt>
      <dd data-testid="agent-result">{state.lastResult}</dd>
      <dt>Last confirmed</dt>
      <dd data-testid="agent-confirmed">{state.lastConfirmed}</dd>
    </dl>
  )
}
