// "@toolmark/bridge": the page side of bridge protocol v1.
export { ANSWERED_ID_MEMORY, type Bridge, type BridgeOptions, bridge, getClientId } from './bridge.ts'
export type { BridgeTransport, TransportState } from './transport.ts'
