import { describe, expectTypeOf, it } from 'vitest'
import type { PairingCallMessage } from '../../protocol/messages.ts'
import { validatePairingMessage } from '../../protocol/validate.ts'
import { type McpPrompt, mcpPairing, type PairingStatus } from '../index.ts'

describe('mcpPairing()', () => {
  it('reports a narrowed status', () => {
    mcpPairing({
      url: 'ws://127.0.0.1:17333',
      onStatus: (s) => {
        expectTypeOf(s).toEqualTypeOf<PairingStatus>()
        if (s.state === 'pairing') expectTypeOf(s.code).toEqualTypeOf<string>()
        if (s.state === 'paired') expectTypeOf(s.tab).toEqualTypeOf<string>()
      },
      storage: null,
    })
    expectTypeOf<PairingCallMessage['tool']>().toEqualTypeOf<string>()
  })

  it('takes prompts with string arguments', () => {
    const prompts: McpPrompt[] = [
      {
        name: 'summarize',
        text: 'In a {{tone}} tone: {{context.order}}',
        arguments: [{ name: 'tone', required: true }],
      },
    ]
    mcpPairing({ url: 'ws://127.0.0.1:17333', prompts })
    // @ts-expect-error: a prompt needs its text
    mcpPairing({ url: 'ws://127.0.0.1:17333', prompts: [{ name: 'x' }] })
  })

  it('validatePairingMessage narrows to the direction’s messages', () => {
    const r = validatePairingMessage({}, 'toPage')
    if (r.ok)
      expectTypeOf(r.message.type).toEqualTypeOf<
        'pairing' | 'paired' | 'call' | 'cancel' | 'error' | 'confirmed'
      >()
    const q = validatePairingMessage({}, 'toRelay')
    if (q.ok)
      expectTypeOf(q.message.type).toEqualTypeOf<
        'hello' | 'manifest' | 'result' | 'progress' | 'confirm' | 'context' | 'prompts'
      >()
  })
})
