import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    store: 'src/store.ts',
    testing: 'src/testing.ts',
    node: 'src/node.ts',
    sqlite: 'src/sqlite.ts',
    postgres: 'src/postgres.ts',
    redis: 'src/redis.ts',
    anthropic: 'src/anthropic.ts',
    openai: 'src/openai.ts',
    'openai-compat': 'src/openai-compat.ts',
    contract: 'src/contract.ts',
    'ai-sdk': 'src/ai-sdk.ts',
    'ui-stream': 'src/ui-stream.ts',
    'ag-ui': 'src/ag-ui.ts',
  },
  format: 'esm',
  platform: 'neutral',
  target: 'node20',
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: true,
})
