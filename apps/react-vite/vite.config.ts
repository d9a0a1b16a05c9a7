import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig } from 'vite'

export default defineConfig({
  plugins: [react()],
  // Workspace packages resolve to their TypeScript sources: no package build needed.
  resolve: { conditions: ['@toolmark/source', ...defaultClientConditions] },
  // The end-to-end spec also builds in development mode (React's StrictMode checks on), which is larger.
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
})
