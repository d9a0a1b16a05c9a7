import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    react: 'src/react/index.tsx',
    vue: 'src/vue/index.ts',
    svelte: 'src/svelte/index.ts',
  },
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: true,
  external: [/^react/, /^vue/, /^svelte/, /^@toolmark\//, /^@inertiajs\//, /^laravel-echo/, /^pusher-js/],
})
