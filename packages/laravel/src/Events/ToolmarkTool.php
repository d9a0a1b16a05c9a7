<?php

namespace Toolmark\Laravel\Events;

use Illuminate\Broadcasting\PrivateChannel;
use Illuminate\Contracts\Broadcasting\ShouldBroadcastNow;
use Toolmark\Laravel\Generated\Wire;

/**
 * A page call the agent made started or changed state, on the conversation's private channel as
 * `.toolmark.tool`: `{part}`, as @toolmark/server's `tool` event (ToolParts describes the part; the
 * latest part of a callId wins). Sent when `toolmark.chat_events` is on.
 */
final class ToolmarkTool implements ShouldBroadcastNow
{
    /** @param array{callId: string, tool: string, title?: string, input: string, state: string, summary?: string, confirmId?: string} $part */
    public function __construct(
        public readonly int $userId,
        public readonly int $conversationId,
        public readonly array $part,
    ) {}

    /** The conversation's private channel `toolmark.{user}.{conversation}`. */
    public function broadcastOn(): PrivateChannel
    {
        return new PrivateChannel(Wire::NAMES['channelPrefix'].".{$this->userId}.{$this->conversationId}");
    }

    /** The page listens to `.toolmark.tool`. */
    public function broadcastAs(): string
    {
        return Wire::NAMES['toolEvent'];
    }

    /** @return array{part: array<string, string>} */
    public function broadcastWith(): array
    {
        return ['part' => $this->part];
    }
}
