<?php

namespace Toolmark\Laravel\Events;

use Illuminate\Broadcasting\PrivateChannel;
use Illuminate\Contracts\Broadcasting\ShouldBroadcastNow;
use Toolmark\Laravel\Generated\Wire;

/**
 * A running page call's progress, on the conversation's private channel as `.toolmark.progress`:
 * `{callId, progress: {fraction?, message?}}`, as @toolmark/server's `tool-progress` event (masked; not stored;
 * the next `.toolmark.tool` part of that callId replaces it). Sent when `toolmark.chat_events` is on.
 */
final class ToolmarkProgress implements ShouldBroadcastNow
{
    /** @param array{fraction?: float|int, message?: string} $progress */
    public function __construct(
        public readonly int $userId,
        public readonly int $conversationId,
        public readonly string $callId,
        public readonly array $progress,
    ) {}

    /** The conversation's private channel `toolmark.{user}.{conversation}`. */
    public function broadcastOn(): PrivateChannel
    {
        return new PrivateChannel(Wire::NAMES['channelPrefix'].".{$this->userId}.{$this->conversationId}");
    }

    /** The page listens to `.toolmark.progress`. */
    public function broadcastAs(): string
    {
        return Wire::NAMES['progressEvent'];
    }

    /** @return array{callId: string, progress: array{fraction?: float|int, message?: string}} */
    public function broadcastWith(): array
    {
        return ['callId' => $this->callId, 'progress' => $this->progress];
    }
}
