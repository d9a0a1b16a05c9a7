import { defineConfig } from 'tsdown'

/**
 * One output file per source module (`unbundle`): the core and the bridge import a few tables of this
 * package (the codes, the validator), and with `sideEffects: false` a bundler then leaves out the modules
 * an app does not reach (the JSON Schemas, the LLM tool texts) instead of keeping one file's top level.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', extensions: 'src/extensions.ts' },
  unbundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: true,
})
