/** `@toolmark/server/openai`: the OpenAI-compatible Chat Completions provider, on the official SDK. */

export { type OpenAiOptions, OpenAiProvider } from './agent/providers/openai.ts'
