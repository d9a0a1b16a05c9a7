import { REFUSED_CODES } from './codes.ts'
import { deepFreeze } from './freeze.ts'
import type { JsonSchema } from './manifest.ts'
import { MAX_ID_LENGTH } from './messages.ts'

/*
 * JSON Schema (draft 2020-12) for protocol v1, one schema per direction. This file is the single
 * source: `scripts/emit-protocol-schemas.ts` writes these objects to
 * dist/v1/{page-to-agent,agent-to-page}.json, and a conformance test proves that
 * `validateMessage` accepts exactly what they accept on the fixture corpus.
 */

const DRAFT = 'https://json-schema.org/draft/2020-12/schema'

const id = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH }
const rev = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }
const toolName = { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' }
const protocol = { const: 1 }

/** Properties shared by every message of one `type`. */
function envelope(type: string, properties: Record<string, unknown>, required: string[]): JsonSchema {
  return {
    type: 'object',
    properties: { protocol, type: { const: type }, clientId: id, ...properties },
    required: ['protocol', 'type', 'clientId', ...required],
    additionalProperties: false,
  }
}

function strictObject(properties: Record<string, unknown>, required: string[]): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false }
}

const toolResult: JsonSchema = {
  oneOf: [
    strictObject({ status: { const: 'ok' }, data: true }, ['status']),
    strictObject(
      { status: { const: 'invalid' }, issues: { type: 'array', items: { $ref: '#/$defs/Issue' } } },
      ['status', 'issues'],
    ),
    {
      ...strictObject(
        {
          status: { const: 'refused' },
          code: { enum: Object.keys(REFUSED_CODES) },
          message: { type: 'string' },
          rev,
        },
        ['status', 'code', 'message'],
      ),
      if: { properties: { code: { enum: ['unknown_tool', 'stale'] } } },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: true,
      else: { properties: { rev: false } },
    },
    strictObject(
      {
        status: { const: 'needs_confirmation' },
        confirmId: id,
        summary: { type: 'string' },
        changes: { type: 'array', items: { $ref: '#/$defs/FieldChange' } },
      },
      ['status', 'confirmId', 'summary', 'changes'],
    ),
    strictObject({ status: { const: 'cancelled' }, by: { enum: ['operator', 'signal', 'policy'] } }, [
      'status',
      'by',
    ]),
    strictObject({ status: { const: 'error' }, message: { type: 'string' } }, ['status', 'message']),
  ],
}

const pageToAgent: JsonSchema = {
  $schema: DRAFT,
  $id: 'urn:toolmark:protocol:v1:page-to-agent',
  title: 'Toolmark bridge protocol v1: page → agent message',
  oneOf: [
    { $ref: '#/$defs/ManifestMessage' },
    { $ref: '#/$defs/ChangedMessage' },
    { $ref: '#/$defs/ResultMessage' },
    { $ref: '#/$defs/ConfirmedMessage' },
  ],
  $defs: {
    ManifestMessage: envelope(
      'manifest',
      { rev, tools: { type: 'array', items: { $ref: '#/$defs/ToolManifestSummary' } } },
      ['rev', 'tools'],
    ),
    ChangedMessage: envelope('changed', { rev }, ['rev']),
    ResultMessage: envelope('result', { id, result: { $ref: '#/$defs/ToolResult' } }, ['id', 'result']),
    ConfirmedMessage: envelope('confirmed', { confirmId: id, result: { $ref: '#/$defs/ToolResult' } }, [
      'confirmId',
      'result',
    ]),
    ToolManifestSummary: {
      description: 'One manifest entry. Unknown properties are accepted for forward compatibility.',
      type: 'object',
      properties: {
        name: toolName,
        llmName: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        title: { type: 'string' },
        description: { type: 'string' },
        hints: { $ref: '#/$defs/ToolHints' },
        mode: { type: 'string' },
      },
      required: ['name', 'llmName', 'description', 'hints'],
    },
    ToolHints: {
      description: 'Known hints are booleans. Unknown properties are accepted for forward compatibility.',
      type: 'object',
      properties: {
        readOnly: { type: 'boolean' },
        consequential: { type: 'boolean' },
        destructive: { type: 'boolean' },
        untrustedContent: { type: 'boolean' },
      },
    },
    ToolResult: toolResult,
    Issue: strictObject({ path: { type: 'string' }, message: { type: 'string' } }, ['path', 'message']),
    FieldChange: strictObject({ path: { type: 'string' }, before: true, after: true }, ['path']),
  },
}

const agentToPage: JsonSchema = {
  $schema: DRAFT,
  $id: 'urn:toolmark:protocol:v1:agent-to-page',
  title: 'Toolmark bridge protocol v1: agent → page message',
  oneOf: [
    { $ref: '#/$defs/CallMessage' },
    { $ref: '#/$defs/DescribeMessage' },
    { $ref: '#/$defs/CancelMessage' },
  ],
  $defs: {
    CallMessage: envelope('call', { id, tool: toolName, input: { type: 'object' }, rev }, [
      'id',
      'tool',
      'input',
    ]),
    DescribeMessage: envelope('describe', { id, tool: toolName }, ['id', 'tool']),
    CancelMessage: envelope('cancel', { id }, ['id']),
  },
}

/**
 * The protocol v1 JSON Schemas (draft 2020-12), one per direction, deep-frozen. The build emits
 * them as `@toolmark/protocol/v1/page-to-agent.json` and `agent-to-page.json`.
 */
export const protocolSchemas: { readonly pageToAgent: JsonSchema; readonly agentToPage: JsonSchema } =
  /* @__PURE__ */ deepFreeze({
    pageToAgent: JSON.parse(JSON.stringify(pageToAgent)) as JsonSchema,
    agentToPage: JSON.parse(JSON.stringify(agentToPage)) as JsonSchema,
  })
