<?php

namespace Toolmark\Laravel\Events;

/** A call or describe was bound and sent to the page (by the agent loop or `Toolmark::call`). */
final class CallRequested
{
    /** @param array<string, mixed> $input the input, masked (the page gets it as the model wrote it) */
    public function __construct(
        public readonly int $conversationId,
        public readonly string $callId,
        public readonly string $kind,
        public readonly string $tool,
        public readonly array $input,
        public readonly string $origin, // agent | app | reask (a pending decision asked again)
    ) {}
}
