// Build check: the client entry keeps its 'use client' directive, and the server entry
// (`@toolmark/next/server`) pulls no client module. The server entry is bundled with everything it
// imports (workspace packages included), and every module in that bundle is inspected.
import { readFileSync } from 'node:fs'
import { build } from 'esbuild'

const dist = new URL('../dist/', import.meta.url)
const failures = []

const client = readFileSync(new URL('index.mjs', dist), 'utf8')
if (!/^["']use client["'];?/.test(client)) failures.push("dist/index.mjs does not start with 'use client'")

const result = await build({
  entryPoints: [new URL('server.mjs', dist).pathname],
  bundle: true,
  write: false,
  metafile: true,
  format: 'esm',
  platform: 'node',
  logLevel: 'silent',
})
const inputs = Object.keys(result.metafile.inputs)
for (const input of inputs) {
  const source = readFileSync(input, 'utf8')
  if (/^\s*["']use client["']/.test(source)) failures.push(`server bundle includes a client module: ${input}`)
  if (
    /(^|\/)node_modules\/(react|react-dom|next)\//.test(input) ||
    /packages\/(react|next)\/(src|dist)\/index/.test(input)
  )
    failures.push(`server bundle includes ${input}`)
}
const code = result.outputFiles[0].text
if (/\bfrom\s*["'](react|next|@toolmark\/react)/.test(code))
  failures.push('server bundle imports React, Next or @toolmark/react')

if (failures.length > 0) {
  console.error(`✗ @toolmark/next build check:\n  ${failures.join('\n  ')}`)
  process.exit(1)
}
console.log(
  `✓ @toolmark/next build check: client entry has 'use client'; server entry bundles ${inputs.length} module(s), none of them client code`,
)
