// chat.ts: HttpAgent runs the conversation; an interrupt is a confirmation waiting for the user
import { HttpAgent } from '@ag-ui/client'

export async function chat(conversationId: string, text: string, approve: (message: string) => boolean) {
  const agent = new HttpAgent({ url: '/api/ag-ui', threadId: conversationId })
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text })
  await agent.runAgent()
  // Every open interrupt must be answered in the next run (approve, approve with editedArgs, or reject).
  while (agent.pendingInterrupts.length > 0) {
    const resume = agent.pendingInterrupts.map((interrupt) => ({
      interruptId: interrupt.id,
      status: 'resolved' as const,
      payload: { approved: approve(interrupt.message ?? '') },
    }))
    await agent.runAgent({ resume })
  }
  return agent.messages
}
