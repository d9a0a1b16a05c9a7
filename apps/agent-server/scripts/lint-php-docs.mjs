#!/usr/bin/env node
// Runs `php -l` on every ```php block of the Laravel reference (or of the Markdown files given as
// arguments). Exit 0 when all pass, 1 when a block fails, 2 when php is not installed.
// Usage: node apps/agent-server/scripts/lint-php-docs.mjs [doc.md ...]
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const DEFAULT_DOC = fileURLToPath(new URL('../../../docs/guides/laravel-reference.md', import.meta.url))

/** The ```php blocks of a Markdown text, with the 1-based line each block's code starts on. */
export function phpBlocks(markdown) {
  const blocks = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```php') continue
    const start = i + 1
    let end = start
    while (end < lines.length && lines[end].trim() !== '```') end++
    blocks.push({ line: start + 1, code: `${lines.slice(start, end).join('\n')}\n` })
    i = end
  }
  return blocks
}

/** Lints every block with `php -l`; returns one entry per block. */
export function lintBlocks(blocks, php = 'php') {
  const dir = mkdtempSync(join(tmpdir(), 'php-docs-'))
  try {
    return blocks.map((block, index) => {
      const file = join(dir, `block-${index + 1}.php`)
      writeFileSync(file, block.code)
      const run = spawnSync(php, ['-l', file], { encoding: 'utf8' })
      if (run.error) throw run.error
      return { ...block, ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim() }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const docs = process.argv.length > 2 ? process.argv.slice(2) : [DEFAULT_DOC]
  if (spawnSync('php', ['--version']).error) {
    console.error('php is not installed (Debian: apt-get install php-cli)')
    process.exit(2)
  }
  let failed = 0
  for (const doc of docs) {
    const results = lintBlocks(phpBlocks(readFileSync(doc, 'utf8')))
    for (const r of results) {
      if (r.ok) continue
      failed++
      console.error(`${doc}:${r.line}: php -l failed\n${r.output}\n`)
    }
    console.info(
      `${doc}: ${results.length - results.filter((r) => !r.ok).length}/${results.length} php blocks pass php -l`,
    )
  }
  process.exit(failed === 0 ? 0 : 1)
}
