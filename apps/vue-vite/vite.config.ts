import vue from '@vitejs/plugin-vue'
import { defaultClientConditions, defineConfig } from 'vite'

export default defineConfig({
  plugins: [vue()],
  // Workspace packages resolve to their TypeScript sources: no package build needed.
  resolve: { conditions: ['@toolmark/source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
})
