import { PROVIDER_LIMITS, type ToolManifestSummary } from '@toolmark/protocol'

/*
 * What a provider is handed is bounded, whichever provider it is: a page controls up to 1048576 bytes per message
 * (a tool result, a manifest), and both the model's cost and the offline planner's grow with the text. Everything
 * past these limits is cut before it reaches a provider, the store or the masking (which is linear, but not free).
 */

/**
 * Longest text of one message other than the user's (a tool result, assistant text, a system prompt) and of one
 * tool description a provider is handed, in UTF-16 code units. The user's own text is limited to
 * `MAX_MESSAGE_LENGTH` (4000) when it is posted.
 */
export const MAX_PROVIDER_TEXT = PROVIDER_LIMITS.maxProviderText

/**
 * How many UTF-16 code units of the page's manifest (names, titles and descriptions of its tools) a turn hands
 * the model: the tools that fit, in the page's order; the rest are left out of that turn. It keeps `page_call`'s
 * description (the fixed preamble plus the rendered manifest) within {@link MAX_PROVIDER_TEXT}.
 */
export const MAX_MANIFEST_CHARS = PROVIDER_LIMITS.maxManifestChars

/** What one tool adds to a rendered manifest, about: its texts and the line's fixed parts. */
const toolChars = (tool: ToolManifestSummary): number =>
  String(tool.name).length +
  String(tool.description ?? '').length +
  String(tool.title ?? '').length +
  String(tool.llmName ?? '').length +
  64

/** The page's tools that fit {@link MAX_MANIFEST_CHARS}, in order (the same array when all of them fit). */
export function boundManifest(tools: readonly ToolManifestSummary[]): readonly ToolManifestSummary[] {
  let total = 0
  for (const tool of tools) total += toolChars(tool)
  if (total <= MAX_MANIFEST_CHARS) return tools
  const kept: ToolManifestSummary[] = []
  let left = MAX_MANIFEST_CHARS
  for (const tool of tools) {
    const chars = toolChars(tool)
    if (chars > left) continue // too long for what is left: smaller tools after it may still fit
    kept.push(tool)
    left -= chars
  }
  return kept
}

/**
 * A tool result's content as the model gets it and the conversation stores it: as is up to
 * {@link MAX_PROVIDER_TEXT}, else an error result that says so (a cut JSON text would not parse).
 */
export function boundContent(content: string): string {
  if (content.length <= MAX_PROVIDER_TEXT) return content
  return JSON.stringify({
    status: 'error',
    message: `The page's result is too large for the model (${content.length} characters; the limit is ${MAX_PROVIDER_TEXT})`,
  })
}

/** A text (assistant text, a system prompt) cut to {@link MAX_PROVIDER_TEXT}. */
export function boundText(text: string): string {
  return text.length <= MAX_PROVIDER_TEXT ? text : text.slice(0, MAX_PROVIDER_TEXT)
}
