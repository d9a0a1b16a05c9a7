import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig } from 'vite'

/** Where `vite dev` forwards API and bridge traffic: the agent server (`pnpm --filter @toolmark-apps/agent-server start`). */
const server = process.env.TOOLMARK_DEMO_SERVER ?? 'http://127.0.0.1:8787'

export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['@toolmark/source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api': { target: server, changeOrigin: false },
      '/toolmark': { target: server, ws: true, changeOrigin: false },
    },
  },
})
