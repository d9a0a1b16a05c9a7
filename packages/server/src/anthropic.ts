/** `@toolmark/server/anthropic`: the Anthropic Messages API provider, on the official SDK. */

export { type AnthropicOptions, AnthropicProvider } from './agent/providers/anthropic.ts'
