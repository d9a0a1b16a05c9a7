import { type BridgeOptions, bridge } from '@toolmark/bridge'
import { type EchoLike, echoTransport, xsrfToken } from '@toolmark/bridge/echo'
import type { Toolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { initialPageFromDocument } from './page.ts'
import type { InertiaPageEventDetail, InertiaPageLike, InertiaRouterLike } from './types.ts'

/**
 * What the server shares with every page (Inertia shared props) for the bridge, by default under
 * `props.toolmark`. `null`/absent (a guest, no conversation yet) means no bridge.
 */
export interface ToolmarkSharedProps {
  /** The signed-in user's id. */
  userId: string | number
  /** The conversation the page's calls belong to; `null` for none yet. */
  conversationId: string | number | null
  /** The private channel without `private-`. Default `toolmark.{userId}.{conversationId}`. */
  channel?: string
  /** The same-origin URL results are POSTed to. Default `/toolmark/bridge/{conversationId}`. */
  postUrl?: string
  /** Broadcaster settings for your Echo factory (key, host, port, ...); never a secret. */
  broadcaster?: Record<string, unknown>
}

/** An Echo instance as the binding uses it: `laravel-echo`'s `Echo` and `@laravel/echo-react`'s both fit. */
export interface InertiaEchoLike extends EchoLike {
  /** The Pusher socket id, sent as `X-Socket-ID` so `broadcast(...)->toOthers()` works. */
  socketId?(): string | undefined
  /** Closes the connection (called on dispose when the binding created the instance). */
  disconnect?(): void
}

/** Options of {@link connectEcho}. */
export interface ConnectEchoOptions {
  /** Inertia's `router`. */
  router: InertiaRouterLike
  /** The page the app started on (for its shared props). Default: read from Inertia's `<script data-page>`. */
  initialPage?: InertiaPageLike
  /**
   * Your Echo instance, or a factory called once with the first shared props that carry a
   * conversation (e.g. `(p) => new Echo({ broadcaster: 'reverb', ...p.broadcaster, Pusher })`).
   * An instance made by the factory is disconnected on dispose; one you pass is left alone.
   */
  echo: InertiaEchoLike | ((props: ToolmarkSharedProps) => InertiaEchoLike)
  /** Reads the bridge settings from a page. Default `page.props.toolmark`. */
  props?: (page: InertiaPageLike) => ToolmarkSharedProps | null | undefined
  /** The broadcast event. Default `'.toolmark.message'`. */
  event?: string
  /** Extra bridge options (`onChange`, `maxMessageBytes`). */
  bridge?: Omit<BridgeOptions, 'transport'>
  /** Extra headers for each POST, after `X-XSRF-TOKEN` and `X-Socket-ID`. */
  headers?: () => Record<string, string>
}

const defaultProps = (page: InertiaPageLike): ToolmarkSharedProps | null | undefined => {
  const value = page.props.toolmark as ToolmarkSharedProps | null | undefined
  return typeof value === 'object' && value !== null ? value : undefined
}

interface Target {
  channel: string
  postUrl: string
}

function targetOf(props: ToolmarkSharedProps | null | undefined): Target | undefined {
  if (!props || props.conversationId === null || props.conversationId === undefined) return undefined
  const user = String(props.userId)
  const conversation = String(props.conversationId)
  return {
    channel: props.channel ?? `toolmark.${user}.${conversation}`,
    postUrl: props.postUrl ?? `/toolmark/bridge/${encodeURIComponent(conversation)}`,
  }
}

/**
 * Attaches the bridge over Laravel Echo from the page's shared props, and keeps it on the right
 * conversation: `echoTransport` on the private channel `toolmark.{user}.{conversation}` (a channel
 * no app hook shares, so an `@laravel/echo-react` hook unmounting cannot leave it), results POSTed
 * to `/toolmark/bridge/{conversation}` with `X-XSRF-TOKEN` (from the `XSRF-TOKEN` cookie) and
 * `X-Socket-ID` (Echo's interceptors cover axios, not `fetch`).
 *
 * After each `navigate`, `success` and `clientVisit` it compares the shared props: a new
 * conversation (or user) detaches the old bridge and attaches a new one; no conversation detaches
 * it. The clientId is the page load's: a full reload gets a new one and the server rebinds the
 * conversation on its first manifest. Inert on the server. Returns the dispose function.
 */
export function connectEcho(tm: Toolmark, options: ConnectEchoOptions): () => void {
  if (environment.isServer()) return () => {}
  const read = options.props ?? defaultProps
  let echo: InertiaEchoLike | undefined
  let owned = false
  let attached: { target: Target; detach: () => void } | undefined
  let disposed = false

  const sync = (page: InertiaPageLike | undefined): void => {
    if (disposed || !page) return
    const props = read(page)
    const target = targetOf(props)
    if (
      attached &&
      target?.channel === attached.target.channel &&
      target.postUrl === attached.target.postUrl
    ) {
      return
    }
    attached?.detach()
    attached = undefined
    if (!target || !props) return
    if (!echo) {
      owned = typeof options.echo === 'function'
      echo = typeof options.echo === 'function' ? options.echo(props) : options.echo
    }
    const instance = echo
    const transport = echoTransport({
      echo: instance,
      channel: target.channel,
      postUrl: target.postUrl,
      ...(options.event === undefined ? {} : { event: options.event }),
      headers: () => {
        const socketId = instance.socketId?.()
        return {
          'X-XSRF-TOKEN': xsrfToken(),
          ...(socketId ? { 'X-Socket-ID': socketId } : {}),
          ...options.headers?.(),
        }
      },
    })
    attached = { target, detach: tm.use(bridge({ ...options.bridge, transport })) }
  }

  const onPage = (event: CustomEvent<InertiaPageEventDetail>): void => sync(event.detail.page)
  const off = [
    options.router.on('navigate', onPage),
    options.router.on('success', onPage),
    options.router.on('clientVisit', onPage),
  ]
  sync(options.initialPage ?? initialPageFromDocument())

  return () => {
    if (disposed) return
    disposed = true
    for (const unsubscribe of off) unsubscribe()
    attached?.detach()
    attached = undefined
    if (owned) echo?.disconnect?.()
  }
}
