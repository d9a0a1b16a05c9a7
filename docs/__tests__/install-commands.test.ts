import { describe, expect, it } from 'vitest'
import {
  installLines,
  publicPackages,
  tarballName,
  withDependencies,
} from '../../scripts/workspace-packages.mjs'
import { root, rootScripts, sections, userDocs } from './markdown.ts'

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

// A packed tarball installs only beside the tarballs of the @toolmark packages it depends on: npm asks the
// registry for any other one and gets a 404. So every documented `npm install …/packs/….tgz` command, and
// every line `npm run pack:packages` prints, lists the whole closure.
const packages = publicPackages(root)
const byTarball = new Map([...packages.values()].map((pkg) => [tarballName(pkg), pkg.name]))

/** Every `npm install` command of a page (inline, or in a code block with `\` continuations). */
function installCommands(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, ' ')
  return [...joined.matchAll(/\bnpm (?:install|i) [^\n`]*/g)].map((m) => m[0])
}

/** The package names of the tarballs a command installs, and the tarball files it names that do not exist. */
function tarballsOf(command: string): { names: string[]; unknown: string[] } {
  const files = [...command.matchAll(/([\w.-]+\.tgz)\b/g)].map((m) => m[1] as string)
  return {
    names: files.flatMap((file) => byTarball.get(file) ?? []),
    unknown: files.filter((file) => !byTarball.has(file)),
  }
}

describe('tarball install lines', () => {
  const lines = docs.flatMap(({ file, text }) =>
    installCommands(text)
      .filter((command) => command.includes('.tgz'))
      .map((command) => ({ where: file, command })),
  )

  it('the docs show some', () => {
    expect(lines.length).toBeGreaterThanOrEqual(6)
  })

  it.each(lines)('$where: $command', ({ command }) => {
    const { names, unknown } = tarballsOf(command)
    expect(unknown, 'tarballs pack:packages does not write').toEqual([])
    expect(names.sort()).toEqual(withDependencies(names, packages))
  })

  it('the Next.js guide installs what pack:packages prints for it', () => {
    const guide = docs.find((d) => d.file === 'docs/framework/next.md')!
    const shown = installCommands(guide.text).filter((command) => command.includes('.tgz'))
    const printed = installLines('<clone>/packs', packages).find((l) => l.label === 'The Next.js guide')!
    expect(shown.map((command) => tarballsOf(command).names.sort())).toContainEqual(printed.names)
  })

  it.each(installLines('/somewhere/packs', packages))(
    'pack:packages prints $label with its closure',
    (line) => {
      const { names, unknown } = tarballsOf(line.command)
      expect(unknown).toEqual([])
      expect(names.length).toBeGreaterThan(0)
      expect(names.sort()).toEqual(withDependencies(names, packages))
    },
  )

  it('the closure follows dependencies and required peers (@toolmark/next needs forms and protocol)', () => {
    expect(withDependencies(['@toolmark/next'], packages)).toEqual([
      '@toolmark/bridge',
      '@toolmark/core',
      '@toolmark/forms',
      '@toolmark/next',
      '@toolmark/protocol',
      '@toolmark/react',
    ])
  })
})
