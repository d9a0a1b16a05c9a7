import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's root folder. */
export const root = fileURLToPath(new URL('../..', import.meta.url))

/** The root package.json's script names: what `npm run <name>` can run from a clone. */
export const rootScripts = new Set(
  Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>),
)

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return []
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return markdownUnder(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

/** Every page a user reads: docs/, the root README and each package's and app's README. */
export function userDocs(): { file: string; text: string }[] {
  const readmes = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, group, entry.name, 'README.md')),
  )
  return [join(root, 'README.md'), ...readmes, ...markdownUnder(join(root, 'docs'))]
    .flatMap((path) => {
      try {
        return [{ file: relative(root, path), text: readFileSync(path, 'utf8') }]
      } catch {
        return []
      }
    })
    .sort((a, b) => a.file.localeCompare(b.file))
}

/** A page's sections: the text from one heading (outside code blocks) to the next. */
export function sections(text: string): { heading: string; body: string }[] {
  const out: { heading: string; body: string }[] = [{ heading: '(top)', body: '' }]
  let fenced = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    if (!fenced && /^#{1,6} /.test(line)) out.push({ heading: line, body: '' })
    const last = out[out.length - 1] as { body: string }
    last.body += `${line}\n`
  }
  return out
}
