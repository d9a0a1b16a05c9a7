/**
 * `@toolmark/protocol/extensions`: the opt-in extensions of bridge protocol v1 (docs/protocol/v1.md,
 * Extensions): the `extensions` list of a manifest, the `confirm` message, their validator and JSON Schemas.
 */
export { MAX_CONFIRM_REASON, validateConfirmMessage } from './extension-confirm.ts'
export * from './extension-messages.ts'
export { extensionSchemas } from './extension-schemas.ts'
