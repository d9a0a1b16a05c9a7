import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defaultClientConditions, defineConfig } from 'vite'

export default defineConfig({
  plugins: [svelte({ configFile: false })],
  // Workspace packages resolve to their TypeScript (and .svelte) sources: no package build needed.
  resolve: { conditions: ['@toolmark/source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
})
