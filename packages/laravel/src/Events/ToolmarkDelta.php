<?php

namespace Toolmark\Laravel\Events;

use Illuminate\Broadcasting\PrivateChannel;
use Illuminate\Contracts\Broadcasting\ShouldBroadcastNow;
use Toolmark\Laravel\Generated\Wire;

/**
 * A batch of the assistant's text as it streams (masked), on the conversation's private channel as
 * `.toolmark.delta`: `{messageId, delta}`, as @toolmark/server's `text-delta`. The deltas of one
 * messageId add up to the reply so far; the `.toolmark.chat` line with the same `messageId` ends it
 * with the whole, final text, which wins. Sent when `toolmark.chat_events` and `toolmark.stream.enabled` are on.
 */
final class ToolmarkDelta implements ShouldBroadcastNow
{
    /** A delta of the streamed message `$messageId` in the conversation owned by the user with this id. */
    public function __construct(
        public readonly int $userId,
        public readonly int $conversationId,
        public readonly string $messageId,
        public readonly string $delta,
    ) {}

    /** The conversation's private channel `toolmark.{user}.{conversation}`. */
    public function broadcastOn(): PrivateChannel
    {
        return new PrivateChannel(Wire::NAMES['channelPrefix'].".{$this->userId}.{$this->conversationId}");
    }

    /** The page listens to `.toolmark.delta`. */
    public function broadcastAs(): string
    {
        return Wire::NAMES['deltaEvent'];
    }

    /** @return array{messageId: string, delta: string} */
    public function broadcastWith(): array
    {
        return ['messageId' => $this->messageId, 'delta' => $this->delta];
    }
}
