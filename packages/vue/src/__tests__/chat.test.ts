import { ok } from '@toolmark/core'
import { describe, expect, it, vi } from 'vitest'
import { defineComponent, h, type PropType } from 'vue'
import * as z from 'zod'
import { line, ScriptedConversation } from '../../../../tests/support/scripted-conversation.ts'
import { AgentChat, type ToolPart } from '../chat/index.ts'
import { useTool } from '../index.ts'
import { flush, setup } from './utils.ts'

const done: ToolPart = {
  callId: 'c2',
  tool: 'search',
  input: '{"q":"kite"}',
  state: 'done',
  summary: 'ok (3 results)',
}

/** The app's own rendering of `cart.add` calls. */
const CartLine = defineComponent({
  props: { part: { type: Object as PropType<ToolPart>, required: true } },
  setup: (props) => () => h('b', `Cart: ${props.part.summary}`),
})

const ThemeTool = defineComponent({
  props: { onRun: { type: Function as PropType<(theme: string) => void>, required: true } },
  setup(props) {
    useTool({
      name: 'settings.setTheme',
      description: 'Switch the colour theme of the app.',
      input: z.object({ theme: z.enum(['light', 'dark']) }),
      hints: { consequential: true },
      summary: ({ theme }) => `Switch to the ${theme} theme`,
      run: ({ theme }) => {
        props.onRun(theme)
        return ok({ theme })
      },
    })
    return () => null
  },
})

describe('AgentChat (Vue)', () => {
  it('shows the history, the reply as it streams, each call once in its latest state (named tools your way), and sends', async () => {
    const conversation = new ScriptedConversation()
    conversation.history = [
      line('m1', 'user', 'add a kite', 1),
      { ...line('t0', 'tool', 'cart.add', 2), part: { ...done, callId: 'c0', tool: 'cart.add' } },
    ]
    const { render } = setup()
    const chat = render(AgentChat, { conversation, renderTool: { 'cart.add': CartLine } })
    await flush()
    const parts = () => chat.findAll('[data-testid="agent-chat-tool"]').map((li) => li.text())
    expect(chat.find('[data-toolmark-chat]').attributes('data-status')).toBe('ready')
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
    expect(chat.find('[data-streaming]').text()).toBe('Agent: Found three')
    expect(chat.find('[role="status"]').exists()).toBe(true)
    conversation.emit({ type: 'tool', part: done })
    conversation.emit({ type: 'message', message: line('a1', 'assistant', 'Found three kites.', 5) })
    conversation.emit({ type: 'busy', busy: false })
    await flush()
    expect(parts()).toEqual(['Cart: ok (3 results)', 'search {"q":"kite"} done (ok (3 results))'])
    expect(document.querySelector('[data-toolmark-progress]')).toBeNull()
    expect(chat.find('[data-streaming]').exists()).toBe(false)
    expect(chat.findAll('[data-testid="agent-chat-message"]').map((li) => li.text())).toEqual([
      'You: add a kite',
      'Agent: Found three kites.',
    ])

    await chat.find('input').setValue('  thanks ')
    await chat.find('form').trigger('submit')
    await flush()
    expect(conversation.sent).toEqual(['thanks'])
    expect((chat.find('input').element as HTMLInputElement).value).toBe('')
  })

  it("shows the page's card after the user's message; Approve runs the tool once", async () => {
    const onRun = vi.fn()
    const conversation = new ScriptedConversation()
    const { tm, render } = setup()
    const Page = defineComponent({
      setup: () => () => [h(ThemeTool, { onRun }), h(AgentChat, { conversation })],
    })
    const page = render(Page)
    await flush()
    const result = await tm.call('settings.setTheme', { theme: 'dark' }, { caller: 'inapp' })
    expect(result).toMatchObject({ status: 'needs_confirmation' })
    await flush()
    expect(page.find('[role="alertdialog"]').text()).toContain('Switch to the dark theme')
    await page
      .findAll('button')
      .find((b) => b.text() === 'Approve')!
      .trigger('click')
    await flush()
    expect(onRun).toHaveBeenCalledTimes(1)
    expect(onRun).toHaveBeenCalledWith('dark')
    expect(page.find('[role="alertdialog"]').exists()).toBe(false)
  })

  it("puts a refused message back in the field and shows the server's reason", async () => {
    const conversation = new ScriptedConversation()
    conversation.refuse = 'Message not sent: the agent is busy'
    const { render } = setup()
    const chat = render(AgentChat, { conversation })
    await flush()
    await chat.find('input').setValue('hello')
    await chat.find('form').trigger('submit')
    await flush()
    expect(chat.find('[role="alert"]').text()).toBe('Message not sent: the agent is busy')
    expect((chat.find('input').element as HTMLInputElement).value).toBe('hello')
  })

  it('stops following the conversation when it unmounts', async () => {
    const conversation = new ScriptedConversation()
    const { render } = setup()
    const chat = render(AgentChat, { conversation })
    await flush()
    expect(conversation.streams).toBe(1)
    chat.unmount()
    expect(conversation.streams).toBe(0)
  })
})
