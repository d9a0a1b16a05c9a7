import { defineConfig } from 'tsdown'

/**
 * The JSON Schema compiler that `schema/lazy.ts` loads on demand is published as a standalone file,
 * so no chunk of the main build is both imported statically (by the entry that exports
 * `fromJsonSchema`) and dynamically: esbuild (Next.js, webpack users' minifiers) would otherwise put
 * that shared chunk up front, compiler and all, for an app that imports only `createToolmark`.
 */
const COMPILER = './schema-compiler.mjs'

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
      'adapter/index': 'src/adapter/index.ts',
      'webmcp/index': 'src/webmcp/index.ts',
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
        name: 'standalone-schema-compiler',
        resolveId: (id: string, importer: string | undefined) =>
          id === './compiler-chunk.ts' && importer?.endsWith('/schema/lazy.ts')
            ? { id: COMPILER, external: true }
            : undefined,
      },
    ],
  },
  {
    entry: { 'schema-compiler': 'src/schema/compiler-chunk.ts' },
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    dts: false,
    sourcemap: true,
    clean: false,
    fixedExtension: true,
  },
])
