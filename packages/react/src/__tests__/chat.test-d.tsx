import type * as contract from '@toolmark/server/contract'
import type { ComponentType, ReactNode } from 'react'
import { expectTypeOf, it } from 'vitest'
import {
  AgentChat,
  type AgentChatProps,
  type AgentChatState,
  type AgentConversation,
  agentConversation,
  type ChatEvent,
  type ChatMessage,
  type ConversationBody,
  type StreamingMessage,
  type TextDeltaEvent,
  type ToolEvent,
  type ToolPart,
  type ToolPartProps,
  type ToolPartState,
  ToolPartView,
  useAgentChat,
} from '../chat/index.ts'

const CartLine = ({ part }: { part: ToolPart }) => part.summary ?? null

it("uses the server contract's shapes", () => {
  expectTypeOf<ChatMessage>().toEqualTypeOf<contract.ChatMessage>()
  expectTypeOf<ChatEvent>().toEqualTypeOf<contract.ChatEvent>()
  expectTypeOf<ConversationBody>().toEqualTypeOf<contract.ConversationBody>()
  expectTypeOf<ToolPart>().toEqualTypeOf<contract.ToolPart>()
  expectTypeOf<ToolPartState>().toEqualTypeOf<contract.ToolPartState>()
  expectTypeOf<TextDeltaEvent>().toEqualTypeOf<contract.TextDeltaEvent>()
  expectTypeOf<ToolEvent>().toEqualTypeOf<contract.ToolEvent>()
})

it('types streamed text, tool parts and a tool rendering of your own', () => {
  expectTypeOf<AgentChatState['streaming']>().toEqualTypeOf<StreamingMessage | undefined>()
  expectTypeOf<StreamingMessage>().toEqualTypeOf<{ id: string; text: string }>()
  expectTypeOf<AgentChatState['tools']>().toEqualTypeOf<readonly ToolPart[]>()
  expectTypeOf<ToolPart['state']>().toEqualTypeOf<'running' | 'waiting' | 'done' | 'failed' | 'cancelled'>()
  expectTypeOf<Extract<ChatEvent, { type: 'text-delta' }>>().toEqualTypeOf<{
    type: 'text-delta'
    messageId: string
    delta: string
  }>()
  expectTypeOf<Extract<ChatEvent, { type: 'tool' }>['part']>().toEqualTypeOf<ToolPart>()
  expectTypeOf<ChatMessage['part']>().toEqualTypeOf<ToolPart | undefined>()
  expectTypeOf(ToolPartView).parameter(0).toEqualTypeOf<ToolPartProps>()
  const conversation = agentConversation({ storageKey: false })
  AgentChat({ conversation, renderTool: { 'cart.add': CartLine } })
  // @ts-expect-error a tool rendering takes the part
  AgentChat({ conversation, renderTool: { 'cart.add': (_: { call: string }) => null } })
})

it('types the conversation, the hook and the component', () => {
  const conversation = agentConversation({ api: '/api', storageKey: false })
  expectTypeOf(conversation).toEqualTypeOf<AgentConversation>()
  expectTypeOf(conversation.open).returns.resolves.toEqualTypeOf<ConversationBody>()
  expectTypeOf(useAgentChat).parameter(0).toEqualTypeOf<AgentConversation>()
  expectTypeOf(useAgentChat).returns.toEqualTypeOf<AgentChatState>()
  expectTypeOf<AgentChatState['status']>().toEqualTypeOf<'opening' | 'ready' | 'failed'>()
  expectTypeOf<AgentChatState['send']>().returns.resolves.toBeBoolean()
  expectTypeOf(AgentChat).returns.toEqualTypeOf<ReactNode>()
  expectTypeOf<AgentChatProps>().toEqualTypeOf<{
    conversation: AgentConversation
    label?: string
    renderTool?: Readonly<Record<string, ComponentType<ToolPartProps>>>
  }>()
  // @ts-expect-error the chat needs a conversation
  AgentChat({})
  // @ts-expect-error storageKey is a key or false
  agentConversation({ storageKey: true })
})
