import type { ConfirmationCardData } from '@toolmark/core';
interface Props {
    /** A pending item (`$pending`) or an inline request (`$requests`), with its answers. */
    confirmation: ConfirmationCardData & {
        approve(): unknown;
        reject(): unknown;
    };
}
declare const ConfirmationCard: import("svelte").Component<Props, {}, "">;
type ConfirmationCard = ReturnType<typeof ConfirmationCard>;
export default ConfirmationCard;
