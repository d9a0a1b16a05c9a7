#!/usr/bin/env node
// The Laravel reference guide is the code the demo runs: every ```php block of
// docs/guides/laravel-reference.md is one file of laravel/ (the table below), written by `--write`
// and compared by `--check` (CI), so the guide and the app cannot drift. The only edits are the
// Laravel 8 glue differences the guide lists in its "Running it on Laravel 8" section.
// Usage: node scripts/guide-files.mjs --check | --write
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { phpBlocks } from '../../agent-server/scripts/lint-php-docs.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const GUIDE = join(root, '../../docs/guides/laravel-reference.md')

/** Guide block (in order) → app file; `null` for blocks Laravel 8 runs elsewhere (said in the guide). */
export const FILES = [
  'database/migrations/2026_01_01_000000_create_toolmark_tables.php',
  'app/Models/Conversation.php',
  'routes/channels.php',
  'routes/web.php',
  'app/Policies/ConversationPolicy.php',
  'app/Events/ToolmarkMessage.php',
  'app/Toolmark/ToolmarkLlm.php',
  'app/Toolmark/ToolmarkRelay.php',
  'app/Http/Controllers/ToolmarkBridgeController.php',
  null, // routes/console.php: Laravel 8 schedules in app/Console/Kernel.php
  'app/Jobs/ExpireToolmarkCall.php',
  'app/Toolmark/AgentLoop.php',
  'app/Jobs/ContinueAgentTurn.php',
  'app/Http/Controllers/ChatController.php',
  'app/Toolmark/Mask.php',
]

/** Laravel 8 differences: Eloquent 8 reads casts from the `$casts` property, not a `casts()` method. */
const LARAVEL_8 = [
  [
    "    protected function casts(): array\n    {\n        return ['agent' => 'array', 'secret_text' => 'encrypted'];\n    }\n",
    "    protected $casts = ['agent' => 'array', 'secret_text' => 'encrypted'];\n",
  ],
]

export function expected() {
  const blocks = phpBlocks(readFileSync(GUIDE, 'utf8'))
  if (blocks.length !== FILES.length) {
    throw new Error(`the guide has ${blocks.length} php blocks, the table ${FILES.length}: update FILES`)
  }
  const out = new Map()
  blocks.forEach((block, i) => {
    const path = FILES[i]
    if (!path) return
    let code = block.code
    for (const [from, to] of LARAVEL_8) code = code.replace(from, to)
    out.set(join(root, 'laravel', path), code)
  })
  return out
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const mode = process.argv[2]
  let stale = 0
  for (const [file, code] of expected()) {
    let current
    try {
      current = readFileSync(file, 'utf8')
    } catch {
      current = undefined
    }
    if (current === code) continue
    if (mode === '--write') {
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, code)
      console.info(`wrote ${file}`)
    } else {
      stale++
      console.error(
        `${file} differs from its block in docs/guides/laravel-reference.md (run: node scripts/guide-files.mjs --write)`,
      )
    }
  }
  if (stale > 0) process.exit(1)
  if (mode !== '--write') console.info('laravel/ matches the guide')
}
