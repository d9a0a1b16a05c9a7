import { defineConfig } from 'tsdown'

/**
 * What loads on demand is published as standalone files, each with its own copy of the helpers it
 * shares with the registry:
 *
 * - the JSON Schema compiler that `schema/lazy.ts` loads, so no chunk of the main build is both
 *   imported statically (by the entry that exports `fromJsonSchema`) and dynamically: esbuild
 *   (Next.js, webpack users' minifiers) would otherwise put that shared chunk up front, compiler and
 *   all, for an app that imports only `createToolmark`;
 * - what only some calls need (confirmations, the wait for an asynchronous validator, `ctx.confirm`,
 *   an undo restorer's run), which `call/lazy.ts` loads: a chunk that imported the registry's helpers
 *   (results, redaction, paths, the code tables, ids, clock) would make both esbuild and rolldown put
 *   those helpers in a second file loaded up front, which gzips worse than one (about 0.4 KiB).
 *
 * So the rule for code in those chunks: what crosses between them and the registry is plain data
 * and functions, never an instance checked with `instanceof` nor a constant compared by identity
 * (each side has its own copy of `SensitivePatterns`, `ToolmarkError`, `NO_CONFIRMATIONS`).
 */
const STANDALONE: Record<string, string> = {
  '/schema/lazy.ts': './compiler-chunk.ts',
  '/call/lazy.ts': './chunk.ts',
}
const STANDALONE_FILE: Record<string, string> = {
  './compiler-chunk.ts': './schema-compiler.mjs',
  './chunk.ts': './call-chunk.mjs',
}

/** A standalone on-demand file: bundled alone, with @toolmark/protocol's code tables inlined. */
const standalone = (name: string, file: string) => ({
  entry: { [name]: file },
  format: 'esm' as const,
  platform: 'neutral' as const,
  target: 'es2022',
  dts: false,
  sourcemap: true,
  clean: false,
  fixedExtension: true,
  deps: { alwaysBundle: ['@toolmark/protocol'] },
})

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
      'adapter/index': 'src/adapter/index.ts',
      'webmcp/index': 'src/webmcp/index.ts',
      'grants/index': 'src/grants/index.ts',
    },
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    dts: true,
    sourcemap: true,
    clean: true,
    fixedExtension: true,
    // newId in a chunk of its own: add-ons that load it lazily (the devtools panel) then share only
    // that small chunk with the page's initial bundle, not the registry's chunk it used to sit in.
    outputOptions: { codeSplitting: { groups: [{ name: 'ids', test: /[\\/]src[\\/]ids\.ts$/ }] } },
    plugins: [
      {
        name: 'standalone-chunks',
        resolveId: (id: string, importer: string | undefined) => {
          const from = Object.keys(STANDALONE).find((suffix) => importer?.endsWith(suffix))
          return from !== undefined && STANDALONE[from] === id
            ? { id: STANDALONE_FILE[id] as string, external: true }
            : undefined
        },
      },
    ],
  },
  standalone('schema-compiler', 'src/schema/compiler-chunk.ts'),
  standalone('call-chunk', 'src/call/chunk.ts'),
])
