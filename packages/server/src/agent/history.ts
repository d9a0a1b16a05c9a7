import type { ToolPart } from '../shared/contract.ts'
import { secretForms } from '../shared/redact.ts'
import type { Store, StoredMessage } from '../store/store.ts'
import { toChat } from './chat-view.ts'
import type { ConversationEvents } from './events.ts'
import { forgetAgent, forgetPart, maskAgent, type RealText } from './ledger.ts'
import { maskAssistantText } from './stream.ts'
import type { AgentMessage } from './types.ts'

/** How a message is stored: its tool, whether the chat shows it, its id, its tool part. */
export interface AddOptions {
  tool?: string
  visible?: boolean
  id?: string
  part?: ToolPart
}

/**
 * A conversation's stored messages as the agent writes and reads them: everything written is masked (and the
 * turn's known secrets cut out) before it is stored, and a visible message is published to the chat.
 */
export class History {
  readonly #store: Store
  readonly #events: ConversationEvents
  readonly #closed: () => boolean

  /** `closed` is true while shutting down: the store may be closed already, so nothing is written. */
  constructor(store: Store, events: ConversationEvents, closed: () => boolean) {
    this.#store = store
    this.#events = events
    this.#closed = closed
  }

  /** Stores a message (masked, `secrets` cut out) and publishes it when visible; returns it as stored. */
  async add(
    conversationId: string,
    role: StoredMessage['role'],
    text: string,
    agent: AgentMessage | undefined,
    options: AddOptions = {},
    secrets: ReadonlySet<string> = new Set(),
  ): Promise<StoredMessage> {
    const forms = secretForms(secrets)
    const stored: StoredMessage = {
      id: options.id ?? crypto.randomUUID(),
      conversationId,
      role,
      text: maskAssistantText(text, [...secrets]),
      at: Date.now(),
      visible: options.visible ?? true,
    }
    if (options.tool !== undefined) stored.tool = options.tool
    if (options.part !== undefined) stored.part = forgetPart(options.part, forms)
    if (agent) stored.agent = forgetAgent(maskAgent(agent, [...secrets]), forms)
    if (this.#closed()) return stored // shutting down: the store may be closed already
    await this.#store.addMessage(stored)
    if (stored.visible) this.#events.publish(conversationId, { type: 'message', message: toChat(stored) })
    return stored
  }

  /**
   * The agent history and the stored id of each entry; the message `real` names gets its text as
   * typed (never persisted).
   */
  async read(conversationId: string, real?: RealText): Promise<{ history: AgentMessage[]; ids: string[] }> {
    const stored = (await this.#store.listMessages(conversationId)).filter((m) => m.agent !== undefined)
    return {
      history: stored.map((m) =>
        real && m.id === real.id ? ({ role: 'user', text: real.text } as const) : m.agent!,
      ),
      ids: stored.map((m) => m.id),
    }
  }
}
