import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    echo: 'src/echo.ts',
    http: 'src/http.ts',
    websocket: 'src/websocket.ts',
    'post-message': 'src/post-message.ts',
    'in-page': 'src/in-page.ts',
    'server-tools': 'src/server-tools/index.ts',
    chat: 'src/chat/index.ts',
    context: 'src/context.ts',
    progress: 'src/progress.ts',
    grants: 'src/grants/index.ts',
  },
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: true,
})
