import type { ConfirmQueue } from '@toolmark/core'
import { mcpPairing, type PairingStatus, RESUME_STORAGE_KEY } from '@toolmark/mcp/page'
import { useConfirmQueue, useToolmark } from '@toolmark/react'
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react'
import { ConfirmCard } from '../chat/ConfirmCard.tsx'
import './external.css'

/**
 * The relay's loopback WebSocket (`npx @toolmark/mcp --allow-origin <this page's origin>`): port
 * 17333, or `?mcpPort=` for a relay started with `--port`. `mcpPairing` accepts loopback URLs only.
 */
function relayUrl(): string {
  const port = Number(new URLSearchParams(location.search).get('mcpPort'))
  return `ws://127.0.0.1:${Number.isInteger(port) && port > 0 && port < 65536 ? port : 17333}`
}

/**
 * "Pair with a desktop MCP client" and the inline confirmations of agents outside the app (WebMCP
 * in the browser, desktop MCP): their calls wait here for Approve/Reject, on the same cards as the chat's
 * (Reject first, one primary button), each scrolled into view when it appears.
 */
export function ExternalAgents({ queue }: { queue: ConfirmQueue }): ReactNode {
  const tm = useToolmark()
  // The queue is shared with tours, whose cards the guides panel shows.
  const items = useConfirmQueue(queue).items.filter((item) => item.caller !== 'tour')
  const [status, setStatus] = useState<PairingStatus | undefined>(undefined)
  const detach = useRef<(() => void) | undefined>(undefined)

  const pair = useCallback(() => {
    detach.current?.()
    detach.current = tm.use(mcpPairing({ url: relayUrl(), onStatus: setStatus }))
  }, [tm])
  const unpair = useCallback(() => {
    detach.current?.()
    detach.current = undefined
    sessionStorage.removeItem(RESUME_STORAGE_KEY)
    setStatus(undefined)
  }, [])
  useEffect(() => {
    // A tab the user allowed to resume re-pairs by itself after a reload.
    if (sessionStorage.getItem(RESUME_STORAGE_KEY) !== null) pair()
    return () => {
      detach.current?.()
      detach.current = undefined
    }
  }, [pair])

  const webmcpReady = typeof document !== 'undefined' && 'modelContext' in document
  return (
    <aside className="external-agents" aria-label="External agents" data-testid="external-agents">
      <p className="external-webmcp" data-testid="webmcp-status">
        {webmcpReady
          ? 'WebMCP: the tools are published to the browser’s agent.'
          : 'WebMCP: not in this browser (try Chromium with --enable-features=WebMCP).'}
      </p>
      <PairingPanel status={status} onPair={pair} onUnpair={unpair} />
      {items.map((item) => (
        <div
          key={item.confirmId}
          className="external-confirm"
          data-testid="external-confirm"
          data-caller={item.caller}
        >
          <p className="external-caller">
            {item.caller === 'mcp' ? 'Desktop MCP client' : 'Browser agent (WebMCP)'} asks:
          </p>
          {/* It appears below the app: brought into view at once, so the user sees it without scrolling. */}
          <ConfirmCard confirmation={item} scrollIntoView="nearest" />
        </div>
      ))}
    </aside>
  )
}

function PairingPanel(props: {
  status: PairingStatus | undefined
  onPair(): void
  onUnpair(): void
}): ReactNode {
  const { status, onPair, onUnpair } = props
  if (status === undefined || status.state === 'closed') {
    return (
      <div className="external-pairing">
        <button type="button" onClick={onPair} data-testid="mcp-pair">
          Pair with a desktop MCP client
        </button>
        {status?.state === 'closed' && status.reason !== 'disposed' && (
          <p role="status">Not paired{status.reason ? `: ${status.reason}` : ' (is the relay running?)'}.</p>
        )}
      </div>
    )
  }
  if (status.state === 'connecting') return <p role="status">Connecting to the relay…</p>
  if (status.state === 'pairing') {
    return (
      <div className="external-pairing" role="status">
        <p>
          Tell your MCP client: <q>pair with code</q>{' '}
          <strong className="pairing-code" data-testid="mcp-code">
            {status.code}
          </strong>
        </p>
        <p className="hint">It calls toolmark_pair with this code. The code works once, for two minutes.</p>
        <button type="button" onClick={onUnpair}>
          Cancel
        </button>
      </div>
    )
  }
  return (
    <div className="external-pairing" role="status">
      <p data-testid="mcp-paired">
        Paired as tab <code>{status.tab}</code>: its tools are <code>{status.tab}__…</code>
      </p>
      <button type="button" onClick={onUnpair}>
        Unpair
      </button>
    </div>
  )
}
