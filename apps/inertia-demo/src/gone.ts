import { getClientId } from '@toolmark/bridge'
import { xsrfToken } from '@toolmark/bridge/echo'
import { useEffect, useRef } from 'react'

/**
 * When the page unloads (a reload, a closed tab, a visit elsewhere) while confirmation cards wait,
 * tells Laravel this page load is gone (`POST /toolmark/gone/{conversation}` with its clientId): its
 * cards can never be answered, so Laravel expires them and says so in the chat. A page kept in the
 * back/forward cache may come back, so it sends nothing.
 */
export function useGoneSignal(conversationId: number | null | undefined, waiting: number): void {
  const waitingRef = useRef(waiting)
  waitingRef.current = waiting
  useEffect(() => {
    if (conversationId === null || conversationId === undefined) return
    const onHide = (event: PageTransitionEvent): void => {
      if (event.persisted || waitingRef.current === 0) return
      // keepalive: the request outlives the page.
      fetch(`/toolmark/gone/${conversationId}`, {
        method: 'POST',
        keepalive: true,
        credentials: 'same-origin',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'X-Requested-With': 'XMLHttpRequest',
          'X-XSRF-TOKEN': xsrfToken(),
        },
        body: JSON.stringify({ clientId: getClientId() }),
      }).catch(() => {})
    }
    addEventListener('pagehide', onHide)
    return () => removeEventListener('pagehide', onHide)
  }, [conversationId])
}
