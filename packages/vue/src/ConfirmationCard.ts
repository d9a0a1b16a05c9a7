import type { ConfirmationCardData, Remember } from '@toolmark/core'
import { defineComponent, h, type PropType, shallowRef, useId, useTemplateRef } from 'vue'
import { useConfirmationCard } from './useConfirmationCard.ts'

/** What `<ConfirmationCard>` accepts: a pending item or an inline request, with its answers. */
export type AnswerableConfirmation = ConfirmationCardData & {
  approve(input?: unknown, remember?: Remember): unknown
  reject(): unknown
}

const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value))

/**
 * A small unstyled reference card: heading, summary, target, field changes, a countdown, then Reject
 * and Approve, in that order (Delete plus "This action cannot be undone." for destructive tools
 * without undo). Approve (or Delete) is the one primary button, marked `data-toolmark-primary` for
 * styling. An `alertdialog` labelled by its heading and described by its summary; Escape inside
 * rejects it, and `autoFocus` focuses Reject. A grantable card (`grantable: true`) also offers "Allow
 * once" (the default), "Allow for this conversation" (when the call has one) and "Always allow for N days"
 * as radio buttons; Approve sends the choice as `remember`.
 * Copy it or use it.
 */
// Pure: bundlers drop the card when only other exports are imported.
export const ConfirmationCard = /* @__PURE__ */ defineComponent({
  name: 'ConfirmationCard',
  props: {
    /** A pending item (`usePendingConfirmations().items`) or an inline request (`useConfirmQueue().items`). */
    confirmation: { type: Object as PropType<AnswerableConfirmation>, required: true },
    /**
     * Move focus to Reject when the card appears (pass it when the card answers what the user just did);
     * focus goes back when the card settles. Never taken from a field the user is typing in.
     */
    autoFocus: { type: Boolean, default: false },
    /** The days "Always allow" lasts on a grantable card. Default 30. */
    grantDays: { type: Number, default: undefined },
  },
  setup(props) {
    const card = useTemplateRef<HTMLElement>('card')
    const view = useConfirmationCard(() => props.confirmation, {
      element: card,
      reject: () => props.confirmation.reject(),
      autoFocus: props.autoFocus,
      ...(props.grantDays !== undefined && { grantDays: props.grantDays }),
    })
    const choice = shallowRef(0)
    const group = useId()
    return () => {
      const v = view.value
      const c = props.confirmation
      const remember = v.grantChoices[choice.value]?.remember
      const approve = () =>
        remember === undefined || remember === 'once' ? c.approve() : c.approve(undefined, remember)
      return h(
        'section',
        {
          ref: 'card',
          'data-testid': 'confirmation-card',
          'data-confirm-id': c.confirmId,
          role: v.role,
          'aria-labelledby': v.titleId,
          'aria-describedby': v.summaryId,
        },
        [
          h('h3', { id: v.titleId }, v.heading),
          h('p', { id: v.summaryId, 'data-testid': 'confirmation-summary' }, v.summary),
          v.target !== undefined ? h('p', { 'data-testid': 'confirmation-target' }, v.target) : null,
          v.changes.length > 0
            ? h(
                'ul',
                v.changes.map((change) =>
                  h(
                    'li',
                    { key: change.path },
                    `${change.path}: ${show(change.before)} → ${show(change.after)}`,
                  ),
                ),
              )
            : null,
          v.warning ? h('p', { 'data-testid': 'confirmation-warning' }, v.warning) : null,
          v.undoNote ? h('p', { 'data-testid': 'confirmation-undo-note' }, v.undoNote) : null,
          h(
            'p',
            { 'data-testid': 'confirmation-countdown', role: 'timer', 'aria-live': 'off' },
            v.expired ? 'Expired' : `Expires in ${v.countdown}`,
          ),
          v.grantChoices.length > 0
            ? h('fieldset', { 'data-testid': 'confirmation-remember' }, [
                h('legend', 'Remember this approval'),
                ...v.grantChoices.map((option, i) =>
                  h('label', { key: option.key }, [
                    h('input', {
                      type: 'radio',
                      name: group,
                      value: option.key,
                      checked: choice.value === i,
                      onChange: () => {
                        choice.value = i
                      },
                    }),
                    option.label,
                  ]),
                ),
              ])
            : null,
          // Reject first; the approve (or Delete) button is the one primary button.
          h(
            'button',
            { type: 'button', 'data-toolmark-reject': '', onClick: () => c.reject() },
            v.rejectLabel,
          ),
          h('button', { type: 'button', 'data-toolmark-primary': '', onClick: approve }, v.approveLabel),
        ],
      )
    }
  },
})
