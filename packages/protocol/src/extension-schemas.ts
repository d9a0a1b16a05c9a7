import { MAX_CONFIRM_REASON } from './extension-confirm.ts'
import { EXTENSION_NAME_PATTERN, MAX_EXTENSIONS } from './extension-messages.ts'
import { deepFreeze } from './freeze.ts'
import type { JsonSchema } from './manifest.ts'
import { MAX_ID_LENGTH } from './messages.ts'

const id = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH }

/**
 * JSON Schemas (draft 2020-12) of what the extensions add to protocol v1: the `extensions` property of a
 * `manifest`, and the `confirm` message. Deep-frozen.
 */
export const extensionSchemas: { readonly extensions: JsonSchema; readonly confirmMessage: JsonSchema } =
  /* @__PURE__ */ deepFreeze({
    extensions: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:protocol:v1:ext:extensions',
      type: 'array',
      items: { type: 'string', pattern: EXTENSION_NAME_PATTERN },
      maxItems: MAX_EXTENSIONS,
      uniqueItems: true,
    },
    confirmMessage: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:protocol:v1:ext:confirm',
      type: 'object',
      properties: {
        protocol: { const: 1 },
        type: { const: 'confirm' },
        clientId: id,
        id,
        confirmId: id,
        approved: { type: 'boolean' },
        input: { type: 'object' },
        reason: { type: 'string', maxLength: MAX_CONFIRM_REASON },
      },
      required: ['protocol', 'type', 'clientId', 'id', 'confirmId', 'approved'],
      additionalProperties: false,
      if: { properties: { approved: { const: true } } },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: { properties: { reason: false } },
      else: { properties: { input: false } },
    },
  } as const as { extensions: JsonSchema; confirmMessage: JsonSchema })
