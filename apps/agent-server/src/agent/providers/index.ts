import { OfflineProvider } from '@toolmark/offline-agent'
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
      return new OfflineProvider({ chunkDelayMs: embeddedChunkDelay() })
  }
}

/**
 * The pause between the chunks of the offline agent's reply (ms), so the chat shows it streaming:
 * `EMBEDDED_CHUNK_DELAY_MS`, default 80.
 */
function embeddedChunkDelay(): number {
  const ms = Number(process.env.EMBEDDED_CHUNK_DELAY_MS ?? 80)
  return Number.isFinite(ms) && ms >= 0 ? ms : 80
}
