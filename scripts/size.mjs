// Bundle-size budgets (gzip), measured from the published `dist` (run `pnpm build` first) with both
// bundlers an app may use: rolldown (Vite 8) and esbuild (what Next.js, webpack users' minifiers and
// esbuild users get closest to: minified ESM, browser target, code splitting) + zlib. A budget covers
// what a page loads up front, by the larger of the two; chunks loaded on demand are printed beside it.
// "on top of core" budgets subtract the core main entry bundled alone, as the issue asks.
import { relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
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
    // once the registry and the JSON Schema compiler were split into smaller units). Measured from
    // dist with both bundlers: 16.84 rolldown, 17.70 esbuild; 17.34 esbuild once the on-demand
    // compiler is a standalone file (the price: apps that import fromJsonSchema and also leave a
    // jsonSchema tool without a compiler load a second copy on demand); 17.49 with narrow hosts for
    // each part of the registry (object literals where the facade used to pass itself). 17.91
    // esbuild, 16.98 rolldown (+0.42 / +0.45) with the inspection hooks for the devtools: the
    // `blocked` observer (why a call never ran, as data), queue wait and consumers' statuses.
    // 15.34 esbuild, 15.04 rolldown once confirmations load on demand (confirm/lazy.ts) and
    // development-only branches test process.env.NODE_ENV where they sit. 14.53 esbuild, 14.18
    // rolldown once the confirmation chunk is a standalone file (see below); 14.46 esbuild without
    // the development-only residue; 14.39 with the confirmed calls' glue in the confirmation chunk;
    // 13.92 esbuild, 13.62 rolldown once async validation, undo and ctx.confirm share that chunk.
    // 14.01 esbuild, 13.71 rolldown with grants: the registration check (never grantable when
    // destructive), the call's conversation and the `result` event's grant id; the rest of grants
    // (lookup, fingerprint, remembering) is in the on-demand confirmation chunk.
    // 14.85 esbuild, 14.52 rolldown with readable context (tm.context, scope.context, readContext,
    // watchContext: declaration, masking, the size bound, revisions and their notification), which
    // `tm.context` needs synchronously, so it cannot load on demand.
    // → 14.09 esbuild, 13.78 rolldown (+0.17): a tool's `callers` (its check, its refusal as
    // unknown_tool with the reason for `blocked`, `info().callers`).
    // → 15.15 esbuild, 14.82 rolldown with all of them: readable context, per-tool callers, ctx.progress.
    // 15.25 esbuild, 14.91 rolldown with grants, readable context, per-tool callers and ctx.progress together.
    // → 12.78 esbuild, 12.48 rolldown: the call pipeline loads on demand with the confirmations (see below).
    max: 12.85 * KiB,
    goal: 8 * KiB,
  },
  {
    name: '@toolmark/core (createToolmark + ok)',
    code: "export { createToolmark, ok } from '@toolmark/core'",
    // 14.83 → 12.41 KiB (rolldown): the JSON Schema compiler loads on demand (schema/lazy.ts);
    // → 11.89 KiB: development-only warnings and checks compiled out (dev.ts). From dist: 12.21
    // rolldown but 16.19 esbuild (the JSON Schema chunk, imported statically by the entry and
    // dynamically by the loader, was put up front); 12.98 esbuild once the loader imports a
    // standalone compiler file (tsdown.config.ts); 13.12 esbuild, 12.31 rolldown with narrow hosts;
    // 13.55 esbuild, 12.73 rolldown with the devtools' inspection hooks (blocked, queue wait, status).
    // → 11.41 esbuild, 11.26 rolldown: confirmations (cards, inline and deferred confirmations, the
    // approver's edit, the pending store, the checks of an approved run) load on demand as a chunk of
    // their own (confirm/lazy.ts, 3.5 KiB), and development-only branches test process.env.NODE_ENV
    // where they sit, so esbuild drops them before tree shaking (the DEV constant it folded too late).
    // → 10.67 esbuild, 10.52 rolldown: the confirmation chunk is a standalone file with its own copy
    // of the helpers it shares with the registry (tsdown.config.ts), so neither bundler splits those
    // helpers into a second file loaded up front (two files gzip about 0.4 KiB worse than one, and
    // the chunk no longer holds the registry's copy of the protocol's tables in the shared file). The
    // price: the chunk loaded on demand grew 3.5 → 5.2 KiB. → 10.61 esbuild, 10.46 rolldown: the
    // development-only tests come first where a production build left a residue (the budget check's
    // call, the inert notice's call, bare `dev` reads), and CallQueue.leave, which nothing called, went.
    // → 10.53 esbuild, 10.38 rolldown: what only confirmed calls need of the pipeline (choosing deferred
    // or inline, the approved run of a deferred confirmation and its result event) is in that chunk.
    // → 9.98 esbuild, 9.84 rolldown: that chunk (now dist/call-chunk.mjs, 6.2 KiB) also holds the wait
    // for an asynchronous validator, ctx.confirm and an undo restorer's run, and checks the inline
    // handler and a late load there; a jsonSchema tool's validator is made by the compiler's chunk;
    // the refused messages and "Tool failed" come from @toolmark/protocol as constants (no table of
    // stale variants, no REFUSED_CODES); one loader for both chunks; smaller hosts and ids.
    // 9.99 → 10.00 esbuild (9.84 → 9.85 rolldown): host.expirePending, which the bridge uses to remove a
    // card the server withdrew (its body is in the confirmation chunk; only the facade's delegate is here).
    // → 10.04 esbuild, 9.90 rolldown with grants (the registration check, the call's conversation and
    // the result event's grant id); their lookup and fingerprint load with the confirmation chunk.
    // → 10.88 esbuild, 10.67 rolldown: readable context (registry/context.ts, part of the registry).
    // → 10.16 esbuild, 9.98 rolldown (+0.17): a tool's `callers` (its check, its refusal as
    // unknown_tool with the reason for `blocked`, `info().callers`).
    // → 11.17 esbuild, 10.96 rolldown with all of them: readable context, per-tool callers, ctx.progress.
    // 11.25 esbuild, 11.04 rolldown with grants, readable context, per-tool callers and ctx.progress together.
    // → 8.67 esbuild, 8.52 rolldown: the whole call pipeline (lookup, policy, validation, the queue, the run,
    // deadlines) is in the on-demand chunk with the confirmations, and registering the first tool starts its
    // load. Up front a page has the registry: declaring tools, scopes and context, manifests. The chunk alone
    // grew 7.23 → 9.19 KiB (esbuild, gzip). A page whose tools confirm loads 17.9 KiB in all against 18.5
    // before; a page whose tools never confirm now loads the chunk too, confirmations and all: 17.9 against
    // 11.3. A chunk of its own for confirmations would save that page a few KiB at the price of a third copy
    // of the helpers the chunks share.
    max: 8.75 * KiB,
    goal: 10 * KiB,
  },
  {
    name: '@toolmark/bridge',
    code: "export * from '@toolmark/bridge'",
    dir: 'packages/bridge',
    // 5.46 → 5.51 KiB: the bridge publishes its connection state and clientId for the devtools.
    // 5.52 → 5.58 (5.41 → 5.46 rolldown): a clientId's delivery state is dropped, with its listener, once empty.
    // 5.58 → 5.72 with an opt-in extension hook for AG-UI answers, removed again (5.58, rolldown 5.46): AG-UI and
    // useChat front ends answer through the page's own tm.confirmPending, so the page ships nothing for them.
    // 5.58 → 5.63 (5.46 → 5.50 rolldown): a `cancel` for a call answered needs_confirmation removes its card (the
    // server withdrew it: another page load answered the decision), without sending `confirmed`.
    // → 5.64 (5.51 rolldown): each call carries its protocol id as call meta `{ id }`, which the progress
    // extension (`@toolmark/bridge/progress`) sends its updates under.
    // → 5.73 (5.60 rolldown): `bridge({ conversation })`, checked once, passed with every call it runs, so
    // approvals remembered "for this conversation" work for the in-app agent's calls.
    max: 5.75 * KiB,
  },
  {
    name: '@toolmark/bridge/http (SSE + POST transport)',
    code: "export * from '@toolmark/bridge/http'",
    dir: 'packages/bridge',
    max: 2 * KiB,
  },
  {
    name: '@toolmark/forms (form tools + wizards), on top of core',
    code: "export * from '@toolmark/forms'; export * from '@toolmark/core'",
    dir: 'packages/forms',
    base: "export * from '@toolmark/core'",
    // 2.54 KiB esbuild once confirmations load on demand: redactChanges (0.2 KiB), which the core
    // loaded up front until then, counts as the forms' own.
    max: 2.6 * KiB,
  },
  {
    name: '@toolmark/forms/dom (scan + live DOM values), on top of core',
    code: "export * from '@toolmark/forms/dom'; export * from '@toolmark/core'",
    dir: 'packages/forms',
    base: "export * from '@toolmark/core'",
    // From dist: 4.76 rolldown, 5.03 esbuild (from source it was 3.9). 5.18 esbuild once
    // confirmations load on demand: redactChanges counts as the forms' own (see above).
    max: 5.25 * KiB,
  },
  {
    name: '@toolmark/bridge/server-tools, on top of core',
    code: "export * from '@toolmark/bridge/server-tools'; export * from '@toolmark/core'",
    dir: 'packages/bridge',
    base: "export * from '@toolmark/core'",
    max: 2 * KiB,
  },
  {
    name: '@toolmark/tour (runner + overlay), on top of core',
    code: "export * from '@toolmark/tour'; export * from '@toolmark/core'",
    dir: 'packages/tour',
    base: "export * from '@toolmark/core'",
    // 2.26 → 2.70 KiB esbuild (2.60 rolldown): domOverlay's `avoid` (the dialog takes the first corner
    // that covers nothing to avoid, placed again when the page changes).
    max: 2.75 * KiB,
  },
  {
    name: '@toolmark/protocol',
    code: "export * from '@toolmark/protocol'",
    dir: 'packages/protocol',
    // Everything a server imports, for servers only (a page's bundle takes the few names core uses). The
    // secret rules and the wire constants both servers read (the PHP package through its generated Wire.php)
    // took it from under 6 to 6.70 KiB esbuild (6.65 rolldown). Both servers' system prompts, JavaScript's
    // white space spelled out for PCRE and the path and key limits of the secret rules: 7.26 (7.21 rolldown).
    max: 7.35 * KiB,
  },
  {
    name: '@toolmark/core/webmcp',
    code: "export * from '@toolmark/core/webmcp'",
    // 1.97 → 2.04 KiB: a structured tool's `ok` data is resolved as the structured result itself.
    max: 2.05 * KiB,
  },
  // Remembered approvals for apps without a server: the memory/localStorage store, the fingerprint.
  { name: '@toolmark/core/grants', code: "export * from '@toolmark/core/grants'", max: 1.5 * KiB },
  {
    name: '@toolmark/otel',
    code: "export * from '@toolmark/otel'",
    dir: 'packages/otel',
    max: 1.5 * KiB,
  },
  {
    name: '@toolmark/mcp/page (mcpPairing, its validator)',
    code: "export * from '@toolmark/mcp/page'",
    dir: 'packages/mcp',
    // 2.08 KiB as @toolmark/core/mcp → 2.65 KiB: the page now checks every relay message strictly
    // (the pairing protocol's validator, a reason per rule). → 3.93 KiB (esbuild; rolldown 3.86):
    // confirmations routed to the MCP client (confirm/confirmed, the editable fields), who called in
    // the call meta and the card, the page's title, and their strict checks (4.01 esbuild on main with the rest).
    // → 4.13 esbuild (rolldown 4.06): readable context sent as `context` and the page's `prompts`.
    // → 4.25 (4.17 rolldown): a relayed call's ctx.progress sent to the relay (at most one per call per 250 ms).
    max: 4.3 * KiB,
  },
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
    code: "export * from '@toolmark/react/forms'; export * from '@toolmark/forms'; export * from '@toolmark/core'",
    external: ['react', 'react/jsx-runtime', 'react-dom', 'react-hook-form'],
    dir: 'packages/react',
    base: "export * from '@toolmark/forms'; export * from '@toolmark/core'",
    max: 1024,
  },
  {
    name: '@toolmark/vue/forms (VeeValidate), on top of core + forms',
    code: "export * from '@toolmark/vue/forms'; export * from '@toolmark/forms'; export * from '@toolmark/core'",
    external: ['vue', 'vee-validate'],
    dir: 'packages/vue',
    base: "export * from '@toolmark/forms'; export * from '@toolmark/core'",
    max: 1024,
  },
  {
    // What the app's main bundle gets: the shortcut listener (and the optional launcher). The panel
    // and its recorder are the chunk loaded on demand, the first time the panel opens. The goal is
    // 0.5 KiB: rolldown gives 0.50 (0.49 once newId has a chunk of its own in the core's build);
    // esbuild gave 0.68 (chunk glue) while the panel took newId from the core's main entry, and 1.36
    // since it takes it (and ROUTES_STATUS) from @toolmark/core/adapter: esbuild splits by file, so the
    // core chunk that the adapter entry imports becomes a chunk shared with the panel, loaded up front
    // as before but as a second file (the same code, gzipped apart).
    name: '@toolmark/devtools entry hook (devtools()), on top of core',
    code: "export { devtools } from '@toolmark/devtools'; export * from '@toolmark/core'",
    dir: 'packages/devtools',
    base: "export * from '@toolmark/core'",
    max: 1.4 * KiB,
  },
  {
    // Opt-in, for development: the WebMCP debugging tool with the recorder it answers from (3.12
    // esbuild, 2.99 rolldown). 3.29 (3.11 rolldown) once the recorder keeps a call's progress, the grant that
    // let it run, and why a tool is hidden from a caller.
    name: '@toolmark/devtools/webmcp (devtoolsWebMcp()), on top of core',
    code: "export { devtoolsWebMcp } from '@toolmark/devtools/webmcp'; export * from '@toolmark/core'",
    dir: 'packages/devtools',
    base: "export * from '@toolmark/core'",
    max: 3.35 * KiB,
  },
  {
    name: '@toolmark/inertia (bindInertia + connectEcho), on top of core and its bridge',
    code: "export { bindInertia, connectEcho } from '@toolmark/inertia'; export * from '@toolmark/core'; export * from '@toolmark/bridge'; export * from '@toolmark/bridge/echo'",
    dir: 'packages/inertia',
    base: "export * from '@toolmark/core'; export * from '@toolmark/bridge'; export * from '@toolmark/bridge/echo'",
    // 1.97 KiB: `environment`, which left the core's main entry for /adapter, counts as the binding's own.
    // 2.04 esbuild once confirmations load on demand (the same code, gzipped beside a smaller core).
    max: 2.1 * KiB,
  },
  {
    // A server bundle, measured like the others: what an edge or serverless function ships for the
    // Web-standard entry (Hono, the protocol's validators and the in-memory store included; 24.67 KiB
    // by rolldown when it was added, 26.27 KiB by esbuild, the larger, once measured by both). Shared mode
    // (the relay's hand-overs between instances, the readiness checks, the asynchronous store) is in it
    // because serverless functions need it most: 28.21 KiB by esbuild then. Turns told when another
    // instance's turn of their conversation ends, and chat events sent only to the instances watching the
    // conversation, made it 29.16 KiB (esbuild; 28.27 rolldown). Pages that reconnect or resume their stream
    // on another instance (routing by the bound page load, the stream hand-over, the retryable 503) made it
    // 30.25 KiB (esbuild; 29.26 rolldown); the limits one user is held to (bodies read up to their limit, page
    // messages bounded at the edge, texts bounded before a provider, caps per user) 30.17 KiB on their own;
    // results masked before they cross Redis, and a call's secrets kept for its result and its confirmation's
    // outcome, 29.62 on their own. All three, with the wire constants read from @toolmark/protocol: 32.54 KiB
    // (esbuild; 31.21 rolldown). Pending decisions asked again after a reload or a restart (relay/decisions.ts,
    // the memory store's decisions): 34.14 KiB from 32.82 (esbuild; 32.79 rolldown).
    name: '@toolmark/server (createToolmarkServer, Web-standard, with Hono)',
    code: "export { createToolmarkServer } from '@toolmark/server'",
    dir: 'packages/server',
    // 34.5 → 37.5: streamed replies (masking across deltas), durable approvals, the confirm extension's relay side
    // (37.25); 36.68 (rolldown 35.24) once that extension was removed. 37.86 (rolldown 36.39) with the grants
    // routes (list, store, revoke a user's remembered approvals, with their strict body check) and the memory
    // store's grants; 37.60 (rolldown 36.12) with the progress extension (ctx.progress relayed to the chat).
    // 38.64 esbuild, 37.15 rolldown with both the grants routes and the progress extension.
    // 38.86 esbuild, 37.36 rolldown with one shared flush clock for streamed replies and the reply read outside
    // the agent's turn function (streaming CPU, bench/streaming.ts).
    // 41.63 esbuild, 40.20 rolldown with the page context extension (its check, the store's latest context per
    // page load, the model's page-data message), structured results for the model, the Coordinator seam (local
    // and cluster), the HTTP split by concern (Sessions, the bridge as a Hono sub-app) and the stores split by
    // aggregate; the split added named classes and methods where closures were.
    // 41.79 esbuild, 40.38 rolldown: a stop signal per model request (no listener pile-up on one shared signal),
    // and close() ends the chat streams too (a host's graceful stop waits for them).
    max: 41.9 * KiB,
  },
  {
    name: '@toolmark/server/contract (the chat API types and limit, for the browser)',
    code: "export * from '@toolmark/server/contract'",
    dir: 'packages/server',
    max: 0.1 * KiB,
  },
]

/**
 * Bytes a page loads up front with rolldown: the entry chunk and the chunks it imports statically,
 * bundled as Vite 8 builds an app (code splitting, minified, `process.env.NODE_ENV` "production"), so
 * a dynamic `import()` (the JSON Schema compiler) is a chunk of its own that loads only when needed.
 * Those lazy chunks are returned apart.
 */
async function rolldownGz(code, external = [], dir = 'packages/core') {
  const entry = new URL(`../${dir}/__size_entry__.js`, import.meta.url).pathname
  const bundle = await rolldown({
    input: entry,
    cwd: new URL(`../${dir}`, import.meta.url).pathname,
    platform: 'browser',
    external: (id) => external.some((e) => (e.endsWith('/*') ? id.startsWith(e.slice(0, -1)) : id === e)),
    resolve: { conditionNames: ['import', 'module', 'browser', 'production', 'default'] },
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

/** The same with esbuild: the entry chunk and what it imports statically, apart from dynamic imports. */
async function esbuildGz(code, external = [], dir = 'packages/core') {
  const cwd = new URL(`../${dir}`, import.meta.url).pathname
  const result = await build({
    entryPoints: ['size-entry'],
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    platform: 'browser',
    write: false,
    absWorkingDir: cwd,
    outdir: '/size-out',
    metafile: true,
    logLevel: 'silent',
    conditions: ['import', 'module', 'browser', 'production', 'default'],
    define: { 'process.env.NODE_ENV': '"production"' },
    external,
    plugins: [
      {
        name: 'size-entry',
        setup(b) {
          b.onResolve({ filter: /^size-entry$/ }, () => ({ path: 'size-entry', namespace: 'size' }))
          b.onLoad({ filter: /.*/, namespace: 'size' }, () => ({
            contents: code,
            resolveDir: cwd,
            loader: 'js',
          }))
        },
      },
    ],
  })
  const outputs = result.metafile.outputs
  const initial = new Set()
  const visit = (name) => {
    if (initial.has(name) || !outputs[name]) return
    initial.add(name)
    for (const i of outputs[name].imports) if (i.kind === 'import-statement') visit(i.path)
  }
  // Chunks loaded with import() are entry points too: start from the size entry alone.
  for (const [name, o] of Object.entries(outputs)) if (o.entryPoint === 'size:size-entry') visit(name)
  let up = 0
  let lazy = 0
  for (const f of result.outputFiles) {
    const name = relative(cwd, f.path)
    if (!outputs[name] || name.endsWith('.map')) continue
    const n = gzipSync(f.contents, { level: 9 }).length
    if (initial.has(name)) up += n
    else lazy += n
  }
  return { up, lazy }
}

const BUNDLERS = { rolldown: rolldownGz, esbuild: esbuildGz }

let failed = false
const fmt = (n) => (n / KiB).toFixed(2)
for (const b of budgets) {
  const sizes = {}
  let error
  for (const [bundler, gz] of Object.entries(BUNDLERS)) {
    try {
      const own = await gz(b.code, b.external, b.dir)
      const base = b.base ? await gz(b.base, b.external, b.dir) : { up: 0, lazy: 0 }
      sizes[bundler] = { up: own.up - base.up, lazy: own.lazy - base.lazy }
    } catch (err) {
      error = `${bundler}: ${err.errors?.[0]?.text ?? err.message.split('\n')[0]}`
      break
    }
  }
  if (error) {
    console.log(`✗ ${b.name}: cannot bundle (${error})`)
    failed = true
    continue
  }
  const size = Math.max(...Object.values(sizes).map((s) => s.up))
  const ok = size <= b.max
  failed ||= !ok
  const goal = b.goal ? `, goal ${fmt(b.goal)} KiB` : ''
  const each = Object.entries(sizes)
    .map(([bundler, s]) => `${bundler} ${fmt(s.up)}${s.lazy > 0 ? ` + ${fmt(s.lazy)} on demand` : ''}`)
    .join(', ')
  console.log(`${ok ? '✓' : '✗'} ${b.name}: ${fmt(size)} KiB gzip (${each}; budget ${fmt(b.max)} KiB${goal})`)
}
process.exit(failed ? 1 : 0)
