import type { ConfirmationCardData } from '@toolmark/core';
import { type ConfirmationCardView } from './cardView.js';
/**
 * Headless data for one confirmation card (deferred item or inline request) as `.current`: heading,
 * summary, target, redacted changes, labels and a countdown to `expiresAt` that ticks every second
 * while mounted (`$effect`). The core, not this countdown, decides expiry at approval time.
 * Pass a getter (`() => confirmation`) so prop changes are followed. Call during component init.
 */
export declare function useConfirmationCard(data: () => ConfirmationCardData): {
    readonly current: ConfirmationCardView;
};
