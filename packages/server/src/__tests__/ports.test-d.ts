import type { Provider as OfflineAgentProvider, OfflineProvider } from '@toolmark/offline-agent'
import type { AgentMessage as ProtocolAgentMessage, Provider as ProtocolProvider } from '@toolmark/protocol'
import { describe, expectTypeOf, it } from 'vitest'
import { aiSdkProvider } from '../ai-sdk.ts'
import type { AnthropicProvider } from '../anthropic.ts'
import type { ChatEvent } from '../contract.ts'
import type * as main from '../index.ts'
import {
  type AgentMessage,
  createToolmarkServer,
  type Provider,
  type ProviderEvent,
  type ProviderRequest,
  type Store,
} from '../index.ts'
import type { OpenAiProvider } from '../openai.ts'
import { openPostgresStore, type PostgresStore } from '../postgres.ts'
import { openSqliteStore } from '../sqlite.ts'
import type * as storeEntry from '../store.ts'
import { type ConfirmBinding, type Conversation, createMemoryStore, type StoredMessage } from '../store.ts'

/*
 * The two ports an app implements or swaps: `Store` (where conversations, messages and bindings live) and
 * `Provider` (the model). What every bundled implementation offers, and the shapes a custom one must take.
 */

describe('the Store port', () => {
  it('is the same type in the main entry and in /store, with its records and the in-memory store beside it', () => {
    expectTypeOf<main.Store>().toEqualTypeOf<storeEntry.Store>()
    expectTypeOf<keyof typeof storeEntry>().toEqualTypeOf<'createMemoryStore' | 'StoreUnavailableError'>()
  })

  it('is its aggregates joined, with the lifecycle (ping, close) beside them', () => {
    type Aggregates = storeEntry.UserStore &
      storeEntry.ConversationStore &
      storeEntry.CallStore &
      storeEntry.ConfirmStore &
      storeEntry.DecisionStore &
      storeEntry.PageStore &
      storeEntry.GrantStore
    // Each is assignable to the other: a store built from the aggregates is a Store, and a Store has them all.
    expectTypeOf<Aggregates & Pick<Store, 'ping' | 'close'>>().toMatchTypeOf<Store>()
    expectTypeOf<Store>().toMatchTypeOf<Aggregates>()
    expectTypeOf<keyof Aggregates>().toEqualTypeOf<Exclude<keyof Store, 'ping' | 'close'>>()
  })

  it('is what every bundled store returns, and what the server takes', () => {
    expectTypeOf(createMemoryStore()).toEqualTypeOf<Store>()
    expectTypeOf(openSqliteStore(':memory:')).toEqualTypeOf<Store>()
    expectTypeOf(openPostgresStore).returns.toEqualTypeOf<Promise<PostgresStore>>()
    expectTypeOf<PostgresStore>().toMatchTypeOf<Store>()
    expectTypeOf(createToolmarkServer).parameter(0).toHaveProperty('store').toEqualTypeOf<Store | undefined>()
  })

  it('reads and writes conversations, messages and confirmation bindings by id, asynchronously', () => {
    expectTypeOf<Store['getConversation']>().toEqualTypeOf<
      (id: string) => Promise<Conversation | undefined>
    >()
    expectTypeOf<Store['addMessage']>().toEqualTypeOf<(message: StoredMessage) => Promise<void>>()
    expectTypeOf<Store['listMessages']>().toEqualTypeOf<
      (conversationId: string) => Promise<StoredMessage[]>
    >()
    expectTypeOf<Store['getConfirm']>().toEqualTypeOf<
      (confirmId: string) => Promise<ConfirmBinding | undefined>
    >()
    expectTypeOf<Store['listConfirms']>().toEqualTypeOf<
      (conversationId: string) => Promise<ConfirmBinding[]>
    >()
  })

  it('a stored message keeps its role, masked text and visibility', () => {
    expectTypeOf<StoredMessage['role']>().toEqualTypeOf<'user' | 'assistant' | 'tool'>()
    expectTypeOf<StoredMessage['text']>().toEqualTypeOf<string>()
    expectTypeOf<StoredMessage['visible']>().toEqualTypeOf<boolean>()
  })
})

describe('the Provider port', () => {
  it('streams text deltas and tool calls for one request', () => {
    expectTypeOf<Provider['stream']>().toEqualTypeOf<
      (request: ProviderRequest) => AsyncIterable<ProviderEvent>
    >()
    expectTypeOf<ProviderEvent>().toEqualTypeOf<
      | { type: 'text'; delta: string }
      | { type: 'tool_call'; call: { id: string; name: string; input: unknown } }
    >()
  })

  it('is what every bundled model client is, the offline agent included', () => {
    expectTypeOf<OfflineProvider>().toMatchTypeOf<Provider>()
    expectTypeOf<AnthropicProvider>().toMatchTypeOf<Provider>()
    expectTypeOf<OpenAiProvider>().toMatchTypeOf<Provider>()
    expectTypeOf(aiSdkProvider).returns.toEqualTypeOf<Provider>()
    expectTypeOf(createToolmarkServer)
      .parameter(0)
      .toHaveProperty('provider')
      .toMatchTypeOf<Provider | undefined>()
  })

  it('is one contract: the server, the offline agent and the protocol name the same types', () => {
    expectTypeOf<Provider>().toEqualTypeOf<ProtocolProvider>()
    expectTypeOf<OfflineAgentProvider>().toEqualTypeOf<ProtocolProvider>()
    expectTypeOf<AgentMessage>().toEqualTypeOf<ProtocolAgentMessage>()
  })

  it('an async generator is a provider', () => {
    const provider = {
      name: 'mine',
      async *stream(_request: ProviderRequest): AsyncGenerator<ProviderEvent> {
        yield { type: 'text', delta: 'hi' }
      },
    }
    expectTypeOf(provider).toMatchTypeOf<Provider>()
  })
})

describe('the chat events a front end reads', () => {
  it('are messages, the busy flag, streamed text, tool parts and their progress', () => {
    expectTypeOf<ChatEvent['type']>().toEqualTypeOf<
      'message' | 'busy' | 'text-delta' | 'tool' | 'tool-progress'
    >()
  })
})

describe('the main entry', () => {
  it('holds three values: the server, its route handlers and the system prompt (types are counted in entries.test.ts)', () => {
    expectTypeOf<keyof typeof main>().toEqualTypeOf<
      'createToolmarkServer' | 'routeHandlers' | 'SYSTEM_PROMPT'
    >()
  })

  it('names the server parts its result exposes', () => {
    type Server = ReturnType<typeof createToolmarkServer>
    expectTypeOf<Server>().toEqualTypeOf<main.ToolmarkServer>()
    expectTypeOf<Server['relay']>().toEqualTypeOf<main.Relay>()
    expectTypeOf<Server['agent']>().toEqualTypeOf<main.Agent>()
    expectTypeOf<Server['events']>().toEqualTypeOf<main.ConversationEvents>()
    expectTypeOf<main.ToolmarkServerOptions['authenticate']>().toEqualTypeOf<main.Authenticate | undefined>()
    expectTypeOf<main.ToolmarkServerOptions['sessionCookie']>().toEqualTypeOf<
      main.SessionCookieOptions | undefined
    >()
  })
})
