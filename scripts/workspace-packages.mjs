// The public @toolmark/* packages of this workspace and what their tarballs need beside them. None is on
// the npm registry yet, so a tarball whose package depends on another @toolmark package installs only
// when that package's tarball is in the same `npm install`: npm would otherwise ask the registry and get
// a 404. `npm run pack:packages` prints its lines from here, and the docs' test checks each documented
// install line against the same closure.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * @typedef {{ name: string, version: string, dir: string, needs: string[] }} WorkspacePackage
 * `needs`: the workspace packages it depends on (dependencies and required peer dependencies).
 */

/**
 * The public (not private) packages under `<root>/packages`, by name.
 * @param {string} root the repository's root folder
 * @returns {Map<string, WorkspacePackage>}
 */
export function publicPackages(root) {
  const manifests = readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, json: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  const names = new Set(manifests.map(({ json }) => json.name))
  const found = new Map()
  for (const { dir, json } of manifests) {
    if (json.private) continue
    const optional = json.peerDependenciesMeta ?? {}
    const required = [
      ...Object.keys(json.dependencies ?? {}),
      ...Object.keys(json.peerDependencies ?? {}).filter((peer) => !optional[peer]?.optional),
    ]
    const needs = required.filter((dep) => names.has(dep)).sort()
    found.set(json.name, { name: json.name, version: json.version, dir, needs })
  }
  return found
}

/**
 * `names` with every workspace package they need, directly or through another one, sorted.
 * @param {Iterable<string>} names package names (`@toolmark/next`)
 * @param {Map<string, WorkspacePackage>} packages from {@link publicPackages}
 * @returns {string[]}
 */
export function withDependencies(names, packages) {
  const seen = new Set()
  const visit = (name) => {
    if (seen.has(name)) return
    const pkg = packages.get(name)
    if (!pkg) throw new Error(`${name} is not a public package of this workspace`)
    seen.add(name)
    for (const dep of pkg.needs) visit(dep)
  }
  for (const name of names) visit(name)
  return [...seen].sort()
}

/**
 * The file `pnpm pack` writes for a package (`@toolmark/core` 0.1.0 → `toolmark-core-0.1.0.tgz`).
 * @param {WorkspacePackage} pkg
 */
export function tarballName(pkg) {
  return `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`
}

/** The packages the Next.js guide (docs/framework/next.md) installs, before their dependencies are added. */
export const NEXT_GUIDE = [
  '@toolmark/next',
  '@toolmark/react',
  '@toolmark/core',
  '@toolmark/bridge',
  '@toolmark/server',
  '@toolmark/offline-agent',
]

/**
 * The `npm install` lines `pack:packages` prints: the core alone, and the Next.js guide's packages, each
 * with the tarballs of every workspace package they need.
 * @param {string} dir the folder holding the tarballs
 * @param {Map<string, WorkspacePackage>} packages from {@link publicPackages}
 * @returns {{ label: string, names: string[], command: string }[]}
 */
export function installLines(dir, packages) {
  const line = (label, wanted) => {
    const names = withDependencies(wanted, packages)
    const files = names.map((name) => join(dir, tarballName(packages.get(name))))
    return { label, names, command: `npm install ${files.join(' ')} zod` }
  }
  return [line('The core alone', ['@toolmark/core']), line('The Next.js guide', NEXT_GUIDE)]
}
