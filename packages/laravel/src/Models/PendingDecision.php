<?php

namespace Toolmark\Laravel\Models;

use Illuminate\Database\Eloquent\Model;

/**
 * The user's pending decision: the agent's call that answered needs_confirmation, kept apart from the
 * page load that showed its card so a new page load of the conversation is asked it again. `input` is
 * null when the call's input held a secret (it is then never asked again). Decided by the first
 * `confirmed` of any of its cards, or dropped (past its lifetime, the tool changed, or never asked again).
 *
 * @property int $id
 * @property int $conversation_id
 * @property string $tool_call_id
 * @property string $tool
 * @property array<string, mixed>|null $input
 * @property string|null $asked_client_id
 * @property string $state pending | decided | dropped
 */
class PendingDecision extends Model
{
    protected $table = 'toolmark_decisions';

    protected $guarded = [];

    protected $casts = ['input' => 'array'];
}
