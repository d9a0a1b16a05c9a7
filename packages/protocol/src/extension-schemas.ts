import {
  CONTEXT_NAME_SOURCE,
  EXTENSION_NAME_SOURCE,
  MAX_CONTEXT_DESCRIPTION,
  MAX_CONTEXT_ENTRIES,
  MAX_EXTENSIONS,
  MAX_PROGRESS_MESSAGE,
} from './extension-constants.ts'
import { deepFreeze } from './freeze.ts'
import { MAX_ID_LENGTH, PROTOCOL_VERSION } from './messages.ts'

/*
 * The JSON Schemas of the extension messages, in their own module so a server that only validates (with
 * `validateExtensionMessage`) does not bundle them.
 */

const DRAFT = 'https://json-schema.org/draft/2020-12/schema'
const envelope = {
  protocol: { const: PROTOCOL_VERSION },
  clientId: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
}
const names = {
  type: 'array',
  maxItems: MAX_EXTENSIONS,
  uniqueItems: true,
  items: { type: 'string', pattern: EXTENSION_NAME_SOURCE },
}

/**
 * JSON Schemas (draft 2020-12) of the extension messages, one per direction, as data. They accept exactly
 * what {@link validateExtensionMessage} accepts (the fixture corpus proves it).
 */
export const extensionSchemas = /* @__PURE__ */ deepFreeze({
  pageToAgent: {
    $schema: DRAFT,
    $id: 'urn:toolmark:protocol:v1:extensions:page-to-agent',
    title: 'Toolmark bridge protocol v1 extensions: page → agent message',
    oneOf: [
      {
        type: 'object',
        properties: { ...envelope, type: { const: 'extensions' }, offer: names },
        required: ['protocol', 'type', 'clientId', 'offer'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: {
          ...envelope,
          type: { const: 'progress' },
          id: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
          fraction: { type: 'number', minimum: 0, maximum: 1 },
          message: { type: 'string', maxLength: MAX_PROGRESS_MESSAGE },
          data: true,
        },
        required: ['protocol', 'type', 'clientId', 'id'],
        // The four required properties and at least one of fraction, message and data.
        minProperties: 5,
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: {
          ...envelope,
          type: { const: 'context' },
          rev: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          entries: {
            type: 'array',
            maxItems: MAX_CONTEXT_ENTRIES,
            items: {
              type: 'object',
              properties: {
                name: { type: 'string', pattern: CONTEXT_NAME_SOURCE },
                description: { type: 'string', maxLength: MAX_CONTEXT_DESCRIPTION },
                value: true,
              },
              required: ['name', 'description', 'value'],
              additionalProperties: false,
            },
          },
        },
        required: ['protocol', 'type', 'clientId', 'rev', 'entries'],
        additionalProperties: false,
      },
    ],
  },
  agentToPage: {
    $schema: DRAFT,
    $id: 'urn:toolmark:protocol:v1:extensions:agent-to-page',
    title: 'Toolmark bridge protocol v1 extensions: agent → page message',
    type: 'object',
    properties: { ...envelope, type: { const: 'extensions' }, accept: names },
    required: ['protocol', 'type', 'clientId', 'accept'],
    additionalProperties: false,
  },
})
