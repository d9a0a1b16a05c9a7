// Bundle-size budgets (gzip), measured with rolldown (Vite 8's bundler: minified ESM, browser target,
// code splitting) + zlib. A budget covers what a page loads up front; chunks loaded on demand are
// printed beside it.
// "on top of core" budgets subtract the core main entry bundled alone, as the issue asks.
import { gzipSync } from 'node:zlib'
import { rolldown } from 'rolldown'

const KiB = 1024
const budgets = [
  {
    name: '@toolmark/core (main entry, everything)',
    code: "export * from '@toolmark/core'",
    // Grew with the start guard, the typed consumer API and the published sensitive paths (15.05 →
    // 16.66 KiB with esbuild, 16.26 with rolldown); everything includes fromJsonSchema, which
    // createToolmark alone no longer does (16.50 with the on-demand loader, 16.00 without the
    // development-only code, 16.37 as two chunks once the compiler has a chunk of its own: the
    // price of no INEFFECTIVE_DYNAMIC_IMPORT warning in apps that also use forms or tours; 16.49
    // once the registry and the JSON Schema compiler were split into smaller units).
    max: 16.55 * KiB,
    goal: 8 * KiB,
  },
  {
    name: '@toolmark/core (createToolmark + ok)',
    code: "export { createToolmark, ok } from '@toolmark/core'",
    // 14.83 → 12.41 KiB (rolldown): the JSON Schema compiler loads on demand (schema/lazy.ts);
    // → 11.89 KiB: development-only warnings and checks compiled out (dev.ts).
    max: 12 * KiB,
    goal: 10 * KiB,
  },
  { name: '@toolmark/core/bridge', code: "export * from '@toolmark/core/bridge'", max: 5.5 * KiB },
  {
    name: '@toolmark/core/bridge/http (SSE + POST transport)',
    code: "export * from '@toolmark/core/bridge/http'",
    max: 2 * KiB,
  },
  {
    name: '@toolmark/core/forms (form tools + wizards), on top of core',
    code: "export * from '@toolmark/core/forms'; export * from '@toolmark/core'",
    base: "export * from '@toolmark/core'",
    max: 2.5 * KiB,
  },
  {
    name: '@toolmark/core/forms/dom (scan + live DOM values), on top of core',
    code: "export * from '@toolmark/core/forms/dom'; export * from '@toolmark/core'",
    base: "export * from '@toolmark/core'",
    max: 4 * KiB,
  },
  {
    name: '@toolmark/core/server-tools, on top of core',
    code: "export * from '@toolmark/core/server-tools'; export * from '@toolmark/core'",
    base: "export * from '@toolmark/core'",
    max: 2 * KiB,
  },
  {
    name: '@toolmark/core/tour (runner + overlay), on top of core',
    code: "export * from '@toolmark/core/tour'; export * from '@toolmark/core'",
    base: "export * from '@toolmark/core'",
    max: 2.5 * KiB,
  },
  { name: '@toolmark/core/protocol', code: "export * from '@toolmark/core/protocol'", max: 6 * KiB },
  { name: '@toolmark/core/webmcp', code: "export * from '@toolmark/core/webmcp'", max: 2 * KiB },
  { name: '@toolmark/core/otel', code: "export * from '@toolmark/core/otel'", max: 1.5 * KiB },
  { name: '@toolmark/core/mcp', code: "export * from '@toolmark/core/mcp'", max: 2.25 * KiB },
  {
    name: '@toolmark/react minimal (provider + useTool), on top of core',
    code: "export { ToolmarkProvider, useTool } from '@toolmark/react'; export * from '@toolmark/core'",
    external: ['react', 'react/jsx-runtime', 'react-dom'],
    dir: 'packages/react',
    base: "export * from '@toolmark/core'",
    max: 2000,
  },
  {
    name: '@toolmark/vue minimal (plugin + useTool), on top of core',
    code: "export { ToolmarkPlugin, useTool } from '@toolmark/vue'; export * from '@toolmark/core'",
    external: ['vue'],
    dir: 'packages/vue',
    base: "export * from '@toolmark/core'",
    max: 2000,
  },
  {
    name: '@toolmark/next (provider, route scopes, route tools, navigation tool), on top of @toolmark/react',
    code: "export * from '@toolmark/next'; export * from '@toolmark/react'; export * from '@toolmark/core'",
    external: ['react', 'react/jsx-runtime', 'react-dom', 'next', 'next/*'],
    dir: 'packages/next',
    base: "export * from '@toolmark/react'; export * from '@toolmark/core'",
    max: 2 * KiB,
  },
  {
    name: '@toolmark/react/forms (react-hook-form), on top of core + forms',
    code: "export * from '@toolmark/react/forms'; export * from '@toolmark/core/forms'; export * from '@toolmark/core'",
    external: ['react', 'react/jsx-runtime', 'react-dom', 'react-hook-form'],
    dir: 'packages/react',
    base: "export * from '@toolmark/core/forms'; export * from '@toolmark/core'",
    max: 1024,
  },
  {
    name: '@toolmark/vue/forms (VeeValidate), on top of core + forms',
    code: "export * from '@toolmark/vue/forms'; export * from '@toolmark/core/forms'; export * from '@toolmark/core'",
    external: ['vue', 'vee-validate'],
    dir: 'packages/vue',
    base: "export * from '@toolmark/core/forms'; export * from '@toolmark/core'",
    max: 1024,
  },
  {
    name: '@toolmark/inertia (bindInertia + connectEcho), on top of core and its bridge',
    code: "export { bindInertia, connectEcho } from '@toolmark/inertia'; export * from '@toolmark/core'; export * from '@toolmark/core/bridge'; export * from '@toolmark/core/bridge/echo'",
    dir: 'packages/inertia',
    base: "export * from '@toolmark/core'; export * from '@toolmark/core/bridge'; export * from '@toolmark/core/bridge/echo'",
    max: 2000,
  },
  {
    // A server bundle, measured like the others: what an edge or serverless function ships for the
    // Web-standard entry (Hono, the protocol's validators and the in-memory store included; 24.67 KiB
    // when it was added).
    name: '@toolmark/server (createToolmarkServer, Web-standard, with Hono)',
    code: "export { createToolmarkServer } from '@toolmark/server'",
    dir: 'packages/server',
    max: 26 * KiB,
  },
  {
    name: '@toolmark/server/contract (the chat API types and limit, for the browser)',
    code: "export * from '@toolmark/server/contract'",
    dir: 'packages/server',
    max: 0.1 * KiB,
  },
]

/**
 * Bytes a page loads up front: the entry chunk and the chunks it imports statically, bundled as Vite
 * 8 builds an app (rolldown, code splitting, minified, `process.env.NODE_ENV` "production"), so a
 * dynamic `import()` (the JSON Schema compiler) is a chunk of its own that loads only when needed.
 * Those lazy chunks are returned apart. (esbuild cannot split that chunk out: it assigns chunks before
 * tree-shaking, so a main-entry import keeps the compiler in the initial chunk.)
 */
async function gz(code, external = [], dir = 'packages/core') {
  const entry = new URL(`../${dir}/__size_entry__.js`, import.meta.url).pathname
  const bundle = await rolldown({
    input: entry,
    cwd: new URL(`../${dir}`, import.meta.url).pathname,
    platform: 'browser',
    external: (id) => external.some((e) => (e.endsWith('/*') ? id.startsWith(e.slice(0, -1)) : id === e)),
    resolve: { conditionNames: ['@toolmark/source', 'import', 'module', 'browser', 'production', 'default'] },
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    logLevel: 'silent',
    plugins: [
      {
        name: 'size-entry',
        resolveId: (id) => (id === entry ? id : undefined),
        load: (id) => (id === entry ? code : undefined),
      },
    ],
  })
  const { output } = await bundle.generate({ format: 'esm', minify: true })
  await bundle.close()
  const chunks = new Map(output.filter((c) => c.type === 'chunk').map((c) => [c.fileName, c]))
  const initial = new Set()
  const visit = (name) => {
    if (initial.has(name) || !chunks.has(name)) return
    initial.add(name)
    for (const i of chunks.get(name).imports) visit(i)
  }
  for (const c of chunks.values()) if (c.isEntry) visit(c.fileName)
  let up = 0
  let lazy = 0
  for (const c of chunks.values()) {
    const n = gzipSync(c.code, { level: 9 }).length
    if (initial.has(c.fileName)) up += n
    else lazy += n
  }
  return { up, lazy }
}

let failed = false
for (const b of budgets) {
  let size
  let lazy
  try {
    const own = await gz(b.code, b.external, b.dir)
    const base = b.base ? await gz(b.base, b.external, b.dir) : { up: 0, lazy: 0 }
    size = own.up - base.up
    lazy = own.lazy - base.lazy
  } catch (err) {
    console.log(`✗ ${b.name}: cannot bundle (${err.message.split('\n')[0]})`)
    failed = true
    continue
  }
  const ok = size <= b.max
  failed ||= !ok
  const goal = b.goal ? `, goal ${(b.goal / KiB).toFixed(2)} KiB` : ''
  const later = lazy > 0 ? ` + ${(lazy / KiB).toFixed(2)} KiB loaded on demand` : ''
  console.log(
    `${ok ? '✓' : '✗'} ${b.name}: ${(size / KiB).toFixed(2)} KiB gzip${later} (budget ${(b.max / KiB).toFixed(2)} KiB${goal})`,
  )
}
process.exit(failed ? 1 : 0)
