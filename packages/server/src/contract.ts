/**
 * `@toolmark/server/contract`: the chat API's bodies and events, for the browser side (no server code).
 */

export * from './shared/contract.ts'
