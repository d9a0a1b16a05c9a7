import { describe, expectTypeOf, it } from 'vitest'
import type {
  AgentToPageMessage,
  BoundedCopyResult,
  CallMessage,
  PageToAgentMessage,
  ProtocolMessage,
  ToolResult,
  ValidationResult,
} from '../index.ts'
import { boundedCopy, PROTOCOL_VERSION, validateMessage, wrapUntrusted } from '../index.ts'

describe('validateMessage narrows per direction', () => {
  it('toPage yields agent → page messages', () => {
    const result = validateMessage({}, 'toPage')
    expectTypeOf(result).toEqualTypeOf<ValidationResult<AgentToPageMessage>>()
    if (result.ok) {
      expectTypeOf(result.message).toEqualTypeOf<AgentToPageMessage>()
      if (result.message.type === 'call') {
        expectTypeOf(result.message).toEqualTypeOf<CallMessage>()
        expectTypeOf(result.message.input).toEqualTypeOf<{ [key: string]: unknown }>()
        expectTypeOf(result.message.rev).toEqualTypeOf<number | undefined>()
      }
    } else {
      expectTypeOf(result.reason).toEqualTypeOf<string>()
    }
  })

  it('toAgent yields page → agent messages', () => {
    const result = validateMessage({}, 'toAgent')
    if (result.ok) {
      expectTypeOf(result.message).toEqualTypeOf<PageToAgentMessage>()
      if (result.message.type === 'result') expectTypeOf(result.message.result).toEqualTypeOf<ToolResult>()
      // @ts-expect-error a page → agent message is never a call
      result.message.type === 'call'
    }
  })

  it('an unknown direction yields any message', () => {
    const direction = 'toPage' as 'toPage' | 'toAgent'
    const result = validateMessage({}, direction)
    if (result.ok) expectTypeOf(result.message).toEqualTypeOf<ProtocolMessage>()
  })

  it('rejects other directions at compile time', () => {
    // @ts-expect-error not a direction
    validateMessage({}, 'both')
  })
})

describe('other exports', () => {
  it('PROTOCOL_VERSION is the literal 1', () => {
    expectTypeOf(PROTOCOL_VERSION).toEqualTypeOf<1>()
  })

  it('boundedCopy returns a discriminated result', () => {
    const result = boundedCopy({})
    expectTypeOf(result).toEqualTypeOf<BoundedCopyResult>()
    if (!result.ok) expectTypeOf(result.reason).toEqualTypeOf<'too_large' | 'too_deep' | 'not_json'>()
  })

  it('wrapUntrusted keeps the result type', () => {
    const wrapped = wrapUntrusted({ status: 'cancelled', by: 'signal' } as const)
    expectTypeOf(wrapped.untrustedContent).toEqualTypeOf<true>()
    expectTypeOf(wrapped.result.status).toEqualTypeOf<'cancelled'>()
  })
})
