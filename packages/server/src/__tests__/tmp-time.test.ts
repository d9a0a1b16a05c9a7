import { EmbeddedProvider } from '@toolmark/offline-agent'
import { it } from 'vitest'
import { createToolmarkServer } from '../server.ts'
import { maskText } from '../shared/redact.ts'
it('time', async () => {
  const server = createToolmarkServer({ provider: new EmbeddedProvider(), authenticate: () => 'u', log: () => {} })
  const text = 'chess '.repeat(666)
  let t0 = performance.now()
  for (let i = 0; i < 5; i++) maskText(text)
  console.log('maskText ms', ((performance.now() - t0) / 5).toFixed(2))
  const body = JSON.stringify({ messages: [{ role: 'user', content: text }] })
  for (let i = 0; i < 3; i++) {
    t0 = performance.now()
    const r = await server.fetch(new Request('http://localhost/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body }))
    await r.text()
    console.log('completions ms', (performance.now() - t0).toFixed(1), r.status)
  }
  const c = await server.fetch(new Request('http://localhost/api/conversations', { method: 'POST' }))
  const { id } = (await c.json()) as { id: string }
  for (let i = 0; i < 3; i++) {
    t0 = performance.now()
    await server.fetch(new Request(`http://localhost/api/conversations/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) }))
    await server.agent.idle(id)
    console.log('turn ms', (performance.now() - t0).toFixed(1))
  }
  const msgs = await server.store.listMessages(id)
  console.log('reply len ms', msgs.at(-1)?.text.length, msgs.at(-1)?.text.slice(0, 80))
  const { maskAssistantText } = await import('../agent/stream.ts')
  const long = msgs.at(-1)!.text
  t0 = performance.now()
  for (let i = 0; i < 5; i++) maskAssistantText(long, [])
  console.log('maskAssistantText ms', ((performance.now() - t0) / 5).toFixed(2))
  await server.close()
})
