import { EmbeddedProvider } from '@toolmark/offline-agent'
import type { Provider } from '@toolmark/server'
import { AnthropicProvider } from '@toolmark/server/anthropic'
import { OpenAiProvider } from '@toolmark/server/openai'
import type { Config } from '../../config.ts'

/** The provider `config.provider` names (keys are checked by `loadConfig`). */
export function createProvider(config: Config): Provider {
  switch (config.provider) {
    case 'anthropic':
      return new AnthropicProvider({
        apiKey: config.anthropicApiKey ?? '',
        baseUrl: config.anthropicBaseUrl,
        model: config.anthropicModel,
      })
    case 'openai':
      return new OpenAiProvider({
        apiKey: config.openaiApiKey ?? '',
        baseUrl: config.openaiBaseUrl,
        model: config.openaiModel,
      })
    default:
      return new EmbeddedProvider()
  }
}
