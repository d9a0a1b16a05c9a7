<?php

namespace Toolmark\Laravel\Events;

use Illuminate\Broadcasting\PrivateChannel;
use Illuminate\Contracts\Broadcasting\ShouldBroadcastNow;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Models\ConversationMessage;

/**
 * One new chat line (masked text only) on the conversation's private channel, as `.toolmark.chat`.
 * An assistant line carries the `messageId` of its streamed text (ToolmarkDelta), which it replaces;
 * a tool line its part (ToolParts). A line whose text would make the event too large for the
 * broadcaster comes without `text`: the page reloads its chat instead. Sent when `toolmark.chat_events` is on.
 */
final class ToolmarkChat implements ShouldBroadcastNow
{
    /** Pusher and Reverb refuse events over 10 KB; this leaves room for the channel and event names. */
    public const MAX_TEXT_BYTES = 8000;

    /** The roles the chat shows. */
    public const ROLES = ['user', 'assistant', 'tool'];

    /** The chat line of the conversation owned by the user with this id. */
    public function __construct(
        public readonly int $userId,
        public readonly int $conversationId,
        public readonly ConversationMessage $line,
    ) {}

    /** The conversation's private channel `toolmark.{user}.{conversation}`. */
    public function broadcastOn(): PrivateChannel
    {
        return new PrivateChannel(Wire::NAMES['channelPrefix'].".{$this->userId}.{$this->conversationId}");
    }

    /** The page listens to `.toolmark.chat`. */
    public function broadcastAs(): string
    {
        return Wire::NAMES['chatEvent'];
    }

    /**
     * The line (ConversationMessage::toChat()): with the `messageId` of its streamed text (the
     * `.toolmark.delta` events it ends) and a tool line's `part`, when it has them.
     *
     * @return array{message: array{id: int, role: string, text?: string, messageId?: string, part?: array<string, string>}}
     */
    public function broadcastWith(): array
    {
        $message = $this->line->toChat();
        if (strlen((string) json_encode($message)) > self::MAX_TEXT_BYTES) {
            unset($message['text']);
        }

        return ['message' => $message];
    }
}
