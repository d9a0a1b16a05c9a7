import { defineConfig } from 'tsdown'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'protocol/index': 'src/protocol/index.ts',
    'bridge/index': 'src/bridge/index.ts',
    'bridge/echo': 'src/bridge/echo.ts',
    'bridge/http': 'src/bridge/http.ts',
    'bridge/websocket': 'src/bridge/websocket.ts',
    'bridge/post-message': 'src/bridge/post-message.ts',
    'bridge/in-page': 'src/bridge/in-page.ts',
    'testing/index': 'src/testing/index.ts',
    'adapter/index': 'src/adapter/index.ts',
    'webmcp/index': 'src/webmcp/index.ts',
    'otel/index': 'src/otel/index.ts',
    'forms/index': 'src/forms/index.ts',
    'forms/dom': 'src/forms/dom-index.ts',
    'server-tools/index': 'src/server-tools/index.ts',
    'tour/index': 'src/tour/index.ts',
  },
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: true,
})
