import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  ERROR_EVENT_CODES,
  ERROR_MESSAGES,
  REENTER_SENSITIVE,
  REFUSED_CODES,
  REFUSED_MESSAGES,
  THROWN_CODES,
} from '../codes.ts'

const doc = readFileSync(new URL('../../../../docs/reference/codes.md', import.meta.url), 'utf8')

/** The codes listed in the first column of the table under `heading`. */
function codesUnder(heading: string): string[] {
  const section = doc.split(`## ${heading}`)[1]?.split('\n## ')[0] ?? ''
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!)
}

describe('docs/reference/codes.md', () => {
  it('lists exactly the refused codes', () => {
    expect(codesUnder('`refused` result codes')).toEqual(Object.keys(REFUSED_CODES))
  })

  it('lists exactly the error event codes', () => {
    expect(codesUnder('`error` event codes')).toEqual(Object.keys(ERROR_EVENT_CODES))
  })

  it('lists exactly the ToolmarkError codes', () => {
    expect(codesUnder('`ToolmarkError` codes (thrown or rejected only, never events)')).toEqual(
      Object.keys(THROWN_CODES),
    )
  })

  it('quotes every exact message', () => {
    for (const message of [
      ...Object.values(ERROR_MESSAGES),
      ...Object.values(REFUSED_MESSAGES),
      REENTER_SENSITIVE,
    ]) {
      expect(doc).toContain(`\`${message}\``)
    }
  })

  it("keeps the protocol's exact strings to the letter", () => {
    expect(ERROR_MESSAGES).toEqual({
      toolFailed: 'Tool failed',
      notSerializable: 'Result not serializable',
      unsupportedProtocol: 'unsupported protocol',
    })
    expect(REFUSED_MESSAGES.confirmation_expired).toBe('The confirmation expired or was already used')
    expect(REFUSED_MESSAGES.staleForm).toBe('Form changed since confirmation was requested')
    expect(REFUSED_MESSAGES.staleTool).toBe('Tool changed since confirmation was requested')
    expect(REENTER_SENSITIVE).toBe('Re-enter sensitive field')
    for (const code of [
      'duplicate_name',
      'invalid_name',
      'invalid_scope',
      'missing_confirm_handler',
      'schema_conversion_failed',
      'tool_threw',
      'output_invalid',
      'transport_failed',
      'tool_budget_exceeded',
      'ctx_confirm_unavailable',
      'invalid_confirm_mode',
      'invalid_policy',
      'late_result',
      'invalid_message',
      'scope_disposed',
    ]) {
      expect(Object.keys(ERROR_EVENT_CODES)).toContain(code)
    }
  })
})
