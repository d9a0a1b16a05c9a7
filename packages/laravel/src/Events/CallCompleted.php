<?php

namespace Toolmark\Laravel\Events;

/**
 * The page's result for a call was accepted, or its deadline passed (then `result` is the
 * timeout error the agent gets). A `needs_confirmation` result also fires ConfirmationRequested.
 */
final class CallCompleted
{
    /** @param array<string, mixed> $result the result, masked */
    public function __construct(
        public readonly int $conversationId,
        public readonly string $callId,
        public readonly string $tool,
        public readonly array $result,
        public readonly string $origin, // agent | app | reask (a pending decision asked again)
    ) {}
}
