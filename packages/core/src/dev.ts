/**
 * Whether development-only warnings and checks are compiled in: `process.env.NODE_ENV` is not
 * `'production'`. Bundlers replace that expression (Vite, webpack and Next by mode; esbuild when
 * minifying for the browser, or with `--define`), so a production bundle drops every `if (DEV)`
 * branch with its messages. Node reads it at startup. Without a bundler in a browser, define
 * `globalThis.process = { env: { NODE_ENV: 'production' } }` before the first import, as for React.
 *
 * Only warnings (`level: 'warning'` events), the `inert_registry` notice, the output check and the
 * registration-time schema conversion depend on it; misconfiguration still throws with `dev: true`
 * and is reported with the same codes and messages in every build.
 */
declare const process: { env: { NODE_ENV?: string } }

export const DEV: boolean = process.env.NODE_ENV !== 'production'
