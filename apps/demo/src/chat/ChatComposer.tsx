import type { FormEvent, ReactNode, RefObject } from 'react'

const count = new Intl.NumberFormat('en-US')

/**
 * The chat's input, shared by the demos: a message field limited to `max` characters, Send (disabled
 * while the text is blank), and a character counter from 90% of the limit on.
 */
export function ChatComposer(props: {
  text: string
  onText: (text: string) => void
  onSubmit: (event: FormEvent) => void
  inputRef: RefObject<HTMLInputElement | null>
  max: number
}): ReactNode {
  const { text, onText, onSubmit, inputRef, max } = props
  const counting = text.length >= Math.floor(max * 0.9)
  return (
    <>
      <form className="chat-form" onSubmit={onSubmit}>
        <input
          ref={inputRef}
          data-testid="chat-input"
          aria-label="Message"
          aria-describedby={counting ? 'chat-counter' : undefined}
          placeholder="Ask the agent…"
          maxLength={max}
          value={text}
          onChange={(event) => onText(event.target.value)}
        />
        <button type="submit" data-testid="chat-send" disabled={text.trim() === ''}>
          Send
        </button>
      </form>
      {counting && (
        <p
          id="chat-counter"
          className={text.length > max ? 'counter over' : 'counter'}
          data-testid="chat-counter"
        >
          {count.format(text.length)} / {count.format(max)} characters
        </p>
      )}
    </>
  )
}
