<?php

namespace Toolmark\Laravel\Models;

use Illuminate\Database\Eloquent\Model;

/**
 * A confirmId from an accepted needs_confirmation: pending until one `confirmed` uses it, or
 * expired (its page is gone, or it is older than `toolmark.confirm_expiry_minutes`).
 *
 * @property string $confirm_id
 * @property string $call_id
 * @property string $tool
 * @property string $summary
 * @property string $state pending | used | expired
 */
class Confirmation extends Model
{
    protected $table = 'toolmark_confirmations';

    protected $primaryKey = 'confirm_id';

    protected $keyType = 'string';

    public $incrementing = false;

    protected $guarded = [];
}
