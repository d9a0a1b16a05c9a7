// "@toolmark/mcp/protocol": the page ↔ relay pairing messages as data. Types, a dependency-free
// validator, the JSON Schemas. Browser-safe: nothing here needs Node or the DOM.

export {
  type HelloMessage,
  MAX_PAIRING_CONTEXT,
  MAX_PAIRING_DEPTH,
  MAX_PAIRING_ID,
  MAX_PAIRING_MESSAGE,
  MAX_PAIRING_PROMPTS,
  MAX_PROMPT_TEXT,
  PAIRING_PROTOCOL,
  type PageToRelay,
  type PairedMessage,
  type PairingCallMessage,
  type PairingCancelMessage,
  type PairingClient,
  type PairingCodeMessage,
  type PairingConfirmedMessage,
  type PairingConfirmMessage,
  type PairingContextEntry,
  type PairingContextMessage,
  type PairingDirection,
  type PairingErrorMessage,
  type PairingManifestMessage,
  type PairingPrompt,
  type PairingPromptArgument,
  type PairingPromptsMessage,
  type PairingResultMessage,
  type RelayToPage,
} from './messages.ts'
export { readFrame } from './read.ts'
export { pairingSchemas } from './schemas.ts'
export { UNSUPPORTED_PAIRING_PROTOCOL } from './to-relay.ts'
export { type PairingValidation, readPairingMessage, validatePairingMessage } from './validate.ts'
