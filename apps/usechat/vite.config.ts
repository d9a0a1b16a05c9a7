import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig } from 'vite'

/** Where `vite dev` forwards the chat route, the conversation API and the bridge: `node server.ts` (see README). */
const server = process.env.TOOLMARK_USECHAT_SERVER ?? 'http://127.0.0.1:8788'

export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['@toolmark/source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': { target: server }, '/toolmark': { target: server } },
  },
})
