import type { ToolManifest, ToolResult } from '@toolmark/core'

/*
 * A page's tool as the tests write it: its full manifest entry (what a describe answers) and what a
 * call returns. The planner tests here and the agent server's fake page (apps/agent-server test
 * helpers) share it.
 */

export type Handler = (input: Record<string, unknown>) => ToolResult

/** A tool of a fake page: its full manifest entry and what a call returns. */
export interface FakeTool extends ToolManifest {
  run: Handler
  /** The `needs_confirmation` summary (default: the title and the input's `name`). */
  summarize?: (input: Record<string, unknown>) => string
}

/** A manifest entry for a fake page. */
export function fakeTool(
  name: string,
  description: string,
  hints: FakeTool['hints'],
  inputSchema: Record<string, unknown>,
  run: Handler = () => ({ status: 'ok' }),
  title?: string,
): FakeTool {
  return {
    name,
    llmName: name.replaceAll('.', '__'),
    description,
    hints,
    inputSchema,
    run,
    ...(title === undefined ? {} : { title }),
  }
}
