import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: { index: 'src/index.ts', 'chat/index': 'src/chat/index.ts', 'forms/index': 'src/forms/index.ts' },
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: true,
  external: [/^react/, /^@toolmark\/core/, /^@toolmark\/bridge/],
})
