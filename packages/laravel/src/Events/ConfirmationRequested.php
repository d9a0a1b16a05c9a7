<?php

namespace Toolmark\Laravel\Events;

/** A page answered a call with needs_confirmation: a card waits for the user; its confirmId is bound. */
final class ConfirmationRequested
{
    /** The summary is masked. */
    public function __construct(
        public readonly int $conversationId,
        public readonly string $callId,
        public readonly string $confirmId,
        public readonly string $tool,
        public readonly string $summary,
    ) {}
}
