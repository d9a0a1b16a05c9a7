// Type-checks the code in the docs: every ```ts, ```tsx, ```vue and ```svelte block in README.md, the
// package and app READMEs and docs/**/*.md, against the *built* packages (run `pnpm build` first), the
// way a reader who copies it would compile it.
//
// - ts/tsx blocks and the <script lang="ts"> of vue blocks: `tsc` (strict, bundler resolution, DOM, Vite's
//   `import.meta.env`). Vue templates are not checked (no vue-tsc here); their scripts are.
// - svelte blocks (and the ts blocks of the same page, which import them): `svelte-check`, templates included.
// - A block whose info string says `fragment` (```ts fragment) shows part of a program (it uses a `tm` or an
//   `echo` the reader already has): it is only parsed, so a syntax error still fails.
// - A block whose first line is a comment naming a file (`// main.ts`, `// app/layout.tsx`, `<!-- App.svelte -->`)
//   is written under that name, so blocks of one page can import each other.
//
// Exit code 1 on any error, with the Markdown file and line of the block.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const here = dirname(dirname(fileURLToPath(import.meta.url))) // docs/
const root = dirname(here)
const out = join(here, '.check')
const CHECKED = new Set(['ts', 'tsx', 'vue', 'svelte'])

/** The Markdown files whose code is checked. */
function markdownFiles() {
  const files = ['README.md']
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const readme = join(group, name, 'README.md')
      if (statSync(join(root, group, name)).isDirectory() && exists(join(root, readme))) files.push(readme)
    }
  }
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name)
      if (name === 'node_modules' || name.startsWith('.')) continue
      if (statSync(join(root, path)).isDirectory()) walk(path)
      else if (name.endsWith('.md')) files.push(path)
    }
  }
  walk('docs')
  return files
}

function exists(path) {
  try {
    statSync(path)
    return true
  } catch {
    return false
  }
}

/** Fenced blocks of one Markdown file: language, flags, first line number and code. */
function blocksOf(markdown) {
  const blocks = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*(.*)$/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, lang, rest] = open
    const body = []
    let j = i + 1
    while (j < lines.length && !lines[j].trimStart().startsWith(fence))
      body.push(lines[j++].slice(indent.length))
    blocks.push({ lang, flags: rest.split(/\s+/).filter(Boolean), line: i + 2, code: body.join('\n') })
    i = j
  }
  return blocks
}

/** A file name the block gives itself on its first line, if any. */
function ownName(block) {
  const first = block.code.split('\n', 1)[0].trim()
  const named = /^(?:\/\/|<!--)\s*((?:[\w-]+\/)*[\w.-]+\.(?:ts|tsx|vue|svelte))\b/.exec(first)
  return named?.[1]
}

/** The `<script lang="ts">` content of a Vue single-file component. */
function vueScript(code) {
  return /<script\b[^>]*lang="ts"[^>]*>([\s\S]*?)<\/script>/.exec(code)?.[1] ?? 'export {}'
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })

const origin = new Map() // generated file (relative to docs/.check) → "README.md:12"
const svelteDirs = new Set()
const problems = []
let checked = 0
let fragments = 0

for (const doc of markdownFiles()) {
  const slug = doc.replace(/\.md$/, '').replace(/[^\w]+/g, '-')
  for (const block of blocksOf(readFileSync(join(root, doc), 'utf8'))) {
    if (!CHECKED.has(block.lang)) continue
    const where = `${doc}:${block.line}`
    if (block.flags.includes('fragment')) {
      fragments++
      const source = block.lang === 'vue' ? vueScript(block.code) : block.code
      if (block.lang === 'svelte') continue // markup: no parser here beyond svelte-check's whole files
      const { diagnostics = [] } = ts.transpileModule(source, {
        reportDiagnostics: true,
        fileName: `fragment.${block.lang === 'tsx' ? 'tsx' : 'ts'}`,
        compilerOptions: { jsx: ts.JsxEmit.ReactJSX },
      })
      for (const d of diagnostics)
        problems.push(`${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
      continue
    }
    checked++
    const name = ownName(block) ?? `block-L${block.line}.${block.lang}`
    const dir = join(out, slug)
    mkdirSync(dir, { recursive: true })
    if (block.lang === 'vue') {
      const file = join(slug, `${name.replace(/\.vue$/, '')}.vue-script.ts`)
      writeFileSync(join(out, file), vueScript(block.code))
      origin.set(file, where)
    } else {
      const file = join(slug, name)
      mkdirSync(dirname(join(out, file)), { recursive: true })
      writeFileSync(join(out, file), block.code.endsWith('\n') ? block.code : `${block.code}\n`)
      origin.set(file, where)
      if (block.lang === 'svelte') svelteDirs.add(slug)
    }
  }
}

const compilerOptions = {
  strict: true,
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'Bundler',
  jsx: 'react-jsx',
  lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  types: ['vite/client', 'node'],
  noEmit: true,
  skipLibCheck: true,
  isolatedModules: true,
}
writeFileSync(
  join(out, 'shims.d.ts'),
  [
    "declare module '*.vue' { const component: import('vue').Component; export default component }",
    "declare module '*.svelte' { const component: import('svelte').Component<any>; export default component }",
    '',
  ].join('\n'),
)
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({ compilerOptions, include: ['**/*.ts', '**/*.tsx'] }, null, 2),
)
for (const slug of svelteDirs) {
  writeFileSync(
    join(out, slug, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, include: ['**/*.ts', '**/*.svelte'] }, null, 2),
  )
}

/** Replaces generated paths with the Markdown file and block line they came from. */
function located(text) {
  return text.replace(/(?:\.check\/)?([\w-]+\/[\w.-]+)[:(](\d+)[,:](\d+)\)?/g, (match, file, line, col) => {
    const from = origin.get(file)
    if (!from) return match
    const [doc, start] = from.split(':')
    return `${doc}:${Number(start) + Number(line) - 1}:${col}`
  })
}

const bin = (name) => join(here, 'node_modules', '.bin', name)
const tsc = spawnSync(bin('tsc'), ['-p', join(out, 'tsconfig.json'), '--pretty', 'false'], {
  cwd: here,
  encoding: 'utf8',
})
if (tsc.status !== 0) problems.push(located(`${tsc.stdout}${tsc.stderr}`.trim()))
for (const slug of svelteDirs) {
  const run = spawnSync(
    bin('svelte-check'),
    ['--workspace', join(out, slug), '--tsconfig', join(out, slug, 'tsconfig.json'), '--output', 'machine'],
    { cwd: here, encoding: 'utf8' },
  )
  if (run.status !== 0) {
    const lines = `${run.stdout}${run.stderr}`
      .split('\n')
      .filter((line) => / (ERROR|WARNING) /.test(line))
      .map((line) => {
        // "<time> ERROR "App.svelte" 3:5 "message""
        const m = / (ERROR|WARNING) "([^"]+)" (\d+):(\d+) "(.*)"$/.exec(line)
        return m ? located(`${slug}/${m[2]}:${m[3]}:${m[4]}`) + ` ${m[1].toLowerCase()}: ${m[5]}` : line
      })
    problems.push(lines.join('\n') || `${relative(root, join(out, slug))}: svelte-check failed`)
  }
}

if (problems.length > 0) {
  console.error(`✗ docs code: ${problems.length} problem group(s)\n${problems.join('\n')}`)
  process.exit(1)
}
console.log(
  `✓ docs code: ${checked} blocks type-checked against the built packages, ${fragments} fragments parsed`,
)
