/** Text shown on destructive confirmation cards. */
export const DESTRUCTIVE_WARNING = 'This action cannot be undone.';
/** Derives the card view; pure, so each framework only supplies a ticking `now`. */
export function cardView(data, now) {
    const secondsLeft = Math.max(0, Math.ceil((data.expiresAt - now) / 1000));
    const minutes = Math.floor(secondsLeft / 60);
    const seconds = secondsLeft % 60;
    return {
        heading: data.title ?? data.tool,
        summary: data.summary,
        target: data.target,
        changes: data.changes,
        destructive: data.destructive,
        approveLabel: data.destructive ? 'Delete' : 'Approve',
        rejectLabel: 'Reject',
        warning: data.destructive ? DESTRUCTIVE_WARNING : undefined,
        secondsLeft,
        countdown: `${minutes}:${String(seconds).padStart(2, '0')}`,
        expired: secondsLeft === 0,
    };
}
