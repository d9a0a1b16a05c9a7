import { describe, expect, it } from 'vitest'
import { line, ScriptedConversation } from '../../../../../tests/support/scripted-conversation.ts'
import { chatState, type ToolPart } from '../index.ts'

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

const part = (state: ToolPart['state'], summary?: string): ToolPart => ({
  callId: 'call1',
  tool: 'cart.add',
  input: '{"sku":"A1"}',
  state,
  ...(summary === undefined ? {} : { summary }),
})

describe('chatState', () => {
  it('sends nothing until someone listens, and stops following the stream when the last listener leaves', async () => {
    const conversation = new ScriptedConversation()
    const state = chatState(conversation)
    expect(state.get().status).toBe('opening')
    expect(conversation.opened).toBe(0)
    const a = state.subscribe(() => {})
    const b = state.subscribe(() => {})
    await tick()
    expect(conversation.opened).toBe(1)
    expect(state.get()).toMatchObject({ status: 'ready', conversationId: 'c1' })
    expect(conversation.streams).toBe(1)
    a()
    expect(conversation.streams).toBe(1)
    b()
    expect(conversation.streams).toBe(0)
  })

  it('starts from the history, streams the reply, shows each call once in its latest state, and ends the message', async () => {
    const conversation = new ScriptedConversation()
    conversation.history = [line('m1', 'user', 'add A1', 1)]
    const state = chatState(conversation)
    const seen: unknown[] = []
    state.subscribe(() => seen.push(state.get()))
    await tick()
    expect(state.get().messages).toEqual([line('m1', 'user', 'add A1', 1)])

    conversation.emit({ type: 'busy', busy: true })
    conversation.emit({ type: 'tool', part: part('running') })
    conversation.emit({ type: 'tool', part: part('done', 'Added A1') })
    conversation.emit({ type: 'text-delta', messageId: 'm2', delta: 'Added ' })
    conversation.emit({ type: 'text-delta', messageId: 'm2', delta: 'it.' })
    expect(state.get().streaming).toEqual({ id: 'm2', text: 'Added it.' })
    expect(state.get().tools).toEqual([part('done', 'Added A1')])
    const before = state.get()
    conversation.emit({ type: 'message', message: line('m2', 'assistant', 'Added it.', 3) })
    expect(before.streaming).toEqual({ id: 'm2', text: 'Added it.' }) // snapshots never change in place
    expect(state.get().streaming).toBeUndefined()
    expect(state.get().messages.map((m) => m.id)).toEqual(['m1', 'm2'])
    conversation.emit({ type: 'busy', busy: false })
    expect(state.get().busy).toBe(false)
    expect(new Set(seen).size).toBe(seen.length)
  })

  it('after a reconnection drops the partial reply and reads the history again, adding each message once', async () => {
    const conversation = new ScriptedConversation()
    const state = chatState(conversation)
    state.subscribe(() => {})
    await tick()
    conversation.emit({ type: 'message', message: line('m1', 'user', 'hi', 1) })
    conversation.emit({ type: 'text-delta', messageId: 'm2', delta: 'Hel' })
    conversation.history = [line('m1', 'user', 'hi', 1), line('m2', 'assistant', 'Hello', 2)]
    conversation.reconnect()
    expect(state.get().streaming).toBeUndefined()
    await tick()
    expect(state.get().messages.map((m) => m.text)).toEqual(['hi', 'Hello'])
  })

  it('says why a message was refused, and clears it after the next one is taken', async () => {
    const conversation = new ScriptedConversation()
    const state = chatState(conversation)
    state.subscribe(() => {})
    await tick()
    expect(await state.send('   ')).toBe(false)
    conversation.refuse = 'Message not sent: too many turns'
    expect(await state.send('hi')).toBe(false)
    expect(state.get().error).toBe('Message not sent: too many turns')
    expect(state.get().sentAt).toBeTypeOf('number')
    conversation.refuse = undefined
    expect(await state.send(' hi ')).toBe(true)
    expect(conversation.sent).toEqual(['hi'])
    expect(state.get().error).toBeUndefined()
  })

  it('fails with the reason when the conversation cannot be opened, and sends nothing', async () => {
    const conversation = new ScriptedConversation()
    conversation.failOpen = 'Could not start a conversation (HTTP 503)'
    const state = chatState(conversation)
    state.subscribe(() => {})
    await tick()
    expect(state.get()).toMatchObject({
      status: 'failed',
      error: 'Could not start a conversation (HTTP 503)',
    })
    expect(await state.send('hi')).toBe(false)
  })

  it('starts ready from a conversation the page already opened, without opening it again', async () => {
    const conversation = new ScriptedConversation()
    const state = chatState(conversation, {
      initial: { id: 'c1', messages: [{ ...line('m1', 'tool', 'cart.add', 1), part: part('waiting') }] },
    })
    expect(state.get()).toMatchObject({ status: 'ready', conversationId: 'c1', tools: [part('waiting')] })
    state.subscribe(() => {})
    expect(conversation.opened).toBe(0)
    expect(conversation.streams).toBe(1)
  })
})
