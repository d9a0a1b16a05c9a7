import type { Provider, ProviderEvent, ProviderRequest } from '../../agent/types.ts'

/** A provider that plays back scripted turns and records every request it gets. */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted'
  readonly requests: ProviderRequest[] = []
  constructor(readonly script: Array<(request: ProviderRequest) => ProviderEvent[]>) {}

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    this.requests.push(
      structuredClone({ system: request.system, messages: request.messages, tools: request.tools }),
    )
    const step = this.script.shift()
    for (const event of step ? step(request) : [{ type: 'text' as const, delta: 'ok' }]) yield event
  }
}

/** Tool-call helper for scripted turns. */
export const toolCall = (id: string, name: string, input: unknown): ProviderEvent => ({
  type: 'tool_call',
  call: { id, name, input },
})
