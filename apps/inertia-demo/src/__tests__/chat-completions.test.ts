import { PAGE_DESCRIBE_TOOL, pageCallTool } from '@toolmark/protocol'
import { chatCompletions } from '@toolmark/server/openai-compat'
import { OfflineProvider } from '@toolmark-apps/agent-server'
import { describe, expect, it } from 'vitest'

/* The agent server's embedded planner behind POST /v1/chat/completions (what the Laravel agent loop calls). */

const app = chatCompletions(new OfflineProvider())
const tools = [
  pageCallTool([
    {
      name: 'challenges.list',
      llmName: 'challenges__list',
      description: 'List the challenges',
      hints: { readOnly: true },
    },
  ]),
  PAGE_DESCRIBE_TOOL,
].map((t) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.input_schema },
}))
const ask = (body: unknown) =>
  app.request('/v1/chat/completions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })

async function chunks(response: Response): Promise<unknown[]> {
  const text = await response.text()
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)))
}

describe('POST /v1/chat/completions', () => {
  it('streams the planner’s tool call as Chat Completions chunks and closes the connection', async () => {
    const response = await ask({
      model: 'embedded',
      stream: true,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'list the challenges' },
      ],
      tools,
    })
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    expect(response.headers.get('connection')).toBe('close')
    const events = await chunks(response)
    expect(events.at(-1)).toBe('[DONE]')
    const call = (
      events as { choices?: { delta: { tool_calls?: unknown[] }; finish_reason: string | null }[] }[]
    ).flatMap((e) => e.choices ?? [])
    expect(call.find((c) => c.delta.tool_calls)?.delta.tool_calls).toEqual([
      {
        index: 0,
        id: 'embedded_1',
        type: 'function',
        function: { name: 'page_describe', arguments: '{"tool":"challenges.list"}' },
      },
    ])
    expect(call.at(-1)?.finish_reason).toBe('tool_calls')
  })

  it('answers without page tools in plain text (the follow-up turn), as one chat.completion without stream', async () => {
    const response = await ask({
      messages: [
        { role: 'user', content: 'create a challenge titled Chess' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: {
                name: 'page_call',
                arguments: '{"tool":"challenges.create","input":{"title":"Chess"}}',
              },
            },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'c1',
          content: '{"untrustedContent":true,"note":"n","result":{"status":"ok","data":{"created":true}}}',
        },
      ],
    })
    const body = (await response.json()) as {
      object: string
      choices: { message: { content: string; tool_calls?: unknown }; finish_reason: string }[]
    }
    expect(body.object).toBe('chat.completion')
    expect(body.choices[0]?.finish_reason).toBe('stop')
    expect(body.choices[0]?.message.tool_calls).toBeUndefined()
    expect(body.choices[0]?.message.content.length).toBeGreaterThan(0)
  })

  it('reads a second tool message for a call that answered needs_confirmation as the confirmation’s outcome', async () => {
    const call = (id: string) => ({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id,
          type: 'function',
          function: { name: 'page_call', arguments: '{"tool":"challenge.submit","input":{}}' },
        },
      ],
    })
    const waiting = {
      role: 'tool',
      tool_call_id: 'c1',
      content: JSON.stringify({
        status: 'needs_confirmation',
        confirmId: 'k1',
        summary: 'Submit "challenge"',
        expiresAt: '2026-12-01T12:00:00.000Z',
      }),
    }
    const outcome = (result: unknown) => ({
      role: 'tool',
      tool_call_id: 'c1',
      content: JSON.stringify(result),
    })
    const followUp = async (result: unknown) => {
      const response = await ask({
        messages: [
          { role: 'user', content: 'submit it' },
          call('c1'),
          waiting,
          { role: 'assistant', content: 'A confirmation is waiting in the page.' },
          outcome(result),
        ],
      })
      return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message
        .content
    }
    expect(
      await followUp({
        status: 'invalid',
        issues: [{ path: 'title', message: 'The title has already been taken.' }],
      }),
    ).toBe('Nothing was saved. The page did not accept the title: The title has already been taken.')
    expect(await followUp({ status: 'cancelled', by: 'operator' })).toBe(
      'Understood: you rejected it, so nothing was changed.',
    )
  })

  it('refuses malformed requests with 400 invalid_request_error', async () => {
    for (const body of [
      {},
      { messages: 'x' },
      { messages: [{ role: 'robot' }] },
      { messages: [], tools: [{}] },
    ]) {
      const response = await ask(body)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe(
        'invalid_request_error',
      )
    }
    const broken = await app.request('/v1/chat/completions', { method: 'POST', body: '{' })
    expect(broken.status).toBe(400)
  })
})
