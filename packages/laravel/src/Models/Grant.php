<?php

namespace Toolmark\Laravel\Models;

use Illuminate\Database\Eloquent\Model;

/**
 * A remembered approval of one page tool, for one user and one kind of caller: until `expires_at`
 * (epoch ms), or in one conversation. The page's registry checks the tool, its fingerprint, the caller
 * and the expiry of every grant again; the server only keeps the user's list.
 *
 * @property string $id
 * @property int $user_id
 * @property string $tool
 * @property string|null $title
 * @property string $fingerprint
 * @property string $caller
 * @property int|null $conversation_id
 * @property int $granted_at
 * @property int|null $expires_at
 */
class Grant extends Model
{
    protected $table = 'toolmark_grants';

    protected $keyType = 'string';

    public $incrementing = false;

    public $timestamps = false;

    protected $guarded = [];

    protected $casts = ['user_id' => 'integer', 'conversation_id' => 'integer', 'granted_at' => 'integer', 'expires_at' => 'integer'];

    /** The grant as the grants routes send it (the page's `Grant`). */
    public function toWire(): array
    {
        return array_filter([
            'id' => $this->id,
            'tool' => $this->tool,
            'title' => $this->title,
            'fingerprint' => $this->fingerprint,
            'caller' => $this->caller,
            'conversation' => $this->conversation_id === null ? null : (string) $this->conversation_id,
            'createdAt' => $this->granted_at,
            'expiresAt' => $this->expires_at,
        ], fn ($value) => $value !== null);
    }
}
