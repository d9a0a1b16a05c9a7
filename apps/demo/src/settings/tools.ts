import { ok, type ToolDefinition } from '@toolmark/core'
import * as z from 'zod'
import type { SettingsStore } from './store.ts'

/** Input of `settings.updateCard`; `card.number` and `card.cvc` are sensitive. */
export const cardInput = z.object({
  card: z.object({
    number: z
      .string()
      .regex(/^\d(?:[ -]?\d){11,18}$/, 'Enter 12 to 19 digits')
      .describe('Card number, 12 to 19 digits (spaces allowed), e.g. "4242 4242 4242 4242"'),
    cvc: z
      .string()
      .regex(/^\d{3,4}$/, 'Enter the 3 or 4 digit security code')
      .describe('Security code (CVC), 3 or 4 digits'),
    expiry: z
      .string()
      .regex(/^(0[1-9]|1[0-2])\/\d{2}$/, 'Use MM/YY')
      .describe('Expiry date as MM/YY, e.g. "12/29"'),
  }),
})

/** Paths of `cardInput` that never leave the page in confirmation payloads or logs. */
export const CARD_SENSITIVE_PATHS = ['card.number', 'card.cvc'] as const

/** `settings.updateCard` (consequential): replace the saved payment card; the number and CVC are redacted. */
export function updateCardTool(store: SettingsStore): ToolDefinition<typeof cardInput> {
  return {
    name: 'updateCard',
    title: 'Update payment card',
    description:
      'Update (replace) the payment card saved in the settings: card number, CVC security code and expiry MM/YY. ' +
      'Use it when the user asks to change or update their payment card.',
    summary: ({ card }) => `Replace the saved payment card (expires ${card.expiry})`,
    input: cardInput,
    hints: { consequential: true },
    sensitivePaths: CARD_SENSITIVE_PATHS,
    run: ({ card }) => ok(store.saveCard(card)),
  }
}
