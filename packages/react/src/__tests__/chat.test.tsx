import { act, fireEvent, screen } from '@testing-library/react'
import { ok } from '@toolmark/core'
import { MAX_MESSAGE_LENGTH as SERVER_MAX } from '@toolmark/server/contract'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import {
  AgentChat,
  agentConversation,
  type ChatEvent,
  type ChatMessage,
  DEFAULT_CONVERSATION_KEY,
  MAX_MESSAGE_LENGTH,
  mergeMessage,
} from '../chat/index.ts'
import { useTool } from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

/**
 * A stand-in for `@toolmark/server`'s chat API, behind `fetch` and `EventSource`: conversations with
 * their messages, a refusal switch, every request made, and the open event streams.
 */
class FakeServer {
  conversations = new Map<string, ChatMessage[]>()
  requests: string[] = []
  posted: Array<{ id: string; text: string }> = []
  refuse: { status: number; code: string; message: string } | undefined
  streams: FakeEventSource[] = []
  private next = 1

  fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = String(input)
    const method = init.method ?? 'GET'
    this.requests.push(`${method} ${url}`)
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
    if (this.refuse) {
      const { status, code, message } = this.refuse
      return json({ error: { code, message } }, status)
    }
    if (method === 'POST' && url === '/api/conversations') {
      const id = `c${this.next++}`
      this.conversations.set(id, [])
      return json({ id }, 201)
    }
    const match = /^\/api\/conversations\/([^/]+)(\/messages)?$/.exec(url)
    const messages = match ? this.conversations.get(decodeURIComponent(match[1]!)) : undefined
    if (!match || !messages)
      return json({ error: { code: 'not_found', message: 'No such conversation' } }, 404)
    const id = decodeURIComponent(match[1]!)
    if (match[2]) {
      const { text } = JSON.parse(String(init.body)) as { text: string }
      this.posted.push({ id, text })
      return json({ id: `m${this.next++}` }, 202)
    }
    return json({ id, messages })
  }

  /** The stream of conversation `id` (the last one opened). */
  stream(id: string): FakeEventSource {
    const found = this.streams.filter((s) => s.url === `/api/conversations/${id}/events` && !s.closed).at(-1)
    if (!found) throw new Error(`no open stream for ${id}`)
    return found
  }
}

class FakeEventSource {
  onopen: (() => void) | null = null
  onmessage: ((event: MessageEvent<string>) => void) | null = null
  closed = false
  constructor(
    readonly url: string,
    server: FakeServer,
  ) {
    server.streams.push(this)
  }
  close() {
    this.closed = true
  }
  /** Delivers one event's data, as the browser would. */
  emit(data: ChatEvent | string) {
    const text = typeof data === 'string' ? data : JSON.stringify(data)
    act(() => this.onmessage?.(new MessageEvent('message', { data: text })))
  }
  open() {
    act(() => this.onopen?.())
  }
}

let server: FakeServer

beforeEach(() => {
  server = new FakeServer()
  localStorage.clear()
  vi.stubGlobal('fetch', server.fetch)
  const current = server
  vi.stubGlobal(
    'EventSource',
    class extends FakeEventSource {
      constructor(url: string) {
        super(url, current)
      }
    },
  )
})

afterEach(() => {
  vi.unstubAllGlobals()
})

const line = (id: string, role: ChatMessage['role'], text: string, at: number): ChatMessage => ({
  id,
  role,
  text,
  at,
})

const CartLine = ({ part }: { part: { summary?: string } }) => <b>Cart: {part.summary}</b>

describe('agentConversation', () => {
  it('creates a conversation once per tab, keeps its id, and reuses it after a reload', async () => {
    const conversation = agentConversation()
    const [a, b] = await Promise.all([conversation.open(), conversation.open()])
    expect(a).toEqual({ id: 'c1', messages: [] })
    expect(b).toBe(a)
    expect(server.requests).toEqual(['POST /api/conversations'])
    expect(localStorage.getItem(DEFAULT_CONVERSATION_KEY)).toBe('c1')

    server.conversations.get('c1')!.push(line('m1', 'user', 'hi', 1))
    const reloaded = await agentConversation().open()
    expect(reloaded).toEqual({ id: 'c1', messages: [line('m1', 'user', 'hi', 1)] })
    expect(server.requests.at(-1)).toBe('GET /api/conversations/c1')
  })

  it('starts a new conversation when the server no longer knows the kept one', async () => {
    localStorage.setItem(DEFAULT_CONVERSATION_KEY, 'gone')
    expect((await agentConversation().open()).id).toBe('c1')
    expect(server.requests).toEqual(['GET /api/conversations/gone', 'POST /api/conversations'])
  })

  it('takes another API path and storage key, or keeps nothing', async () => {
    const conversation = agentConversation({ api: '/agent/', storageKey: false })
    await expect(conversation.open()).rejects.toThrow('Could not start a conversation: No such conversation')
    expect(server.requests).toEqual(['POST /agent/conversations'])
    expect(localStorage.length).toBe(0)
  })

  it("rejects with the server's message, and asks again on the next open", async () => {
    server.refuse = { status: 500, code: 'internal', message: 'authenticate threw' }
    const conversation = agentConversation()
    await expect(conversation.open()).rejects.toThrow('Could not start a conversation: authenticate threw')
    server.refuse = undefined
    expect((await conversation.open()).id).toBe('c1')
  })

  it('passes message, busy, text-delta and tool events on, and ignores what is not JSON', async () => {
    const events: ChatEvent[] = []
    const close = agentConversation().subscribe('c 1', (event) => events.push(event))
    const stream = server.streams[0]!
    expect(stream.url).toBe('/api/conversations/c%201/events')
    stream.emit('not json')
    stream.emit(JSON.stringify({ type: 'other' }))
    stream.emit({ type: 'busy', busy: true })
    stream.emit({ type: 'text-delta', messageId: 'm1', delta: 'Hi' })
    expect(events).toEqual([
      { type: 'busy', busy: true },
      { type: 'text-delta', messageId: 'm1', delta: 'Hi' },
    ])
    close()
    expect(stream.closed).toBe(true)
  })
})

it('merges messages by id in time order', () => {
  const a = line('a', 'user', 'a', 2)
  const b = line('b', 'assistant', 'b', 1)
  expect(mergeMessage([a], b)).toEqual([b, a])
  const same = [a]
  expect(mergeMessage(same, { ...a, text: 'other' })).toBe(same)
})

it("accepts the server's message length", () => {
  expect(MAX_MESSAGE_LENGTH).toBe(SERVER_MAX)
})

/** A consequential tool, as the Next guide's settings page declares it. */
function ThemeTool({ onRun }: { onRun: (theme: string) => void }) {
  useTool({
    name: 'settings.setTheme',
    description: 'Switch the colour theme of the app.',
    input: z.object({ theme: z.enum(['light', 'dark']) }),
    hints: { consequential: true },
    summary: ({ theme }) => `Switch to the ${theme} theme`,
    run: ({ theme }) => {
      onRun(theme)
      return ok({ theme })
    },
  })
  return null
}

const input = () => screen.getByRole('textbox', { name: 'Message' }) as HTMLInputElement
const send = () => screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement

describeEachReactMode('AgentChat', ({ render }) => {
  it('opens the conversation, shows its history, and sends what the user types on Enter', async () => {
    localStorage.setItem(DEFAULT_CONVERSATION_KEY, 'c9')
    server.conversations.set('c9', [line('m1', 'user', 'Hello', 1), line('m2', 'assistant', 'Hi!', 2)])
    const { wrap } = setup()
    render(wrap(<AgentChat conversation={agentConversation()} />))
    expect(send().disabled).toBe(true)
    await flush()
    expect(screen.getAllByTestId('agent-chat-message').map((li) => li.textContent)).toEqual([
      'You: Hello',
      'Agent: Hi!',
    ])
    expect(screen.getByRole('region', { name: 'Chat with the agent' }).dataset.status).toBe('ready')
    expect(input().maxLength).toBe(MAX_MESSAGE_LENGTH)

    fireEvent.change(input(), { target: { value: '  Switch the theme to dark  ' } })
    expect(send().disabled).toBe(false)
    await act(async () => {
      fireEvent.submit(input().form!)
    })
    expect(server.posted).toEqual([{ id: 'c9', text: 'Switch the theme to dark' }])
    expect(input().value).toBe('')
    expect(document.activeElement).toBe(input())
  })

  it('shows streamed messages (a line per tool), the busy line, and catches up after a reconnection', async () => {
    const { wrap } = setup()
    render(wrap(<AgentChat conversation={agentConversation()} />))
    await flush()
    const stream = server.stream('c1')
    stream.emit({ type: 'busy', busy: true })
    expect(screen.getByRole('status').textContent).toBe('The agent is working…')
    stream.emit({
      type: 'message',
      message: { ...line('t1', 'tool', 'Switch to the dark theme', 5), tool: 'x' },
    })
    stream.emit({ type: 'message', message: line('t1', 'tool', 'Switch to the dark theme', 5) })
    stream.emit({ type: 'busy', busy: false })
    expect(screen.queryByRole('status')).toBeNull()
    expect(screen.getAllByTestId('agent-chat-message').map((li) => li.dataset.role)).toEqual(['tool'])
    expect(screen.getByText('Tool:', { exact: false }).parentElement?.textContent).toBe(
      'Tool: Switch to the dark theme',
    )

    // Missed while the stream was down: read again when it reopens, merged in time order.
    server.conversations.get('c1')!.push(line('a0', 'assistant', 'Earlier', 4))
    stream.open()
    await flush()
    expect(screen.getAllByTestId('agent-chat-message').map((li) => li.textContent)).toEqual([
      'Agent: Earlier',
      'Tool: Switch to the dark theme',
    ])
  })

  it('shows the reply as it streams, then the whole message in its place', async () => {
    const { wrap } = setup()
    render(wrap(<AgentChat conversation={agentConversation()} />))
    await flush()
    const stream = server.stream('c1')
    stream.emit({ type: 'busy', busy: true })
    stream.emit({ type: 'text-delta', messageId: 'a1', delta: 'Found three ' })
    stream.emit({ type: 'text-delta', messageId: 'a1', delta: 'challenges ' })
    const texts = () => screen.getAllByTestId('agent-chat-message').map((li) => li.textContent)
    expect(texts()).toEqual(['Agent: Found three challenges '])
    expect(screen.getByRole('status')).toBeTruthy() // the turn still runs
    stream.emit({ type: 'message', message: line('a1', 'assistant', 'Found three challenges for you.', 7) })
    expect(texts()).toEqual(['Agent: Found three challenges for you.'])
    // A reopened stream starts the message in progress over with its text so far.
    stream.emit({ type: 'text-delta', messageId: 'a2', delta: 'Partial ' })
    stream.open()
    stream.emit({ type: 'text-delta', messageId: 'a2', delta: 'Partial text ' })
    await flush()
    expect(texts()).toEqual(['Agent: Found three challenges for you.', 'Agent: Partial text '])
    stream.emit({ type: 'busy', busy: false })
    expect(texts()).toEqual(['Agent: Found three challenges for you.'])
  })

  it('shows each page call once in its latest state, replays it from history, and renders named tools your way', async () => {
    const running = {
      callId: 'c1',
      tool: 'challenges.search',
      title: 'Search',
      input: '{"q":"kite"}',
      state: 'running',
    } as const
    const done = { ...running, state: 'done', summary: 'ok (3 results)' } as const
    server.conversations.set('c1', [
      {
        ...line('t0', 'tool', 'page_call x → ok', 1),
        part: { ...done, callId: 'c0', tool: 'cart.add', title: 'Add' },
      },
    ])
    localStorage.setItem('toolmark:conversation', 'c1')
    const { wrap } = setup()
    render(wrap(<AgentChat conversation={agentConversation()} renderTool={{ 'cart.add': CartLine }} />))
    await flush()
    const stream = server.stream('c1')
    const parts = () => screen.getAllByTestId('agent-chat-tool').map((li) => li.textContent)
    expect(parts()).toEqual(['Cart: ok (3 results)'])
    stream.emit({ type: 'tool', part: running })
    expect(parts()).toEqual(['Cart: ok (3 results)', 'Search {"q":"kite"} running…'])
    stream.emit({ type: 'tool', part: done })
    stream.emit({ type: 'message', message: { ...line('t1', 'tool', 'page_call → ok', 5), part: done } })
    expect(parts()).toEqual(['Cart: ok (3 results)', 'Search {"q":"kite"} done (ok (3 results))'])
    expect(
      screen.getAllByTestId('agent-chat-tool')[1]!.querySelector('[data-state]')?.getAttribute('data-state'),
    ).toBe('done')
  })

  it("shows a running call's progress (bar and message) until the call ends; progress of other calls is ignored", async () => {
    const running = { callId: 'c1', tool: 'upload', title: 'Upload', input: '{}', state: 'running' } as const
    server.conversations.set('c1', [])
    localStorage.setItem('toolmark:conversation', 'c1')
    const { wrap } = setup()
    render(wrap(<AgentChat conversation={agentConversation()} />))
    await flush()
    const stream = server.stream('c1')
    const part = () => screen.getAllByTestId('agent-chat-tool')[0]!
    const text = () => part().textContent?.replace(/\s+/g, ' ')
    stream.emit({ type: 'tool', part: running })
    stream.emit({
      type: 'tool-progress',
      callId: 'c1',
      progress: { fraction: 0.4, message: 'Uploading 2 of 5' },
    })
    stream.emit({ type: 'tool-progress', callId: 'unknown', progress: { fraction: 0.9 } })
    expect(text()).toBe('Upload {} running… Uploading 2 of 5')
    expect(part().querySelector('progress')?.getAttribute('value')).toBe('0.4')
    stream.emit({ type: 'tool', part: { ...running, state: 'done', summary: 'ok' } })
    stream.emit({ type: 'tool-progress', callId: 'c1', progress: { fraction: 1 } })
    expect(text()).toBe('Upload {} done (ok)')
    expect(part().querySelector('progress')).toBeNull()
  })

  it("shows a confirmation card that takes focus after the user's message; Approve runs the tool", async () => {
    const onRun = vi.fn()
    const { tm, wrap } = setup()
    render(
      wrap(
        <>
          <ThemeTool onRun={onRun} />
          <AgentChat conversation={agentConversation()} />
        </>,
      ),
    )
    await flush()
    fireEvent.change(input(), { target: { value: 'Set the theme to dark' } })
    await act(async () => {
      fireEvent.submit(input().form!)
    })
    const result = await act(() => tm.call('settings.setTheme', { theme: 'dark' }, { caller: 'inapp' }))
    expect(result).toMatchObject({ status: 'needs_confirmation' })
    const card = screen.getByRole('alertdialog')
    expect(card.textContent).toContain('Switch to the dark theme')
    expect(document.activeElement?.textContent).toBe('Reject')
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    })
    await flush()
    expect(onRun).toHaveBeenCalledWith('dark')
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(document.activeElement).toBe(input())
  })

  it('rejects a card with Escape: the tool does not run', async () => {
    const onRun = vi.fn()
    const { tm, wrap } = setup()
    render(
      wrap(
        <>
          <ThemeTool onRun={onRun} />
          <AgentChat conversation={agentConversation()} />
        </>,
      ),
    )
    await flush()
    await act(() => tm.call('settings.setTheme', { theme: 'dark' }, { caller: 'inapp' }))
    // Not after a message of this tab: the card leaves focus where it is.
    expect(document.activeElement?.textContent).not.toBe('Reject')
    await act(async () => {
      fireEvent.keyDown(screen.getByRole('button', { name: 'Reject' }), { key: 'Escape' })
    })
    await flush()
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(onRun).not.toHaveBeenCalled()
  })

  it("puts a refused message back in the field and shows the server's reason", async () => {
    const { wrap } = setup()
    render(wrap(<AgentChat conversation={agentConversation()} />))
    await flush()
    server.refuse = { status: 400, code: 'message_too_long', message: 'The message is too long' }
    fireEvent.change(input(), { target: { value: 'hello' } })
    await act(async () => {
      fireEvent.submit(input().form!)
    })
    expect(screen.getByRole('alert').textContent).toBe('Message not sent: The message is too long')
    expect(input().value).toBe('hello')
  })

  it('says why the conversation could not be opened, and never enables Send', async () => {
    server.refuse = { status: 500, code: 'internal', message: 'Write authenticate' }
    const { wrap } = setup()
    render(wrap(<AgentChat conversation={agentConversation()} label="Agent" />))
    await flush()
    expect(screen.getByRole('alert').textContent).toBe('Could not start a conversation: Write authenticate')
    expect(screen.getByRole('region', { name: 'Agent' }).dataset.status).toBe('failed')
    fireEvent.change(input(), { target: { value: 'hello' } })
    expect(send().disabled).toBe(true)
  })
})
