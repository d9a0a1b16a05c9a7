import type * as contract from '@toolmark/server/contract'
import type { ReactNode } from 'react'
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
  useAgentChat,
} from '../chat/index.ts'

it("uses the server contract's shapes", () => {
  expectTypeOf<ChatMessage>().toEqualTypeOf<contract.ChatMessage>()
  expectTypeOf<ChatEvent>().toEqualTypeOf<contract.ChatEvent>()
  expectTypeOf<ConversationBody>().toEqualTypeOf<contract.ConversationBody>()
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
  expectTypeOf<AgentChatProps>().toEqualTypeOf<{ conversation: AgentConversation; label?: string }>()
  // @ts-expect-error the chat needs a conversation
  AgentChat({})
  // @ts-expect-error storageKey is a key or false
  agentConversation({ storageKey: true })
})
