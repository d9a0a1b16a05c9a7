<?php

namespace Toolmark\Laravel\Models;

use Illuminate\Database\Eloquent\Model;

/**
 * One chat line. `text` (shown in the chat) and `agent` (the model's history entry) are stored
 * masked; `secret_text` holds the user's message as typed, encrypted, until the turn ends.
 *
 * @property int $id
 * @property int $conversation_id
 * @property string $role user | assistant | tool
 * @property string $text
 * @property array<string, mixed>|null $agent
 * @property string|null $secret_text
 */
class ConversationMessage extends Model
{
    protected $table = 'conversation_messages';

    protected $guarded = ['id'];

    protected $hidden = ['secret_text'];

    protected $casts = ['agent' => 'array', 'secret_text' => 'encrypted'];
}
