import { protocolSchemas } from '@toolmark/protocol'

/*
 * JSON Schema (draft 2020-12) for the pairing messages, one schema per direction. This file is
 * their single source: `scripts/emit-pairing-schemas.mjs` writes them to
 * dist/protocol/v1/{page-to-relay,relay-to-page}.json, and a test proves that
 * `validatePairingMessage` accepts exactly what they accept on the fixture corpus. Tool results
 * and hints are bridge protocol v1's definitions, copied from its schemas.
 */

type JsonSchema = Record<string, unknown>

const DRAFT = 'https://json-schema.org/draft/2020-12/schema'
const token = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,256}$' }
const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }
const toolName = { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' }
const fields = {
  type: 'object',
  maxProperties: 64,
  propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,64}$' },
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
}

function message(type: string, properties: Record<string, unknown>, required: string[]): JsonSchema {
  return {
    type: 'object',
    properties: { type: { const: type }, ...properties },
    required: ['type', ...required],
    additionalProperties: false,
  }
}

const bridgeDefs = protocolSchemas.pageToAgent.$defs as Record<string, JsonSchema>

const pageToRelay: JsonSchema = {
  $schema: DRAFT,
  $id: 'urn:toolmark:mcp-pairing:v1:page-to-relay',
  title: 'Toolmark MCP pairing v1: page → relay message',
  oneOf: [
    { $ref: '#/$defs/HelloMessage' },
    { $ref: '#/$defs/ManifestMessage' },
    { $ref: '#/$defs/ResultMessage' },
    { $ref: '#/$defs/ProgressMessage' },
    { $ref: '#/$defs/ConfirmMessage' },
    { $ref: '#/$defs/ContextMessage' },
    { $ref: '#/$defs/PromptsMessage' },
  ],
  $defs: {
    HelloMessage: message('hello', { v: { const: 1 }, resume: token }, ['v']),
    ManifestMessage: message(
      'manifest',
      {
        rev: count,
        tools: { type: 'array', items: { $ref: '#/$defs/ToolManifest' } },
        title: { type: 'string', maxLength: 256 },
      },
      ['rev', 'tools'],
    ),
    ResultMessage: message('result', { id: token, result: { $ref: '#/$defs/ToolResult' } }, ['id', 'result']),
    // `type`, `id` and at least one of `fraction` and `message`.
    ProgressMessage: {
      ...message(
        'progress',
        {
          id: token,
          fraction: { type: 'number', minimum: 0, maximum: 1 },
          message: { type: 'string', maxLength: 200 },
        },
        ['id'],
      ),
      minProperties: 3,
    },
    ConfirmMessage: message(
      'confirm',
      {
        id: token,
        confirmId: token,
        tool: toolName,
        title: { type: 'string' },
        summary: { type: 'string' },
        target: { type: 'string' },
        destructive: { type: 'boolean' },
        undoable: { const: true },
        changes: { type: 'array', items: { $ref: '#/$defs/FieldChange' } },
        expiresAt: count,
        fields,
        issues: { type: 'array', items: { $ref: '#/$defs/Issue' } },
      },
      ['id', 'confirmId', 'tool', 'summary', 'destructive', 'changes', 'expiresAt'],
    ),
    ContextMessage: message(
      'context',
      {
        rev: count,
        entries: {
          type: 'array',
          maxItems: 64,
          items: {
            type: 'object',
            properties: {
              name: toolName,
              title: { type: 'string', maxLength: 256 },
              description: { type: 'string', maxLength: 4096 },
              value: true,
              rev: count,
            },
            required: ['name', 'description', 'value', 'rev'],
            additionalProperties: false,
          },
        },
      },
      ['rev', 'entries'],
    ),
    PromptsMessage: message(
      'prompts',
      {
        prompts: {
          type: 'array',
          maxItems: 64,
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
              title: { type: 'string', maxLength: 256 },
              description: { type: 'string', maxLength: 4096 },
              arguments: {
                type: 'array',
                maxItems: 16,
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string', pattern: '^[A-Za-z0-9_]{1,64}$' },
                    description: { type: 'string', maxLength: 1024 },
                    required: { type: 'boolean' },
                  },
                  required: ['name'],
                  additionalProperties: false,
                },
              },
              text: { type: 'string', maxLength: 16384 },
            },
            required: ['name', 'text'],
            additionalProperties: false,
          },
        },
      },
      ['prompts'],
    ),
    ToolManifest: {
      description: 'One full manifest entry. Unknown properties are accepted for forward compatibility.',
      type: 'object',
      properties: {
        name: toolName,
        llmName: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        title: { type: 'string' },
        description: { type: 'string' },
        hints: { $ref: '#/$defs/ToolHints' },
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        sensitivePaths: { type: 'array', items: { type: 'string' } },
        mode: { type: 'string' },
      },
      required: ['name', 'llmName', 'description', 'hints', 'inputSchema'],
    },
    ToolHints: bridgeDefs.ToolHints,
    ToolResult: bridgeDefs.ToolResult,
    Issue: bridgeDefs.Issue,
    FieldChange: bridgeDefs.FieldChange,
  },
}

const relayToPage: JsonSchema = {
  $schema: DRAFT,
  $id: 'urn:toolmark:mcp-pairing:v1:relay-to-page',
  title: 'Toolmark MCP pairing v1: relay → page message',
  oneOf: [
    { $ref: '#/$defs/PairingMessage' },
    { $ref: '#/$defs/PairedMessage' },
    { $ref: '#/$defs/CallMessage' },
    { $ref: '#/$defs/CancelMessage' },
    { $ref: '#/$defs/ErrorMessage' },
    { $ref: '#/$defs/ConfirmedMessage' },
  ],
  $defs: {
    PairingMessage: message(
      'pairing',
      { code: { type: 'string', pattern: '^[0-9]{4}-[0-9]{4}$' }, expiresAt: count },
      ['code', 'expiresAt'],
    ),
    PairedMessage: message('paired', { tab: { type: 'string', pattern: '^t[0-9]{1,15}$' }, resume: token }, [
      'tab',
    ]),
    CallMessage: message(
      'call',
      {
        id: token,
        tool: toolName,
        input: { type: 'object' },
        rev: count,
        meta: {
          type: 'object',
          properties: { traceparent: { type: 'string' }, tracestate: { type: 'string' } },
          additionalProperties: false,
        },
        client: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 256 },
            version: { type: 'string', maxLength: 256 },
          },
          required: ['name'],
          additionalProperties: false,
        },
        elicit: { const: true },
      },
      ['id', 'tool', 'input'],
    ),
    CancelMessage: message('cancel', { id: token }, ['id']),
    ErrorMessage: message('error', { message: { type: 'string' } }, ['message']),
    ConfirmedMessage: message(
      'confirmed',
      {
        confirmId: token,
        approved: { type: 'boolean' },
        input: fields,
        reason: { enum: ['declined', 'cancelled', 'expired', 'unavailable'] },
      },
      ['confirmId', 'approved'],
    ),
  },
}

/**
 * The pairing messages' JSON Schemas (draft 2020-12), one per direction, deep-frozen. The build
 * emits them as `@toolmark/mcp/protocol/v1/page-to-relay.json` and `relay-to-page.json`.
 */
export const pairingSchemas: { readonly pageToRelay: JsonSchema; readonly relayToPage: JsonSchema } =
  /* @__PURE__ */ deepFreeze({
    pageToRelay: JSON.parse(JSON.stringify(pageToRelay)) as JsonSchema,
    relayToPage: JSON.parse(JSON.stringify(relayToPage)) as JsonSchema,
  })

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}
