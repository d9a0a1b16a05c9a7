import { describe, expect, it } from 'vitest'
import { rootScripts, sections, userDocs } from './markdown.ts'

// No @toolmark/* package is on the npm registry yet, so `npx @toolmark/…` and `npm install @toolmark/…`
// answer 404. Every section that shows one must also show the command that works from a clone today: a root
// script (`npm run <script>`, or `"run", "--silent", "<script>"` in an MCP client's config) that builds what
// it needs first.
const registryCommand =
  /(?:\bnpx (?:-y |--yes )?@toolmark\/|\b(?:npm (?:install|i|add)|pnpm add|yarn add|bun add) [^\n`]*@toolmark\/|"npx",\s*"args":\s*\[[^\]]*"@toolmark\/)/g
const cloneCommand =
  /\bnpm (?:--prefix \S+ )?run (?:--silent )?([\w:.-]+)|"run",\s*(?:"--silent",\s*)?"([\w:.-]+)"/g

const docs = userDocs()

describe('documented install and npx commands', () => {
  const found = docs.flatMap(({ file, text }) =>
    sections(text)
      .filter(({ body }) => body.match(registryCommand))
      .map(({ heading, body }) => ({ where: `${file} ${heading}`, body })),
  )

  it('the docs show some (so this test checks something)', () => {
    expect(found.length).toBeGreaterThanOrEqual(5)
  })

  it.each(found)('$where also shows a from-a-clone command whose root script exists', ({ body }) => {
    const scripts = [...body.matchAll(cloneCommand)].map((m) => m[1] ?? m[2])
    expect(scripts, 'no `npm run <root script>` beside the registry command').not.toEqual([])
    for (const script of scripts) expect(rootScripts, `npm run ${script}`).toContain(script)
  })

  it('no page tells to start a package from its dist/ (that fails until the package and its dependencies are built)', () => {
    const direct = docs
      .filter(({ text }) => /packages\/[\w-]+\/dist\/[\w./-]+\.m?js/.test(text))
      .map((d) => d.file)
    expect(direct).toEqual([])
  })
})
