import { fireEvent, screen } from '@testing-library/svelte'
import { describe, expect, it, vi } from 'vitest'
import { line, ScriptedConversation } from '../../../../../tests/support/scripted-conversation.ts'
import { flush, setup } from '../../__tests__/utils.ts'
import { agentChat, type ToolPart } from '../index.ts'
import CartLine from './fixtures/CartLine.svelte'
import ChatWithTool from './fixtures/ChatWithTool.svelte'

const done: ToolPart = {
  callId: 'c2',
  tool: 'search',
  input: '{"q":"kite"}',
  state: 'done',
  summary: 'ok (3 results)',
}
const parts = () => screen.queryAllByTestId('agent-chat-tool').map((li) => li.textContent?.trim())
const field = () => screen.getByRole('textbox', { name: 'Message' }) as HTMLInputElement

describe('AgentChat (Svelte)', () => {
  it('shows the history, the reply as it streams, each call once in its latest state (named tools your way), and sends', async () => {
    const conversation = new ScriptedConversation()
    conversation.history = [
      line('m1', 'user', 'add a kite', 1),
      { ...line('t0', 'tool', 'cart.add', 2), part: { ...done, callId: 'c0', tool: 'cart.add' } },
    ]
    const { mount } = setup()
    mount(ChatWithTool, { conversation, renderTool: { 'cart.add': CartLine } })
    await flush()
    expect(parts()).toEqual(['Cart: ok (3 results)'])

    conversation.emit({ type: 'busy', busy: true })
    conversation.emit({ type: 'tool', part: { ...done, state: 'running' } })
    conversation.emit({ type: 'text-delta', messageId: 'a1', delta: 'Found three ' })
    await flush()
    expect(parts()).toEqual(['Cart: ok (3 results)', 'search {"q":"kite"} running…'])
    // The page reports progress while the call runs: a bar and its message, gone once the call ends.
    conversation.emit({
      type: 'tool-progress',
      callId: 'c2',
      progress: { fraction: 0.5, message: 'page 2 of 4' },
    })
    await flush()
    expect(parts()[1]?.replace(/\s+/g, ' ')).toBe('search {"q":"kite"} running… page 2 of 4')
    expect(document.querySelector('[data-toolmark-progress] progress')?.getAttribute('value')).toBe('0.5')
    expect(document.querySelector('[data-streaming]')?.textContent?.trim()).toBe('Agent: Found three')
    expect(screen.getByRole('status')).toBeTruthy()
    conversation.emit({ type: 'tool', part: done })
    conversation.emit({ type: 'message', message: line('a1', 'assistant', 'Found three kites.', 5) })
    conversation.emit({ type: 'busy', busy: false })
    await flush()
    expect(parts()).toEqual(['Cart: ok (3 results)', 'search {"q":"kite"} done (ok (3 results))'])
    expect(document.querySelector('[data-toolmark-progress]')).toBeNull()
    expect(document.querySelector('[data-streaming]')).toBeNull()
    expect(screen.getAllByTestId('agent-chat-message').map((li) => li.textContent?.trim())).toEqual([
      'You: add a kite',
      'Agent: Found three kites.',
    ])

    await fireEvent.input(field(), { target: { value: '  thanks ' } })
    await fireEvent.submit(field().form!)
    await flush()
    expect(conversation.sent).toEqual(['thanks'])
    expect(field().value).toBe('')
  })

  it("shows the page's card; Approve runs the tool once", async () => {
    const onRun = vi.fn()
    const conversation = new ScriptedConversation()
    const { tm, mount } = setup()
    mount(ChatWithTool, { conversation, onRun })
    await flush()
    const result = await tm.call('settings.setTheme', { theme: 'dark' }, { caller: 'inapp' })
    expect(result).toMatchObject({ status: 'needs_confirmation' })
    await flush()
    expect(screen.getByRole('alertdialog').textContent).toContain('Switch to the dark theme')
    await fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    await flush()
    expect(onRun).toHaveBeenCalledTimes(1)
    expect(onRun).toHaveBeenCalledWith('dark')
    expect(screen.queryByRole('alertdialog')).toBeNull()
  })

  it("puts a refused message back in the field and shows the server's reason", async () => {
    const conversation = new ScriptedConversation()
    conversation.refuse = 'Message not sent: the agent is busy'
    const { mount } = setup()
    mount(ChatWithTool, { conversation })
    await flush()
    await fireEvent.input(field(), { target: { value: 'hello' } })
    await fireEvent.submit(field().form!)
    await flush()
    expect(screen.getByRole('alert').textContent).toBe('Message not sent: the agent is busy')
    expect(field().value).toBe('hello')
  })

  it('agentChat follows the conversation while read, and stops when the last reader leaves', async () => {
    const conversation = new ScriptedConversation()
    const chat = agentChat(conversation)
    const seen: string[] = []
    const stop = chat.subscribe((c) => seen.push(c.status))
    await flush()
    expect(conversation.streams).toBe(1)
    expect(seen).toEqual(['opening', 'ready'])
    stop()
    expect(conversation.streams).toBe(0)
  })
})
