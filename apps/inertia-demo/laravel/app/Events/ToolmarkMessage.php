<?php

namespace App\Events;

use Illuminate\Broadcasting\PrivateChannel;
use Illuminate\Contracts\Broadcasting\ShouldBroadcastNow;
use Illuminate\Foundation\Events\Dispatchable;

/** One agent → page protocol message on the conversation's private channel. */
final class ToolmarkMessage implements ShouldBroadcastNow
{
    use Dispatchable;

    /** @param array<string, mixed> $message */
    public function __construct(
        public readonly int $userId,
        public readonly int $conversationId,
        public readonly array $message,
    ) {}

    public function broadcastOn(): PrivateChannel
    {
        return new PrivateChannel("toolmark.{$this->userId}.{$this->conversationId}");
    }

    public function broadcastAs(): string
    {
        return 'toolmark.message'; // the page listens to '.toolmark.message'
    }

    /** @return array{message: array<string, mixed>} */
    public function broadcastWith(): array
    {
        return ['message' => $this->message];
    }
}
