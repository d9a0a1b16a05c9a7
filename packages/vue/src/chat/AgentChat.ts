import { type AgentConversation, MAX_MESSAGE_LENGTH, type ToolPart } from '@toolmark/bridge/chat'
import { type Component, defineComponent, h, type PropType, ref, type VNode } from 'vue'
import { ConfirmationCard } from '../ConfirmationCard.ts'
import { usePendingConfirmations } from '../usePendingConfirmations.ts'
import { useAgentChat } from './useAgentChat.ts'

const STATE_WORDS: Record<ToolPart['state'], string> = {
  running: 'running…',
  waiting: 'waiting for you',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
}

const WHO = { user: 'You', assistant: 'Agent', tool: 'Tool' } as const

/**
 * The default rendering of a page call: its title (or tool name), the input, its state, its progress while it
 * runs (a `<progress>` bar and the page's message) and the outcome's summary. `data-state` carries the state for
 * styling. Takes the prop `part`.
 */
export const ToolPartView = /* @__PURE__ */ defineComponent({
  name: 'ToolPartView',
  props: {
    /** The call in its latest state. */
    part: { type: Object as PropType<ToolPart>, required: true },
  },
  setup(props) {
    return () => {
      const { part } = props
      return h('span', { 'data-toolmark-tool-part': '', 'data-state': part.state, 'data-tool': part.tool }, [
        h('strong', part.title ?? part.tool),
        ' ',
        h('code', part.input),
        ' ',
        h('em', STATE_WORDS[part.state]),
        part.summary !== undefined && part.state !== 'running' ? h('span', ` (${part.summary})`) : null,
        part.state === 'running' && part.progress
          ? h('span', { 'data-toolmark-progress': '' }, [
              part.progress.fraction !== undefined
                ? [' ', h('progress', { max: 1, value: part.progress.fraction })]
                : null,
              part.progress.message !== undefined ? ` ${part.progress.message}` : null,
            ])
          : null,
      ])
    }
  },
})

/**
 * A small unstyled chat with the agent, built on `useAgentChat` and `usePendingConfirmations()`: the
 * messages (yours, the agent's as it streams, and each page call it made with its state, rendered by
 * `renderTool` for the tools you name), the page's confirmation cards with Reject and Approve, a "working"
 * line while the agent works, and a message field with Send. Enter sends; a card that answers the message
 * just sent takes focus on Reject. Must sit under the app that installed `ToolmarkPlugin` (or
 * `provideToolmark`) whose bridge talks in the same conversation. Copy it or use it.
 */
export const AgentChat = /* @__PURE__ */ defineComponent({
  name: 'AgentChat',
  props: {
    /** The tab's conversation: the same object the bridge's `connect` opens. */
    conversation: { type: Object as PropType<AgentConversation>, required: true },
    /** The chat's accessible name. Default "Chat with the agent". */
    label: { type: String, default: 'Chat with the agent' },
    /**
     * Your own rendering of a tool's calls, by page tool name (`{ 'cart.add': CartLine }`), each a component
     * taking the prop `part`; any other tool's calls render as `ToolPartView`.
     */
    renderTool: { type: Object as PropType<Readonly<Record<string, Component>>>, default: undefined },
  },
  setup(props) {
    const { chat, send } = useAgentChat(props.conversation)
    const { items: pending } = usePendingConfirmations()
    const text = ref('')
    const field = ref<HTMLInputElement>()
    const part = (p: ToolPart): VNode => h(props.renderTool?.[p.tool] ?? ToolPartView, { part: p })

    const submit = async (event: Event): Promise<void> => {
      event.preventDefault()
      const value = text.value
      if (value.trim() === '') return
      text.value = ''
      field.value?.focus()
      // A refused message comes back into the field, so nothing typed is lost.
      if (!(await send(value)) && text.value === '') text.value = value
    }

    return () => {
      const c = chat.value
      const latest = new Map(c.tools.map((p) => [p.callId, p]))
      // A call shows once, where its first line is, in its latest state; calls with no line yet show after the log.
      const shown = new Set<string>()
      const rows: VNode[] = []
      for (const message of c.messages) {
        const callId = message.part?.callId
        if (callId !== undefined) {
          if (shown.has(callId)) continue
          shown.add(callId)
          rows.push(
            h('li', { key: message.id, 'data-role': 'tool', 'data-testid': 'agent-chat-tool' }, [
              part(latest.get(callId) ?? message.part!),
            ]),
          )
          continue
        }
        rows.push(
          h('li', { key: message.id, 'data-role': message.role, 'data-testid': 'agent-chat-message' }, [
            h('strong', `${WHO[message.role]}: `),
            h('span', message.text),
          ]),
        )
      }
      for (const p of c.tools)
        if (!shown.has(p.callId))
          rows.push(
            h('li', { key: p.callId, 'data-role': 'tool', 'data-testid': 'agent-chat-tool' }, [part(p)]),
          )
      if (c.streaming)
        rows.push(
          h(
            'li',
            {
              key: c.streaming.id,
              'data-role': 'assistant',
              'data-streaming': '',
              'data-testid': 'agent-chat-message',
            },
            [h('strong', `${WHO.assistant}: `), h('span', c.streaming.text)],
          ),
        )
      for (const item of pending.value)
        rows.push(
          h('li', { key: item.confirmId }, [
            h(ConfirmationCard, {
              confirmation: item,
              autoFocus: c.sentAt !== undefined && item.createdAt >= c.sentAt,
            }),
          ]),
        )
      return h('section', { 'aria-label': props.label, 'data-toolmark-chat': '', 'data-status': c.status }, [
        h('ol', { 'data-toolmark-chat-log': '' }, rows),
        c.busy ? h('p', { role: 'status' }, 'The agent is working…') : null,
        c.error !== undefined ? h('p', { role: 'alert' }, c.error) : null,
        h('form', { onSubmit: submit }, [
          h('input', {
            ref: field,
            'aria-label': 'Message',
            placeholder: 'Ask the agent…',
            maxlength: MAX_MESSAGE_LENGTH,
            value: text.value,
            onInput: (event: Event) => {
              text.value = (event.target as HTMLInputElement).value
            },
          }),
          h('button', { type: 'submit', disabled: text.value.trim() === '' || c.status !== 'ready' }, 'Send'),
        ]),
      ])
    }
  },
})
