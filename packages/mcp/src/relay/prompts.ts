import {
  type GetPromptResult,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from '@modelcontextprotocol/server'
import type { PairingPrompt, PairingPromptsMessage } from '../protocol/messages.ts'
import type { Tab } from './tabs.ts'

/**
 * The paired tabs' prompts: listed as `<tab>__<name>`, rendered by the relay from the page's
 * template (arguments, then readable context), with `list_changed` when a tab's prompts change or
 * a tab with prompts closes.
 */
export class PagePrompts {
  readonly #byTab = new Map<Tab, readonly PairingPrompt[]>()

  constructor(private readonly listChanged: () => void) {}

  /** The page's prompts (replacing what it sent before); never a problem (the validator checked them). */
  update(tab: Tab, msg: PairingPromptsMessage): undefined {
    const before = this.#byTab.get(tab)
    this.#byTab.set(tab, msg.prompts)
    if (JSON.stringify(before ?? []) !== JSON.stringify(msg.prompts)) this.listChanged()
    return undefined
  }

  /** Drops the prompts of tabs no longer paired; tells the client when any had some. */
  sync(paired: readonly Tab[]): void {
    let listed = false
    for (const [tab, prompts] of this.#byTab) {
      if (paired.includes(tab)) continue
      this.#byTab.delete(tab)
      if (prompts.length > 0) listed = true
    }
    if (listed) this.listChanged()
  }

  list(paired: readonly Tab[]): Prompt[] {
    const out: Prompt[] = []
    for (const tab of paired)
      for (const p of this.#byTab.get(tab) ?? []) {
        const prompt: Prompt = { name: `${tab.id}__${p.name}`, description: described(p, tab) }
        if (p.title !== undefined) prompt.title = p.title
        if (p.arguments)
          prompt.arguments = p.arguments.map((a) => ({
            name: a.name,
            ...(a.description === undefined ? {} : { description: a.description }),
            ...(a.required === undefined ? {} : { required: a.required }),
          }))
        out.push(prompt)
      }
    return out
  }

  /**
   * The prompt listed as `name`, filled in: a missing required argument or an argument it does not
   * declare is InvalidParams, an unknown name too.
   */
  get(
    paired: readonly Tab[],
    name: string,
    args: Record<string, string>,
    context: (tab: Tab, name: string) => string | undefined,
  ): GetPromptResult {
    const tabId = /^(t\d+)__/.exec(name)?.[1]
    const tab = paired.find((t) => t.id === tabId)
    const prompt = tab && this.#byTab.get(tab)?.find((p) => `${tab.id}__${p.name}` === name)
    if (!tab || !prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`)
    const declared = prompt.arguments ?? []
    for (const key of Object.keys(args))
      if (!declared.some((a) => a.name === key))
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown argument: ${key}`)
    for (const a of declared)
      if (a.required === true && typeof args[a.name] !== 'string')
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Missing required argument: ${a.name}`)
    // One pass: a value that contains {{...}} is never expanded again.
    const text = prompt.text.replace(
      /\{\{\s*(context\.)?([A-Za-z0-9_.-]{1,128})\s*\}\}/g,
      (_, ctx, key: string) =>
        ctx ? (context(tab, key) ?? 'null') : declared.some((a) => a.name === key) ? (args[key] ?? '') : _,
    )
    return {
      description: described(prompt, tab),
      messages: [{ role: 'user', content: { type: 'text', text } }],
    }
  }
}

function described(prompt: PairingPrompt, tab: Tab): string {
  const about = `(prompt of page ${tab.origin}, tab ${tab.id})`
  return prompt.description === undefined ? about : `${prompt.description} ${about}`
}

/** Serves `prompts/list` and `prompts/get`. */
export function servePrompts(
  server: Server,
  prompts: PagePrompts,
  paired: () => Tab[],
  context: (tab: Tab, name: string) => string | undefined,
): void {
  server.setRequestHandler('prompts/list', () => ({ prompts: prompts.list(paired()) }))
  server.setRequestHandler('prompts/get', (request) =>
    prompts.get(paired(), request.params.name, request.params.arguments ?? {}, context),
  )
}
