import { xsrfToken } from '@toolmark/bridge/echo'
import type { ToolmarkSharedProps } from '@toolmark/inertia'
import Echo from 'laravel-echo'
import Pusher from 'pusher-js'

let current: Echo<'reverb'> | undefined

/**
 * The page load's one Echo connection, made from the shared props `toolmark.broadcaster` (key, host,
 * port; no secret). The bridge's binding calls it once; the chat listens on the same connection.
 */
export function createEcho(props: ToolmarkSharedProps): Echo<'reverb'> {
  const broadcaster = props.broadcaster as { key: string; wsHost: string; wsPort: number }
  current = new Echo({
    broadcaster: 'reverb',
    ...broadcaster,
    wssPort: broadcaster.wsPort,
    forceTLS: false,
    enabledTransports: ['ws'],
    authEndpoint: '/broadcasting/auth',
    auth: { headers: { 'X-XSRF-TOKEN': xsrfToken() } },
    Pusher,
  })
  return current
}

/** The Echo connection `createEcho` made, if the page has a conversation. */
export function pageEcho(): Echo<'reverb'> | undefined {
  return current
}
