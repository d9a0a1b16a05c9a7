import { validateMessage } from '@toolmark/protocol'
import {
  isCount,
  isFields,
  isObject,
  isText,
  isToken,
  isToolName,
  typeProblem,
  unknownKey,
} from './checks.ts'
import { MAX_PAIRING_CONTEXT, MAX_PAIRING_PROMPTS, MAX_PROMPT_TEXT, PAIRING_PROTOCOL } from './messages.ts'

/*
 * Page → relay messages, checked strictly at the top level. Manifest entries and hints accept
 * unknown properties (a newer page may add some), as in bridge protocol v1; tool results follow
 * bridge protocol v1's strict rules, checked by its own validator.
 */

const RELAY_TO_PAGE = ['pairing', 'paired', 'call', 'cancel', 'error', 'confirmed'] as const

/** The `reason` of a `hello` whose `v` is present but not this protocol's version. */
export const UNSUPPORTED_PAIRING_PROTOCOL = 'unsupported pairing protocol'

/** Why `value` is not a page → relay message, or undefined when it is one. */
export function toRelayProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'message must be an object'
  switch (value.type) {
    case 'hello': {
      if (value.v !== PAIRING_PROTOCOL)
        return value.v === undefined ? 'hello: missing v' : UNSUPPORTED_PAIRING_PROTOCOL
      const extra = unknownKey(value, ['type', 'v', 'resume'])
      if (extra !== undefined) return `hello: unknown property ${extra}`
      if (value.resume !== undefined && !isToken(value.resume))
        return 'hello: resume must match ^[A-Za-z0-9_-]{1,256}$'
      return undefined
    }
    case 'manifest': {
      const extra = unknownKey(value, ['type', 'rev', 'tools', 'title'])
      if (extra !== undefined) return `manifest: unknown property ${extra}`
      if (value.title !== undefined && !isText(value.title, 0, 256))
        return 'manifest: title must be a string of at most 256 characters'
      if (!isCount(value.rev)) return 'manifest: rev must be an integer >= 0'
      if (!Array.isArray(value.tools)) return 'manifest: tools must be an array'
      for (const tool of value.tools) {
        const problem = toolProblem(tool)
        if (problem !== undefined) return `manifest: ${problem}`
      }
      return undefined
    }
    case 'result': {
      const extra = unknownKey(value, ['type', 'id', 'result'])
      if (extra !== undefined) return `result: unknown property ${extra}`
      if (!isToken(value.id)) return 'result: id must match ^[A-Za-z0-9_-]{1,256}$'
      // The ToolResult rules are bridge protocol v1's: checked by its validator, in a v1 envelope.
      const checked = validateMessage(
        { protocol: 1, type: 'result', clientId: 'relay', id: 'relay', result: value.result },
        'toAgent',
      )
      return checked.ok ? undefined : checked.reason
    }
    case 'progress': {
      const extra = unknownKey(value, ['type', 'id', 'fraction', 'message'])
      if (extra !== undefined) return `progress: unknown property ${extra}`
      if (!isToken(value.id)) return 'progress: id must match ^[A-Za-z0-9_-]{1,256}$'
      const { fraction, message } = value
      if (fraction !== undefined && !(typeof fraction === 'number' && fraction >= 0 && fraction <= 1))
        return 'progress: fraction must be a number from 0 to 1'
      if (message !== undefined && !isText(message, 0, 200))
        return 'progress: message must be a string of at most 200 characters'
      if (fraction === undefined && message === undefined) return 'progress: needs fraction or message'
      return undefined
    }
    case 'confirm':
      return confirmProblem(value)
    case 'context':
      return contextProblem(value)
    case 'prompts':
      return promptsProblem(value)
    default:
      return typeProblem(value.type, RELAY_TO_PAGE, 'relay→page')
  }
}

/** One full manifest entry (`ToolManifest`): known fields checked, unknown ones accepted. */
function toolProblem(tool: unknown): string | undefined {
  if (!isObject(tool)) return 'each tool must be an object'
  if (!isToolName(tool.name)) return 'tool name must match ^[A-Za-z0-9_.-]{1,128}$'
  if (typeof tool.llmName !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.llmName))
    return 'llmName must match ^[a-zA-Z0-9_-]{1,64}$'
  if (typeof tool.description !== 'string') return 'description must be a string'
  if (tool.title !== undefined && typeof tool.title !== 'string') return 'title must be a string'
  if (tool.mode !== undefined && typeof tool.mode !== 'string') return 'mode must be a string'
  const hints = tool.hints
  if (!isObject(hints)) return 'hints must be an object'
  for (const hint of ['readOnly', 'consequential', 'destructive', 'untrustedContent'])
    if (hints[hint] !== undefined && typeof hints[hint] !== 'boolean') return 'known hints must be booleans'
  if (!isObject(tool.inputSchema)) return 'inputSchema must be an object'
  if (tool.outputSchema !== undefined && !isObject(tool.outputSchema)) return 'outputSchema must be an object'
  const paths = tool.sensitivePaths
  if (paths !== undefined && !(Array.isArray(paths) && paths.every((p) => typeof p === 'string')))
    return 'sensitivePaths must be an array of strings'
  return undefined
}

const CONFIRM_KEYS = [
  'type',
  'id',
  'confirmId',
  'tool',
  'title',
  'summary',
  'target',
  'destructive',
  'undoable',
  'changes',
  'expiresAt',
  'fields',
  'issues',
]

/** A `confirm`: strict; its changes and issues follow bridge protocol v1's rules (checked by its validator). */
function confirmProblem(value: Record<string, unknown>): string | undefined {
  const extra = unknownKey(value, CONFIRM_KEYS)
  if (extra !== undefined) return `confirm: unknown property ${extra}`
  if (!isToken(value.id)) return 'confirm: id must match ^[A-Za-z0-9_-]{1,256}$'
  if (!isToken(value.confirmId)) return 'confirm: confirmId must match ^[A-Za-z0-9_-]{1,256}$'
  if (!isToolName(value.tool)) return 'confirm: tool must match ^[A-Za-z0-9_.-]{1,128}$'
  for (const key of ['title', 'target'])
    if (value[key] !== undefined && typeof value[key] !== 'string') return `confirm: ${key} must be a string`
  if (typeof value.summary !== 'string') return 'confirm: summary must be a string'
  if (typeof value.destructive !== 'boolean') return 'confirm: destructive must be a boolean'
  if (value.undoable !== undefined && value.undoable !== true)
    return 'confirm: undoable must be true when present'
  if (!isCount(value.expiresAt)) return 'confirm: expiresAt must be an integer >= 0 (epoch ms)'
  if (value.fields !== undefined && !isFields(value.fields))
    return 'confirm: fields must map at most 64 field names to strings, numbers or booleans'
  // Changes and issues are bridge protocol v1's FieldChange and Issue: checked in a v1 result.
  const changes = validateMessage(
    {
      protocol: 1,
      type: 'result',
      clientId: 'relay',
      id: 'relay',
      result: { status: 'needs_confirmation', confirmId: 'relay', summary: '', changes: value.changes },
    },
    'toAgent',
  )
  if (!changes.ok) return `confirm: changes: ${changes.reason}`
  if (value.issues !== undefined) {
    const issues = validateMessage(
      {
        protocol: 1,
        type: 'result',
        clientId: 'relay',
        id: 'relay',
        result: { status: 'invalid', issues: value.issues },
      },
      'toAgent',
    )
    if (!issues.ok) return `confirm: issues: ${issues.reason}`
  }
  return undefined
}

/** A `context`: strict; entry values are any JSON (the frame's size and depth bounds apply). */
function contextProblem(value: Record<string, unknown>): string | undefined {
  const extra = unknownKey(value, ['type', 'rev', 'entries'])
  if (extra !== undefined) return `context: unknown property ${extra}`
  if (!isCount(value.rev)) return 'context: rev must be an integer >= 0'
  if (!Array.isArray(value.entries) || value.entries.length > MAX_PAIRING_CONTEXT)
    return `context: entries must be an array of at most ${MAX_PAIRING_CONTEXT}`
  for (const entry of value.entries) {
    if (!isObject(entry)) return 'context: each entry must be an object'
    const extra = unknownKey(entry, ['name', 'title', 'description', 'value', 'rev'])
    if (extra !== undefined) return `context: entry: unknown property ${extra}`
    if (!isToolName(entry.name)) return 'context: entry name must match ^[A-Za-z0-9_.-]{1,128}$'
    if (entry.title !== undefined && !isText(entry.title, 0, 256))
      return 'context: entry title must be a string of at most 256 characters'
    if (!isText(entry.description, 0, 4096))
      return 'context: entry description must be a string of at most 4096 characters'
    if (!('value' in entry)) return 'context: entry value is missing'
    if (!isCount(entry.rev)) return 'context: entry rev must be an integer >= 0'
  }
  return undefined
}

const PROMPT_NAME = /^[A-Za-z0-9_.-]{1,64}$/
const ARGUMENT_NAME = /^[A-Za-z0-9_]{1,64}$/

/** A `prompts`: strict, every text bounded. */
function promptsProblem(value: Record<string, unknown>): string | undefined {
  const extra = unknownKey(value, ['type', 'prompts'])
  if (extra !== undefined) return `prompts: unknown property ${extra}`
  if (!Array.isArray(value.prompts) || value.prompts.length > MAX_PAIRING_PROMPTS)
    return `prompts: prompts must be an array of at most ${MAX_PAIRING_PROMPTS}`
  for (const prompt of value.prompts) {
    if (!isObject(prompt)) return 'prompts: each prompt must be an object'
    const extra = unknownKey(prompt, ['name', 'title', 'description', 'arguments', 'text'])
    if (extra !== undefined) return `prompts: prompt: unknown property ${extra}`
    if (typeof prompt.name !== 'string' || !PROMPT_NAME.test(prompt.name))
      return 'prompts: prompt name must match ^[A-Za-z0-9_.-]{1,64}$'
    if (prompt.title !== undefined && !isText(prompt.title, 0, 256))
      return 'prompts: prompt title must be a string of at most 256 characters'
    if (prompt.description !== undefined && !isText(prompt.description, 0, 4096))
      return 'prompts: prompt description must be a string of at most 4096 characters'
    if (!isText(prompt.text, 0, MAX_PROMPT_TEXT))
      return `prompts: prompt text must be a string of at most ${MAX_PROMPT_TEXT} characters`
    const args = prompt.arguments
    if (args === undefined) continue
    if (!Array.isArray(args) || args.length > 16) return 'prompts: arguments must be an array of at most 16'
    for (const arg of args) {
      if (!isObject(arg)) return 'prompts: each argument must be an object'
      const extra = unknownKey(arg, ['name', 'description', 'required'])
      if (extra !== undefined) return `prompts: argument: unknown property ${extra}`
      if (typeof arg.name !== 'string' || !ARGUMENT_NAME.test(arg.name))
        return 'prompts: argument name must match ^[A-Za-z0-9_]{1,64}$'
      if (arg.description !== undefined && !isText(arg.description, 0, 1024))
        return 'prompts: argument description must be a string of at most 1024 characters'
      if (arg.required !== undefined && typeof arg.required !== 'boolean')
        return 'prompts: argument required must be a boolean'
    }
  }
  return undefined
}
