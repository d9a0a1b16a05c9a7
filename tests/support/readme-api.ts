import { readFileSync } from 'node:fs'
import { fileURLToPath, URL as NodeURL } from 'node:url'

/**
 * The names a package's entry exports (`export { … }` and `export type { … }` lists, aliases by
 * their exported name) and those of them its README's `## API` section never mentions. Paths are
 * relative to `from` (the test's `import.meta.url`; Node's URL, not the test DOM's).
 */
export function readmeApiGaps(
  from: string,
  entry: string,
  readme: string,
): { exported: string[]; missing: string[] } {
  const read = (path: string) => readFileSync(fileURLToPath(new NodeURL(path, from)), 'utf8')
  const index = read(entry)
  const exported = [...index.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map(
        (name) =>
          name
            .replace(/^\s*type\s+/, '')
            .split(' as ')
            .pop()
            ?.trim() ?? '',
      )
      .filter(Boolean),
  )
  const text = read(readme)
  const table = text.slice(text.indexOf('## API'))
  return { exported, missing: exported.filter((name) => !new RegExp(`\\b${name}\\b`).test(table)) }
}
