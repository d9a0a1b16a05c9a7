// "@toolmark/devtools": the entry hook. Placeholder until the panel lands; the recorder is public.
export type { Session } from './recorder.ts'
