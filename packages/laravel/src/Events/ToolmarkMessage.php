<?php

namespace Toolmark\Laravel\Events;

use Illuminate\Broadcasting\PrivateChannel;
use Illuminate\Contracts\Broadcasting\ShouldBroadcastNow;
use Toolmark\Laravel\Generated\Wire;

/**
 * One agent → page protocol message (`call`, `describe`, `cancel`) on the conversation's private
 * channel `toolmark.{user}.{conversation}`, as `.toolmark.message`. It broadcasts at once (not
 * queued): the binding is stored first and the deadline already runs.
 */
final class ToolmarkMessage implements ShouldBroadcastNow
{
    /** @param array<string, mixed> $message */
    public function __construct(
        public readonly int $userId,
        public readonly int $conversationId,
        public readonly array $message,
    ) {}

    /** The conversation's private channel `toolmark.{user}.{conversation}`. */
    public function broadcastOn(): PrivateChannel
    {
        return new PrivateChannel(Wire::NAMES['channelPrefix'].".{$this->userId}.{$this->conversationId}");
    }

    /** The page listens to `.toolmark.message`. */
    public function broadcastAs(): string
    {
        return Wire::NAMES['messageEvent'];
    }

    /** @return array{message: array<string, mixed>} */
    public function broadcastWith(): array
    {
        return ['message' => $this->message];
    }
}
