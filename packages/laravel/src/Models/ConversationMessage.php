<?php

namespace Toolmark\Laravel\Models;

use Illuminate\Database\Eloquent\Model;
use Toolmark\Laravel\Casts\FaithfulJson;

/**
 * One chat line. `text` (shown in the chat) and `agent` (the model's history entry) are stored
 * masked; `secret_text` holds the user's message as typed, encrypted, until the turn ends. An
 * assistant line whose text was streamed keeps the streamed text's id (`stream_id`, the deltas'
 * `messageId`); a tool line of an agent's page call keeps its part (ToolParts), masked.
 *
 * @property int $id
 * @property int $conversation_id
 * @property string $role user | assistant | tool
 * @property string $text
 * @property array<string, mixed>|null $agent
 * @property string|null $secret_text
 * @property string|null $stream_id
 * @property array<string, string>|null $part
 */
class ConversationMessage extends Model
{
    protected $table = 'conversation_messages';

    protected $guarded = ['id'];

    protected $hidden = ['secret_text'];

    /** `agent` keeps `{}` as `{}` (a call's input, a result), which the `array` cast would read back as `[]`. */
    protected $casts = ['agent' => FaithfulJson::class, 'secret_text' => 'encrypted', 'part' => 'array'];

    /**
     * The line as the chat shows it (the `.toolmark.chat` event's `message`, and each line of
     * Conversation::chatLines()): id, role and masked text, the streamed text's `messageId` and a
     * tool line's `part` when it has them.
     *
     * @return array{id: int, role: string, text: string, messageId?: string, part?: array<string, string>}
     */
    public function toChat(): array
    {
        $line = ['id' => (int) $this->id, 'role' => (string) $this->role, 'text' => (string) $this->text];
        if ($this->stream_id !== null) {
            $line['messageId'] = (string) $this->stream_id;
        }
        if (is_array($this->part)) {
            $line['part'] = $this->part;
        }

        return $line;
    }
}
