/**
 * `@toolmark/server/openai-compat`: any provider as an OpenAI-compatible `POST /v1/chat/completions`
 * endpoint (Hono routes), and the request parser behind it.
 */

export { chatCompletions, fromChatCompletions, MAX_CHAT_COMPLETIONS_BYTES } from './http/openai-compat.ts'
