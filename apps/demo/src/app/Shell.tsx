import { usePendingConfirmations } from '@toolmark/react'
import { type ReactNode, useState } from 'react'

/** Which half a narrow screen shows: the page or the chat (wide screens show both side by side). */
export type Pane = 'page' | 'chat'

/**
 * The demo's layout, shared by the Vite, Next and Inertia demos: the top bar (brand and `nav`), the page
 * (`children`, in `<main id="pane-page">`), the chat and a row for the Undo bar. Wide screens show the
 * page and the chat side by side. Below 760 px they become two tabs, Page and Agent (styles.css decides;
 * both stay mounted), and the Agent tab shows how many cards wait for the user. The Undo bar has its own
 * row at the bottom, so it never covers the chat input or a card. `chat` must be an element with
 * `id="pane-chat"` and class `chat` (`<ChatPanel>` is).
 */
export function Shell(props: {
  nav: ReactNode
  chat: ReactNode
  toast?: ReactNode
  /** Shown at the end of the top bar, after the nav (the Inertia demo's "Signed in as …"). */
  end?: ReactNode
  children: ReactNode
}): ReactNode {
  const [pane, setPane] = useState<Pane>('page')
  const waiting = usePendingConfirmations().items.length
  return (
    <div className="layout" data-pane={pane}>
      <header className="topbar">
        <span className="brand">Challenges</span>
        <nav>{props.nav}</nav>
        {props.end}
      </header>
      <nav className="pane-tabs" aria-label="Page or chat">
        <PaneTab pane="page" current={pane} onSelect={setPane} label="Page" />
        <PaneTab pane="chat" current={pane} onSelect={setPane} label="Agent">
          {waiting > 0 && (
            <span className="badge" data-testid="pane-chat-waiting">
              {waiting}
              <span className="visually-hidden"> waiting for you to confirm</span>
            </span>
          )}
        </PaneTab>
      </nav>
      <main id="pane-page">{props.children}</main>
      {props.chat}
      <div className="toast-row">{props.toast}</div>
    </div>
  )
}

function PaneTab(props: {
  pane: Pane
  current: Pane
  onSelect: (pane: Pane) => void
  label: string
  children?: ReactNode
}): ReactNode {
  const { pane, current, onSelect, label, children } = props
  return (
    <button
      type="button"
      className="pane-tab"
      data-testid={`pane-${pane}`}
      aria-pressed={pane === current}
      aria-controls={`pane-${pane}`}
      onClick={() => onSelect(pane)}
    >
      {label}
      {children}
    </button>
  )
}
