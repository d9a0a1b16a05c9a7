import type { CallToolResult } from '@modelcontextprotocol/server'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv'
import type { ToolManifest, ToolResult } from '@toolmark/core'
import { UNTRUSTED_NOTE } from '@toolmark/protocol'

const ERROR_STATUSES = new Set(['refused', 'invalid', 'error'])

/** Checks a tool's `ok` data against its output schema: the problem, or undefined when it conforms. */
export type OutputCheck = (data: unknown) => string | undefined

/**
 * The ToolResult as MCP content. Without `output`: structured as the whole `ToolResult`, its JSON as
 * text, `isError` for refused/invalid/error. With `output` (a tool listed with an output schema): an
 * `ok` result's data is `structuredContent` once it conforms, mirrored as text; any other result, or
 * data that does not conform, is an error with the text only (a client checks structured content
 * against the schema).
 */
export function mcpResult(result: ToolResult, untrusted: boolean, output?: OutputCheck): CallToolResult {
  const text = (json: string): string => (untrusted ? `${UNTRUSTED_NOTE}\n${json}` : json)
  let out: CallToolResult
  if (output === undefined) {
    out = {
      content: [{ type: 'text', text: text(JSON.stringify(result)) }],
      structuredContent: result as unknown as Record<string, unknown>,
      isError: ERROR_STATUSES.has(result.status),
    }
  } else if (result.status !== 'ok') {
    out = { content: [{ type: 'text', text: text(JSON.stringify(result)) }], isError: true }
  } else {
    const data = (result as { data?: unknown }).data
    const problem = output(data)
    if (problem !== undefined)
      return errorText(`The page's result does not match the tool's output schema: ${problem}`)
    out = {
      content: [{ type: 'text', text: text(JSON.stringify(data)) }],
      structuredContent: data as Record<string, unknown>,
      isError: false,
    }
  }
  if (untrusted) out._meta = { 'toolmark/untrustedContent': true }
  return out
}

/** An MCP error result with one line of text for the client. */
export function errorText(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/** The output schema a tool is listed with: only an object schema (MCP's rule), else undefined. */
export function listedOutputSchema(tool: ToolManifest): Record<string, unknown> | undefined {
  const schema = tool.outputSchema as Record<string, unknown> | undefined
  return schema && typeof schema === 'object' && schema.type === 'object' ? schema : undefined
}

const validators = new AjvJsonSchemaValidator()
const checks = new WeakMap<ToolManifest, OutputCheck>()

/**
 * The check of a tool's `ok` data against the output schema it is listed with (compiled once per
 * manifest entry), or undefined when it is listed without one. Data must be a JSON object; a schema
 * that cannot be compiled fails every result with that reason.
 */
export function outputCheck(tool: ToolManifest): OutputCheck | undefined {
  const schema = listedOutputSchema(tool)
  if (schema === undefined) return undefined
  let check = checks.get(tool)
  if (check) return check
  try {
    // The relay's validator reads the schema's keywords; the page's $schema dialect is not its concern.
    const { $schema: _dialect, ...rest } = schema
    const validate = validators.getValidator(rest as never)
    check = (data) => {
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'data must be an object'
      const r = validate(data)
      return r.valid ? undefined : (r.errorMessage ?? 'invalid')
    }
  } catch (err) {
    const reason = `the output schema cannot be compiled (${err instanceof Error ? err.message : String(err)})`
    check = () => reason
  }
  checks.set(tool, check)
  return check
}
