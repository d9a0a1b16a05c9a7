import { defineConfig } from 'tsdown'

export default defineConfig({
  // index and cli are Node-only (the relay); page and protocol are browser-safe (a test bundles them
  // for the browser and checks that no Node module comes along).
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    page: 'src/page/index.ts',
    protocol: 'src/protocol/index.ts',
  },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: true,
})
