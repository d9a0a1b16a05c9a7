<?php

namespace App\Events;

use App\Models\ConversationMessage;
use Illuminate\Broadcasting\PrivateChannel;
use Illuminate\Contracts\Broadcasting\ShouldBroadcastNow;
use Illuminate\Foundation\Events\Dispatchable;

/**
 * The demo's chat update: one new chat line (masked text only) on the conversation's private
 * channel, next to the bridge's `.toolmark.message`. The page adds it to the chat; a line whose
 * text would make the event too large for the broadcaster comes without `text`, and the page
 * reloads the chat prop instead.
 */
final class ToolmarkChat implements ShouldBroadcastNow
{
    use Dispatchable;

    /** Pusher and Reverb refuse events over 10 KB; this leaves room for the channel and event names. */
    public const MAX_TEXT_BYTES = 8000;

    /** The roles the chat shows (the same as HandleInertiaRequests' `chat` prop). */
    public const ROLES = ['user', 'assistant', 'tool'];

    public function __construct(
        public readonly int $userId,
        public readonly int $conversationId,
        public readonly ConversationMessage $line,
    ) {}

    public function broadcastOn(): PrivateChannel
    {
        return new PrivateChannel("toolmark.{$this->userId}.{$this->conversationId}");
    }

    public function broadcastAs(): string
    {
        return 'toolmark.chat'; // the page listens to '.toolmark.chat'
    }

    /** @return array{message: array{id: int, role: string, text?: string}} */
    public function broadcastWith(): array
    {
        $message = ['id' => (int) $this->line->id, 'role' => (string) $this->line->role];
        $text = (string) $this->line->text;
        if (strlen((string) json_encode($text)) <= self::MAX_TEXT_BYTES) {
            $message['text'] = $text;
        }

        return ['message' => $message];
    }
}
