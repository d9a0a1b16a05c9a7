import { cancelled, invalid, ok, type ToolDefinition } from '@toolmark/core'
import * as z from 'zod'
import type { ChallengeStore } from './store.ts'

const nameField = z.string().trim().min(1).max(80)

const searchInput = z.object({
  query: z.string().max(200).describe('Words to look for in challenge names and descriptions, e.g. "chess"'),
})

const createInput = z.object({
  name: nameField.describe('Name of the new challenge, e.g. "Robotics"'),
  description: z.string().max(500).optional().describe('One sentence about the goal (optional)'),
})

/**
 * The delete tool's input, checked against the store: a name the page does not have is `invalid` at
 * validation, so the agent hears it at once and the user is never asked to approve a delete that cannot
 * happen.
 */
const deleteInputFor = (store: ChallengeStore) =>
  z.object({
    name: nameField
      .refine((name) => store.findByName(name) !== undefined, {
        error: (issue) => `No challenge named "${String(issue.input).trim()}"`,
      })
      .describe('Exact name of the challenge to remove, e.g. "Marathon Training"'),
  })

const notesInput = z.object({
  name: nameField.describe('Exact name of the challenge whose notes to read, e.g. "Chess Openings"'),
})

/** `challenges.search` (readOnly): find challenges by keyword. */
export function searchTool(store: ChallengeStore): ToolDefinition<typeof searchInput> {
  return {
    name: 'search',
    title: 'Search challenges',
    description:
      'Search the challenges list by keyword and return the matching challenges (id, name, description). ' +
      'Use it to find or look up challenges; an empty query lists them all.',
    input: searchInput,
    hints: { readOnly: true },
    run: ({ query }) =>
      ok({ results: store.search(query).map(({ id, name, description }) => ({ id, name, description })) }),
  }
}

/**
 * `challenges.create` (consequential, grantable): add a challenge; the agent's call waits for the user's
 * approval, unless the user chose to remember it ("for this conversation" or "always for 30 days").
 */
export function createTool(store: ChallengeStore): ToolDefinition<typeof createInput> {
  return {
    name: 'create',
    title: 'Create challenge',
    description:
      'Create a new challenge with a name and an optional description. ' +
      'Use it when the user asks to add, create or start a new challenge.',
    summary: ({ name }) => `Create challenge "${name}"`,
    input: createInput,
    hints: { consequential: true },
    grantable: true,
    run: ({ name, description }) => {
      const challenge = store.create({ name, description })
      if (!challenge)
        return invalid([{ path: 'name', message: `A challenge named "${name}" already exists` }])
      return ok({ id: challenge.id, name: challenge.name })
    },
  }
}

/**
 * `challenges.delete` (destructive, undoable): remove a challenge; registers an undo that puts it back,
 * and the page shows Undo, so its card says it can be undone from the page.
 */
export function deleteTool(store: ChallengeStore): ToolDefinition<ReturnType<typeof deleteInputFor>> {
  return {
    name: 'delete',
    title: 'Delete challenge',
    description:
      'Delete (remove) one challenge by its exact name. The user must approve it, and can undo it from the page.',
    summary: ({ name }) => `Delete challenge "${name}"`,
    input: deleteInputFor(store),
    hints: { destructive: true },
    undoable: true,
    run: ({ name }, ctx) => {
      // Checked again here: the challenge may have gone between validation and approval.
      const removed = store.remove(name)
      if (!removed) return invalid([{ path: 'name', message: `No challenge named "${name}"` }])
      ctx.registerUndo(() => {
        store.restore(removed.challenge, removed.index)
        if (store.getState().lastDeleted?.callId === ctx.callId) store.setLastDeleted(undefined)
      })
      store.setLastDeleted({ callId: ctx.callId, challenge: removed.challenge })
      return ok({ deleted: removed.challenge.name })
    },
  }
}

/** How long `challenges.export` spends on each challenge, so its progress can be seen. */
export const EXPORT_STEP_MS = 400

/**
 * `challenges.export` (readOnly, slow): the challenges as CSV, one row at a time, reporting its progress
 * (`ctx.progress`) so the chat shows how far it has come. Stops when the call is cancelled.
 */
export function exportTool(store: ChallengeStore): ToolDefinition {
  return {
    name: 'export',
    title: 'Export challenges to CSV',
    description:
      'Export the challenges as a CSV spreadsheet, one row per challenge. It takes a few seconds. ' +
      'Use it when the user asks to export, download or back up the challenges.',
    hints: { readOnly: true },
    run: async (_input, ctx) => {
      const all = store.getState().challenges
      const rows = ['name,description']
      for (const [i, challenge] of all.entries()) {
        await new Promise((resolve) => setTimeout(resolve, EXPORT_STEP_MS))
        if (ctx.signal.aborted) return cancelled('signal')
        rows.push([challenge.name, challenge.description].map((v) => `"${v.replace(/"/g, '""')}"`).join(','))
        ctx.progress({ fraction: (i + 1) / all.length, message: `Exported ${i + 1} of ${all.length}` })
      }
      return ok({ rows: all.length, csv: rows.join('\n') })
    },
  }
}

/** `challenges.notes` (readOnly, untrustedContent): the user's own notes, which may contain anything. */
export function notesTool(store: ChallengeStore): ToolDefinition<typeof notesInput> {
  return {
    name: 'notes',
    title: 'Read challenge notes',
    description:
      'Read the notes the user wrote on one challenge (free text typed by the user). ' +
      'Use it when asked what the notes of a challenge say.',
    input: notesInput,
    hints: { readOnly: true, untrustedContent: true },
    run: ({ name }) => {
      const challenge = store.findByName(name)
      if (!challenge) return invalid([{ path: 'name', message: `No challenge named "${name}"` }])
      return ok({ name: challenge.name, notes: challenge.notes })
    },
  }
}
