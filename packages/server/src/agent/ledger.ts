import type { ToolResult } from '@toolmark/core'
import type { BoundPage } from '../relay/relay.ts'
import type { ToolPart } from '../shared/contract.ts'
import {
  declaredPaths,
  joinPaths,
  maskAtPaths,
  maskText,
  maskValue,
  scrub,
  scrubValue,
  secretForms,
  secretsAt,
  sensitivePathsOf,
} from '../shared/redact.ts'
import type { Store } from '../store/store.ts'
import type { AgentMessage, ToolCall } from './types.ts'

/** How many (page load, tool) sensitive-path lists learned from describes are kept in memory. */
const MAX_DESCRIBED = 1000

/** The user's message of a turn: its stored id and its text as typed (never persisted). */
export interface RealText {
  id: string
  text: string
}

/** True for a plain JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The secret ledger: which input paths of a page's tools are sensitive (declared in the manifest, or learned
 * from a describe), the secrets a call carries at them, and the redaction of the stored history once a turn
 * knows them. Everything it cuts is cut from strings only; ids and names are kept.
 */
export class SecretLedger {
  /** `clientId \0 tool` → the `writeOnly` paths of the tool's described input schema. */
  readonly #described = new Map<string, string[]>()

  /** Remembers the sensitive paths of a described tool's input schema (an `ok` describe only). */
  learn(clientId: string | undefined, tool: string, result: ToolResult): void {
    if (!clientId || result.status !== 'ok' || !isObject(result.data)) return
    const key = `${clientId}\u0000${tool}`
    this.#described.delete(key)
    this.#described.set(key, sensitivePathsOf(result.data.inputSchema))
    if (this.#described.size > MAX_DESCRIBED) this.#described.delete(this.#described.keys().next().value!)
  }

  /** True when a tool of the page has sensitive input paths (declared, or learned from a describe). */
  sensitivePage(page: BoundPage | undefined, manifest: readonly unknown[]): boolean {
    if (!page) return false
    if (manifest.some((entry) => declaredPaths(entry).length > 0)) return true
    for (const [key, paths] of this.#described)
      if (paths.length > 0 && key.startsWith(`${page.clientId}\u0000`)) return true
    return false
  }

  /** The tool's sensitive input paths on the page: declared in its manifest entry, or learned from a describe. */
  sensitivePaths(page: BoundPage | undefined, tool: string): string[] {
    if (!page) return []
    const declared = declaredPaths(page.tools.find((t) => t.name === tool))
    const described = this.#described.get(`${page.clientId}\u0000${tool}`) ?? []
    return joinPaths(declared, described)
  }

  /**
   * The call as it may be stored: `page_call` input masked at the tool's sensitive paths on `page`; adds the
   * values found there to `secrets`.
   */
  maskCall(page: BoundPage | undefined, call: ToolCall, secrets: Set<string>): ToolCall {
    const input = call.input
    if (call.name !== 'page_call' || !isObject(input) || typeof input.tool !== 'string') return call
    const paths = this.sensitivePaths(page, input.tool)
    if (paths.length === 0) return call
    for (const secret of secretsAt(input.input, paths)) secrets.add(secret)
    return { ...call, input: { ...input, input: maskAtPaths(input.input, paths) } }
  }
}

/**
 * Once a turn knows values to be secret, cuts them (and what the heuristics left of them, such as
 * `**** 4242`) out of every stored message and confirmation summary of the conversation, earlier
 * turns included: the user's message of the turn (`real`) is masked again from its text as typed.
 */
export async function forgetSecrets(
  store: Store,
  conversationId: string,
  secrets: ReadonlySet<string>,
  real?: RealText,
): Promise<void> {
  if (secrets.size === 0) return
  const forms = secretForms(secrets)
  for (const m of await store.listMessages(conversationId)) {
    const mine = real !== undefined && m.id === real.id
    const text = mine ? scrub(maskText(scrub(real.text, [...secrets])), forms) : scrub(m.text, forms)
    const agent: AgentMessage | undefined = mine
      ? { role: 'user', text }
      : m.agent && forgetAgent(m.agent, forms)
    const part = m.part && forgetPart(m.part, forms)
    if (
      text !== m.text ||
      JSON.stringify(agent) !== JSON.stringify(m.agent) ||
      JSON.stringify(part) !== JSON.stringify(m.part)
    ) {
      await store.updateMessage(m.id, text, agent, part)
    }
  }
  for (const binding of await store.listConfirms(conversationId)) {
    const summary = scrub(binding.summary, forms)
    if (summary !== binding.summary) await store.updateConfirmSummary(binding.confirmId, summary)
  }
}

/** A string that may hold JSON: masked as a JSON value when it parses, else as text. */
function maskContent(content: string, secrets: readonly string[]): string {
  try {
    return JSON.stringify(maskValue(JSON.parse(content), { secrets }))
  } catch {
    return maskText(scrub(content, secrets))
  }
}

/** The agent-history entry as it may be stored (see `redact.ts`). */
export function maskAgent(m: AgentMessage, secrets: readonly string[]): AgentMessage {
  const text = (t: string) => maskText(scrub(t, secrets))
  switch (m.role) {
    case 'user':
      return { role: 'user', text: text(m.text) }
    case 'assistant':
      return { ...m, text: text(m.text), toolCalls: maskValue(m.toolCalls, { secrets }) as ToolCall[] }
    case 'tool':
      return { ...m, content: maskContent(m.content, secrets) }
  }
}

/** The agent-history entry with every known secret form cut out (strings only; ids and names kept). */
export function forgetAgent(m: AgentMessage, forms: readonly string[]): AgentMessage {
  if (forms.length === 0) return m
  switch (m.role) {
    case 'user':
      return { role: 'user', text: scrub(m.text, forms) }
    case 'assistant':
      return {
        ...m,
        text: scrub(m.text, forms),
        toolCalls: m.toolCalls.map((c) => ({ ...c, input: scrubValue(c.input, forms) })),
      }
    case 'tool': {
      let content: string
      try {
        content = JSON.stringify(scrubValue(JSON.parse(m.content), forms))
      } catch {
        content = scrub(m.content, forms)
      }
      return { ...m, content }
    }
  }
}

/** The part with every known secret form cut out of its strings. */
export function forgetPart(part: ToolPart, forms: readonly string[]): ToolPart {
  if (forms.length === 0) return part
  const out: ToolPart = { ...part, input: scrub(part.input, forms) }
  if (part.summary !== undefined) out.summary = scrub(part.summary, forms)
  if (part.title !== undefined) out.title = scrub(part.title, forms)
  return out
}
