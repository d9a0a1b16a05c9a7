<?php

namespace Toolmark\Laravel\Events;

/**
 * A pending confirmation ended: the user answered it (`confirmed` accepted once; `result` is the
 * tool's outcome), or its page is gone, its lifetime ran out, or another card of the same decision
 * was answered first on another page load (`result` is the confirmation_expired refusal).
 */
final class ConfirmationResolved
{
    /** @param array<string, mixed> $result the outcome, masked */
    public function __construct(
        public readonly int $conversationId,
        public readonly string $confirmId,
        public readonly string $tool,
        public readonly array $result,
    ) {}
}
