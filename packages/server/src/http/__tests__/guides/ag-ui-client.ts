// chat.ts: the chat front end in the page; an interrupt is answered in the page, then in the next run
import { HttpAgent } from '@ag-ui/client'
import type { Toolmark } from '@toolmark/core'

export async function chat(
  tm: Toolmark,
  threadId: string,
  text: string,
  approve: (message: string) => boolean,
) {
  const agent = new HttpAgent({ url: '/api/ag-ui', threadId })
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text })
  await agent.runAgent()
  // Every open interrupt must be answered in the next run: first in the page, where the seed's rules apply.
  while (agent.pendingInterrupts.length > 0) {
    const resume = []
    for (const interrupt of agent.pendingInterrupts) {
      const approved = approve(interrupt.message ?? '')
      // The page runs the tool (or not) and tells the server; an edit goes in `input` (and `editedArgs`).
      await tm.confirmPending(interrupt.id, { approved })
      resume.push({ interruptId: interrupt.id, status: 'resolved' as const, payload: { approved } })
    }
    await agent.runAgent({ resume })
  }
  return agent.messages
}
