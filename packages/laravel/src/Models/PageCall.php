<?php

namespace Toolmark\Laravel\Models;

use Illuminate\Database\Eloquent\Model;

/**
 * One call or describe sent to a page, bound before it was sent. `state` is pending, answered or
 * timed_out; `origin` is agent (the agent loop), app (`Toolmark::call`) or reask (a pending
 * decision asked again on a new page load). An agent's call keeps its `input` only when masking
 * leaves it whole.
 *
 * @property string $id
 * @property int $user_id
 * @property int $conversation_id
 * @property string $client_id
 * @property string $kind
 * @property string $tool
 * @property string $tool_call_id
 * @property string $origin
 * @property string $state
 */
class PageCall extends Model
{
    protected $table = 'toolmark_calls';

    protected $keyType = 'string';

    public $incrementing = false;

    protected $guarded = [];

    protected $casts = ['deadline_at' => 'datetime'];
}
