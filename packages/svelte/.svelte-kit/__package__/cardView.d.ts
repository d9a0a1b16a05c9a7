import type { ConfirmationCardData } from '@toolmark/core';
/** Text shown on destructive confirmation cards. */
export declare const DESTRUCTIVE_WARNING = "This action cannot be undone.";
/** What a confirmation card renders, derived from the core's card data and the current time. */
export interface ConfirmationCardView {
    /** `title`, else the tool name. */
    heading: string;
    summary: string;
    target: string | undefined;
    changes: ConfirmationCardData['changes'];
    destructive: boolean;
    /** `'Delete'` for destructive tools, `'Approve'` otherwise. */
    approveLabel: 'Delete' | 'Approve';
    rejectLabel: 'Reject';
    /** `'This action cannot be undone.'` for destructive tools. */
    warning: string | undefined;
    /** Whole seconds until `expiresAt` (0 once expired). */
    secondsLeft: number;
    /** `m:ss` until expiry. */
    countdown: string;
    expired: boolean;
}
/** Derives the card view; pure, so each framework only supplies a ticking `now`. */
export declare function cardView(data: ConfirmationCardData, now: number): ConfirmationCardView;
